package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// deployHeader is show's header for the deploy session.
var deployHeader = []string{
	"ID        20250301_090000_a1a1a1",
	"Title     Deploy notes",
	"Source    cli",
	"Model     claude-sonnet-4",
	"Parent    -",
	"Started   2025-03-01 09:00:00",
	"Ended     2025-03-01 09:05:00 (user_exit)",
	"Messages  4 messages, 1 tool call",
	"Tokens    1,200 in, 340 out",
	"Cost      $0.0123 estimated",
}

// TestShow resolves sessions by id, prefix and title and prints them as a
// conversation, as stored messages, and as JSON.
func TestShow(t *testing.T) {
	t.Parallel()
	deployConversation := text(append(deployHeader,
		"",
		"user",
		"  How do I deploy with Docker?",
		"",
		"assistant",
		"  Let me check the containers.",
		`  → terminal {"command": "docker ps"}`,
		"",
		"tool: terminal",
		"  CONTAINER ID   IMAGE",
		"  abc123         web:latest",
		"",
		"assistant",
		"  Use docker compose up.")...)
	refactor2 := text(
		"ID        20250301_103000_f6f6f6",
		"Title     Refactor plan #2",
		"Source    telegram",
		"Model     gpt-5",
		"Parent    20250301_100000_e5e5e5",
		"Flags     continuation",
		"Started   2025-03-01 10:30:00",
		"Messages  2 messages, 0 tool calls",
		"Tokens    500 in, 250 out, 30 cache read",
		"Cost      $0.0020 estimated, $0.0019 actual",
		"",
		"user",
		"  Continue the refactor",
		"",
		"assistant",
		"  Done: store and search are split.")
	tests := []outputCase{
		{"ExactID", []string{idDeploy}, deployConversation},
		{"UniquePrefix", []string{"20250301_1030"}, refactor2},
		{"PrefixIgnoresASCIICase", []string{"20250301_090000_A1"}, deployConversation},
		// The lineage rule: a title names its newest "title #N".
		{"TitleOfLineage", []string{"Refactor plan"}, refactor2},
		{"NumberedTitle", []string{"Refactor plan #2"}, refactor2},
		{"Raw", []string{"--raw", idDeploy}, text(append(deployHeader,
			"",
			"#1  2025-03-01 09:00:10  user",
			"  How do I deploy with Docker?",
			"",
			"#2  2025-03-01 09:00:20  assistant  finish_reason=tool_calls  token_count=42",
			"  Let me check the containers.",
			"  tool_calls: "+deployToolCalls,
			"",
			"#3  2025-03-01 09:00:25  tool  tool_name=terminal  tool_call_id=call_1",
			"  CONTAINER ID   IMAGE",
			"  abc123         web:latest",
			"",
			"#4  2025-03-01 09:00:30  assistant  finish_reason=stop",
			"  Use docker compose up.")...)},
		{"NoMessages", []string{idSubB, "-db", fixturePath}, text(
			"ID        20250301_090300_c3c3c3",
			"Title     -",
			"Source    cli",
			"Model     -",
			"Parent    20250301_090000_a1a1a1",
			"Flags     child",
			"Started   2025-03-01 09:03:00",
			"Messages  0 messages, 0 tool calls",
			"Tokens    0 in, 0 out")},
	}
	checkOutputs(t, "show", tests)

	t.Run("JSON", func(t *testing.T) {
		t.Parallel()
		// The conversation as get_messages_as_conversation returns it:
		// only the keys a replay needs (at v21 the message's time, and an
		// assistant's finish_reason, among them).
		want := with(wantSessions[idDeploy], obj{"messages": []any{
			obj{"role": "user", "content": "How do I deploy with Docker?", "timestamp": ts(9, 0, 10)},
			obj{"role": "assistant", "content": "Let me check the containers.", "timestamp": ts(9, 0, 20),
				"tool_calls": decodeJSON(deployToolCalls), "finish_reason": "tool_calls"},
			obj{"role": "tool", "content": "CONTAINER ID   IMAGE\nabc123         web:latest", "timestamp": ts(9, 0, 25),
				"tool_call_id": "call_1", "tool_name": "terminal"},
			obj{"role": "assistant", "content": "Use docker compose up.", "timestamp": ts(9, 0, 30), "finish_reason": "stop"},
		}})
		if diff := cmp.Diff(want, sessionsJSON[obj](t, "show", "Deploy notes", "-db", fixturePath)); diff != "" {
			t.Errorf("sessions --json show (-want +got):\n%s", diff)
		}
	})
	t.Run("RawJSON", func(t *testing.T) {
		t.Parallel()
		// The original's export_session: the session's columns and every
		// stored message.
		for _, id := range []string{idDeploy, idSubB} {
			want := with(wantSessions[id], obj{"messages": wantMessages[id]})
			if diff := cmp.Diff(want, sessionsJSON[obj](t, "-db", fixturePath, "show", "--raw", id)); diff != "" {
				t.Errorf("sessions --json show --raw %s (-want +got):\n%s", id, diff)
			}
		}
	})
	t.Run("AmbiguousPrefix", func(t *testing.T) {
		t.Parallel()
		// The candidates, newest first: id, title, source, start.
		failure(t, 1, []string{`sessions: "20250301_09" is the start of 4 session ids; give more of the id:`,
			"  20250301_090400_d4d4d4  -             cli  2025-03-01 09:04",
			"  20250301_090300_c3c3c3  -             cli  2025-03-01 09:03",
			"  20250301_090200_b2b2b2  -             cli  2025-03-01 09:02",
			"  20250301_090000_a1a1a1  Deploy notes  cli  2025-03-01 09:00",
		}, "-db", fixturePath, "show", "20250301_09")
	})
	t.Run("NoSuchSession", func(t *testing.T) {
		t.Parallel()
		failure(t, 1, []string{`sessions: no session has the id, id prefix or title "Deploy"`},
			"-db", fixturePath, "show", "Deploy")
	})
}
