package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// deleteJournalV22 is a file this build created, restamped to version 22
// and switched to the rollback journal: opening it for writing would
// rewrite its header (journal_mode=WAL), so the version must be read
// before.
func deleteJournalV22(t *testing.T) string {
	t.Helper()
	s, path := openStore(t, nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	dbtest.Exec(t, db, "UPDATE schema_version SET version = 22")
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
		{"V22", func(t *testing.T) string { return newerFixture(t, "state-v21.db", 22) }, "22"},
		{"V99", func(t *testing.T) string { return newerFixture(t, "state-v21.db", 99) }, "99"},
		{"V22DeleteJournal", deleteJournalV22, "22"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := c.file(t)
			dir := filepath.Dir(path)
			before, files := dbtest.FileHash(t, path), dirNames(t, dir)
			want := "store: open " + path + ": database schema is newer than this build: the file is at schema version " + c.version +
				", this build's latest is 21 (a newer Hermes wrote it); nothing was changed. " +
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
	path := newerFixture(t, "state-v21.db", 22)
	s := openAt(t, path, &Options{WriteNewerSchema: true})
	before := schemaRows(t, s.r)
	if v, err := s.SchemaVersion(ctx); err != nil || v != 22 {
		t.Errorf("SchemaVersion = %d, %v; want 22", v, err)
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
// version 21, and its reads would fail on the missing columns: Open says
// which version the file is at and the command that upgrades it, and the
// file is not changed. Upstream's own v16 file is one of them.
func TestReadOnlyOlderSchema(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, fixture, version string
	}{
		{"V1", "state-v1.db", "1"},
		{"V9", "state-v9.db", "9"},
		{"HistoryV6", "history/state-v6.db", "6"},
		{"RenumberedV7", "history/state-v7-renumbered.db", "7"},
		{"V11", "state-v11-fresh.db", "11"},
		{"UpstreamV16", "upstream/state-v16.db", "16"},
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
				", this build reads 21; upgrade it first: migrate -db " + path + " up"
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
	for _, url := range []string{"mysql://host/db", "sqlite://u@h/hermes", "file://" + filepath.Join(root, "state.db")} {
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

// TestOpenMakesUpstreamsFile: store.Open migrates every historical file
// to exactly what upstream c2a3b9ce5 makes of it (the golden layouts of
// testdata/golden), and upstream's own v16 file to its v21 file (given the
// same HERMES_HOME), and creates a new file exactly as upstream does
// (testdata/upstream/state-v21.db: sqlite_master, columns, the version row).
func TestOpenMakesUpstreamsFile(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"history/state-v1", "history/state-v4", "history/state-v5", "history/state-v6",
		"history/state-v7-renumbered", "state-v1", "state-v9", "state-v11-fresh"} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			t.Parallel()
			path := dbtest.CopyFile(t, dbtest.Testdata(name+".db"), filepath.Join(t.TempDir(), "state.db"))
			if err := openAt(t, path, &Options{HermesHome: t.TempDir()}).Close(); err != nil {
				t.Fatal(err)
			}
			golden := strings.Replace(name, "history/", "history-", 1)
			if diff := cmp.Diff(dbtest.GoldenLayout(t, golden), dbtest.ReadLayout(t, path)); diff != "" {
				t.Errorf("(-upstream +ours):\n%s", diff)
			}
		})
	}
	t.Run("UpstreamV16", func(t *testing.T) {
		t.Parallel()
		path := newerFixture(t, "state-v16.db", 0)
		if err := openAt(t, path, &Options{HermesHome: dbtest.Testdata("upstream", "hermes-home")}).Close(); err != nil {
			t.Fatal(err)
		}
		want := dbtest.ReadLayout(t, newerFixture(t, "state-v21-from-v16.db", 0))
		if diff := cmp.Diff(want, dbtest.ReadLayout(t, path)); diff != "" {
			t.Errorf("(-upstream +ours):\n%s", diff)
		}
	})
	t.Run("New", func(t *testing.T) {
		t.Parallel()
		s, path := openStore(t, nil)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		want, got := dbtest.ReadLayout(t, newerFixture(t, "state-v21.db", 0)), dbtest.ReadLayout(t, path)
		if diff := cmp.Diff(want.SQLiteMaster, got.SQLiteMaster); diff != "" {
			t.Errorf("sqlite_master (-upstream +ours):\n%s", diff)
		}
		if diff := cmp.Diff(want.TableXInfo, got.TableXInfo); diff != "" {
			t.Errorf("table_xinfo (-upstream +ours):\n%s", diff)
		}
		if diff := cmp.Diff(want.Rows["schema_version"], got.Rows["schema_version"]); diff != "" {
			t.Errorf("schema_version (-upstream +ours):\n%s", diff)
		}
	})
}

// TestOpenRefusesMalformedSchema ports test_duplicate_fts_makes_every_statement_fail
// (tests/test_state_db_malformed_repair.py): a file whose sqlite_master
// holds messages_fts twice ("malformed database schema") fails every
// statement, so Open fails with ErrCorrupt, for writing and read-only, and
// leaves the file as it was: this build never edits sqlite_master (upstream's
// repair_state_db_schema does; see docs/upstream-tests/migrations.md).
//
// upstream: test_state_db_malformed_repair.py::test_duplicate_fts_makes_every_statement_fail
func TestOpenRefusesMalformedSchema(t *testing.T) {
	t.Parallel()
	s, path := openStore(t, nil)
	addSession(t, s, "s", nil, 1)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	raw := rawDB(t, path)
	dbtest.Exec(t, raw,
		"PRAGMA writable_schema = ON",
		"INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) SELECT type, name, tbl_name, rootpage, sql FROM sqlite_master WHERE name = 'messages_fts'",
		"PRAGMA writable_schema = OFF",
	)
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(path)
	before, files := dbtest.FileHash(t, path), dirNames(t, dir)
	for _, opts := range []*Options{nil, {ReadOnly: true}} {
		s, err := Open(context.Background(), path, opts)
		if s != nil {
			s.Close()
		}
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "malformed database schema (messages_fts)") {
			t.Errorf("Open(%+v): %v, want ErrCorrupt naming the malformed schema", opts, err)
		}
		if dbtest.FileHash(t, path) != before {
			t.Fatal("the file changed")
		}
		// A WAL reader may leave -wal and -shm (Options.ReadOnly says so); the
		// writer's refused open leaves nothing.
		if diff := cmp.Diff(files, dirNames(t, dir)); opts == nil && diff != "" {
			t.Errorf("files beside it (-before +after):\n%s", diff)
		}
	}
}
