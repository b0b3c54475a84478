package store

// Tests of PruneOptions.DryRun.

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPruneDryRun checks that a dry run counts what PruneSessions would
// delete and deletes nothing, then that the real prune deletes exactly
// that many, for one source and for all.
func TestPruneDryRun(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	s, _ := openStore(t, quick(&Options{Now: func() time.Time { return now }}))
	transcripts := t.TempDir()
	const day = 24 * time.Hour
	for _, r := range []struct {
		id, source string
		age        time.Duration // how long ago it started
		ended      bool
	}{
		{"old-cli-1", "cli", 100 * day, true},
		{"old-cli-2", "cli", 95 * day, true},
		{"old-active", "cli", 100 * day, false},
		{"old-telegram", "telegram", 120 * day, true},
		{"new-ended", "cli", time.Hour, true},
	} {
		mustCreate(t, s, NewSession{ID: r.id, Source: r.source})
		mustAppend(t, s, r.id, NewMessage{Role: "user", Content: new("hi " + r.id)})
		if r.ended {
			mustEnd(t, s, r.id, "done")
		}
		backdate(t, s, r.id, float64(now.Add(-r.age).Unix()))
		if err := os.WriteFile(filepath.Join(transcripts, r.id+".json"), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	prune := func(opts PruneOptions) int {
		t.Helper()
		n, err := s.PruneSessions(t.Context(), opts)
		if err != nil {
			t.Fatalf("PruneSessions(%+v): %v", opts, err)
		}
		return n
	}
	before := exportText(t, s, ExportOptions{})
	for _, tc := range []struct {
		opts PruneOptions
		want int
	}{
		{PruneOptions{DryRun: true, SessionsDir: transcripts}, 3},
		{PruneOptions{DryRun: true, Source: "cli"}, 2},
		{PruneOptions{DryRun: true, Source: "telegram"}, 1},
		{PruneOptions{DryRun: true, Source: "acp"}, 0},
		{PruneOptions{DryRun: true, OlderThan: 110 * day}, 1},
		{PruneOptions{DryRun: true, OlderThan: 200 * day}, 0},
		{PruneOptions{DryRun: true, OlderThan: time.Minute}, 4},
	} {
		if got := prune(tc.opts); got != tc.want {
			t.Errorf("PruneSessions(%+v) = %d, want %d", tc.opts, got, tc.want)
		}
	}
	if diff := cmp.Diff(before, exportText(t, s, ExportOptions{})); diff != "" {
		t.Fatalf("a dry run changed the file (-before +after):\n%s", diff)
	}
	all := []string{"new-ended.json", "old-active.json", "old-cli-1.json", "old-cli-2.json", "old-telegram.json"}
	if diff := cmp.Diff(all, dirNames(t, transcripts)); diff != "" {
		t.Errorf("a dry run removed transcripts (-want +got):\n%s", diff)
	}

	if got := prune(PruneOptions{Source: "cli", SessionsDir: transcripts}); got != 2 {
		t.Errorf("PruneSessions(cli) deleted %d, want the dry run's 2", got)
	}
	if got := prune(PruneOptions{DryRun: true}); got != 1 {
		t.Errorf("dry run after pruning cli = %d, want 1", got)
	}
	if got := prune(PruneOptions{}); got != 1 {
		t.Errorf("PruneSessions deleted %d, want the dry run's 1", got)
	}
	ids, _ := exportIDs(t, exportText(t, s, ExportOptions{}))
	if diff := cmp.Diff([]string{"new-ended", "old-active"}, ids); diff != "" {
		t.Errorf("sessions left (-want +got):\n%s", diff)
	}
	if got := rowCounts(t, s); got != [2]int64{2, 2} {
		t.Errorf("sessions, messages left = %v, want [2 2]", got)
	}
	if diff := cmp.Diff([]string{"new-ended.json", "old-active.json", "old-telegram.json"}, dirNames(t, transcripts)); diff != "" {
		t.Errorf("transcripts left (-want +got):\n%s", diff)
	}
}
