package store

// Tests of the additions the command line's delete and prune confirmation
// use: DeleteSessions (all or nothing), PruneCandidates, PruneOptions.IDs
// (no session deleted that was not listed) and PruneOptions.Before.

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// pruneClock is the start of the sessions of these tests: t0 + n hours
// for the n-th.
var pruneClock = time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)

// fillPruneFixture creates four cli sessions started an hour apart (a at
// t0, b, c, d), a parent of b, b of c; a, b and c ended, d active, with a
// message each.
func fillPruneFixture(t *testing.T, s *Store) {
	t.Helper()
	for i, id := range []string{"a", "b", "c", "d"} {
		parent := map[string]string{"b": "a", "c": "b"}[id]
		addSession(t, s, id, nil, float64(TimestampOf(pruneClock.Add(time.Duration(i)*time.Hour))))
		if parent != "" {
			execSQL(t, s, "UPDATE sessions SET parent_session_id = ? WHERE id = ?", parent, id)
		}
		mustAppend(t, s, id, NewMessage{Role: "user", Content: new("hello " + id)})
		if id != "d" {
			mustEnd(t, s, id, "user_exit")
		}
	}
}

// ids returns the ids of sessions.
func ids(sessions []Session) []string {
	out := []string{}
	for _, s := range sessions {
		out = append(out, s.ID)
	}
	return out
}

// remaining returns the ids of the sessions left, by start.
func remaining(t *testing.T, s *Store) []string {
	t.Helper()
	return dbtest.Values[string](t, s.r, "SELECT id FROM sessions ORDER BY started_at")
}

func TestDeleteSessions(t *testing.T) {
	t.Parallel()

	t.Run("AllInOneTransaction", func(t *testing.T) {
		t.Parallel()
		s, path := openStore(t, quick(nil))
		fillPruneFixture(t, s)
		dir := filepath.Join(filepath.Dir(path), "sessions")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"a.json", "b.jsonl", "request_dump_b_1.json", "c.json"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.DeleteSessions(t.Context(), []string{"b", "a", "b"}, dir); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"c", "d"}, remaining(t, s)); diff != "" {
			t.Errorf("sessions left (-want +got):\n%s", diff)
		}
		if got := mustSession(t, s, "c").ParentSessionID; got != nil {
			t.Errorf("c's parent = %q, want none (its parent was deleted)", *got)
		}
		if got := dbtest.Value[int64](t, s.r, "SELECT count(*) FROM messages WHERE session_id IN ('a', 'b')"); got != 0 {
			t.Errorf("%d messages of the deleted sessions left", got)
		}
		if diff := cmp.Diff([]string{"c.json"}, dirNames(t, dir)); diff != "" {
			t.Errorf("transcript files left (-want +got):\n%s", diff)
		}
	})

	t.Run("OneMissingDeletesNothing", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, quick(nil))
		fillPruneFixture(t, s)
		err := s.DeleteSessions(t.Context(), []string{"a", "nope", "b"}, "")
		if !errors.Is(err, ErrSessionNotFound) || err.Error() != `store: delete sessions: session "nope": no such session` {
			t.Errorf("DeleteSessions with a missing id: %v, want ErrSessionNotFound naming it", err)
		}
		if diff := cmp.Diff([]string{"a", "b", "c", "d"}, remaining(t, s)); diff != "" {
			t.Errorf("sessions left (-want +got):\n%s", diff)
		}
	})
}

func TestPruneCandidates(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(&Options{Now: func() time.Time { return pruneClock.Add(10 * time.Hour) }}))
	fillPruneFixture(t, s)

	// Before: started before t0+2h (a, b); OlderThan 8h is before t0+2h
	// too; d is active, never a candidate.
	for name, opts := range map[string]PruneOptions{
		"Before":    {Before: pruneClock.Add(2 * time.Hour)},
		"OlderThan": {OlderThan: 8 * time.Hour},
		"IDs":       {Before: pruneClock.Add(24 * time.Hour), IDs: []string{"b", "a", "d", "x"}},
	} {
		got, err := s.PruneCandidates(t.Context(), opts)
		if err != nil || cmp.Diff([]string{"a", "b"}, ids(got)) != "" {
			t.Errorf("%s: PruneCandidates = %v, %v; want a, b", name, ids(got), err)
		}
		if n, err := s.PruneSessions(t.Context(), PruneOptions{Before: opts.Before, OlderThan: opts.OlderThan, IDs: opts.IDs, DryRun: true}); err != nil || n != 2 {
			t.Errorf("%s: PruneSessions dry run = %d, %v; want 2", name, n, err)
		}
	}
	if got, err := s.PruneCandidates(t.Context(), PruneOptions{Before: pruneClock.Add(24 * time.Hour)}); err != nil || cmp.Diff([]string{"a", "b", "c"}, ids(got)) != "" {
		t.Errorf("PruneCandidates of every ended session = %v, %v; want a, b, c", ids(got), err)
	}

	// What was listed, a and b; c became prunable meanwhile and b was
	// reopened: only a goes.
	listed, err := s.PruneCandidates(t.Context(), PruneOptions{Before: pruneClock.Add(2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ReopenSession(t.Context(), "b"); err != nil {
		t.Fatal(err)
	}
	n, err := s.PruneSessions(t.Context(), PruneOptions{Before: pruneClock.Add(24 * time.Hour), IDs: ids(listed)})
	if err != nil || n != 1 {
		t.Errorf("PruneSessions of the listed sessions = %d, %v; want 1", n, err)
	}
	if diff := cmp.Diff([]string{"b", "c", "d"}, remaining(t, s)); diff != "" {
		t.Errorf("sessions left (-want +got):\n%s", diff)
	}
}
