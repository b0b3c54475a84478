package store

// Ports of reference-tests.md A.21 (TestStateMeta), A.22 (TestVacuum) and
// A.23 (TestAutoMaintenance).

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// upstream: TestStateMeta::test_get_meta_missing_returns_none,
// test_set_then_get_meta, test_set_meta_upsert (unchanged at c2a3b9ce5)
func TestStateMeta(t *testing.T) {
	t.Parallel()

	t.Run("GetMetaMissingReturnsNone", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		v, ok, err := s.GetMeta(t.Context(), "nonexistent")
		if err != nil || ok || v != "" {
			t.Errorf("GetMeta(nonexistent) = %q, %v, %v; want \"\", false, nil (None)", v, ok, err)
		}
	})

	t.Run("SetThenGetMeta", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		if err := s.SetMeta(t.Context(), "foo", "bar"); err != nil {
			t.Fatal(err)
		}
		if v, ok, err := s.GetMeta(t.Context(), "foo"); err != nil || !ok || v != "bar" {
			t.Errorf("GetMeta(foo) = %q, %v, %v; want bar", v, ok, err)
		}
	})

	t.Run("SetMetaUpsert", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		for _, v := range []string{"v1", "v2"} {
			if err := s.SetMeta(t.Context(), "key", v); err != nil {
				t.Fatal(err)
			}
		}
		if v, ok, err := s.GetMeta(t.Context(), "key"); err != nil || !ok || v != "v2" {
			t.Errorf("GetMeta(key) = %q, %v, %v; want v2", v, ok, err)
		}
	})
}

func TestVacuum(t *testing.T) {
	t.Parallel()

	t.Run("VacuumRunsWithoutError", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("hi")})
		if _, err := s.Vacuum(t.Context()); err != nil {
			t.Errorf("Vacuum: %v", err)
		}
	})
}

// makeOldEnded is the reference's _make_old_ended(db, sid, days_old): a cli
// session ended "done" and started daysOld days ago.
func makeOldEnded(t testing.TB, s *Store, id string, daysOld float64) {
	t.Helper()
	mustCreate(t, s, NewSession{ID: id, Source: "cli"})
	mustEnd(t, s, id, "done")
	backdate(t, s, id, nowTS()-daysOld*hADay)
}

// writeFiles creates empty files in dir.
func writeFiles(t testing.TB, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fileExists reports whether dir/name exists.
func fileExists(t testing.TB, dir, name string) bool {
	t.Helper()
	_, err := os.Stat(filepath.Join(dir, name))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return err == nil
}

func TestAutoMaintenance(t *testing.T) {
	t.Parallel()

	const retention = 90 * 24 * time.Hour
	const interval = 24 * time.Hour

	t.Run("FirstRunPrunesAndVacuums", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		makeOldEnded(t, s, "old1", 100)
		makeOldEnded(t, s, "old2", 100)
		mustCreate(t, s, NewSession{ID: "new", Source: "cli"})
		res := s.AutoMaintain(t.Context(), AutoMaintainOptions{Retention: retention})
		if res.Skipped || res.Pruned != 2 || !res.Vacuumed || res.Err != nil {
			t.Errorf("AutoMaintain = %+v, want skipped false, pruned 2, vacuumed true, no error", res)
		}
		assertGone(t, s, "old1")
		assertGone(t, s, "old2")
		mustSession(t, s, "new")
	})

	t.Run("SecondCallWithinIntervalSkips", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		makeOldEnded(t, s, "old", 100)
		first := s.AutoMaintain(t.Context(), AutoMaintainOptions{Retention: retention, MinInterval: interval})
		if first.Skipped || first.Pruned != 1 {
			t.Errorf("first AutoMaintain = %+v, want skipped false, pruned 1", first)
		}
		makeOldEnded(t, s, "old2", 100)
		second := s.AutoMaintain(t.Context(), AutoMaintainOptions{Retention: retention, MinInterval: interval})
		if !second.Skipped || second.Pruned != 0 {
			t.Errorf("second AutoMaintain = %+v, want skipped true, pruned 0", second)
		}
		mustSession(t, s, "old2")
	})

	t.Run("SecondCallAfterIntervalRunsAgain", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		makeOldEnded(t, s, "old", 100)
		s.AutoMaintain(t.Context(), AutoMaintainOptions{Retention: retention, MinInterval: interval})
		// str(time.time() - 48 * 3600)
		if err := s.SetMeta(t.Context(), "last_auto_prune", strconv.FormatFloat(nowTS()-48*3600, 'f', -1, 64)); err != nil {
			t.Fatal(err)
		}
		makeOldEnded(t, s, "old2", 100)
		res := s.AutoMaintain(t.Context(), AutoMaintainOptions{Retention: retention, MinInterval: interval})
		if res.Skipped || res.Pruned != 1 {
			t.Errorf("AutoMaintain = %+v, want skipped false, pruned 1", res)
		}
		assertGone(t, s, "old2")
	})

	t.Run("NoPrunableSessionsNoVacuum", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "fresh", Source: "cli"})
		res := s.AutoMaintain(t.Context(), AutoMaintainOptions{Retention: retention})
		if res.Skipped || res.Pruned != 0 || res.Vacuumed {
			t.Errorf("AutoMaintain = %+v, want skipped false, pruned 0, vacuumed false", res)
		}
		if _, ok, err := s.GetMeta(t.Context(), "last_auto_prune"); err != nil || !ok {
			t.Errorf("last_auto_prune marker missing (ok %v, err %v)", ok, err)
		}
	})

	t.Run("VacuumDisabledViaFlag", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		makeOldEnded(t, s, "old", 100)
		res := s.AutoMaintain(t.Context(), AutoMaintainOptions{Retention: retention, SkipVacuum: true})
		if res.Pruned != 1 || res.Vacuumed {
			t.Errorf("AutoMaintain = %+v, want pruned 1, vacuumed false", res)
		}
	})

	t.Run("CorruptLastRunMarkerTreatedAsNoPriorRun", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		if err := s.SetMeta(t.Context(), "last_auto_prune", "not-a-timestamp"); err != nil {
			t.Fatal(err)
		}
		makeOldEnded(t, s, "old", 100)
		res := s.AutoMaintain(t.Context(), AutoMaintainOptions{Retention: retention})
		if res.Skipped || res.Pruned != 1 {
			t.Errorf("AutoMaintain = %+v, want skipped false, pruned 1", res)
		}
	})

	t.Run("StateMetaSurvivesVacuum", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		makeOldEnded(t, s, "old", 100)
		s.AutoMaintain(t.Context(), AutoMaintainOptions{Retention: retention})
		marker, ok, err := s.GetMeta(t.Context(), "last_auto_prune")
		if err != nil || !ok {
			t.Fatalf("last_auto_prune marker missing (ok %v, err %v)", ok, err)
		}
		// The original stores str(time.time()), a Python float repr.
		f, err := strconv.ParseFloat(marker, 64)
		if err != nil {
			t.Fatalf("marker %q is not a float: %v", marker, err)
		}
		if d := math.Abs(f - nowTS()); d >= 60 {
			t.Errorf("marker %q is %v s from now, want < 60", marker, d)
		}
	})

	t.Run("AutoPruneDeletesTranscriptFiles", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		dir := filepath.Join(t.TempDir(), "sessions")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		old := []string{"old1.json", "old1.jsonl", "old2.jsonl", "request_dump_old1_001.json"}
		writeFiles(t, dir, append(old, "new.jsonl")...)
		makeOldEnded(t, s, "old1", 100)
		makeOldEnded(t, s, "old2", 100)
		mustCreate(t, s, NewSession{ID: "new", Source: "cli"})
		res := s.AutoMaintain(t.Context(), AutoMaintainOptions{Retention: retention, SessionsDir: dir})
		if res.Pruned != 2 {
			t.Errorf("AutoMaintain = %+v, want pruned 2", res)
		}
		for _, n := range old {
			if fileExists(t, dir, n) {
				t.Errorf("%s still exists", n)
			}
		}
		if !fileExists(t, dir, "new.jsonl") {
			t.Error("new.jsonl was removed")
		}
	})

	t.Run("AutoPruneWithoutSessionsDirPreservesFiles", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		dir := filepath.Join(t.TempDir(), "sessions")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, dir, "old.jsonl")
		makeOldEnded(t, s, "old", 100)
		res := s.AutoMaintain(t.Context(), AutoMaintainOptions{Retention: retention})
		if res.Pruned != 1 {
			t.Errorf("AutoMaintain = %+v, want pruned 1", res)
		}
		if !fileExists(t, dir, "old.jsonl") {
			t.Error("old.jsonl was removed")
		}
	})

	t.Run("PruneSessionsDeletesFilesForPrunedOnly", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		dir := filepath.Join(t.TempDir(), "sessions")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		makeOldEnded(t, s, "old", 100)
		mustCreate(t, s, NewSession{ID: "active", Source: "cli"})
		writeFiles(t, dir, "old.jsonl", "active.jsonl")
		if n := mustPrune(t, s, 90, "", dir); n != 1 {
			t.Errorf("prune_sessions(90, sessions_dir) = %d, want 1", n)
		}
		if fileExists(t, dir, "old.jsonl") {
			t.Error("old.jsonl still exists")
		}
		if !fileExists(t, dir, "active.jsonl") {
			t.Error("active.jsonl was removed")
		}
	})
}
