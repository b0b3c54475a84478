package publish

// Tests on real files in t.TempDir(): what is refused, what is replaced,
// that a temporary file never outlives a failure, and which temporary
// files are stale. A stale file is made the way a killed process leaves
// one: a file under TempPrefix that nobody holds locked.

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// onlyFiles checks that dir holds the files named want and no other.
func onlyFiles(t *testing.T, dir string, want ...string) {
	t.Helper()
	if diff := cmp.Diff(append([]string{}, want...), dbtest.DirNames(t, dir)); diff != "" {
		t.Errorf("files in %s (-want +got):\n%s", dir, diff)
	}
}

// write creates path holding text.
func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// content returns the text of the file at path.
func content(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// publish creates target with text through Create, Write and Commit.
func publish(t *testing.T, target, text string, force bool) error {
	t.Helper()
	f, err := Create(target, force)
	if err != nil {
		return err
	}
	defer f.Discard()
	if _, err := f.Write([]byte(text)); err != nil {
		return err
	}
	return f.Commit(context.Background())
}

func TestPublish(t *testing.T) {
	t.Parallel()

	t.Run("New", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		target := filepath.Join(dir, "out.jsonl")
		if err := publish(t, target, "data\n", false); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(target)
		if err != nil || fi.Mode().Perm() != 0o600 || content(t, target) != "data\n" {
			t.Errorf("published file: %v, %v, %q; want mode 0600 holding data", fi, err, content(t, target))
		}
		onlyFiles(t, dir, "out.jsonl")
	})

	t.Run("ExistsWithoutForce", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		target := filepath.Join(dir, "out.jsonl")
		write(t, target, "old")
		err := publish(t, target, "new", false)
		if !errors.Is(err, ErrExists) || err.Error() != target+" already exists" {
			t.Errorf("publish onto a file: %v, want %q (ErrExists)", err, target+" already exists")
		}
		if got := content(t, target); got != "old" {
			t.Errorf("the existing file holds %q, want old", got)
		}
		onlyFiles(t, dir, "out.jsonl")
	})

	t.Run("ForceReplacesRegularFile", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		target := filepath.Join(dir, "out.jsonl")
		write(t, target, "old")
		if err := publish(t, target, "new", true); err != nil {
			t.Fatal(err)
		}
		if got := content(t, target); got != "new" {
			t.Errorf("the replaced file holds %q, want new", got)
		}
		onlyFiles(t, dir, "out.jsonl")
	})

	t.Run("ForceNeverReplacesOtherKinds", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		kept, kinds := dbtest.NotRegularFiles(t, dir)
		kinds["/dev/zero"] = "a device"
		for target, kind := range kinds {
			err := publish(t, target, "new", true)
			if want := target + " is " + kind + ", not a regular file"; !errors.Is(err, ErrNotRegular) || err.Error() != want {
				t.Errorf("forced publish onto %s: %v, want %q (ErrNotRegular)", target, err, want)
			}
		}
		if got := content(t, kept); got != "kept" {
			t.Errorf("the link's target holds %q", got)
		}
		onlyFiles(t, dir, "fifo", "kept", "link", "sub")
		for _, dev := range []string{"/dev/null", "/dev/zero"} {
			if fi, err := os.Lstat(dev); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
				t.Errorf("%s is no longer a character device: %v, %v", dev, fi, err)
			}
		}
		if stale, err := scanNames("/dev"); err != nil || len(stale) != 0 {
			t.Errorf("temporary files in /dev: %q, %v", stale, err)
		}
	})

	t.Run("NoDirectory", func(t *testing.T) {
		t.Parallel()
		top := t.TempDir()
		file := filepath.Join(top, "file")
		write(t, file, "x")
		for target, want := range map[string]string{
			filepath.Join(top, "a", "b", "out"): "no such directory: " + filepath.Join(top, "a", "b"),
			filepath.Join(file, "out"):          "no such directory: " + file + " (not a directory)",
		} {
			err := publish(t, target, "x", true)
			if !errors.Is(err, ErrNoDirectory) || err.Error() != want {
				t.Errorf("publish %s: %v, want %q (ErrNoDirectory)", target, err, want)
			}
		}
		onlyFiles(t, top, "file")
	})

	t.Run("FileAppearedMeanwhile", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		target := filepath.Join(dir, "out")
		f, err := Create(target, false)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("ours"))
		write(t, target, "theirs")
		if err := f.Commit(context.Background()); !errors.Is(err, ErrExists) {
			t.Errorf("Commit onto a file created meanwhile: %v, want ErrExists", err)
		}
		if got := content(t, target); got != "theirs" {
			t.Errorf("the file created meanwhile holds %q", got)
		}
		onlyFiles(t, dir, "out")
	})

	t.Run("LinkAppearedMeanwhileForced", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		target := filepath.Join(dir, "out")
		f, err := Create(target, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("/dev/null", target); err != nil {
			t.Fatal(err)
		}
		if err := f.Commit(context.Background()); !errors.Is(err, ErrNotRegular) {
			t.Errorf("forced Commit onto a link created meanwhile: %v, want ErrNotRegular", err)
		}
		if got, err := os.Readlink(target); err != nil || got != "/dev/null" {
			t.Errorf("the link now: %q, %v", got, err)
		}
		onlyFiles(t, dir, "out")
	})

	t.Run("CancelledOrDiscarded", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		f, err := Create(filepath.Join(dir, "a"), false)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("half"))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := f.Commit(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Commit with a cancelled context: %v", err)
		}
		g, err := Create(filepath.Join(dir, "b"), false)
		if err != nil {
			t.Fatal(err)
		}
		g.Discard()
		g.Discard()
		if err := g.Commit(context.Background()); err == nil || strings.Contains(err.Error(), TempPrefix) {
			t.Errorf("Commit after Discard: %v, want an error without the temporary name", err)
		}
		onlyFiles(t, dir)
	})

	t.Run("WriteErrorNamesTheTarget", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		target := filepath.Join(dir, "out")
		f, err := Create(target, false)
		if err != nil {
			t.Fatal(err)
		}
		f.f.Close() // the next write fails
		_, err = f.Write([]byte("x"))
		if want := "write " + target + ": file already closed"; err == nil || err.Error() != want {
			t.Errorf("Write on a closed file: %v, want %q", err, want)
		}
		f.Discard()
		onlyFiles(t, dir)
	})

	t.Run("LongName", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		target := filepath.Join(dir, strings.Repeat("日", 80)) // 240 bytes
		f, err := Create(target, false)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Discard()
		base := filepath.Base(f.TempPath())
		if len(base) > 255 || !strings.HasPrefix(base, TempPrefix) || !strings.HasSuffix(base, "-"+strings.Repeat("日", 21)) {
			t.Errorf("temporary name %q (%d bytes)", base, len(base))
		}
	})
}

// scanNames lists the names under TempPrefix in dir.
func scanNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), TempPrefix) {
			out = append(out, e.Name())
		}
	}
	return out, err
}

func TestStale(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	live, err := Create(filepath.Join(dir, "new.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Discard()
	stale := filepath.Join(dir, TempPrefix+"00000000000000aa-old.db")
	write(t, stale, "left by a killed backup")
	// SQLite's journal beside a stale file, beside a file that is gone,
	// and beside the live one (not stale: its writer may be using it).
	write(t, stale+"-journal", "its journal")
	orphan := filepath.Join(dir, TempPrefix+"00000000000000ab-gone.db-journal")
	write(t, orphan, "a journal whose file was removed")
	liveJournal := live.TempPath() + "-journal"
	write(t, liveJournal, "the live file's journal")
	// Under the prefix, but not stale: a link (to a file that is none of
	// ours), a file with a second name, a named pipe, a directory.
	other := filepath.Join(dir, "state.db")
	write(t, other, "a database")
	linked := filepath.Join(dir, TempPrefix+"00000000000000bb-linked")
	if err := os.Link(other, linked); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(dir, TempPrefix+"00000000000000cc-symlink")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, TempPrefix+"00000000000000dd-fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, TempPrefix+"00000000000000ee-dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	before := dbtest.DirNames(t, dir)

	wantStale := []string{stale, stale + "-journal", orphan}
	got, err := Stale(dir)
	if err != nil || cmp.Diff(wantStale, got) != "" {
		t.Errorf("Stale = %q, %v; want %q", got, err, wantStale)
	}
	if diff := cmp.Diff(before, dbtest.DirNames(t, dir)); diff != "" {
		t.Errorf("Stale changed the directory (-before +after):\n%s", diff)
	}
	got, err = RemoveStale(dir)
	if err != nil || cmp.Diff(wantStale, got) != "" {
		t.Errorf("RemoveStale = %q, %v; want %q", got, err, wantStale)
	}
	want := slices.DeleteFunc(before, func(n string) bool {
		return slices.Contains(wantStale, filepath.Join(dir, n))
	})
	if diff := cmp.Diff(want, dbtest.DirNames(t, dir)); diff != "" {
		t.Errorf("after RemoveStale (-want +got):\n%s", diff)
	}

	// Create removes stale files of its directory, and its own is not.
	write(t, stale, "left again")
	next, err := Create(filepath.Join(dir, "next.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Discard()
	if _, err := os.Lstat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Create left the stale file (%v)", err)
	}
	if got, err := Stale(dir); err != nil || len(got) != 0 {
		t.Errorf("Stale with two files being written = %q, %v; want none", got, err)
	}
	if got := content(t, other); got != "a database" {
		t.Errorf("the linked file holds %q", got)
	}

	// Discard removes the file and its companions.
	live.Discard()
	if _, err := os.Lstat(liveJournal); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Discard left the journal (%v)", err)
	}
}
