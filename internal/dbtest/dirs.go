package dbtest

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// DirNames lists the names in dir, sorted; an empty (not nil) slice when
// there are none.
func DirNames(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// NotRegularFiles creates in dir a regular file "kept" and beside it what
// a published file must never replace: "link" (a symbolic link to kept),
// "fifo" (a named pipe) and "sub" (a directory). It returns kept's path
// and each of those paths, and /dev/null, with what it is in the words of
// the refusal ("a symbolic link", "a named pipe", "a directory", "a
// device").
func NotRegularFiles(t testing.TB, dir string) (kept string, kinds map[string]string) {
	t.Helper()
	kept = filepath.Join(dir, "kept")
	if err := os.WriteFile(kept, []byte("kept"), 0o600); err != nil {
		t.Fatal(err)
	}
	link, fifo, sub := filepath.Join(dir, "link"), filepath.Join(dir, "fifo"), filepath.Join(dir, "sub")
	if err := os.Symlink(kept, link); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	return kept, map[string]string{link: "a symbolic link", fifo: "a named pipe", sub: "a directory", "/dev/null": "a device"}
}
