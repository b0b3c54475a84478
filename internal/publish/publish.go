package publish

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"github.com/hermesstate/hermesstate/internal/dbpath"
)

// Errors of Check, Create and Commit, matched with errors.Is. Each is
// wrapped with the path it concerns.
var (
	// ErrExists is a target that exists when the caller did not force,
	// e.g. "backup.db already exists".
	ErrExists = errors.New("already exists")

	// ErrNotRegular is a target that exists and is not a regular file
	// (a symbolic link, directory, named pipe, socket or device), which is
	// never replaced, e.g. "/dev/null is a device, not a regular file".
	ErrNotRegular = errors.New("not a regular file")

	// ErrNoDirectory is a target whose directory does not exist, e.g.
	// "no such directory: /backups/2026": the same sentinel as an explicit
	// database path's (dbpath.ErrNoDirectory).
	ErrNoDirectory = dbpath.ErrNoDirectory
)

// TempPrefix starts the name of every temporary file the package creates:
// ".hermesstate-tmp-", 16 random hexadecimal digits, "-" and (at most 64
// bytes of) the target's name, e.g. ".hermesstate-tmp-3f9c…-backup.db".
const TempPrefix = ".hermesstate-tmp-"

// maxBaseInName is how much of the target's name a temporary name keeps:
// enough to tell whose it is, short enough for NAME_MAX (255).
const maxBaseInName = 64

// Check reports whether target may be published: its directory exists and
// target does not, or force is set and target is a regular file. It
// returns an error matching ErrNoDirectory, ErrExists or ErrNotRegular, or
// the file system's error for a directory it cannot look at.
func Check(target string, force bool) error {
	if err := dbpath.DirExists(target); err != nil {
		return err
	}
	return checkTarget(target, force)
}

// checkTarget is Check without the directory.
func checkTarget(target string, force bool) error {
	fi, err := os.Lstat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !force:
		return fmt.Errorf("%s %w", target, ErrExists)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is %s, %w", target, kind(fi.Mode()), ErrNotRegular)
	}
	return nil
}

// kind names what a file that is not regular is.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// File is a temporary file that becomes the target at Commit. Its methods
// are not safe for concurrent use, except Size.
type File struct {
	f      *os.File
	target string
	tmp    string
	force  bool
	done   bool
}

// Create checks target (see Check), removes stale temporary files from its
// directory and returns a new, empty, private (0600) temporary file there,
// locked for as long as it exists. The caller must end it with Commit or
// Discard.
//
// It returns an error matching ErrNoDirectory, ErrExists or ErrNotRegular,
// or the file system's error (naming the directory, never the temporary
// file).
func Create(target string, force bool) (*File, error) {
	if err := Check(target, force); err != nil {
		return nil, err
	}
	dir := filepath.Dir(target)
	_, _ = RemoveStale(dir) // best effort: a leftover must not block a new file
	for range 100 {
		tmp := filepath.Join(dir, tempName(filepath.Base(target)))
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("create a temporary file in %s: %w", dir, bare(err))
		}
		if owned(f, tmp) {
			return &File{f: f, target: target, tmp: tmp, force: force}, nil
		}
		// Another process's RemoveStale took it between the create and
		// the lock, and removes it: start over under a new name.
		f.Close()
	}
	return nil, fmt.Errorf("create a temporary file in %s: no free name", dir)
}

// tempName returns a new temporary name for a target called base.
func tempName(base string) string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	if len(base) > maxBaseInName {
		base = base[:maxBaseInName]
		for !utf8.ValidString(base) { // cut at a character's start
			base = base[:len(base)-1]
		}
	}
	return TempPrefix + hex.EncodeToString(b[:]) + "-" + base
}

// owned locks f and reports whether the name tmp still names it: only then
// is the new temporary file this process's.
func owned(f *os.File, tmp string) bool {
	if !tryLock(f) {
		return false
	}
	fi, err1 := f.Stat()
	li, err2 := os.Lstat(tmp)
	return err1 == nil && err2 == nil && os.SameFile(fi, li)
}

// TempPath is the temporary file's path, for a writer that opens it by
// path itself (SQLite's VACUUM INTO writes into the empty file). It must
// never be shown to a user.
func (f *File) TempPath() string { return f.tmp }

// Write writes p to the temporary file. An error names the target, never
// the temporary file.
func (f *File) Write(p []byte) (int, error) {
	n, err := f.f.Write(p)
	if err != nil {
		err = fmt.Errorf("write %s: %w", f.target, bare(err))
	}
	return n, err
}

// Size returns the temporary file's size now, for progress.
func (f *File) Size() (int64, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return 0, fmt.Errorf("stat the file for %s: %w", f.target, bare(err))
	}
	return fi.Size(), nil
}

// Commit makes the temporary file the target: it syncs the file, links it
// to the target's name (or, forced, renames it over a regular file there),
// and syncs the directory. When ctx is done, or anything fails, the
// temporary file is removed and the target is as it was.
//
// It returns ctx's error, an error matching ErrExists (a file appeared at
// the target meanwhile) or ErrNotRegular (something not a regular file
// did, when forced), or the file system's error.
func (f *File) Commit(ctx context.Context) error {
	if f.done {
		return fmt.Errorf("publish %s: already committed or discarded", f.target)
	}
	defer f.Discard()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := f.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", f.target, bare(err))
	}
	if f.force {
		// rename replaces any name, a symbolic link or a device node too:
		// look again just before it.
		if err := checkTarget(f.target, true); err != nil {
			return err
		}
		if err := os.Rename(f.tmp, f.target); err != nil {
			return fmt.Errorf("replace %s: %w", f.target, bare(err))
		}
	} else {
		// A hard link fails when the target exists, where a rename would
		// replace it: a file that appeared meanwhile is never overwritten.
		err := os.Link(f.tmp, f.target)
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s %w", f.target, ErrExists)
		}
		if err != nil {
			return fmt.Errorf("create %s: %w", f.target, bare(err))
		}
	}
	syncDir(filepath.Dir(f.target))
	return nil
}

// Discard removes the temporary file, unless Commit already published
// it. It may be called more than once, and after Commit.
func (f *File) Discard() {
	if f.done {
		return
	}
	f.done = true
	// The companions a SQLite writer may have left first (see staleFile),
	// then the name, and only then close: the lock says "in use" until
	// the name is gone. After a rename the name is already gone.
	for _, suffix := range companions {
		_ = os.Remove(f.tmp + suffix)
	}
	_ = os.Remove(f.tmp)
	_ = f.f.Close()
}

// bare strips the path from a file system error, which may be the
// temporary file's, and keeps the cause (e.g. "no space left on device").
func bare(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// syncDir makes the new directory entry durable. Some systems cannot sync
// a directory; that is not an error for a file whose data is synced.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}
