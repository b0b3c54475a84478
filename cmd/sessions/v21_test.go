package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

// The v21 state as the commands show it, on a copy of the file upstream
// Hermes c2a3b9ce5 wrote with its workload (testdata/upstream/state-v21.db,
// upstream-v21.md §7): rewound and compacted messages, an archived
// compression chain, a tagged delegate and a /branch child, a gateway
// session with its peer and a pending handoff, a /model switch with two
// usage rows, a compression failure, multimodal content. Every time in it
// is 2026-12-03 07:46 (UTC).

// TestListV21 lists upstream's file: the default list leaves out the
// archived chain and the delegate; --all lists them, every session flagged
// with what sets it apart; --archived lists the archived ones only (the
// chain as its tip, in its root's place, unless --all).
func TestListV21(t *testing.T) {
	t.Parallel()
	path := copyTo(t, "upstream/state-v21.db")
	checkOutputsOn(t, path, "list", []outputCase{
		{"All", []string{"--all"}, text(
			"ID                 TITLE           PREVIEW                      LAST ACTIVE       MSGS  SOURCE    MODEL    FLAGS",
			"fx21-branch        -               -                            2026-12-03 07:46  1     cli       alpha-1  branch",
			"fx21-sub           -               sub-goal                     2026-12-03 07:46  1     cli       alpha-1  delegate",
			"fx21-parent        -               delegate two things          2026-12-03 07:46  1     cli       alpha-1  -",
			"fx21-gw            -               someone else talking         2026-12-03 07:46  3     telegram  -        -",
			"fx21-locked        -               -                            2026-12-03 07:46  0     cli       -        -",
			"fx21-arch-tip      -               continued after compression  2026-12-03 07:46  1     cli       alpha-1  archived,continuation",
			"fx21-arch-root     Archived chain  old conversation             2026-12-03 07:46  1     cli       alpha-1  archived",
			"fx21-compact       -               compact me 0                 2026-12-03 07:46  2     cli       alpha-1  -",
			"fx21-rewind        -               first question               2026-12-03 07:46  4     cli       alpha-1  -",
			"fx21-model-switch  -               Summarise the release notes  2026-12-03 07:46  4     cli       beta-2   -")},
		{"Archived", []string{"--archived"}, text(
			"ID             TITLE  PREVIEW                      LAST ACTIVE       MSGS  SOURCE  MODEL    FLAGS",
			"fx21-arch-tip  -      continued after compression  2026-12-03 07:46  1     cli     alpha-1  archived")},
		{"AllArchived", []string{"--all", "--archived"}, text(
			"ID              TITLE           PREVIEW                      LAST ACTIVE       MSGS  SOURCE  MODEL    FLAGS",
			"fx21-arch-tip   -               continued after compression  2026-12-03 07:46  1     cli     alpha-1  archived,continuation",
			"fx21-arch-root  Archived chain  old conversation             2026-12-03 07:46  1     cli     alpha-1  archived")},
		// No row flagged: no FLAGS column.
		{"NothingFlagged", []string{"--all", "--source", "telegram"}, text(
			"ID       TITLE  PREVIEW               LAST ACTIVE       MSGS  SOURCE    MODEL",
			"fx21-gw  -      someone else talking  2026-12-03 07:46  3     telegram  -")},
		{"Page", []string{"--all", "--limit", "2", "--offset", "5"}, text(
			"ID              TITLE           PREVIEW                      LAST ACTIVE       MSGS  SOURCE  MODEL    FLAGS",
			"fx21-arch-tip   -               continued after compression  2026-12-03 07:46  1     cli     alpha-1  archived,continuation",
			"fx21-arch-root  Archived chain  old conversation             2026-12-03 07:46  1     cli     alpha-1  archived")},
	})
}

// TestListFlags flags each kind of child by the store's listing rules,
// whether or not its parent is on the page: a /branch child by its marker
// or by a parent that ended "branched" before it started, a compression
// continuation (not a "tool" session, and not one carrying a delegate
// marker), a delegate by its marker (the v16 migration's "__orphaned__"
// guess is no delegate: it stays listed, unflagged, as the store lists it;
// a null marker is none), and any other child; a model_config that is not
// JSON carries no marker.
func TestListFlags(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.db")
	now := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	s := openTestStore(t, path, &store.Options{Now: func() time.Time { return now }})
	ctx := context.Background()
	step := func(id string, n store.NewSession) {
		t.Helper()
		now = now.Add(time.Minute)
		n.ID = id
		if n.Source == "" {
			n.Source = "cli"
		}
		if _, err := s.CreateSession(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	end := func(id, reason string) {
		t.Helper()
		now = now.Add(time.Minute)
		if err := s.EndSession(ctx, id, reason); err != nil {
			t.Fatal(err)
		}
	}
	step("a-branched", store.NewSession{})
	step("a-early", store.NewSession{ParentSessionID: "a-branched"})
	end("a-branched", "branched")
	step("a-late", store.NewSession{ParentSessionID: "a-branched"})
	step("b-compressed", store.NewSession{})
	end("b-compressed", "compression")
	step("b-tool", store.NewSession{Source: "tool", ParentSessionID: "b-compressed"})
	step("b-null-marker", store.NewSession{ParentSessionID: "b-compressed", ModelConfig: json.RawMessage(`{"_delegate_from": null}`)})
	step("b-orphaned-child", store.NewSession{ParentSessionID: "b-compressed", ModelConfig: json.RawMessage(`{"_delegate_from": "__orphaned__"}`)})
	step("b-not-json", store.NewSession{ParentSessionID: "b-compressed"})
	step("c-orphaned-root", store.NewSession{ModelConfig: json.RawMessage(`{"_delegate_from": "__orphaned__"}`)})
	step("c-delegate-root", store.NewSession{ModelConfig: json.RawMessage(`{"_delegate_from": "gone"}`)})
	step("c-marked-branch", store.NewSession{ParentSessionID: "c-orphaned-root", ModelConfig: json.RawMessage(`{"_branched_from": "c-orphaned-root"}`)})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	damage(t, path, `UPDATE sessions SET model_config = '{"_delegate_from": ' WHERE id = 'b-not-json'`)
	checkOutputsOn(t, path, "list", []outputCase{
		{"All", []string{"--all", "--limit", "100"}, text(
			"ID                TITLE  PREVIEW  LAST ACTIVE       MSGS  SOURCE  MODEL  FLAGS",
			"c-marked-branch   -      -        2025-03-01 09:13  0     cli     -      branch",
			"c-delegate-root   -      -        2025-03-01 09:12  0     cli     -      delegate",
			"c-orphaned-root   -      -        2025-03-01 09:11  0     cli     -      -",
			"b-not-json        -      -        2025-03-01 09:10  0     cli     -      continuation",
			"b-orphaned-child  -      -        2025-03-01 09:09  0     cli     -      child",
			"b-null-marker     -      -        2025-03-01 09:08  0     cli     -      continuation",
			"b-tool            -      -        2025-03-01 09:07  0     tool    -      child",
			"b-compressed      -      -        2025-03-01 09:05  0     cli     -      -",
			"a-late            -      -        2025-03-01 09:04  0     cli     -      branch",
			"a-early           -      -        2025-03-01 09:02  0     cli     -      child",
			"a-branched        -      -        2025-03-01 09:01  0     cli     -      -")},
		// The parents off the page are read for the flags.
		{"ParentsOffPage", []string{"--all", "--limit", "3", "--offset", "4"}, text(
			"ID                TITLE  PREVIEW  LAST ACTIVE       MSGS  SOURCE  MODEL  FLAGS",
			"b-orphaned-child  -      -        2025-03-01 09:09  0     cli     -      child",
			"b-null-marker     -      -        2025-03-01 09:08  0     cli     -      continuation",
			"b-tool            -      -        2025-03-01 09:07  0     tool    -      child")},
		// The default list: roots and /branch children, no delegate; the
		// compression root, whose tip is b-not-json, in its place.
		{"Default", nil, text(
			"ID               TITLE  PREVIEW  LAST ACTIVE       MSGS  SOURCE  MODEL  FLAGS",
			"c-marked-branch  -      -        2025-03-01 09:13  0     cli     -      branch",
			"c-orphaned-root  -      -        2025-03-01 09:11  0     cli     -      -",
			"b-not-json       -      -        2025-03-01 09:10  0     cli     -      -",
			"a-late           -      -        2025-03-01 09:04  0     cli     -      branch",
			"a-branched       -      -        2025-03-01 09:01  0     cli     -      -")},
	})
}

// TestShowV21 shows upstream's sessions: the hidden messages counted in
// the header and, with --all, shown and marked (rewound, compacted), the
// new columns where they are set (flags, workspace, gateway peer, handoff,
// rewinds, per-model usage, compression failure), observed messages and
// structured content.
func TestShowV21(t *testing.T) {
	t.Parallel()
	path := copyTo(t, "upstream/state-v21.db")
	rewindHeader := []string{
		"ID        fx21-rewind",
		"Title     -",
		"Source    cli",
		"Model     alpha-1",
		"Parent    -",
		"Started   2026-12-03 07:46:38",
		"Messages  4 messages, 0 tool calls",
	}
	compactHeader := []string{
		"ID        fx21-compact",
		"Title     -",
		"Source    cli",
		"Model     alpha-1",
		"Parent    -",
		"Started   2026-12-03 07:46:38",
		"Messages  2 messages, 0 tool calls",
	}
	lines := func(parts ...[]string) string {
		var all []string
		for _, p := range parts {
			all = append(all, p...)
		}
		return text(all...)
	}
	checkOutputsOn(t, path, "show", []outputCase{
		{"Rewound", []string{"fx21-rewind"}, lines(rewindHeader, []string{
			"Hidden    2 rewound (not shown; --all shows them)",
			"Rewinds   1",
			"Tokens    0 in, 0 out",
			"",
			"user",
			"  first question",
			"",
			"assistant",
			"  first answer"})},
		{"RewoundAll", []string{"--all", "fx21-rewind"}, lines(rewindHeader, []string{
			"Hidden    2 rewound (shown, marked)",
			"Rewinds   1",
			"Tokens    0 in, 0 out",
			"",
			"user",
			"  first question",
			"",
			"assistant",
			"  first answer",
			"",
			"user  [rewound]",
			"  second question (taken back)",
			"",
			"assistant  [rewound]",
			"  second answer (taken back)"})},
		{"RewoundRaw", []string{"--raw", "fx21-rewind"}, lines(rewindHeader, []string{
			"Hidden    2 rewound (not shown; --all shows them)",
			"Rewinds   1",
			"Tokens    0 in, 0 out",
			"",
			"#5  2026-12-03 07:46:38  user",
			"  first question",
			"",
			"#6  2026-12-03 07:46:38  assistant",
			"  first answer"})},
		{"Compacted", []string{"fx21-compact"}, lines(compactHeader, []string{
			"Hidden    9 compacted (not shown; --all shows them)",
			"Tokens    0 in, 0 out",
			"",
			"user",
			"  [summary of 9 earlier messages]",
			"",
			"assistant",
			"  Continuing from the summary."})},
		{"CompactedAll", []string{"fx21-compact", "--all"}, lines(compactHeader, []string{
			"Hidden    9 compacted (shown, marked)",
			"Tokens    0 in, 0 out",
			"",
			"user  [compacted]",
			"  compact me 0",
			"",
			"assistant  [compacted]",
			"  reply 0",
			"  → web_search {}",
			"",
			"tool: web_search  [compacted]",
			"  tool output 0",
			"",
			"user  [compacted]",
			"  compact me 1",
			"",
			"assistant  [compacted]",
			"  reply 1",
			"  → web_search {}",
			"",
			"tool: web_search  [compacted]",
			"  tool output 1",
			"",
			"user  [compacted]",
			"  compact me 2",
			"",
			"assistant  [compacted]",
			"  reply 2",
			"  → web_search {}",
			"",
			"tool: web_search  [compacted]",
			"  tool output 2",
			"",
			"user",
			"  [summary of 9 earlier messages]",
			"",
			"assistant",
			"  Continuing from the summary."})},
		{"CompactedRawAll", []string{"--raw", "--all", "fx21-compact"}, lines(compactHeader, []string{
			"Hidden    9 compacted (shown, marked)",
			"Tokens    0 in, 0 out",
			"",
			"#9  2026-12-03 07:46:38  user  [compacted]",
			"  compact me 0",
			"",
			"#10  2026-12-03 07:46:38  assistant  [compacted]",
			"  reply 0",
			`  tool_calls: [{"id": "call_0", "type": "function", "function": {"name": "web_search", "arguments": "{}"}}]`,
			"",
			"#11  2026-12-03 07:46:38  tool  tool_name=web_search  tool_call_id=call_0  effect_disposition=read_only  [compacted]",
			"  tool output 0",
			"",
			"#12  2026-12-03 07:46:38  user  [compacted]",
			"  compact me 1",
			"",
			"#13  2026-12-03 07:46:38  assistant  [compacted]",
			"  reply 1",
			`  tool_calls: [{"id": "call_1", "type": "function", "function": {"name": "web_search", "arguments": "{}"}}]`,
			"",
			"#14  2026-12-03 07:46:38  tool  tool_name=web_search  tool_call_id=call_1  effect_disposition=read_only  [compacted]",
			"  tool output 1",
			"",
			"#15  2026-12-03 07:46:38  user  [compacted]",
			"  compact me 2",
			"",
			"#16  2026-12-03 07:46:38  assistant  [compacted]",
			"  reply 2",
			`  tool_calls: [{"id": "call_2", "type": "function", "function": {"name": "web_search", "arguments": "{}"}}]`,
			"",
			"#17  2026-12-03 07:46:38  tool  tool_name=web_search  tool_call_id=call_2  effect_disposition=read_only  [compacted]",
			"  tool output 2",
			"",
			"#18  2026-12-03 07:46:38  user",
			"  [summary of 9 earlier messages]",
			"",
			"#19  2026-12-03 07:46:38  assistant",
			"  Continuing from the summary."})},
		{"Gateway", []string{"fx21-gw"}, text(
			"ID        fx21-gw",
			"Title     -",
			"Source    telegram",
			"Model     -",
			"Parent    -",
			"Started   2026-12-03 07:46:38",
			"Gateway   agent:main:telegram:group:-1001:7, expiry finalized",
			"Chat      Team chat / topic 7: group -1001, thread 7",
			"User      u-77",
			"Handoff   pending to discord",
			"Messages  3 messages, 0 tool calls",
			"Tokens    0 in, 0 out",
			"",
			"user  [observed]",
			"  someone else talking",
			"",
			"user",
			"  @bot what is the status?",
			"",
			"assistant",
			"  All green.")},
		{"GatewayRaw", []string{"--raw", "fx21-gw"}, text(
			"ID        fx21-gw",
			"Title     -",
			"Source    telegram",
			"Model     -",
			"Parent    -",
			"Started   2026-12-03 07:46:38",
			"Gateway   agent:main:telegram:group:-1001:7, expiry finalized",
			"Chat      Team chat / topic 7: group -1001, thread 7",
			"User      u-77",
			"Handoff   pending to discord",
			"Messages  3 messages, 0 tool calls",
			"Tokens    0 in, 0 out",
			"",
			"#22  2026-12-03 07:46:38  user  platform_message_id=9001  [observed]",
			"  someone else talking",
			"",
			"#23  2026-12-03 07:46:38  user  platform_message_id=9002",
			"  @bot what is the status?",
			"",
			"#24  2026-12-03 07:46:38  assistant  platform_message_id=9003",
			"  All green.")},
		{"ModelSwitch", []string{"fx21-model-switch"}, text(
			"ID        fx21-model-switch",
			"Title     -",
			"Source    cli",
			"Model     beta-2 via prov-b (metered)",
			"Parent    -",
			"Started   2026-12-03 07:46:38",
			"Cwd       /projects/demo",
			"Git       feature/x (/projects/demo)",
			"Messages  4 messages, 0 tool calls",
			"Tokens    330 in, 135 out, 50 cache read, 7 reasoning",
			"Usage     alpha-1 via prov-a (metered): 1 call, 120 in, 40 out, $0.0012 estimated",
			"          beta-2 via prov-b (metered): 2 calls, 210 in, 95 out, 50 cache read, 7 reasoning, $0.0030 estimated, $0.0025 actual",
			"Cost      $0.0042 estimated, $0.0025 actual",
			"",
			"user",
			"  Summarise the release notes",
			"",
			"assistant",
			"  Here is the summary.",
			"",
			"user",
			"  Now in French",
			"",
			"assistant",
			"  Voici le resume.")},
		{"CompressionFailure", []string{"fx21-locked"}, text(
			"ID        fx21-locked",
			"Title     -",
			"Source    cli",
			"Model     -",
			"Parent    -",
			"Started   2026-12-03 07:46:38",
			"Messages  0 messages, 0 tool calls",
			"Tokens    0 in, 0 out",
			"Cooldown  compression failed: summary model timed out; no retry before 2026-12-03 08:46:38",
			"Fallback  2 compression fallbacks in a row")},
		// Structured content: its text parts, and the type of the others.
		{"Branch", []string{"fx21-branch"}, text(
			"ID        fx21-branch",
			"Title     -",
			"Source    cli",
			"Model     alpha-1",
			"Parent    fx21-parent",
			"Flags     branch",
			"Started   2026-12-03 07:46:38",
			"Messages  1 message, 0 tool calls",
			"Tokens    0 in, 0 out",
			"",
			"user",
			"  look at this",
			"  [image_url]")},
		// --raw shows structured content as stored.
		{"BranchRaw", []string{"--raw", "fx21-branch"}, text(
			"ID        fx21-branch",
			"Title     -",
			"Source    cli",
			"Model     alpha-1",
			"Parent    fx21-parent",
			"Flags     branch",
			"Started   2026-12-03 07:46:38",
			"Messages  1 message, 0 tool calls",
			"Tokens    0 in, 0 out",
			"",
			"#27  2026-12-03 07:46:38  user",
			`  [{"type": "text", "text": "look at this"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]`)},
		{"ArchivedTip", []string{"fx21-arch-tip"}, text(
			"ID        fx21-arch-tip",
			"Title     -",
			"Source    cli",
			"Model     alpha-1",
			"Parent    fx21-arch-root",
			"Flags     archived, continuation",
			"Started   2026-12-03 07:46:38",
			"Messages  1 message, 0 tool calls",
			"Tokens    0 in, 0 out",
			"",
			"user",
			"  continued after compression")},
		{"Delegate", []string{"fx21-sub"}, text(
			"ID        fx21-sub",
			"Title     -",
			"Source    cli",
			"Model     alpha-1",
			"Parent    fx21-parent",
			"Flags     delegate",
			"Started   2026-12-03 07:46:38",
			"Messages  1 message, 0 tool calls",
			"Tokens    0 in, 0 out",
			"",
			"user",
			"  sub-goal")},
	})
}

// TestSearchV21: a rewound message is not found unless --all (a compacted
// one always is), and --sort orders the hits by time.
func TestSearchV21(t *testing.T) {
	t.Parallel()
	path := copyTo(t, "upstream/state-v21.db")
	first := []string{
		"fx21-rewind  #5  user  2026-12-03 07:46  cli  alpha-1",
		"  first >>>question<<<",
		"  | user: first question",
		"  | assistant: first answer",
	}
	compact := func(n, id, before string) []string {
		return []string{
			"fx21-compact  #" + id + "  user  2026-12-03 07:46  cli  alpha-1",
			"  >>>compact<<< me " + n,
			before,
			"  | user: compact me " + n,
			"  | assistant: reply " + n,
		}
	}
	joined := func(blocks ...[]string) string {
		var all []string
		for i, b := range blocks {
			if i > 0 {
				all = append(all, "")
			}
			for _, l := range b {
				if l != "" {
					all = append(all, l)
				}
			}
		}
		return text(all...)
	}
	checkOutputsOn(t, path, "search", []outputCase{
		{"Rewound", []string{"question"}, joined(first)},
		{"RewoundAll", []string{"--all", "question"}, joined(first, []string{
			"fx21-rewind  #7  user  2026-12-03 07:46  cli  alpha-1",
			"  second >>>question<<< (taken back)",
			"  | assistant: first answer",
			"  | user: second question (taken back)",
			"  | assistant: second answer (taken back)",
		})},
		{"Oldest", []string{"--sort", "oldest", "compact"}, joined(compact("0", "9", ""), compact("1", "12", "  | tool: tool output 0"), compact("2", "15", "  | tool: tool output 1"))},
		{"Newest", []string{"compact", "--sort=newest"}, joined(compact("2", "15", "  | tool: tool output 1"), compact("1", "12", "  | tool: tool output 0"), compact("0", "9", ""))},
	})
}
