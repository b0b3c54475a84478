package store

// Tests of the counters ImportJSONL writes: it recounts message_count and
// tool_call_count from the rows it imports, as upstream's import_sessions
// does, so that an export of a rewound or compacted session (which leaves
// out the rows its counters counted) imports clean.

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// importCounts is a session's message_count and tool_call_count.
type importCounts struct{ Messages, Calls int64 }

func sessionCounters(t *testing.T, s *Store, id string) importCounts {
	t.Helper()
	sess := mustSession(t, s, id)
	return importCounts{sess.MessageCount, sess.ToolCallCount}
}

// appendAll appends msgs to session id and returns their ids.
func appendAll(t *testing.T, s *Store, id string, msgs ...NewMessage) []int64 {
	t.Helper()
	var ids []int64
	for _, m := range msgs {
		got, err := s.AppendMessage(t.Context(), id, m)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, got)
	}
	return ids
}

// checkClean fails unless Check reports no counter mismatch and the file
// is healthy.
func checkClean(t *testing.T, s *Store, what string) {
	t.Helper()
	h, err := s.Check(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Counters) != 0 || !h.OK() {
		t.Errorf("Check of %s: counters %+v, healthy %v", what, h.Counters, h.OK())
	}
}

// TestImportRecountsCounters exports a rewound session (counters 6/3, 3
// live rows with 2 calls), a compacted one that was rewound after the
// compaction (4/3, the compaction's 2 rows with 1 call live) and one whose
// counters match its rows (3/2), and imports the export into a new file:
// Check is clean, the first two have the counters of their imported rows,
// the third keeps its own, and the new file exports the same lines but
// for the recounted counters (and last_active).
func TestImportRecountsCounters(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	src, _ := openStore(t, quick(&Options{Now: fixtureClock()}))
	two := json.RawMessage(`[{"id": "a"}, {"id": "b"}]`)
	one := json.RawMessage(`[{"id": "c"}]`)
	obj := json.RawMessage(`{"id": "d"}`)

	mustCreate(t, src, NewSession{ID: "rewound", Source: "cli"})
	ids := appendAll(t, src, "rewound",
		NewMessage{Role: "user", Content: new("q1")},
		NewMessage{Role: "assistant", ToolCalls: two},
		NewMessage{Role: "tool", Content: new("r1"), ToolCallID: "a"},
		NewMessage{Role: "user", Content: new("q2")},
		NewMessage{Role: "assistant", ToolCalls: one},
		NewMessage{Role: "tool", Content: new("r2"), ToolCallID: "c"},
	)
	if _, err := src.RewindToMessage(ctx, "rewound", ids[3]); err != nil {
		t.Fatal(err)
	}

	mustCreate(t, src, NewSession{ID: "compacted", Source: "cli"})
	appendAll(t, src, "compacted",
		NewMessage{Role: "user", Content: new("old")},
		NewMessage{Role: "assistant", ToolCalls: two},
	)
	if _, err := src.ArchiveAndCompact(ctx, "compacted", []NewMessage{
		{Role: "user", Content: new("summary")},
		{Role: "assistant", ToolCalls: obj},
	}); err != nil {
		t.Fatal(err)
	}
	ids = appendAll(t, src, "compacted",
		NewMessage{Role: "user", Content: new("next")},
		NewMessage{Role: "assistant", ToolCalls: two},
	)
	if _, err := src.RewindToMessage(ctx, "compacted", ids[0]); err != nil {
		t.Fatal(err)
	}

	mustCreate(t, src, NewSession{ID: "matched", Source: "cli"})
	appendAll(t, src, "matched",
		NewMessage{Role: "user", Content: new("q")},
		NewMessage{Role: "assistant", ToolCalls: two},
		NewMessage{Role: "tool", Content: new("r"), ToolCallID: "a"},
	)

	before := map[string]importCounts{"rewound": {6, 3}, "compacted": {4, 3}, "matched": {3, 2}}
	after := map[string]importCounts{"rewound": {3, 2}, "compacted": {2, 1}, "matched": {3, 2}}
	for id, want := range before {
		if got := sessionCounters(t, src, id); got != want {
			t.Fatalf("source %s: counters %+v, want %+v", id, got, want)
		}
	}
	checkClean(t, src, "the source")
	exported := exportText(t, src, ExportOptions{})

	dst, _ := openStore(t, quick(nil))
	res := importText(t, dst, exported, ImportOptions{})
	if diff := cmp.Diff(ImportResult{Created: 3, Messages: 3 + 2 + 3}, res); diff != "" {
		t.Errorf("ImportJSONL result (-want +got):\n%s", diff)
	}
	for id, want := range after {
		if got := sessionCounters(t, dst, id); got != want {
			t.Errorf("imported %s: counters %+v, want %+v", id, got, want)
		}
	}
	checkClean(t, dst, "the imported file")

	// The new file exports the matched session's line byte for byte, and
	// the others' but for the recounted counters and last_active (which
	// counted the rows the export left out).
	got := exportLines(t, dst)
	for id, line := range exportLines(t, src) {
		c, a := before[id], after[id]
		if c != a {
			from := `"message_count":` + itoa(c.Messages) + `,"tool_call_count":` + itoa(c.Calls) + `,`
			if !strings.Contains(line, from) {
				t.Fatalf("line of %s lacks %s: %s", id, from, line)
			}
			to := `"message_count":` + itoa(a.Messages) + `,"tool_call_count":` + itoa(a.Calls) + `,`
			line = lastActive.ReplaceAllString(strings.Replace(line, from, to, 1), "")
			got[id] = lastActive.ReplaceAllString(got[id], "")
		}
		if diff := cmp.Diff(line, got[id]); diff != "" {
			t.Errorf("export line of %s (-want +imported):\n%s", id, diff)
		}
	}
}

var lastActive = regexp.MustCompile(`"last_active":[^,]*,`)

// exportLines is s's export, each line by its session's id.
func exportLines(t *testing.T, s *Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	for line := range strings.Lines(exportText(t, s, ExportOptions{})) {
		var head struct{ ID string }
		if err := json.Unmarshal([]byte(line), &head); err != nil {
			t.Fatal(err)
		}
		out[head.ID] = line
	}
	return out
}

// TestImportRecountIgnoresArchivedRows imports a hand-written line that
// carries what no export carries, rows archived by a compaction and a
// rewound one: message_count counts the rows after the newest compacted one
// (the rewound one too, as the rows a rewind took back stay counted), and
// tool_call_count their calls, so Check is clean; the stored 9/9 is not
// kept.
func TestImportRecountIgnoresArchivedRows(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(nil))
	line := `{"id": "h", "source": "cli", "started_at": 1, "message_count": 9, "tool_call_count": 9, "messages": [` +
		`{"id": 1, "role": "user", "timestamp": 2, "active": 0, "compacted": 1},` +
		`{"id": 2, "role": "assistant", "timestamp": 3, "tool_calls": [{"id": "a"}], "active": 0, "compacted": 1},` +
		`{"id": 3, "role": "assistant", "timestamp": 4, "tool_calls": [{"id": "b"}, {"id": "c"}]},` +
		`{"id": 4, "role": "user", "timestamp": 5},` +
		`{"id": 5, "role": "assistant", "timestamp": 6, "tool_calls": {"id": "d"}, "active": 0}]}` + "\n"
	res := importText(t, s, line, ImportOptions{})
	if diff := cmp.Diff(ImportResult{Created: 1, Messages: 5}, res); diff != "" {
		t.Errorf("ImportJSONL result (-want +got):\n%s", diff)
	}
	if got, want := sessionCounters(t, s, "h"), (importCounts{3, 3}); got != want {
		t.Errorf("counters %+v, want %+v", got, want)
	}
	checkClean(t, s, "the imported file")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
