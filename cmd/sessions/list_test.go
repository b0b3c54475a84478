package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// listRow is a list_sessions_rich row of the fixture: the session's columns
// plus last_active and preview.
func listRow(id string, lastActive float64, preview string) obj {
	return with(wantSessions[id], obj{"last_active": lastActive, "preview": preview})
}

// TestList runs list's filters and pages against the fixture: human tables
// with exact text, and --json with the original's keys and values.
func TestList(t *testing.T) {
	t.Parallel()
	db := []string{"-db", fixturePath}
	tests := []outputCase{
		{"Default", nil, text(
			"ID                      TITLE             PREVIEW                        LAST ACTIVE       MSGS  SOURCE    MODEL",
			"20250301_110000_0a0a0a  -                 今天讨论A2A通信协议的实现细节  2025-03-01 11:00  1     discord   -",
			"20250301_103000_f6f6f6  Refactor plan #2  Continue the refactor          2025-03-01 10:31  2     telegram  gpt-5",
			"20250301_090000_a1a1a1  Deploy notes      How do I deploy with Docker?   2025-03-01 09:00  4     cli       claude-sonnet-4")},
		// Every session, each child flagged: the compression continuation
		// and the untagged subagents (the default list shows neither).
		{"All", []string{"--all"}, text(
			"ID                      TITLE             PREVIEW                                LAST ACTIVE       MSGS  SOURCE    MODEL            FLAGS",
			"20250301_110000_0a0a0a  -                 今天讨论A2A通信协议的实现细节          2025-03-01 11:00  1     discord   -                -",
			"20250301_103000_f6f6f6  Refactor plan #2  Continue the refactor                  2025-03-01 10:31  2     telegram  gpt-5            continuation",
			"20250301_100000_e5e5e5  Refactor plan     Plan the refactor of <store> & search  2025-03-01 10:00  2     telegram  gpt-5            -",
			"20250301_090400_d4d4d4  -                 -                                      2025-03-01 09:04  0     cli       -                child",
			"20250301_090300_c3c3c3  -                 -                                      2025-03-01 09:03  0     cli       -                child",
			"20250301_090200_b2b2b2  -                 Subtask: check the logs                2025-03-01 09:02  1     cli       claude-haiku     child",
			"20250301_090000_a1a1a1  Deploy notes      How do I deploy with Docker?           2025-03-01 09:00  4     cli       claude-sonnet-4  -")},
		{"Archived", []string{"--archived"}, ""},
		{"Source", []string{"--source", "discord"}, text(
			"ID                      TITLE  PREVIEW                        LAST ACTIVE       MSGS  SOURCE   MODEL",
			"20250301_110000_0a0a0a  -      今天讨论A2A通信协议的实现细节  2025-03-01 11:00  1     discord  -")},
		{"ExcludeSources", []string{"--exclude-source", "telegram", "--exclude-source=discord"}, text(
			"ID                      TITLE         PREVIEW                       LAST ACTIVE       MSGS  SOURCE  MODEL",
			"20250301_090000_a1a1a1  Deploy notes  How do I deploy with Docker?  2025-03-01 09:00  4     cli     claude-sonnet-4")},
		{"Page", []string{"--limit", "1", "--offset", "2"}, text(
			"ID                      TITLE         PREVIEW                       LAST ACTIVE       MSGS  SOURCE  MODEL",
			"20250301_090000_a1a1a1  Deploy notes  How do I deploy with Docker?  2025-03-01 09:00  4     cli     claude-sonnet-4")},
		{"DoubleDash", []string{"--limit=1", "--"}, text(
			"ID                      TITLE  PREVIEW                        LAST ACTIVE       MSGS  SOURCE   MODEL",
			"20250301_110000_0a0a0a  -      今天讨论A2A通信协议的实现细节  2025-03-01 11:00  1     discord  -")},
		{"Empty", []string{"--source", "slack"}, ""},
	}
	checkOutputs(t, "list", tests)

	t.Run("JSON", func(t *testing.T) {
		t.Parallel()
		// The compression root is shown as its tip: the tip's id, title,
		// counts, preview and activity; the root's start, source, parent,
		// tokens and costs; and _lineage_root_id naming the root.
		tip := with(listRow(idRefactor2, ts(10, 31, 0), "Continue the refactor"), obj{
			"started_at": ts(10, 0, 0), "parent_session_id": nil, "input_tokens": 0.0, "output_tokens": 0.0,
			"cache_read_tokens": 0.0, "api_call_count": 0.0, "estimated_cost_usd": nil, "actual_cost_usd": nil,
			"_lineage_root_id": idRefactor})
		want := []obj{
			listRow(idCJK, ts(11, 0, 5), "今天讨论A2A通信协议的实现细节"),
			tip,
			listRow(idDeploy, ts(9, 0, 30), "How do I deploy with Docker?"),
		}
		if diff := cmp.Diff(want, sessionsJSON[[]obj](t, append([]string{"list"}, db...)...)); diff != "" {
			t.Errorf("sessions --json list (-want +got):\n%s", diff)
		}
	})
	t.Run("JSONAll", func(t *testing.T) {
		t.Parallel()
		got := sessionsJSON[[]obj](t, append([]string{"list", "--all", "--limit", "2", "--offset", "2"}, db...)...)
		want := []obj{
			listRow(idRefactor, ts(10, 0, 10), "Plan the refactor of <store> & search"),
			listRow(idSubA1, ts(9, 4, 0), ""),
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("sessions --json list --all (-want +got):\n%s", diff)
		}
	})
	t.Run("JSONEmpty", func(t *testing.T) {
		t.Parallel()
		if got := sessions(t, append([]string{"--json", "list", "--source", "slack"}, db...)...); got != "[]\n" {
			t.Errorf("sessions --json list --source slack = %q, want %q", got, "[]\n")
		}
	})
}
