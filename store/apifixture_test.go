package store

// The fixture and helpers that the tests of import, export, backup, health
// check and read-only open share.

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// quick returns opts (nil: the defaults) with SynchronousNormal: these
// tests never lose power, and a sync of the WAL on every commit of the
// many small writes they make would have them wait on the disk most of
// their time.
func quick(opts *Options) *Options {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.Synchronous = SynchronousNormal
	return &o
}

// fixtureClock is the clock of the export fixture: every timestamp the
// store writes is distinct and known.
func fixtureClock() func() time.Time {
	return stepClock(time.Unix(1_750_000_000, 250_000_000), 1500*time.Millisecond)
}

// fillExportFixture writes sessions that use every exported column: a
// parent → child → grandchild chain titled "x", "x #2" and none, tool calls
// as a list and as a dict, the reasoning fields, model_config and the
// codex JSON columns, costs NULL, 0 and set, ended and active sessions,
// non-ASCII and <>& text, and a 120 kB message. It returns the number of
// messages written.
func fillExportFixture(t testing.TB, s *Store) int {
	t.Helper()
	ctx := t.Context()
	mustCreate(t, s, NewSession{ID: "root", Source: "cli", Model: "claude-x", UserID: "u1",
		ModelConfig:  json.RawMessage(`{"temperature": 0.5, "stop": ["<end>", "&"], "note": "日本"}`),
		SystemPrompt: "Be brief <b> & kind — ✓"})
	mustAppend(t, s, "root", NewMessage{Role: "user", Content: new("héllo <b> & 日本 — search me")})
	mustAppend(t, s, "root", NewMessage{Role: "assistant", Content: new(""), FinishReason: "tool_calls",
		ToolCalls: json.RawMessage(`[{"id": "c1", "type": "function", "function": {"name": "web_search", "arguments": "{\"q\": \"<x>\"}"}},` +
			`{"id": "c2", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]`),
		Reasoning: new("because <why>"), ReasoningContent: new(""),
		ReasoningDetails:    json.RawMessage(`[{"type": "summary", "text": "<t> & 日"}]`),
		CodexReasoningItems: json.RawMessage(`[{"id": "r1", "encrypted_content": "abc"}]`),
		CodexMessageItems:   json.RawMessage(`[{"id": "m1", "content": "ok"}]`)})
	mustAppend(t, s, "root", NewMessage{Role: "tool", Content: new(`{"ok": true}`), ToolCallID: "c1", ToolName: "web_search", TokenCount: new(int64(7))})
	// A message longer than the export's and the import's buffers.
	mustAppend(t, s, "root", NewMessage{Role: "tool", Content: new(strings.Repeat("a line of file text\n", 6000)), ToolCallID: "c2", ToolName: "read_file"})
	if err := s.SetSessionTitle(ctx, "root", "x"); err != nil {
		t.Fatal(err)
	}
	err := s.UpdateTokenCounts(ctx, "root", TokenUpdate{InputTokens: 100, OutputTokens: 50, CacheReadTokens: 3,
		EstimatedCostUSD: new(0.25), ActualCostUSD: new(0.5), CostStatus: "estimated", BillingProvider: "anthropic", APICallCount: 2})
	if err != nil {
		t.Fatal(err)
	}
	mustEnd(t, s, "root", "compression")

	mustCreate(t, s, NewSession{ID: "child", Source: "cli", ParentSessionID: "root"})
	mustAppend(t, s, "child", NewMessage{Role: "assistant", Content: nil,
		ToolCalls: json.RawMessage(`{"id": "c3", "type": "function", "function": {"name": "web_search", "arguments": "{}"}}`)})
	if err := s.SetSessionTitle(ctx, "child", "x #2"); err != nil {
		t.Fatal(err)
	}
	// An update without an estimate turns the NULL estimate into 0.0.
	if err := s.UpdateTokenCounts(ctx, "child", TokenUpdate{InputTokens: 1}); err != nil {
		t.Fatal(err)
	}
	mustEnd(t, s, "child", "user_exit")

	mustCreate(t, s, NewSession{ID: "grandchild", Source: "cli", ParentSessionID: "child"})
	mustAppend(t, s, "grandchild", NewMessage{Role: "user", Content: new("continue")})

	mustCreate(t, s, NewSession{ID: "tg", Source: "telegram", UserID: "42"})
	mustAppend(t, s, "tg", NewMessage{Role: "user", Content: new("こんにちは <i>&amp;</i>")})
	if err := s.SetSessionTitle(ctx, "tg", "日本語 <b>&"); err != nil {
		t.Fatal(err)
	}

	mustCreate(t, s, NewSession{ID: "empty", Source: "acp"})
	mustEnd(t, s, "empty", "done")
	return 7
}

// exportText is ExportJSONL's output for opts.
func exportText(t testing.TB, s *Store, opts ExportOptions) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := s.ExportJSONL(t.Context(), &buf, opts); err != nil {
		t.Fatalf("ExportJSONL(%+v): %v", opts, err)
	}
	return buf.String()
}

// importText imports text into s and fails the test on an error.
func importText(t testing.TB, s *Store, text string, opts ImportOptions) ImportResult {
	t.Helper()
	res, err := s.ImportJSONL(t.Context(), strings.NewReader(text), opts)
	if err != nil {
		t.Fatalf("ImportJSONL: %v (result %+v)", err, res)
	}
	return res
}

// rowCounts returns how many sessions and messages the file holds.
func rowCounts(t testing.TB, s *Store) [2]int64 {
	t.Helper()
	return [2]int64{
		dbtest.Value[int64](t, s.r, "SELECT COUNT(*) FROM sessions"),
		dbtest.Value[int64](t, s.r, "SELECT COUNT(*) FROM messages"),
	}
}

// jsonLines marshals sessions as JSON Lines, as ExportJSONL writes them.
func jsonLines(t testing.TB, sessions ...SessionExport) string {
	t.Helper()
	var b strings.Builder
	for _, e := range sessions {
		if e.Messages == nil {
			e.Messages = []Message{}
		}
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// sess is a session to import: the required fields, a parent and a title
// when not "", and its messages, counted in message_count.
func sess(id, parent, title string, started Timestamp, msgs ...Message) SessionExport {
	e := SessionExport{Session: Session{ID: id, Source: "cli", StartedAt: started, MessageCount: int64(len(msgs))}, Messages: msgs}
	if parent != "" {
		e.ParentSessionID = new(parent)
	}
	if title != "" {
		e.Title = new(title)
	}
	return e
}

// msg is a live user message to import with content text.
func msg(id int64, text string, ts Timestamp) Message {
	return Message{ID: id, Role: "user", Content: new(text), Timestamp: ts, Observed: new(int64(0)), Active: 1}
}

// assertCheckOK fails the test unless Check finds nothing wrong.
func assertCheckOK(t testing.TB, s *Store) {
	t.Helper()
	h, err := s.Check(t.Context())
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if !h.OK() {
		t.Errorf("Check found problems: %+v", h)
	}
}

// searchIDs returns the ids of the messages SearchMessages finds for query.
func searchIDs(t testing.TB, s *Store, query string) []int64 {
	t.Helper()
	hits, err := s.SearchMessages(t.Context(), query, SearchOptions{})
	if err != nil {
		t.Fatalf("SearchMessages(%q): %v", query, err)
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}
