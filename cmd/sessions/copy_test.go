package main

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/pgtest"
)

// TestCopy copies the fixture into a new file: the copy exports exactly
// what the fixture exports, a second copy skips every session, and SRC
// equal to DST is a usage error.
func TestCopy(t *testing.T) {
	t.Parallel()
	src := fixtureCopy(t)
	dst := filepath.Join(t.TempDir(), "copy.db")
	want := sessions(t, "-db", src, "export")
	first := sessions(t, "copy", src, dst)
	if diff := cmp.Diff(want, sessions(t, "-db", dst, "export")); diff != "" {
		t.Errorf("export of the copy (-source +copy):\n%s", diff)
	}
	again := sessionsJSON[obj](t, "copy", src, dst)
	if again["created"] != float64(0) || again["skipped"] == float64(0) {
		t.Errorf("second copy: %v, want nothing created and every session skipped (first: %q)", again, first)
	}
	failure(t, 2, []string{"sessions: copy: SRC and DST are the same database",
		"usage: sessions copy [-db PATH] [--json] [--batch N] SRC DST (-h for help)"}, "copy", src, src)
}

// TestCopyThroughPostgres moves the fixture from its SQLite file into a
// PostgreSQL database and from there into a new file: the database exports
// what the file exports, and so does the file that came back.
func TestCopyThroughPostgres(t *testing.T) {
	t.Parallel()
	src := fixtureCopy(t)
	pg := pgtest.NewDatabase(t)
	back := filepath.Join(t.TempDir(), "back.db")
	want := sessions(t, "-db", src, "export")
	sessions(t, "copy", src, pg)
	if diff := cmp.Diff(want, sessions(t, "-db", pg, "export")); diff != "" {
		t.Errorf("export of the PostgreSQL database (-file +postgres):\n%s", diff)
	}
	sessions(t, "copy", pg, back)
	if diff := cmp.Diff(want, sessions(t, "-db", back, "export")); diff != "" {
		t.Errorf("export of the file copied back (-original +back):\n%s", diff)
	}
}
