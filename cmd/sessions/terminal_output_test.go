package main

// What only a person at a terminal sees, on standard error: progress bars
// for the backup and vacuum of a large file, and "No sessions found." /
// "No matches." for an empty result. Without a terminal there is nothing,
// and standard output is the same either way.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// checkBar checks a terminal transcript holds a bar saying what, cleared
// at the end (the last carriage return is followed by spaces only).
func checkBar(t *testing.T, transcript, what string) {
	t.Helper()
	last := transcript[strings.LastIndex(transcript, "\r")+1:]
	if !strings.Contains(transcript, what) || !strings.Contains(transcript, "%") || strings.TrimSpace(last) != "" {
		t.Errorf("terminal: %q; want a bar saying %q, cleared at the end", transcript, what)
	}
}

func TestProgressBars(t *testing.T) {
	t.Parallel()
	onStderr := onTerminal{stderr: true}

	t.Run("Backup", func(t *testing.T) {
		t.Parallel()
		db := bigCopy(t)
		if fi, err := os.Stat(db); err != nil || fi.Size() < manyBytes {
			t.Fatalf("the big fixture: %v, %v; want at least %d bytes", fi, err, manyBytes)
		}
		dir := t.TempDir()
		target := filepath.Join(dir, "on-terminal.db")
		r := runTerminal(t, onStderr, nil, "", "-db", db, "backup", target)
		fi, err := os.Stat(target)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("backed up %s to %s (%s bytes)\n", db, target, formatInt(fi.Size())); r.code != 0 || r.stdout != want {
			t.Errorf("backup on a terminal: exit %d, stdout %q; want %q", r.code, r.stdout, want)
		}
		checkBar(t, r.stderr, "backing up")
		// Not a terminal: no bar, the same report.
		target = filepath.Join(dir, "piped.db")
		if got, want := sessions(t, "-db", db, "backup", target), fmt.Sprintf("backed up %s to %s (%s bytes)\n", db, target, formatInt(fi.Size())); got != want {
			t.Errorf("backup: %q, want %q", got, want)
		}
		// A small file: no bar on a terminal either.
		small := filepath.Join(dir, "small.db")
		if r := runTerminal(t, onStderr, nil, "", "-db", fixturePath, "backup", small); r.code != 0 || r.stderr != "" {
			t.Errorf("backup of the small fixture on a terminal: exit %d, terminal %q", r.code, r.stderr)
		}
	})

	t.Run("Vacuum", func(t *testing.T) {
		t.Parallel()
		db := bigCopy(t)
		before, err := diskSize(db)
		if err != nil {
			t.Fatal(err)
		}
		r := runTerminal(t, onStderr, nil, "", "-db", db, "vacuum")
		after, err := diskSize(db)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("%s: %s bytes before, %s after\n", db, formatInt(before), formatInt(after)); r.code != 0 || r.stdout != want {
			t.Errorf("vacuum on a terminal: exit %d, stdout %q; want %q", r.code, r.stdout, want)
		}
		checkBar(t, r.stderr, "vacuuming")
		if got := runSessions(t, nil, "-db", db, "vacuum"); got.code != 0 || got.stderr != "" {
			t.Errorf("vacuum without a terminal: %+v", got)
		}
	})
}

func TestEmptyResults(t *testing.T) {
	t.Parallel()
	// A new file as the original creates it (v11, no sessions), brought up
	// to v21 as migrate up does, and the fixture searched for what it does
	// not hold.
	empty := dbtest.CopyFixture(t, "state-v11-fresh.db")
	if err := openTestStore(t, empty, nil).Close(); err != nil {
		t.Fatal(err)
	}
	before := dbtest.FileHash(t, empty)
	for _, tt := range []struct {
		args []string
		said string
	}{
		{[]string{"-db", empty, "list"}, "No sessions found.\n"},
		{[]string{"-db", fixturePath, "list", "--source", "slack"}, "No sessions found.\n"},
		{[]string{"-db", fixturePath, "search", "kubernetes"}, "No matches.\n"},
		{[]string{"-db", empty, "search", "docker"}, "No matches.\n"},
	} {
		checkResult(t, fmt.Sprintf("%v on a terminal", tt.args), result{stderr: tt.said}, runTerminal(t, onTerminal{stderr: true}, nil, "", tt.args...))
		checkResult(t, fmt.Sprintf("%v", tt.args), result{}, runSessions(t, nil, tt.args...))
		// --json prints its empty document, and says nothing more.
		checkResult(t, fmt.Sprintf("--json %v on a terminal", tt.args), result{stdout: "[]\n"},
			runTerminal(t, onTerminal{stderr: true}, nil, "", append([]string{"--json"}, tt.args...)...))
	}
	if dbtest.FileHash(t, empty) != before {
		t.Error("reading the empty file changed it")
	}
}
