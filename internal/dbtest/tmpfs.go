package dbtest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// RequireRootEnv names the environment variable under which a test that
// mounts a filesystem fails instead of skipping when it cannot (not root,
// no mount(8)): CI runs as root and sets it, so a full-disk test can never
// pass by not running.
const RequireRootEnv = "HERMESSTATE_REQUIRE_ROOT"

// Tmpfs mounts a tmpfs of size bytes on a new directory under t.TempDir()
// and returns the directory; it is unmounted when the test ends (after
// the cleanups the test registers later, such as closing a store on it).
// When it cannot mount, the test is skipped, or fails when RequireRootEnv
// is set.
func Tmpfs(t testing.TB, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tmpfs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput()
	if err != nil {
		if os.Getenv(RequireRootEnv) != "" {
			t.Fatalf("mount a tmpfs: %v: %s (%s is set: this test must run)", err, out, RequireRootEnv)
		}
		t.Skipf("cannot mount a tmpfs (%v: %s); set %s=1 to make this a failure", err, out, RequireRootEnv)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// Fill writes the file path until its filesystem has no space left, and
// returns the number of bytes written.
func Fill(t testing.TB, path string) int64 {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	var n int64
	for {
		w, err := f.Write(block)
		n += int64(w)
		if errors.Is(err, syscall.ENOSPC) {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
