package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// deleteJournalV12 is a file this build created, restamped to version 12
// and switched to the rollback journal: opening it for writing would
// rewrite its header (journal_mode=WAL), so the version must be read
// before.
func deleteJournalV12(t *testing.T) string {
	t.Helper()
	s, path := openStore(t, nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	dbtest.Exec(t, db, "UPDATE schema_version SET version = 12")
	if mode := dbtest.Value[string](t, db, "PRAGMA journal_mode = DELETE"); mode != "delete" {
		t.Fatalf("journal_mode = %q", mode)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOpenRefusesNewerSchema: Open for writing a file a newer Hermes wrote
// fails with ErrNewerSchema, saying nothing was changed and how to read it,
// before anything can write: the file is byte for byte the same and no
// -wal or -shm is left beside it. SkipMigrations does not get around it.
func TestOpenRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		file    func(t *testing.T) string
		version string
	}{
		{"V21", func(t *testing.T) string { return newerFixture(t, "state-v21.db", 0) }, "21"},
		{"V16", func(t *testing.T) string { return newerFixture(t, "state-v16.db", 0) }, "16"},
		{"V99", func(t *testing.T) string { return newerFixture(t, "state-v21.db", 99) }, "99"},
		{"V12DeleteJournal", deleteJournalV12, "12"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := c.file(t)
			dir := filepath.Dir(path)
			before, files := dbtest.FileHash(t, path), dirNames(t, dir)
			want := "store: open " + path + ": database schema is newer than this build: the file is at schema version " + c.version +
				", this build's latest is 11 (a newer Hermes wrote it); nothing was changed. " +
				"Read it with Options.ReadOnly or the sessions reading commands (list, show, search, lineage, export, stats, doctor)"
			for _, opts := range []*Options{nil, {SkipMigrations: true}} {
				s, err := Open(context.Background(), path, opts)
				if s != nil {
					s.Close()
				}
				if !errors.Is(err, ErrNewerSchema) || err.Error() != want {
					t.Errorf("Open(%+v): %v\nwant %s", opts, err, want)
				}
				if dbtest.FileHash(t, path) != before {
					t.Fatal("the file changed")
				}
				if diff := cmp.Diff(files, dirNames(t, dir)); diff != "" {
					t.Fatalf("files beside it (-before +after):\n%s", diff)
				}
			}
		})
	}
}

// TestWriteNewerSchema: the opt-in opens a newer file for writing as it is,
// not migrated.
func TestWriteNewerSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := newerFixture(t, "state-v21.db", 0)
	s := openAt(t, path, &Options{WriteNewerSchema: true})
	before := schemaRows(t, s.r)
	if v, err := s.SchemaVersion(ctx); err != nil || v != 21 {
		t.Errorf("SchemaVersion = %d, %v; want 21", v, err)
	}
	if err := s.SetMeta(ctx, "k", "v"); err != nil {
		t.Fatalf("SetMeta: %v", err)
	}
	if got, ok, err := s.GetMeta(ctx, "k"); got != "v" || !ok || err != nil {
		t.Errorf("GetMeta = %q, %v, %v", got, ok, err)
	}
	if diff := cmp.Diff(before, schemaRows(t, s.r)); diff != "" {
		t.Errorf("schema changed (-before +after):\n%s", diff)
	}
}

// TestReadOnlyOlderSchema: a read-only store cannot migrate a file below
// version 11, and its reads would fail on the missing columns: Open says
// which version the file is at and the command that upgrades it, and the
// file is not changed.
func TestReadOnlyOlderSchema(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, fixture, version string
	}{
		{"V1", "state-v1.db", "1"},
		{"V9", "state-v9.db", "9"},
		{"HistoryV6", "history/state-v6.db", "6"},
		{"RenumberedV7", "history/state-v7-renumbered.db", "7"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := dbtest.CopyFile(t, dbtest.Testdata(c.fixture), filepath.Join(t.TempDir(), "state.db"))
			before := dbtest.FileHash(t, path)
			s, err := Open(context.Background(), path, &Options{ReadOnly: true})
			if s != nil {
				s.Close()
			}
			want := "store: open " + path + ": database schema is older than this build: the file is at schema version " + c.version +
				", this build reads 11; upgrade it first: migrate -db " + path + " up"
			if !errors.Is(err, ErrOlderSchema) || err.Error() != want {
				t.Errorf("Open: %v\nwant %s", err, want)
			}
			if dbtest.FileHash(t, path) != before {
				t.Error("the file changed")
			}
		})
	}
}

// TestOpenExplicitPath: a path the caller gave must be in a directory that
// exists, and must not be a URL; nothing is created for either.
func TestOpenExplicitPath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	missing := filepath.Join(root, "no", "such")
	for _, opts := range []*Options{nil, {ReadOnly: true}} {
		_, err := Open(ctx, filepath.Join(missing, "state.db"), opts)
		switch {
		case opts == nil && (!errors.Is(err, ErrNoDirectory) || err.Error() != "store: open "+filepath.Join(missing, "state.db")+": no such directory: "+missing):
			t.Errorf("Open: %v, want store: open %s: no such directory: %s", err, filepath.Join(missing, "state.db"), missing)
		case opts != nil && !errors.Is(err, os.ErrNotExist):
			t.Errorf("Open ReadOnly: %v, want fs.ErrNotExist", err)
		}
	}
	if diff := cmp.Diff([]string{}, dirNames(t, root)); diff != "" {
		t.Errorf("created (-want +got):\n%s", diff)
	}

	cwd := dirNames(t, ".")
	for _, url := range []string{"postgres://host/db", "postgresql://u@h:5432/hermes?sslmode=disable", "file://" + filepath.Join(root, "state.db")} {
		for _, opts := range []*Options{nil, {ReadOnly: true}} {
			_, err := Open(ctx, url, opts)
			if want := "store: open " + url + ": " + ErrURL.Error(); !errors.Is(err, ErrURL) || err.Error() != want {
				t.Errorf("Open(%q): %v, want %s", url, err, want)
			}
		}
	}
	if diff := cmp.Diff(cwd, dirNames(t, ".")); diff != "" {
		t.Errorf("created in the working directory (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff([]string{}, dirNames(t, root)); diff != "" {
		t.Errorf("created (-want +got):\n%s", diff)
	}
}

// TestDefaultLocationIsCreatedPrivate: Open("") creates the default
// location's missing directories, each 0700, and the file 0600. (Not
// parallel: it sets HERMES_HOME.)
func TestDefaultLocationIsCreatedPrivate(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "a", "b", "c")
	t.Setenv("HERMES_HOME", home)
	s, err := Open(context.Background(), "", nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	path := filepath.Join(home, "state.db")
	if s.Path() != path {
		t.Errorf("Path = %q, want %q", s.Path(), path)
	}
	if err := s.SetMeta(t.Context(), "k", "v"); err != nil {
		t.Fatal(err)
	}
	got := modes(t, filepath.Join(root, "a"), filepath.Join(root, "a", "b"), home, path, path+"-wal", path+"-shm")
	want := map[string]string{
		"a": "-rwx------", "b": "-rwx------", "c": "-rwx------",
		"state.db": "-rw-------", "state.db-wal": "-rw-------", "state.db-shm": "-rw-------",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("permissions (-want +got):\n%s", diff)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestOpenMakesTheOriginalsFile: store.Open migrates every historical file
// to exactly what the v11 original makes of it (the golden layouts of
// testdata/golden), and creates a new file exactly as it does.
func TestOpenMakesTheOriginalsFile(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"state-v1", "state-v4", "state-v5", "state-v6", "state-v7-renumbered"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := dbtest.CopyFile(t, dbtest.Testdata("history", name+".db"), filepath.Join(t.TempDir(), "state.db"))
			if err := openAt(t, path, nil).Close(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(dbtest.GoldenLayout(t, "history-"+name), dbtest.ReadLayout(t, path)); diff != "" {
				t.Errorf("(-original +ours):\n%s", diff)
			}
		})
	}
	t.Run("New", func(t *testing.T) {
		t.Parallel()
		s, path := openStore(t, nil)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(dbtest.ReadLayout(t, dbtest.CopyFixture(t, "state-v11-fresh.db")), dbtest.ReadLayout(t, path)); diff != "" {
			t.Errorf("(-original +ours):\n%s", diff)
		}
	})
}
