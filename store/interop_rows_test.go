package store

// The rows this store writes are shaped as upstream's: a file written
// through the v21 API is read by testdata/reference_rows.py (Python's
// sqlite3 and json only) and found to have upstream's columns in
// upstream's order, upstream's storage classes and json.dumps's text.
// (Checked once beyond this, outside the repository: the same calls made
// through upstream c2a3b9ce5's SessionDB, the delegation aside, wrote the
// same rows of every table and the same FTS text, times aside; and
// upstream opened writeEveryRowKind's file without changing its schema and
// read it back with get_session, get_messages, list_sessions_rich and
// export_session.)

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// runRowCheck runs testdata/reference_rows.py on path and returns its
// output lines and whether it found the rows sound.
func runRowCheck(t *testing.T, path string) ([]string, bool) {
	t.Helper()
	cmd := exec.Command(dbtest.Python3(t), "testdata/reference_rows.py", path)
	out, err := cmd.CombinedOutput()
	// Only an exit status is a finding; python failing to start is not.
	if exit := (*exec.ExitError)(nil); err != nil && !errors.As(err, &exit) {
		t.Fatalf("reference_rows.py: %v\n%s", err, out)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n"), err == nil
}

// writeEveryRowKind writes, through the API only, a file with a row of
// every kind the v21 store writes: a gateway session with its peer,
// origin, handoff and messages (observed, with a platform id, an effect
// disposition); a session whose model changed mid-way (two usage rows, a
// billing route, a workspace), with tool calls, reasoning, codex items and
// structured content, then rewound, compacted and restored; an archived
// compression chain with a title; a live lock, a cooldown and a fallback
// streak; a routing entry; a delegation dispatched, completed and claimed;
// and a meta key. It returns the path, closed.
func writeEveryRowKind(t *testing.T) string {
	t.Helper()
	ctx := t.Context()
	s, path := openStore(t, &Options{Now: stepClock(time.Unix(1_790_000_000, 125_000_000), 250*time.Millisecond)})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	mustCreate(t, s, NewSession{ID: "gw", Source: "telegram", UserID: "u-1", SessionKey: "agent:main:telegram:group:-100:7",
		ChatID: "-100", ChatType: "group", ThreadID: "7"})
	must(s.RecordGatewaySessionPeer(ctx, "gw", GatewayPeer{Source: "telegram", SessionKey: "agent:main:telegram:group:-100:7",
		UserID: "u-1", ChatID: "-100", ChatType: "group", ThreadID: "7", DisplayName: "Team / topic 7",
		OriginJSON: json.RawMessage(`{"platform": "telegram", "chat_id": "-100", "thread_id": "7"}`)}))
	must(s.SetExpiryFinalized(ctx, "gw", true))
	mustAppend(t, s, "gw", NewMessage{Role: "user", Content: new("someone else talking"), Observed: true, PlatformMessageID: "tg-1"})
	mustAppend(t, s, "gw", NewMessage{Role: "user", Content: new("@bot hello"), PlatformMessageID: "tg-2"})
	mustAppend(t, s, "gw", NewMessage{Role: "assistant", Content: new("Hi!"), EffectDisposition: "delivered"})
	if _, err := s.RequestHandoff(ctx, "gw", "discord"); err != nil {
		t.Fatal(err)
	}

	mustCreate(t, s, NewSession{ID: "work", Source: "cli", Model: "alpha-1", ModelConfig: json.RawMessage(`{"temperature":0.2,"tags":["é"]}`),
		SystemPrompt: "You are terse.", Cwd: "/projects/demo"})
	must(s.UpdateSessionCwd(ctx, "work", Workspace{Cwd: "/projects/demo", GitBranch: "main", GitRepoRoot: "/projects/demo"}))
	cost := 0.0012
	must(s.UpdateTokenCounts(ctx, "work", TokenUpdate{InputTokens: 120, OutputTokens: 40, APICallCount: 1, EstimatedCostUSD: &cost,
		CostStatus: "estimated", CostSource: "table", BillingProvider: "prov-a", BillingBaseURL: "https://a.example/v1", BillingMode: "metered", Model: "alpha-1"}))
	mustAppend(t, s, "work", NewMessage{Role: "user", Content: new("Summarise the notes")})
	mustAppend(t, s, "work", NewMessage{Role: "assistant", FinishReason: "tool_calls",
		ToolCalls:        json.RawMessage(`[{"id":"c1","type":"function","function":{"name":"web_search","arguments":"{\"q\":\"notes\"}"}}]`),
		Reasoning:        new("look it up"),
		ReasoningDetails: json.RawMessage(`[{"type":"summary","text":"look"}]`), CodexReasoningItems: json.RawMessage(`[{"id":"r1"}]`),
		CodexMessageItems: json.RawMessage(`[{"id":"m1"}]`), TokenCount: new(int64(17))})
	mustAppend(t, s, "work", NewMessage{Role: "tool", Content: new(`{"result": "ok"}`), ToolName: "web_search", ToolCallID: "c1"})
	back := mustAppend(t, s, "work", NewMessage{Role: "user",
		ContentJSON: json.RawMessage(`[{"type":"text","text":"look at this"},{"type":"image_url","image_url":{"url":"data:x"}}]`)})
	mustAppend(t, s, "work", NewMessage{Role: "assistant", Content: new("A picture of notes.")})
	cost2 := 0.003
	must(s.UpdateSessionBillingRoute(ctx, "work", BillingRoute{Provider: "prov-b", BaseURL: "https://b.example/v1"}))
	must(s.UpdateSessionModel(ctx, "work", "beta-2"))
	must(s.UpdateTokenCounts(ctx, "work", TokenUpdate{InputTokens: 210, OutputTokens: 95, CacheReadTokens: 50, ReasoningTokens: 7,
		APICallCount: 2, EstimatedCostUSD: &cost2, ActualCostUSD: new(0.0025), Model: "beta-2", BillingProvider: "prov-b"}))
	if _, err := s.RewindToMessage(ctx, "work", back); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ArchiveAndCompact(ctx, "work", []NewMessage{
		{Role: "assistant", Content: new("[summary of the notes]")},
		{Role: "user", Content: new("continue")},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RestoreRewound(ctx, "work", back); err != nil {
		t.Fatal(err)
	}

	mustCreate(t, s, NewSession{ID: "root", Source: "cli", Model: "alpha-1"})
	mustAppend(t, s, "root", NewMessage{Role: "user", Content: new("old conversation")})
	must(s.SetSessionTitle(ctx, "root", "Archived chain"))
	mustEnd(t, s, "root", "compression")
	mustCreate(t, s, NewSession{ID: "tip", Source: "cli", Model: "alpha-1", ParentSessionID: "root"})
	mustAppend(t, s, "tip", NewMessage{Role: "user", Content: new("continued after compression")})
	if _, err := s.SetSessionArchived(ctx, "tip", true); err != nil {
		t.Fatal(err)
	}

	if ok, err := s.TryAcquireCompressionLock(ctx, "work", "4242:1:nonce", 5*time.Minute); err != nil || !ok {
		t.Fatalf("TryAcquireCompressionLock = %v, %v", ok, err)
	}
	must(s.RecordCompressionFailureCooldown(ctx, "work", Timestamp(1_790_003_600.5), "summary model timed out"))
	must(s.SetCompressionFallbackStreak(ctx, "work", 2))
	must(s.SaveGatewayRoutingEntry(ctx, "profile-default/sessions", "agent:main:telegram:group:-100:7",
		json.RawMessage(`{"session_id": "gw", "platform": "telegram"}`)))
	must(s.DispatchDelegation(ctx, DelegationDispatch{ID: "deleg-1", OriginSession: "agent:main:cli:local", ParentSessionID: "work",
		DispatchedAt: Timestamp(1_790_000_100.25), OwnerPID: 4242, Task: json.RawMessage(`{"goal":"collect numbers","toolsets":["web"]}`)}))
	must(s.CompleteDelegation(ctx, "deleg-1", DelegationCompletion{Status: "completed", CompletedAt: Timestamp(1_790_000_200.5),
		Event:  json.RawMessage(`{"type":"async_delegation","delegation_id":"deleg-1","status":"completed"}`),
		Result: json.RawMessage(`{"status":"completed","summary":"3 numbers"}`)}))
	if ok, err := s.ClaimDelegationDelivery(ctx, "deleg-1", "cli:4242:0f0f"); err != nil || !ok {
		t.Fatalf("ClaimDelegationDelivery = %v, %v", ok, err)
	}
	must(s.SetMeta(ctx, "last_auto_prune", "1790000000.0"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRowsAreUpstreams: reference_rows.py finds every row of a file
// written through the API shaped as upstream writes it (the table counts
// show every kind was written).
func TestRowsAreUpstreams(t *testing.T) {
	t.Parallel()
	path := writeEveryRowKind(t)
	got, ok := runRowCheck(t, path)
	want := []string{"schema_version 1", "sessions 4", "messages 12", "session_model_usage 2", "state_meta 1",
		"gateway_routing 1", "compression_locks 1", "async_delegations 1", "ok"}
	if diff := cmp.Diff(want, got); diff != "" || !ok {
		t.Errorf("reference_rows.py (-want +got):\n%s", diff)
	}
	raw := rawDB(t, path)
	flags := dbtest.Values[string](t, raw, "SELECT id || ':' || active || compacted FROM messages WHERE session_id = 'work' ORDER BY id")
	if diff := cmp.Diff([]string{"4:01", "5:01", "6:01", "7:10", "8:10", "9:10", "10:10"}, flags); diff != "" {
		t.Errorf("the work session's messages id:active,compacted (-want +got):\n%s", diff)
	}
}

// TestRowCheckPassesUpstreamsFile: the check asks no more than upstream
// does: the file upstream c2a3b9ce5 wrote new passes it whole.
func TestRowCheckPassesUpstreamsFile(t *testing.T) {
	t.Parallel()
	got, ok := runRowCheck(t, upstreamFixture(t, "state-v21.db"))
	want := []string{"schema_version 1", "sessions 10", "messages 27", "session_model_usage 2", "state_meta 0",
		"gateway_routing 2", "compression_locks 2", "async_delegations 2", "ok"}
	if diff := cmp.Diff(want, got); diff != "" || !ok {
		t.Errorf("reference_rows.py (-want +got):\n%s", diff)
	}
}

// TestRowCheckFinds: reference_rows.py is not a check that always passes:
// on copies of that file, damaged one way each, it names the problem.
func TestRowCheckFinds(t *testing.T) {
	t.Parallel()
	path := writeEveryRowKind(t)
	for _, tc := range []struct {
		name   string
		damage []string
		want   []string
	}{
		{"CompactJSON", []string{`UPDATE messages SET tool_calls = '[{"id":"c1"}]' WHERE id = 5`},
			[]string{`messages 5: tool_calls is '[{"id":"c1"}]', json.dumps writes '[{"id": "c1"}]'`}},
		{"UnescapedJSON", []string{`UPDATE sessions SET model_config = '{"tags": ["é"]}' WHERE id = 'work'`},
			[]string{`sessions 2: model_config is '{"tags": ["é"]}', json.dumps writes '{"tags": ["\\u00e9"]}'`}},
		{"StructuredContent", []string{`UPDATE messages SET content = char(0) || 'json:[1,2]' WHERE id = 7`},
			[]string{`messages 7: structured content '[1,2]', json.dumps writes '[1, 2]'`}},
		{"BlobContent", []string{`UPDATE messages SET content = CAST(content AS BLOB) WHERE id = 1`},
			[]string{`messages 1: content holds blob in a TEXT column`}},
		{"TextTime", []string{`UPDATE compression_locks SET expires_at = 'soon'`},
			[]string{`compression_locks 1: expires_at holds text in a REAL column`}},
		{"NullObserved", []string{`UPDATE messages SET observed = NULL WHERE id = 2`},
			[]string{`messages 2: observed is NULL, upstream always writes it`}},
		{"Flag", []string{`UPDATE messages SET observed = 2 WHERE id = 1`},
			[]string{`messages 1: observed is 2, not 0 or 1`}},
		{"ExtraColumn", []string{`ALTER TABLE state_meta ADD COLUMN extra TEXT`},
			[]string{`state_meta: columns [('key', 'TEXT', 0, None, 1), ('value', 'TEXT', 0, None, 0), ('extra', 'TEXT', 0, None, 0)], ` +
				`upstream declares [('key', 'TEXT', 0, None, 1), ('value', 'TEXT', 0, None, 0)]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			copied := dbtest.CopyFile(t, path, filepath.Join(t.TempDir(), "state.db"))
			raw := rawDB(t, copied)
			dbtest.Exec(t, raw, tc.damage...)
			if err := raw.Close(); err != nil {
				t.Fatal(err)
			}
			got, ok := runRowCheck(t, copied)
			if diff := cmp.Diff(tc.want, got); diff != "" || ok {
				t.Errorf("reference_rows.py (ok %v; -want +got):\n%s", ok, diff)
			}
		})
	}
}
