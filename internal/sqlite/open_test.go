package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbpath"
)

// openWriter opens a writer on path and closes it when the test ends.
func openWriter(t *testing.T, path string, c Config) *sql.DB {
	t.Helper()
	if c.Retry.Attempts == 0 {
		c.Retry = DefaultRetry()
	}
	db, err := OpenWriter(context.Background(), path, c)
	if err != nil {
		t.Fatalf("OpenWriter(%s): %v", path, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// pragmas reads the connection settings the DSN is meant to establish.
func pragmas(t *testing.T, q Queryer) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, p := range []string{"journal_mode", "foreign_keys", "busy_timeout", "synchronous", "query_only", "journal_size_limit"} {
		var v string
		if err := q.QueryRowContext(context.Background(), "PRAGMA "+p).Scan(&v); err != nil {
			t.Fatalf("PRAGMA %s: %v", p, err)
		}
		got[p] = v
	}
	return got
}

func TestOpenWriterSetsUpEveryConnection(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		cfg  Config
		want map[string]string
	}{
		{"Defaults", Config{}, map[string]string{
			"journal_mode": "wal", "foreign_keys": "1", "busy_timeout": "1000", "synchronous": "2", "query_only": "0",
			"journal_size_limit": strconv.Itoa(WALSizeLimit),
		}},
		{"NormalAndLongerTimeout", Config{Synchronous: SynchronousNormal, BusyTimeout: 2500e6}, map[string]string{
			"journal_mode": "wal", "foreign_keys": "1", "busy_timeout": "2500", "synchronous": "1", "query_only": "0",
			"journal_size_limit": strconv.Itoa(WALSizeLimit),
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			db := openWriter(t, filepath.Join(t.TempDir(), "state.db"), tt.cfg)
			if diff := cmp.Diff(tt.want, pragmas(t, db)); diff != "" {
				t.Errorf("writer pragmas (-want +got):\n%s", diff)
			}
			// A replacement connection gets the same setup: it comes from the
			// DSN, not from an Exec on whichever connection the pool had.
			if _, err := db.Exec("CREATE TEMP TABLE first_connection (x)"); err != nil {
				t.Fatal(err)
			}
			db.SetMaxIdleConns(0) // closes the idle connection now
			db.SetMaxIdleConns(1)
			var marker int
			if err := db.QueryRow("SELECT COUNT(*) FROM temp.sqlite_master").Scan(&marker); err != nil {
				t.Fatal(err)
			}
			if marker != 0 {
				t.Fatal("the pool kept its first connection; the test did not get a new one")
			}
			if diff := cmp.Diff(tt.want, pragmas(t, db)); diff != "" {
				t.Errorf("pragmas of a replacement connection (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOpenReaderIsReadOnly(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.db")
	w := openWriter(t, path, Config{})
	if _, err := w.Exec("CREATE TABLE t (x)"); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReader(context.Background(), path, Config{Retry: DefaultRetry()}, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	_, err = r.Exec("INSERT INTO t VALUES (1)")
	if !errors.Is(Classify(err), ErrReadOnly) {
		t.Errorf("insert through the reader: err = %v, want ErrReadOnly", err)
	}
	got := pragmas(t, r)
	if got["journal_mode"] != "wal" || got["busy_timeout"] != "1000" {
		t.Errorf("reader pragmas = %v, want journal_mode wal and busy_timeout 1000", got)
	}
}

func TestOpenWriterCreatesPrivateFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "new", "home")
	path := filepath.Join(dir, "state.db")
	// The default location's directories are made by its callers.
	if err := dbpath.MakeDefaultDir(path); err != nil {
		t.Fatal(err)
	}
	db := openWriter(t, path, Config{})
	if _, err := db.Exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	want := map[string]fs.FileMode{
		dir:               fs.ModeDir | 0o700,
		path:              0o600,
		path + "-wal":     0o600,
		path + "-shm":     0o600,
		filepath.Dir(dir): fs.ModeDir | 0o700,
	}
	got := map[string]fs.FileMode{}
	for p := range want {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		got[p] = fi.Mode()
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("modes (-want +got):\n%s", diff)
	}
}

// TestOpenWriterNeedsTheDirectory: a path in a directory that does not
// exist fails with dbpath.ErrNoDirectory, naming it, and creates nothing.
func TestOpenWriterNeedsTheDirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "missing")
	_, err := OpenWriter(context.Background(), filepath.Join(dir, "state.db"), Config{Retry: DefaultRetry()})
	if !errors.Is(err, dbpath.ErrNoDirectory) || err.Error() != "no such directory: "+dir {
		t.Errorf("OpenWriter: %v, want no such directory: %s", err, dir)
	}
	if ents, err := os.ReadDir(root); err != nil || len(ents) != 0 {
		t.Errorf("left behind: %v %v", ents, err)
	}
}

func TestOpenWriterKeepsModeOfExistingFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.db")
	openWriter(t, path, Config{}).Close()
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	openWriter(t, path, Config{})
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != 0o640 {
		t.Errorf("mode = %v, want the user's 0640 kept", fi.Mode())
	}
}

func TestOpenWriterEscapesPathAsURI(t *testing.T) {
	t.Parallel()
	// Characters SQLite reads as URI syntax must name the file, not options.
	for _, name := range []string{"a b.db", "what?mode=ro.db", "hash#1.db", "100%.db", "ünï 状态.db"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, name)
			db := openWriter(t, path, Config{})
			if _, err := db.Exec("CREATE TABLE t (x)"); err != nil {
				t.Fatal(err)
			}
			var file string
			if err := db.QueryRow("SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&file); err != nil {
				t.Fatal(err)
			}
			if file != path {
				t.Errorf("SQLite opened %q, want %q", file, path)
			}
		})
	}
}

func TestOpenRefusesWhatIsNotADatabase(t *testing.T) {
	t.Parallel()
	content := []byte("these are not the pages you are looking for\n")
	for _, tt := range []struct {
		name string
		open func(ctx context.Context, path string) (*sql.DB, error)
	}{
		{"Writer", func(ctx context.Context, p string) (*sql.DB, error) {
			return OpenWriter(ctx, p, Config{Retry: DefaultRetry()})
		}},
		{"Reader", func(ctx context.Context, p string) (*sql.DB, error) {
			return OpenReader(ctx, p, Config{Retry: DefaultRetry()}, 1)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "state.db")
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			db, err := tt.open(context.Background(), path)
			if !errors.Is(err, ErrNotDatabase) {
				if db != nil {
					db.Close()
				}
				t.Fatalf("err = %v, want ErrNotDatabase", err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, content) {
				t.Errorf("file changed to %q", got)
			}
		})
	}
}

func TestOpenWriterOnADirectory(t *testing.T) {
	t.Parallel()
	_, err := OpenWriter(context.Background(), t.TempDir(), Config{Retry: DefaultRetry()})
	if !errors.Is(err, ErrCantOpen) {
		t.Errorf("err = %v, want ErrCantOpen", err)
	}
}
