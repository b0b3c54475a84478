package store

// Ports of upstream c2a3b9ce5's maintenance tests that are new since v11:
// tests/test_hermes_state.py TestOptimizeFts and TestVacuum (vacuum() now
// merges the FTS indexes first), and tests/test_wal_checkpoint_strategy.py
// (the periodic checkpoint is PASSIVE again, Close and VACUUM still
// TRUNCATE). TestAutoMaintenance and TestStateMeta are unchanged since v11
// (ref_maintenance_test.go). docs/upstream-tests/search.md maps them all.

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ftsSegments is the number of segments of an FTS5 index: the rows of its
// %_data shadow table with a segment id (FTS5 keeps each segment's leaves
// under rowid segid << 37; rowids below that are the structure and the
// averages records).
func ftsSegments(t testing.TB, s *Store, table string) int {
	t.Helper()
	var n int
	q := fmt.Sprintf("SELECT COUNT(DISTINCT id >> 37) FROM %s_data WHERE id >= (1 << 37)", table)
	if err := s.w.QueryRowContext(context.Background(), q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// dropTrigramIndex removes the trigram index and its triggers, as a file
// written without it (or upstream's HERMES_DISABLE_FTS_TRIGRAM) has it.
func dropTrigramIndex(t testing.TB, s *Store) {
	t.Helper()
	for _, trig := range []string{"messages_fts_trigram_insert", "messages_fts_trigram_delete", "messages_fts_trigram_update"} {
		execSQL(t, s, "DROP TRIGGER IF EXISTS "+trig)
	}
	execSQL(t, s, "DROP TABLE IF EXISTS messages_fts_trigram")
}

// TestOptimizeFts ports upstream's TestOptimizeFts: OptimizeFTS merges
// both indexes into one segment each without changing any search result,
// skips a missing index, is idempotent; the write helper runs it every
// Options.OptimizeEvery writes; a failing merge never fails the write.
//
// upstream: TestOptimizeFts (all 6 tests)
func TestOptimizeFts(t *testing.T) {
	t.Parallel()

	// upstream: TestOptimizeFts::test_optimize_returns_index_count
	t.Run("OptimizeReturnsIndexCount", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		srchCreate(t, s, "s1", "cli", "")
		srchSay(t, s, "s1", "user", "hello world")
		if n, err := s.OptimizeFTS(t.Context()); n != 2 || err != nil {
			t.Errorf("OptimizeFTS = %d, %v; want 2, nil", n, err)
		}
	})

	// upstream: TestOptimizeFts::test_optimize_preserves_search_and_snippet
	t.Run("OptimizePreservesSearchAndSnippet", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, &Options{OptimizeEvery: -1})
		srchCreate(t, s, "s1", "cli", "")
		for i := range 50 {
			srchSay(t, s, "s1", "user", fmt.Sprintf("needle alpha bravo charlie message %d 记忆断裂", i))
		}
		// 50 inserts left several segments in each index (FTS5's automerge
		// keeps their number bounded, not at one).
		for _, table := range searchIndexTables {
			if n := ftsSegments(t, s, table); n < 2 {
				t.Fatalf("%s has %d segments before optimize, want several", table, n)
			}
		}
		var before [][]SearchResult
		for _, q := range []string{"needle", "记忆断裂"} {
			before = append(before, srchFind(t, s, q, SearchOptions{Limit: -1}))
		}
		if n, err := s.OptimizeFTS(t.Context()); n != 2 || err != nil {
			t.Fatalf("OptimizeFTS = %d, %v; want 2, nil", n, err)
		}
		for _, table := range searchIndexTables {
			if n := ftsSegments(t, s, table); n != 1 {
				t.Errorf("%s has %d segments after optimize, want 1", table, n)
			}
		}
		for i, q := range []string{"needle", "记忆断裂"} {
			after := srchFind(t, s, q, SearchOptions{Limit: -1})
			if len(after) != 50 {
				t.Errorf("%q after optimize: %d hits, want 50", q, len(after))
			}
			for _, r := range after {
				if r.Snippet == nil || !strings.Contains(*r.Snippet, ">>>") {
					t.Errorf("%q after optimize: hit %d has snippet %v", q, r.ID, r.Snippet)
				}
			}
			if diff := cmp.Diff(before[i], after); diff != "" {
				t.Errorf("%q: results changed by optimize (-before +after):\n%s", q, diff)
			}
		}
	})

	// upstream: TestOptimizeFts::test_optimize_skips_missing_trigram_table
	t.Run("OptimizeSkipsMissingTrigramTable", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		srchCreate(t, s, "s1", "cli", "")
		srchSay(t, s, "s1", "user", "hello")
		dropTrigramIndex(t, s)
		if n, err := s.OptimizeFTS(t.Context()); n != 1 || err != nil {
			t.Errorf("OptimizeFTS without the trigram index = %d, %v; want 1, nil", n, err)
		}
		if n, err := s.Vacuum(t.Context()); n != 1 || err != nil {
			t.Errorf("Vacuum without the trigram index = %d, %v; want 1, nil", n, err)
		}
	})

	// upstream: TestOptimizeFts::test_optimize_idempotent
	t.Run("OptimizeIdempotent", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		srchCreate(t, s, "s1", "cli", "")
		srchSay(t, s, "s1", "user", "repeat me")
		for range 2 {
			if n, err := s.OptimizeFTS(t.Context()); n != 2 || err != nil {
				t.Errorf("OptimizeFTS = %d, %v; want 2, nil", n, err)
			}
		}
		if res := srchFind(t, s, "repeat", SearchOptions{}); len(res) != 1 {
			t.Errorf("search after optimize: %d hits, want 1", len(res))
		}
	})

	// upstream: TestOptimizeFts::test_write_path_optimizes_fts_on_cadence.
	// create_session is write 1 and the nine appends writes 2-10, so writes
	// 5 and 10 merge. A merge leaves one segment per index; the writes
	// after it add their own.
	t.Run("WritePathOptimizesFtsOnCadence", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, &Options{OptimizeEvery: 5})
		srchCreate(t, s, "s1", "cli", "")
		for i := range 9 {
			srchSay(t, s, "s1", "user", fmt.Sprintf("needle %d", i))
			if i == 3 { // write 5 has just merged
				if n := ftsSegments(t, s, "messages_fts"); n != 1 {
					t.Errorf("after write 5: %d segments, want 1", n)
				}
			}
		}
		if got := s.Stats().Optimizes; got != 2 {
			t.Errorf("Stats().Optimizes = %d, want 2", got)
		}
		if got := s.Stats().Writes; got != 10 {
			t.Errorf("Stats().Writes = %d, want 10 (the merges are not writes)", got)
		}
		if n := ftsSegments(t, s, "messages_fts"); n != 1 {
			t.Errorf("after write 10: %d segments, want 1", n)
		}
		if res := srchFind(t, s, "needle", SearchOptions{}); len(res) != 9 {
			t.Errorf("search: %d hits, want 9", len(res))
		}
		// The default cadence is upstream's 1,000, and a negative one is
		// off.
		if DefaultOptimizeEvery != 1000 {
			t.Errorf("DefaultOptimizeEvery = %d, want 1000", DefaultOptimizeEvery)
		}
		off, _ := openStore(t, &Options{OptimizeEvery: -1, CheckpointEvery: -1})
		srchCreate(t, off, "s1", "cli", "")
		for i := range 20 {
			srchSay(t, off, "s1", "user", fmt.Sprintf("needle %d", i))
		}
		if got := off.Stats().Optimizes; got != 0 {
			t.Errorf("OptimizeEvery -1: Stats().Optimizes = %d, want 0", got)
		}
	})

	// upstream: TestOptimizeFts::test_write_path_optimize_failure_never_breaks_write.
	// Upstream raises from a patched optimize_fts; here the merge fails for
	// real: messages_fts_trigram is replaced by a plain table whose CHECK
	// refuses the optimize command (the triggers that fed it are gone, so
	// writes never touch it).
	t.Run("WritePathOptimizeFailureNeverBreaksWrite", func(t *testing.T) {
		t.Parallel()
		logs := &recorder{}
		s, _ := openStore(t, &Options{OptimizeEvery: 2, Logger: slog.New(logs)})
		dropTrigramIndex(t, s)
		execSQL(t, s, "CREATE TABLE messages_fts_trigram (messages_fts_trigram TEXT CHECK (messages_fts_trigram <> 'optimize'))")
		srchCreate(t, s, "s1", "cli", "")                   // write 1
		id := srchSay(t, s, "s1", "user", "still persists") // write 2: the merge fails
		if got := s.Stats().Optimizes; got != 1 {
			t.Errorf("Stats().Optimizes = %d, want 1", got)
		}
		if logs.count("periodic FTS optimize failed") != 1 || logs.count("FTS optimize failed") != 1 {
			t.Errorf("log records %q, want one periodic failure and one for the table", logs.msgs)
		}
		msgs, err := s.GetMessages(t.Context(), "s1")
		if err != nil || len(msgs) != 1 || msgs[0].ID != id {
			t.Errorf("GetMessages = %+v, %v; want the one message", msgs, err)
		}
		// The direct call reports it: the word index merged, the other not.
		n, err := s.OptimizeFTS(t.Context())
		if n != 1 || !strings.HasPrefix(fmt.Sprint(err), "store: optimize fts: messages_fts_trigram: CHECK constraint failed") {
			t.Errorf("OptimizeFTS = %d, %v; want 1 and the trigram table's CHECK failure", n, err)
		}
		// Vacuum goes on after a failed merge, and says how many merged.
		if n, err := s.Vacuum(t.Context()); n != 1 || err != nil {
			t.Errorf("Vacuum = %d, %v; want 1, nil", n, err)
		}
	})
}

// TestVacuumMergesFirst: upstream's vacuum() merges both indexes before
// VACUUM and returns how many; the file is then one segment per index.
//
// upstream: TestVacuum::test_vacuum_runs_without_error (with vacuum()'s
// v21 result)
func TestVacuumMergesFirst(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, &Options{OptimizeEvery: -1})
	srchCreate(t, s, "s1", "cli", "")
	for i := range 30 {
		srchSay(t, s, "s1", "user", fmt.Sprintf("hi %d 记忆断裂", i))
	}
	if n, err := s.Vacuum(t.Context()); n != 2 || err != nil {
		t.Fatalf("Vacuum = %d, %v; want 2, nil", n, err)
	}
	for _, table := range searchIndexTables {
		if n := ftsSegments(t, s, table); n != 1 {
			t.Errorf("%s has %d segments after Vacuum, want 1", table, n)
		}
	}
}

// TestWalCheckpointStrategy ports tests/test_wal_checkpoint_strategy.py
// (c2a3b9ce5, upstream #45383): the periodic checkpoint is PASSIVE, so it
// neither waits for a reader nor truncates the -wal; Close still
// truncates it; exactly one checkpoint runs per CheckpointEvery writes.
// Upstream checks which pragma text it sent through a mock connection;
// these check what PASSIVE and TRUNCATE do to a real file.
//
// upstream: TestTryWalCheckpointPassive::test_checkpoint_uses_passive_mode,
// TestTryWalCheckpointPassive::test_checkpoint_returns_result_on_success,
// TestCloseUsesTruncate::test_close_uses_truncate_mode,
// TestCheckpointFrequency::test_checkpoint_triggers_at_interval
func TestWalCheckpointStrategy(t *testing.T) {
	t.Parallel()
	logs := &recorder{}
	s, path := openStore(t, &Options{Logger: slog.New(logs), BusyTimeout: 50e6})
	addSession(t, s, "s", nil, 1)
	// A reader in the middle of a read transaction pins the WAL: a
	// TRUNCATE (or RESTART, FULL) checkpoint would wait for it, time out
	// and report busy; PASSIVE copies what it can and returns.
	reader := rawDB(t, path)
	tx, err := reader.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow("SELECT COUNT(*) FROM sessions").Scan(&n); err != nil {
		t.Fatal(err)
	}
	for i := range DefaultCheckpointEvery - 2 {
		if err := appendLabelled(t.Context(), s, fmt.Sprint(i)); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Stats().Checkpoints; got != 0 {
		t.Fatalf("after %d writes: %d checkpoints, want 0", DefaultCheckpointEvery-1, got)
	}
	if err := appendLabelled(t.Context(), s, "fiftieth"); err != nil {
		t.Fatalf("write %d (the checkpoint's): %v", DefaultCheckpointEvery, err)
	}
	if got := s.Stats().Checkpoints; got != 1 {
		t.Errorf("after %d writes: %d checkpoints, want 1", DefaultCheckpointEvery, got)
	}
	if got := logs.count("WAL checkpoint (PASSIVE) failed"); got != 0 {
		t.Errorf("%d checkpoint failures logged, want 0 (PASSIVE never waits for the reader)", got)
	}
	// PASSIVE leaves the -wal at its size.
	fi, err := os.Stat(path + "-wal")
	if err != nil || fi.Size() == 0 {
		t.Errorf("-wal after the periodic checkpoint: %v, %v; want it kept at its size", fi, err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	// A TRUNCATE checkpoint with the reader gone empties it, as Close does.
	res, err := s.Checkpoint(t.Context(), CheckpointTruncate)
	if err != nil || res.Busy {
		t.Fatalf("Checkpoint(TRUNCATE) = %+v, %v", res, err)
	}
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() != 0 {
		t.Errorf("-wal after TRUNCATE: %v, %v; want 0 bytes", fi, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
