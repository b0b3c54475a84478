package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// TestBackup copies the fixture: the copy is private, holds the same
// sessions, and an existing target is refused untouched.
func TestBackup(t *testing.T) {
	t.Parallel()
	src := fixtureCopy(t)
	target := filepath.Join(t.TempDir(), "state-backup.db")
	out := sessions(t, "-db", src, "backup", target)
	fi, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("backed up %s to %s (%s bytes)\n", src, target, formatInt(fi.Size())); out != want {
		t.Errorf("sessions backup: %q, want %q", out, want)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("backup mode = %v, want 0600", fi.Mode().Perm())
	}
	if diff := cmp.Diff(sessions(t, "-db", src, "export"), sessions(t, "-db", target, "export")); diff != "" {
		t.Errorf("export of the backup (-original +backup):\n%s", diff)
	}

	before, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	failure(t, 1, []string{"sessions: " + target + " already exists; --force replaces it"}, "-db", src, "backup", target)
	if after, err := os.ReadFile(target); err != nil || string(after) != string(before) {
		t.Errorf("the existing target changed (%v)", err)
	}

	jsonTarget := filepath.Join(t.TempDir(), "b.db")
	got := sessionsJSON[obj](t, "-db", src, "backup", jsonTarget)
	if fi, err := os.Stat(jsonTarget); err != nil || cmp.Diff(obj{"path": jsonTarget, "bytes": float64(fi.Size())}, got) != "" {
		t.Errorf("sessions --json backup = %v (%v)", got, err)
	}
}

// TestBackupWhileWriting backs a file up while another process appends to
// it as fast as it can: the copy passes integrity_check and holds a prefix
// of the writes, message 1 to k with nothing missing, the counters
// matching.
func TestBackupWhileWriting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "state.db")
	openTestStore(t, src, nil).Close() // the schema, before the writer starts

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	writer := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	writer.Env = append(os.Environ(), helperEnv+"=append", helperDBEnv+"="+src)
	stdin, err := writer.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdoutPipe, err := writer.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	writer.Stderr = &stderr
	if err := writer.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewScanner(stdoutPipe)
	if !out.Scan() || out.Text() != "ready" {
		t.Fatalf("writer did not start: %q %s", out.Text(), &stderr)
	}

	// Two backups while the writer keeps appending.
	targets := []string{filepath.Join(dir, "b1.db"), filepath.Join(dir, "b2.db")}
	for _, target := range targets {
		if r := runSessions(t, nil, "-db", src, "backup", target); r.code != 0 {
			t.Errorf("backup: exit %d: %s", r.code, r.stderr)
		}
	}
	stdin.Close()
	if !out.Scan() {
		t.Fatalf("writer ended without its count: %s", &stderr)
	}
	written, err := strconv.Atoi(out.Text())
	if err := writer.Wait(); err != nil {
		t.Fatalf("writer: %v: %s", err, &stderr)
	}
	if err != nil {
		t.Fatal(err)
	}

	prev := 0
	for _, target := range targets {
		db := openDB(t, target)
		if got := dbtest.Values[string](t, db, "PRAGMA integrity_check"); cmp.Diff([]string{"ok"}, got) != "" {
			t.Errorf("%s: integrity_check = %v", target, got)
		}
		contents := dbtest.Values[string](t, db, "SELECT content FROM messages WHERE session_id = 'writer' ORDER BY id")
		k := len(contents)
		want := make([]string, k)
		for i := range want {
			want[i] = fmt.Sprintf("message %d", i+1)
		}
		if diff := cmp.Diff(want, contents); diff != "" {
			t.Errorf("%s: messages are not a prefix of the writes (-want +got):\n%s", target, diff)
		}
		if got := dbtest.Value[int64](t, db, "SELECT message_count FROM sessions WHERE id = 'writer'"); got != int64(k) {
			t.Errorf("%s: message_count = %d, want %d", target, got, k)
		}
		// The writer appended 100 messages before "ready"; the second
		// backup started after the first ended.
		if k < 100 || k < prev || k > written {
			t.Errorf("%s holds %d messages; want from max(100, %d) to %d", target, k, prev, written)
		}
		prev = k
		t.Logf("%s: %d of the %d messages written", filepath.Base(target), k, written)
	}
}
