package main

// A real process stopped half-way: SIGINT and SIGTERM cancel the command,
// which removes its temporary file and exits 130 or 143; SIGKILL leaves
// the temporary file, which is then stale: the next export or backup into
// that directory removes it, and doctor reports (and with --fix-temp
// removes) one beside the database. A temporary file whose writer is
// alive is never touched.

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// bigExportSize is the size of the big fixture's export, measured once.
var bigExportSize = sync.OnceValues(func() (int64, error) {
	src, err := bigFixture()
	if err != nil {
		return 0, err
	}
	out, err := exec.Command(sessionsBin, "-db", src, "export").Output()
	return int64(len(out)), err
})

// stoppedExport starts `sessions -db db export -o target` (db a copy of
// the big fixture) and stops it
// (SIGSTOP) while it writes: once its temporary file (a new one in
// target's directory) exists, holding less than half the export, and
// target does not. It returns the stopped
// process, its temporary file and where its standard error goes.
func stoppedExport(t *testing.T, db, target string) (*exec.Cmd, string, *strings.Builder) {
	t.Helper()
	exportSize, err := bigExportSize()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(target)
	existing := tempNames(t, dir)
	for attempt := 1; attempt <= 5; attempt++ {
		cmd := exec.Command(sessionsBin, "-db", db, "export", "-o", target)
		cmd.Env = []string{"TZ=UTC", "HOME=" + t.TempDir()}
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			names := slices.DeleteFunc(tempNames(t, dir), func(n string) bool { return slices.Contains(existing, n) })
			if len(names) == 1 {
				tmp := filepath.Join(dir, names[0])
				if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
					t.Fatal(err)
				}
				if !lockedByOther(tmp) {
					// Stopped between creating the file and locking it:
					// another export's sweep would take it for stale. Let
					// it take the lock first.
					cmd.Process.Signal(syscall.SIGCONT)
					time.Sleep(time.Millisecond)
					continue
				}
				fi, err := os.Stat(tmp)
				if _, terr := os.Lstat(target); err == nil && fi.Size() < exportSize/2 && errors.Is(terr, os.ErrNotExist) {
					return cmd, tmp, &stderr
				}
				break // too late: the export was nearly done
			}
			time.Sleep(time.Millisecond)
		}
		cmd.Process.Kill()
		cmd.Wait()
		os.Remove(target)
		t.Logf("attempt %d: the export was not caught half-way", attempt)
	}
	t.Fatal("could not stop an export half-way")
	return nil, "", nil
}

// wait waits for the stopped-and-signalled process and returns its exit
// code, or -1 and the signal that killed it.
func wait(t *testing.T, cmd *exec.Cmd) (int, syscall.Signal) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			if ws := exit.Sys().(syscall.WaitStatus); ws.Signaled() {
				return -1, ws.Signal()
			}
			return exit.ExitCode(), 0
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, 0
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the signalled export did not exit within 30s")
	}
	return 0, 0
}

func TestExportInterrupted(t *testing.T) {
	t.Parallel()
	db := bigCopy(t)
	for _, tt := range []struct {
		sig  syscall.Signal
		code int
		name string
	}{{syscall.SIGTERM, 143, "SIGTERM"}, {syscall.SIGINT, 130, "SIGINT"}} {
		dir := t.TempDir()
		cmd, _, stderr := stoppedExport(t, db, filepath.Join(dir, "out.jsonl"))
		cmd.Process.Signal(tt.sig)
		cmd.Process.Signal(syscall.SIGCONT)
		code, _ := wait(t, cmd)
		if code != tt.code || stderr.String() != "sessions: stopped by "+tt.name+"\n" {
			t.Errorf("export stopped by %s: exit %d, stderr %q; want %d, %q", tt.name, code, stderr, tt.code, "sessions: stopped by "+tt.name+"\n")
		}
		if diff := cmp.Diff([]string{}, dbtest.DirNames(t, dir)); diff != "" {
			t.Errorf("files left after %s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestStaleTemporaryFiles(t *testing.T) {
	t.Parallel()
	db := bigCopy(t)
	dbDir := filepath.Dir(db)

	// A writer alive (stopped, not dead) holds its temporary file: the
	// next export into the directory and doctor leave it alone.
	live, liveTmp, _ := stoppedExport(t, db, filepath.Join(dbDir, "live.jsonl"))
	defer func() {
		live.Process.Kill()
		live.Wait()
	}()

	// A writer killed: its temporary file stays, stale.
	killed, stale, _ := stoppedExport(t, db, filepath.Join(dbDir, "killed.jsonl"))
	killed.Process.Signal(syscall.SIGKILL)
	if _, sig := wait(t, killed); sig != syscall.SIGKILL {
		t.Fatalf("the export was not killed: %v", sig)
	}
	if _, err := os.Lstat(stale); err != nil {
		t.Fatalf("SIGKILL left no temporary file: %v", err)
	}
	names := []string{filepath.Base(stale), filepath.Base(liveTmp), "state.db"}
	slices.Sort(names)

	// doctor reports the stale one (exit 1) and removes nothing.
	r := runSessions(t, nil, "-db", db, "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "stale temp files      1\n") ||
		!strings.Contains(r.stdout, "  stale temporary file "+stale+": left by a killed export or backup; --fix-temp removes it\n") ||
		r.stderr != "sessions: doctor: 1 problem found\n" {
		t.Errorf("doctor with a stale temporary file: %+v", r)
	}
	if diff := cmp.Diff(names, withoutWAL(dbtest.DirNames(t, dbDir))); diff != "" {
		t.Errorf("doctor changed the directory (-want +got):\n%s", diff)
	}
	got := sessionsJSON[obj](t, "-db", db, "doctor", "--fix-temp")
	if diff := cmp.Diff(obj{"ok": true, "stale_temp_files": []any{}, "removed_temp_files": []any{stale}},
		obj{"ok": got["ok"], "stale_temp_files": got["stale_temp_files"], "removed_temp_files": got["removed_temp_files"]}); diff != "" {
		t.Errorf("doctor --fix-temp (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{filepath.Base(liveTmp), "state.db"}, withoutWAL(dbtest.DirNames(t, dbDir))); diff != "" {
		t.Errorf("after doctor --fix-temp (-want +got):\n%s", diff)
	}

	// The next export into a directory removes a stale file there.
	other := t.TempDir()
	killed, stale, _ = stoppedExport(t, db, filepath.Join(other, "killed.jsonl"))
	killed.Process.Signal(syscall.SIGKILL)
	wait(t, killed)
	if got := sessions(t, "-db", db, "export", "--source", "none", "-o", filepath.Join(other, "next.jsonl")); got != "exported 0 sessions to "+filepath.Join(other, "next.jsonl")+"\n" {
		t.Errorf("export: %q", got)
	}
	if diff := cmp.Diff([]string{"next.jsonl"}, dbtest.DirNames(t, other)); diff != "" {
		t.Errorf("after the next export (-want +got):\n%s", diff)
	}
	if _, err := os.Lstat(liveTmp); err != nil {
		t.Errorf("the live writer's temporary file was removed: %v", err)
	}
}

// lockedByOther reports whether another process holds path's flock, as a
// live export holds its temporary file's.
func lockedByOther(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return true
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}

// withoutWAL leaves out the -wal and -shm a command's open may leave
// while another process (the stopped export) has the database open.
func withoutWAL(names []string) []string {
	var out []string
	for _, n := range names {
		if !strings.HasSuffix(n, "-wal") && !strings.HasSuffix(n, "-shm") {
			out = append(out, n)
		}
	}
	return out
}
