// Package dbpath says where the state database lives and which database
// arguments are paths at all. It is a leaf: it imports nothing of ours, so
// the commands can resolve a path without linking the store.
//
// The rule it carries, for every way in (store.Open, cmd/migrate,
// cmd/sessions): directories are created only for the default location,
// $HERMES_HOME/state.db or ~/.hermes/state.db (private, 0700, as the
// original creates its home); a path the caller gave must be in a directory
// that exists, so a typo never becomes a new database somewhere else; and a
// URL (postgres://host/db) is refused, since this build has no backend for
// one.
//
// It must not open or create a database file, nor import any package of
// ours; it only names paths and creates the default location's directories.
package dbpath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

var (
	// ErrNoDirectory is returned for an explicit path whose directory does
	// not exist. Nothing is created.
	ErrNoDirectory = errors.New("no such directory")

	// ErrURL is returned for a database argument that is a URL (scheme://…)
	// of a scheme other than PostgreSQL's (IsPostgresURL): the state lives
	// in a SQLite file or a PostgreSQL database only. Nothing is created.
	ErrURL = errors.New("is a URL with no backend: give a SQLite file path or a postgres:// URL")
)

// Default returns where the original keeps the state database:
// $HERMES_HOME/state.db when HERMES_HOME is set and not blank (surrounding
// whitespace trimmed), else ~/.hermes/state.db. The environment is read on
// every call (the original reads it once, at import). It fails only when
// HERMES_HOME is unset and the home directory is unknown.
func Default() (string, error) {
	if home := strings.TrimSpace(os.Getenv("HERMES_HOME")); home != "" {
		return filepath.Join(home, "state.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.Join(errors.New("HERMES_HOME is not set and the home directory is unknown"), err)
	}
	return filepath.Join(home, ".hermes", "state.db"), nil
}

// urlScheme is an RFC 3986 scheme followed by "://".
var urlScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

// IsURL reports whether s looks like a URL (scheme://…) rather than a path.
func IsURL(s string) bool { return urlScheme.MatchString(s) }

// IsPostgresURL reports whether s is a PostgreSQL connection URL
// (postgres:// or postgresql://, as libpq and pgx take them).
func IsPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// CheckExplicit vets a path the user gave: an error matching [ErrURL] for a
// URL (a PostgreSQL one too: the caller tells those apart first), one matching [ErrNoDirectory] ("no such directory: DIR") when its
// directory does not exist, nil otherwise. It creates nothing.
func CheckExplicit(path string) error {
	if IsURL(path) {
		return fmt.Errorf("%s %w", path, ErrURL)
	}
	return DirExists(path)
}

// DirExists returns an error matching [ErrNoDirectory], naming the
// directory, when the directory path would be created in does not exist.
func DirExists(path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%w: %s", ErrNoDirectory, dir)
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%w: %s (not a directory)", ErrNoDirectory, dir)
	}
	return nil
}

// MakeDefaultDir creates the directories of the default location for path,
// private to the user (0700), as the original creates its home.
func MakeDefaultDir(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create directory for %s: %w", path, err)
	}
	return nil
}
