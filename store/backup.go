package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// ErrExists is returned by Backup when its target path already exists.
var ErrExists = errors.New("store: file already exists")

// vacuumIntoSQL writes a compacted, consistent copy of the database into a
// new file. Hand-written: sqlc cannot compile VACUUM. On a read-only pool
// connection it reads one snapshot, so writers in this and other processes
// carry on while it runs; the copy's path is bound, never spliced in.
const vacuumIntoSQL = "VACUUM INTO ?"

// Backup writes a consistent copy of the database, as of one moment, to a
// new file at path (VACUUM INTO: compacted, in rollback-journal mode; the
// store switches it to WAL when it is opened). It is safe while this and
// other processes write: it reads one snapshot and takes no write lock. The
// copy is written to a private (0600) temporary file beside path, synced,
// and only then linked into place, so path holds either nothing or a whole
// backup, even if the process dies half-way. Missing parent directories are
// created (0700).
//
// It returns an error matching ErrExists when path exists or names the
// database's own -wal, -shm or -journal file (nothing is overwritten), a
// filesystem error, or ErrClosed.
func (s *Store) Backup(ctx context.Context, path string) error {
	if _, err := os.Lstat(path); err == nil || s.ownFile(path) {
		return fmt.Errorf("store: backup to %s: %w", path, ErrExists)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	// CreateTemp makes the file 0600 and unique; VACUUM INTO keeps an
	// existing empty file's mode, so the conversations are never readable
	// by others, not even while the copy is written.
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".backup-*")
	if err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	tmpPath := tmp.Name()
	defer os.Remove(tmpPath)
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	if err := s.vacuumInto(ctx, tmpPath); err != nil {
		return err
	}
	if err := syncFile(tmpPath); err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	// A hard link fails when path exists, where a rename would replace it:
	// a backup never overwrites a file created meanwhile.
	if err := os.Link(tmpPath, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("store: backup to %s: %w", path, ErrExists)
		}
		return fmt.Errorf("store: backup: %w", err)
	}
	return syncDir(dir)
}

// ownFile reports whether path names the database or one of the files
// SQLite keeps beside it, which may be absent at this moment but must never
// be created by anyone else.
func (s *Store) ownFile(path string) bool {
	p, err1 := filepath.Abs(path)
	db, err2 := filepath.Abs(s.path)
	if err1 != nil || err2 != nil {
		return false
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if p == db+suffix {
			return true
		}
	}
	return false
}

// vacuumInto runs VACUUM INTO target on a read-only connection.
func (s *Store) vacuumInto(ctx context.Context, target string) error {
	if err := s.acquire(); err != nil {
		return err
	}
	defer s.release()
	if _, err := s.r.ExecContext(ctx, vacuumIntoSQL, target); err != nil {
		return fmt.Errorf("store: backup: %w", sqlite.Classify(err))
	}
	return nil
}

// syncFile flushes a finished backup file to stable storage. It opens the
// copy, never the live database: no SQLite connection has the copy open,
// so no POSIX lock can be dropped by closing this descriptor.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	return errors.Join(err, f.Close())
}

// syncDir makes a new directory entry durable. Some systems cannot sync a
// directory; that is not an error for a backup whose data is synced.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return nil
	}
	d.Sync()
	return d.Close()
}
