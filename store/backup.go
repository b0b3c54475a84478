package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hermesstate/hermesstate/internal/poll"
	"github.com/hermesstate/hermesstate/internal/publish"
	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// Errors of Backup's target, shared with the command line's export -o
// (package internal/publish holds the one rule for both).
var (
	// ErrExists is returned by Backup when its target exists and
	// BackupOptions.Force is not set, or names the database or one of its
	// own -wal, -shm or -journal files, or has a -wal or -journal of its
	// own beside it (never replaced, even forced).
	ErrExists = publish.ErrExists

	// ErrNotRegular is returned by Backup with BackupOptions.Force when
	// the target exists and is not a regular file (a symbolic link,
	// directory, named pipe, socket or device node): only a regular file
	// is ever replaced.
	ErrNotRegular = publish.ErrNotRegular
)

// BackupOptions configure Backup. The zero value writes a new file only.
type BackupOptions struct {
	// Force replaces a regular file at the target (atomically, by a
	// rename); anything else there is still refused.
	Force bool
	// Progress, when not nil, is called about every ProgressInterval
	// while the copy is written, and once at the end, with the bytes
	// written so far and the expected size of the copy (which a copy may
	// pass a little). It runs on another goroutine, never after Backup
	// returns.
	Progress func(written, total int64)
}

// ProgressInterval is how often Backup reports progress.
const ProgressInterval = 100 * time.Millisecond

// vacuumIntoSQL writes a compacted, consistent copy of the database into a
// new file. Hand-written: sqlc cannot compile VACUUM. On a read-only pool
// connection it reads one snapshot, so writers in this and other processes
// carry on while it runs; the copy's path is bound, never spliced in.
const vacuumIntoSQL = "VACUUM INTO ?"

// Backup writes a consistent copy of the database, as of one moment, to
// path (VACUUM INTO: compacted, in rollback-journal mode; the store
// switches it to WAL when it is opened). It is safe while this and other
// processes write: it reads one snapshot and takes no write lock. The copy
// is written to a private (0600) temporary file in path's directory,
// synced, and only then linked into place (renamed, with opts.Force), and
// the directory synced, so path holds either what it held before or a
// whole backup, even if the process dies half-way. The directory must
// exist. A failure or a cancelled ctx removes the temporary file; one left
// by a killed process is removed by the next Backup into that directory.
//
// It returns an error matching ErrExists (path exists, or names the
// database's own file, or, forced, has a -wal or -journal beside it),
// ErrNotRegular, ErrNoDirectory, ctx's error, a filesystem error,
// ErrDiskFull or ErrClosed. Every error reads "store: backup: …" and names
// the file it concerns.
func (s *Store) Backup(ctx context.Context, path string, opts BackupOptions) (err error) {
	defer wrap(&err, "backup")
	if s.pg != nil {
		return errBackupOnPostgres
	}
	if s.ownFile(path) {
		return fmt.Errorf("%s %w: it is the database's own file", path, ErrExists)
	}
	if err := noSideFiles(path, opts.Force); err != nil {
		return err
	}
	pages, err := s.pages(ctx)
	if err != nil {
		return err
	}
	f, err := publish.Create(path, opts.Force)
	if err != nil {
		return err
	}
	defer f.Discard()
	stop := reportProgress(f, pages.UsedBytes(), opts.Progress)
	err = s.vacuumInto(ctx, f.TempPath())
	stop()
	if err != nil {
		return err
	}
	return f.Commit(ctx)
}

// reportProgress calls progress with f's size against total every
// ProgressInterval until the returned stop is called; stop reports once
// more and returns when no call is running any more. A nil progress
// does nothing.
func reportProgress(f *publish.File, total int64, progress func(written, total int64)) (stop func()) {
	if progress == nil {
		return func() {}
	}
	return poll.Every(ProgressInterval, func() {
		if n, err := f.Size(); err == nil {
			progress(n, total)
		}
	})
}

// ownFile reports whether path names the database or one of the files
// SQLite keeps beside it, which may be absent at this moment but must never
// be created or replaced by anyone else: by its name, or (for an existing
// path: another link or spelling) by its identity.
func (s *Store) ownFile(path string) bool {
	p, err1 := filepath.Abs(path)
	db, err2 := filepath.Abs(s.path)
	if err1 != nil || err2 != nil {
		return false
	}
	target, err := os.Stat(path)
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if p == db+suffix {
			return true
		}
		if fi, serr := os.Stat(db + suffix); err == nil && serr == nil && os.SameFile(target, fi) {
			return true
		}
	}
	return false
}

// noSideFiles refuses to replace (force) a file that has a -wal or
// -journal beside it: that file is a database in use, or one not closed
// cleanly, and SQLite would replay the old file's -wal or roll back its
// journal over the new backup the first time it is opened.
func noSideFiles(path string, force bool) error {
	if !force {
		return nil
	}
	for _, suffix := range []string{"-wal", "-journal"} {
		if _, err := os.Lstat(path + suffix); err == nil {
			return fmt.Errorf("%s%s %w: the file at the backup path is a database in use or not closed cleanly, never replaced", path, suffix, ErrExists)
		}
	}
	return nil
}

// vacuumInto runs VACUUM INTO target on a read-only connection.
func (s *Store) vacuumInto(ctx context.Context, target string) error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	if _, err := s.r.ExecContext(ctx, vacuumIntoSQL, target); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return sqlite.Classify(err)
	}
	return nil
}
