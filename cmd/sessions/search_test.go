package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSearch searches the fixture with every filter: hits in relevance
// order with their snippet and context, as text and as the original's JSON.
func TestSearch(t *testing.T) {
	t.Parallel()
	hit4 := []string{
		"20250301_090000_a1a1a1  #4  assistant  2025-03-01 09:00  cli  claude-sonnet-4",
		"  Use >>>docker<<< compose up.",
		"  | tool: CONTAINER ID IMAGE abc123 web:latest",
		"  | assistant: Use docker compose up.",
	}
	hit2 := []string{
		"20250301_090000_a1a1a1  #2  assistant  2025-03-01 09:00  cli  claude-sonnet-4",
		`  Let me check the containers. [{"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \">>>docker<<< ps\"}"}}]`,
		"  | user: How do I deploy with Docker?",
		"  | assistant: Let me check the containers.",
		"  | tool: CONTAINER ID IMAGE abc123 web:latest",
	}
	hit1 := []string{
		"20250301_090000_a1a1a1  #1  user  2025-03-01 09:00  cli  claude-sonnet-4",
		"  How do I deploy with >>>Docker<<<?",
		"  | user: How do I deploy with Docker?",
		"  | assistant: Let me check the containers.",
	}
	join := func(blocks ...[]string) string {
		var all []string
		for i, b := range blocks {
			if i > 0 {
				all = append(all, "")
			}
			all = append(all, b...)
		}
		return text(all...)
	}
	tests := []outputCase{
		{"Word", []string{"docker"}, join(hit4, hit1, hit2)},
		{"Role", []string{"docker", "--role", "assistant"}, join(hit4, hit2)},
		{"Roles", []string{"--role", "user", "--role=tool", "docker"}, join(hit1)},
		{"Page", []string{"--limit", "1", "--offset", "1", "docker"}, join(hit1)},
		{"WordsJoined", []string{"--source", "telegram", "--source", "cli", "compose", "up"}, join(append([]string{hit4[0],
			"  Use docker >>>compose<<< >>>up<<<."}, hit4[2:]...))},
		{"ExcludeSource", []string{"--exclude-source", "cli", "docker"}, ""},
		{"Chinese", []string{"通信"}, join([]string{
			"20250301_110000_0a0a0a  #10  user  2025-03-01 11:00  discord",
			"  今天讨论A2A通信协议的实现细节",
			"  | user: 今天讨论A2A通信协议的实现细节",
		})},
	}
	checkOutputs(t, "search", tests)

	t.Run("JSON", func(t *testing.T) {
		t.Parallel()
		// The keys of search_messages, context included (the match is its
		// middle element); "<" is not escaped.
		want := []obj{
			{"id": 8.0, "session_id": idRefactor2, "role": "user", "snippet": "Continue the >>>refactor<<<  ",
				"timestamp": ts(10, 30, 5), "tool_name": nil, "source": "telegram", "model": "gpt-5", "session_started": ts(10, 30, 0),
				"context": []any{
					obj{"role": "user", "content": "Continue the refactor"},
					obj{"role": "assistant", "content": "Done: store and search are split."},
				}},
			{"id": 6.0, "session_id": idRefactor, "role": "user", "snippet": "Plan the >>>refactor<<< of <store> & search  ",
				"timestamp": ts(10, 0, 5), "tool_name": nil, "source": "telegram", "model": "gpt-5", "session_started": ts(10, 0, 0),
				"context": []any{
					obj{"role": "user", "content": "Plan the refactor of <store> & search"},
					obj{"role": "assistant", "content": "First, split the files."},
				}},
		}
		if diff := cmp.Diff(want, sessionsJSON[[]obj](t, "-db", fixturePath, "search", "refactor")); diff != "" {
			t.Errorf("sessions --json search refactor (-want +got):\n%s", diff)
		}
		if out := sessions(t, "-db", fixturePath, "--json", "search", "Plan <store>"); !strings.Contains(out, `"content":"Plan the refactor of <store> & search"`) {
			t.Errorf("sessions --json search: HTML characters escaped:\n%s", out)
		}
	})
	t.Run("JSONNothingFound", func(t *testing.T) {
		t.Parallel()
		if got := sessions(t, "-db", fixturePath, "--json", "search", "zebrafish"); got != "[]\n" {
			t.Errorf("sessions --json search zebrafish = %q, want %q", got, "[]\n")
		}
	})
}

// TestLineage draws the trees of the fixture: ancestors root first, the
// session marked, its descendants depth first.
func TestLineage(t *testing.T) {
	t.Parallel()
	tests := []outputCase{
		{"Root", []string{idDeploy}, text(
			"20250301_090000_a1a1a1  Deploy notes  2025-03-01 09:00  ◀",
			"├── 20250301_090200_b2b2b2  -  2025-03-01 09:02",
			"│   └── 20250301_090400_d4d4d4  -  2025-03-01 09:04",
			"└── 20250301_090300_c3c3c3  -  2025-03-01 09:03")},
		{"Middle", []string{"20250301_0902"}, text(
			"20250301_090000_a1a1a1  Deploy notes  2025-03-01 09:00",
			"└── 20250301_090200_b2b2b2  -  2025-03-01 09:02  ◀",
			"    └── 20250301_090400_d4d4d4  -  2025-03-01 09:04")},
		{"Leaf", []string{idSubA1}, text(
			"20250301_090000_a1a1a1  Deploy notes  2025-03-01 09:00",
			"└── 20250301_090200_b2b2b2  -  2025-03-01 09:02",
			"    └── 20250301_090400_d4d4d4  -  2025-03-01 09:04  ◀")},
		{"ByTitle", []string{"Refactor plan"}, text(
			"20250301_100000_e5e5e5  Refactor plan  2025-03-01 10:00",
			"└── 20250301_103000_f6f6f6  Refactor plan #2  2025-03-01 10:30  ◀")},
		{"Alone", []string{idCJK}, text("20250301_110000_0a0a0a  -  2025-03-01 11:00  ◀")},
	}
	checkOutputs(t, "lineage", tests)
	t.Run("JSON", func(t *testing.T) {
		t.Parallel()
		want := []obj{
			{"id": idDeploy, "title": "Deploy notes", "started_at": ts(9, 0, 0), "parent_session_id": nil, "depth": 0.0, "selected": false},
			{"id": idSubA, "title": nil, "started_at": ts(9, 2, 0), "parent_session_id": idDeploy, "depth": 1.0, "selected": true},
			{"id": idSubA1, "title": nil, "started_at": ts(9, 4, 0), "parent_session_id": idSubA, "depth": 2.0, "selected": false},
		}
		if diff := cmp.Diff(want, sessionsJSON[[]obj](t, "lineage", idSubA, "-db", fixturePath)); diff != "" {
			t.Errorf("sessions --json lineage (-want +got):\n%s", diff)
		}
	})
}
