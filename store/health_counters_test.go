package store

// Tests of Check's counter rule at schema v21 (Health.Counters): what
// upstream's writes and ours leave is never a finding, on the upstream
// fixtures and after any sequence of the writes that move messages;
// counters no sequence of writes leaves still are.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// TestCheckCountersOfUpstreamFixtures: the files upstream c2a3b9ce5 wrote
// hold rewound sessions (message_count 4 beside 2 live and 2 rewound rows)
// and an in-place compaction (2 beside 2 live and 9 archived rows), and
// Check finds no counter, no orphan and no bad value in any of them:
// state-v21.db and state-v21-from-v16.db as they are (read-only),
// state-v16.db once this build has migrated it.
func TestCheckCountersOfUpstreamFixtures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fixture  string
		readOnly bool
		// counters is each session's message_count and its rows: live,
		// rewound, archived by compaction (so the test shows the sessions
		// the rule is about are there).
		counters map[string][4]int64
	}{
		{"state-v21.db", true, map[string][4]int64{"fx21-rewind": {4, 2, 2, 0}, "fx21-compact": {2, 2, 0, 9}}},
		{"state-v21-from-v16.db", true, map[string][4]int64{"fx16-main": {4, 2, 2, 0}}},
		{"state-v16.db", false, map[string][4]int64{"fx16-main": {4, 2, 2, 0}}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			t.Parallel()
			s := openAt(t, upstreamFixture(t, tc.fixture), &Options{ReadOnly: tc.readOnly})
			for id, want := range tc.counters {
				got := [4]int64{
					mustSession(t, s, id).MessageCount,
					dbtest.Value[int64](t, s.r, "SELECT COUNT(*) FROM messages WHERE session_id = ? AND active = 1", id),
					dbtest.Value[int64](t, s.r, "SELECT COUNT(*) FROM messages WHERE session_id = ? AND active = 0 AND compacted = 0", id),
					dbtest.Value[int64](t, s.r, "SELECT COUNT(*) FROM messages WHERE session_id = ? AND compacted = 1", id),
				}
				if got != want {
					t.Errorf("%s: message_count, live, rewound, archived = %v; want %v", id, got, want)
				}
			}
			h := mustCheck(t, s)
			if len(h.Counters) != 0 || h.OrphanMessages != 0 || len(h.BadValues) != 0 || h.BadValuesTruncated {
				t.Errorf("Check: counters %+v, orphans %d, bad values %+v (truncated %v); want none",
					h.Counters, h.OrphanMessages, h.BadValues, h.BadValuesTruncated)
			}
		})
	}
}

// counterWrites are the writes that move messages or counters, each
// applied to session id with r choosing its arguments; every one of them
// mirrors an upstream method (append_message, rewind_to_message,
// restore_rewound, archive_and_compact, replace_messages with and without
// active_only, clear_messages).
var counterWrites = []struct {
	name   string
	weight int
	write  func(t *testing.T, s *Store, id string, r *rand.Rand)
}{
	{"append", 6, func(t *testing.T, s *Store, id string, r *rand.Rand) {
		mustAppend(t, s, id, randomMessage(r))
	}},
	{"rewind", 2, func(t *testing.T, s *Store, id string, r *rand.Rand) {
		users := dbtest.Values[int64](t, s.r, "SELECT id FROM messages WHERE session_id = ? AND role = 'user' AND active = 1 ORDER BY id", id)
		if len(users) > 0 {
			if _, err := s.RewindToMessage(t.Context(), id, users[r.IntN(len(users))]); err != nil {
				t.Fatal(err)
			}
		}
	}},
	{"restore", 1, func(t *testing.T, s *Store, id string, r *rand.Rand) {
		ids := dbtest.Values[int64](t, s.r, "SELECT id FROM messages WHERE session_id = ? ORDER BY id", id)
		if len(ids) > 0 {
			if _, err := s.RestoreRewound(t.Context(), id, ids[r.IntN(len(ids))]); err != nil {
				t.Fatal(err)
			}
		}
	}},
	{"compact", 1, func(t *testing.T, s *Store, id string, r *rand.Rand) {
		if _, err := s.ArchiveAndCompact(t.Context(), id, randomMessages(r)); err != nil {
			t.Fatal(err)
		}
	}},
	{"replace", 1, func(t *testing.T, s *Store, id string, r *rand.Rand) {
		if err := s.ReplaceMessages(t.Context(), id, randomMessages(r)); err != nil {
			t.Fatal(err)
		}
	}},
	{"replace active", 1, func(t *testing.T, s *Store, id string, r *rand.Rand) {
		if err := s.ReplaceActiveMessages(t.Context(), id, randomMessages(r)); err != nil {
			t.Fatal(err)
		}
	}},
	{"clear", 1, func(t *testing.T, s *Store, id string, _ *rand.Rand) {
		if err := s.ClearMessages(t.Context(), id); err != nil {
			t.Fatal(err)
		}
	}},
}

// randomMessage is a user, assistant or tool message with no tool call,
// one or two in a list, or one as an object.
func randomMessage(r *rand.Rand) NewMessage {
	m := NewMessage{Role: []string{"user", "user", "assistant", "tool"}[r.IntN(4)], Content: new("x")}
	m.ToolCalls = []json.RawMessage{nil, nil, json.RawMessage(`[{"id": "a"}]`), json.RawMessage(`[{"id": "a"}, {"id": "b"}]`), json.RawMessage(`{"id": "d"}`)}[r.IntN(5)]
	return m
}

// randomMessages is 0 to 3 random messages.
func randomMessages(r *rand.Rand) []NewMessage {
	out := make([]NewMessage, r.IntN(4))
	for i := range out {
		out[i] = randomMessage(r)
	}
	return out
}

// TestCheckCountersAfterAnyWrites: after every step of random sequences of
// the writes that move messages (rewinds, restores across a compaction,
// replaces that keep rewound rows, …), Check finds no counter mismatch.
// The sequences are seeded, so a failure repeats. (The same walk, run with
// upstream c2a3b9ce5's SessionDB, 7,200 steps in three seeds, kept the rule;
// the simpler "live rows <= message_count <= all rows" broke 192 times.)
func TestCheckCountersAfterAnyWrites(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(nil))
	r := rand.New(rand.NewPCG(15, 21))
	var pick []int
	for i, w := range counterWrites {
		for range w.weight {
			pick = append(pick, i)
		}
	}
	done := map[string]int{}
	for n := range 12 {
		id := fmt.Sprintf("s%d", n)
		mustCreate(t, s, NewSession{ID: id, Source: "cli"})
		var steps []string
		for range 30 {
			w := counterWrites[pick[r.IntN(len(pick))]]
			w.write(t, s, id, r)
			steps = append(steps, w.name)
			done[w.name]++
			if h := mustCheck(t, s); len(h.Counters) != 0 {
				t.Fatalf("after %q: Check found %+v", steps, h.Counters)
			}
		}
	}
	for _, w := range counterWrites {
		if done[w.name] < 10 {
			t.Errorf("%q ran %d times, want 10 or more: the walk misses it", w.name, done[w.name])
		}
	}
}

// TestCheckCountersFound: counters that no sequence of writes leaves are
// found in sessions that were rewound, compacted or replaced too, each
// with what the rows allow.
func TestCheckCountersFound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		damage string // run on a raw connection
		want   []CounterMismatch
	}{
		// "r": 4 rows, the last 2 rewound: message_count 4.
		{"RewoundCountAboveTheRows", "UPDATE sessions SET message_count = 5 WHERE id = 'r'",
			[]CounterMismatch{{"r", "message_count", 5, 4}}},
		{"RewoundCallsOff", "UPDATE sessions SET tool_call_count = 1 WHERE id = 'r'",
			[]CounterMismatch{{"r", "tool_call_count", 1, 2}}},
		{"NullCount", "UPDATE sessions SET message_count = NULL WHERE id = 'r'",
			[]CounterMismatch{{"r", "message_count", 0, 4}}},
		{"NegativeCount", "UPDATE sessions SET message_count = -1 WHERE id = 'c'",
			[]CounterMismatch{{"c", "message_count", -1, 2}}},
		// "c": 3 rows archived by compaction, then 2 live ones (one call
		// between them): message_count 2, tool_call_count 1.
		{"CompactedCountingArchivedRows", "UPDATE sessions SET message_count = 3 WHERE id = 'c'",
			[]CounterMismatch{{"c", "message_count", 3, 2}}},
		{"CompactedCallsOfArchivedRows", "UPDATE sessions SET tool_call_count = 4 WHERE id = 'c'",
			[]CounterMismatch{{"c", "tool_call_count", 4, 1}}},
		// A count of 1 is a cut the rows allow (the newest live row, no
		// call), but the stored calls are not that row's.
		{"CallsOfAnotherCut", "UPDATE sessions SET message_count = 1 WHERE id = 'c'",
			[]CounterMismatch{{"c", "tool_call_count", 1, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, path := openStore(t, quick(&Options{Now: fixtureClock()}))
			mustCreate(t, s, NewSession{ID: "r", Source: "cli"})
			mustAppend(t, s, "r", NewMessage{Role: "user", Content: new("one")})
			mustAppend(t, s, "r", NewMessage{Role: "assistant", ToolCalls: json.RawMessage(`[{"id": "a"}]`)})
			back := mustAppend(t, s, "r", NewMessage{Role: "user", Content: new("two")})
			mustAppend(t, s, "r", NewMessage{Role: "assistant", ToolCalls: json.RawMessage(`{"id": "b"}`)})
			if _, err := s.RewindToMessage(t.Context(), "r", back); err != nil {
				t.Fatal(err)
			}
			mustCreate(t, s, NewSession{ID: "c", Source: "cli"})
			for range 3 {
				mustAppend(t, s, "c", NewMessage{Role: "user", Content: new("old"), ToolCalls: json.RawMessage(`[{"id": "x"}]`)})
			}
			if _, err := s.ArchiveAndCompact(t.Context(), "c", []NewMessage{
				{Role: "assistant", Content: new("summary"), ToolCalls: json.RawMessage(`[{"id": "y"}]`)},
				{Role: "user", Content: new("next")},
			}); err != nil {
				t.Fatal(err)
			}
			if h := mustCheck(t, s); len(h.Counters) != 0 {
				t.Fatalf("Check before the damage found %+v", h.Counters)
			}
			dbtest.Exec(t, rawDB(t, path), tc.damage)
			h := mustCheck(t, s)
			if diff := cmp.Diff(tc.want, h.Counters); diff != "" {
				t.Errorf("Counters (-want +got):\n%s", diff)
			}
			if h.OK() {
				t.Error("OK() = true")
			}
		})
	}
}
