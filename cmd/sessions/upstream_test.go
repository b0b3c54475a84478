package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// upstreamAnswers are upstream Hermes's answers over
// testdata/upstream/state-v21.db (testdata/upstream-v21.json, written by
// testdata/mk_upstream_answers.py from hermes-agent c2a3b9ce5), keyed by the
// sessions command line each stands for.
func upstreamAnswers(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/upstream-v21.json")
	if err != nil {
		t.Fatal(err)
	}
	var answers map[string]any
	if err := json.Unmarshal(b, &answers); err != nil {
		t.Fatal(err)
	}
	return answers
}

// TestJSONIsUpstreams holds every --json output over upstream's own v21
// file against what upstream returns for the same question: list as
// list_sessions_rich (default, include_children with include_archived,
// archived_only), show as get_session with get_messages_as_conversation
// (--all: include_inactive=True), show --raw as export_session (--all: with
// get_messages include_inactive=True), search as search_messages (--all:
// include_inactive=True; --sort: sort) and export as export_all, one line an
// entry. Keys, values and types must be the same
// (key order is the file's, as upstream's dict(row)).
func TestJSONIsUpstreams(t *testing.T) {
	t.Parallel()
	path := copyTo(t, "upstream/state-v21.db")
	answers := upstreamAnswers(t)
	keys := make([]string, 0, len(answers))
	for k := range answers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) != 30 {
		t.Fatalf("%d upstream answers, want 30", len(keys))
	}
	for _, key := range keys {
		t.Run(strings.ReplaceAll(key, " ", "_"), func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-db", path}, strings.Fields(key)...)
			var got any
			if key == "export" {
				entries := []any{}
				for _, line := range decodeLines(t, sessions(t, args...)) {
					entries = append(entries, line)
				}
				got = entries
			} else {
				got = sessionsJSON[any](t, args...)
			}
			if diff := cmp.Diff(answers[key], got); diff != "" {
				t.Errorf("sessions --json %s (-upstream +ours):\n%s", key, diff)
			}
		})
	}
}
