package main

import (
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbpath"
	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/migrations"
)

// usageLine is the second line of every usage error.
const usageLine = "usage: migrate [-db PATH] [-dry-run] [-v] up|up-to N|down|down-to N|redo|status|version (-h for help, -version)"

// TestSmoke is the CI smoke run: up, status, down, up on a new file, then a
// look at the file itself.
func TestSmoke(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.db")

	runs := []struct {
		name string
		args []string
		want string
	}{
		{"Up", []string{"up"}, text(createdFile(path), createdSchema, "schema version 21")},
		{"Status", []string{"status"}, statusText(21, "")},
		{"Down", []string{"down"}, text(steps(rolledBack, 21, 21), "schema version 20")},
		{"UpAgain", []string{"up"}, text(upgraded(20, []string{
			"create table async_delegations",
			"create index idx_async_delegations_delivery",
			"set schema version 21",
		}), "schema version 21")},
		{"UpCurrent", []string{"up"}, text("schema version 21 (no change)")},
	}
	for _, s := range runs {
		got := mustMigrate(t, append([]string{"-db", path}, s.args...)...)
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Fatalf("%s: migrate %s output (-want +got):\n%s", s.name, strings.Join(s.args, " "), diff)
		}
	}

	db := openDB(t, path, "mode=ro")
	if got := dbtest.Value[string](t, db, "PRAGMA journal_mode"); got != "wal" {
		t.Errorf("journal_mode = %q, want wal", got)
	}
	if diff := cmp.Diff([]int64{21}, dbtest.Values[int64](t, db, "SELECT version FROM schema_version")); diff != "" {
		t.Errorf("schema_version rows (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(freshObjects, objectNames(schemaObjects(t, db))); diff != "" {
		t.Errorf("sqlite_master (-want +got):\n%s", diff)
	}
}

// TestDefaultPath runs up without -db: the file goes to $HERMES_HOME/state.db,
// else ~/.hermes/state.db, private to the user.
func TestDefaultPath(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		// env returns the variables to set (HERMES_HOME and HOME are unset
		// otherwise), the database migrate must create, and a path it must
		// not create.
		env func(tmp string) (env []string, want, notWant string)
	}{
		{"HermesHome", func(tmp string) ([]string, string, string) {
			return []string{"HERMES_HOME=  " + filepath.Join(tmp, "home") + "  ", "HOME=" + filepath.Join(tmp, "h")},
				filepath.Join(tmp, "home", "state.db"), filepath.Join(tmp, "h")
		}},
		{"Home", func(tmp string) ([]string, string, string) {
			return []string{"HOME=" + filepath.Join(tmp, "h")},
				filepath.Join(tmp, "h", ".hermes", "state.db"), filepath.Join(tmp, "home")
		}},
		{"BlankHermesHome", func(tmp string) ([]string, string, string) {
			return []string{"HERMES_HOME= \t ", "HOME=" + filepath.Join(tmp, "h")},
				filepath.Join(tmp, "h", ".hermes", "state.db"), filepath.Join(tmp, "home")
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			extra, want, notWant := tt.env(tmp)
			env := envWithout([]string{"HERMES_HOME", "HOME", "USERPROFILE"}, extra...)

			r := runBin(t, 30*time.Second, env, migrateBin, "up")
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("migrate up: exit %d\nstderr:\n%s", r.code, r.stderr)
			}
			if diff := cmp.Diff(text(createdFile(want), createdSchema, "schema version 21"), normalize(r.stdout)); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
			if _, err := os.Stat(notWant); err == nil {
				t.Errorf("%s was created", notWant)
			}
			if diff := cmp.Diff([]int64{21}, schemaVersion(t, want)); diff != "" {
				t.Errorf("schema_version of %s (-want +got):\n%s", want, diff)
			}
			if runtime.GOOS == "windows" {
				return
			}
			for path, mode := range map[string]fs.FileMode{want: 0o600, filepath.Dir(want): 0o700} {
				fi, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if got := fi.Mode().Perm(); got != mode {
					t.Errorf("mode of %s = %v, want %v", path, got, mode)
				}
			}
		})
	}
}

// TestVersionTargetsAndDryRun walks a file up and down with up-to, down-to,
// redo and dry runs, checking the output and the version in the file.
func TestVersionTargetsAndDryRun(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.db")
	db := func(args ...string) []string { return append([]string{"-db", path}, args...) }
	// A v4 file the migrations built lacks state_meta, the tables of v14…v21
	// and the columns of v5…v9 and later; upstream adds them in declaration
	// order.
	wouldUpgrade := upgraded(4, dbtest.NewTables(true), dbtest.NewIndexes, dbtest.GatewayColumns, dbtest.V5Tokens, dbtest.WorkspaceColumns, dbtest.V5Billing,
		[]string{"add column sessions.api_call_count"}, dbtest.LateSessionColumns, dbtest.EffectColumn, []string{
			"add column messages.reasoning",
			"add column messages.reasoning_content",
			"add column messages.reasoning_details",
			"add column messages.codex_reasoning_items",
			"add column messages.codex_message_items",
		}, dbtest.LateMessageColumns, dbtest.LateIndexes, dbtest.V11Step, dbtest.DataSteps)
	wouldUpgrade[0] = strings.Replace(wouldUpgrade[0], "upgraded   ", "would upgrade", 1)
	dryRunUp := text(wouldUpgrade, "dry run: nothing was written; schema version 4")

	for _, s := range []struct {
		name string
		args []string
		want string
		// file is the version the file must be at afterwards.
		file int64
	}{
		{"UpTo4", db("up-to", "4"), text(createdFile(path), steps(applied, 1, 4), "schema version 4"), 4},
		{"Version", db("version"), "4\n", 4},
		{"VersionFlagAfterCommand", []string{"version", "-db", path}, "4\n", 4},
		{"Status", db("status"), statusText(4, ""), 4},
		{"UpDryRun", db("up", "-dry-run"), dryRunUp, 4},
		{"UpDoubleDashDryRun", db("up", "--dry-run"), dryRunUp, 4},
		{"DryRunBeforeCommand", db("-dry-run", "up"), dryRunUp, 4},
		{"UpToDryRun", db("up-to", "6", "-dry-run"), text(steps(wouldApply, 5, 6), "dry run: nothing was written; schema version 4"), 4},
		{"DownTo2", db("down-to", "2"), text(steps(rolledBack, 4, 3), "schema version 2"), 2},
		{"Redo", db("redo"), text(steps(rolledBack, 2, 2), steps(applied, 2, 2), "schema version 2"), 2},
		{"DownDryRun", db("down", "-dry-run"), text(steps(wouldRollBack, 2, 2), "dry run: nothing was written; schema version 2"), 2},
		{"DownTo0", db("down-to", "0"), text(steps(rolledBack, 2, 1), "schema version 0"), 0},
		{"DownAt0", db("down"), text("nothing to roll back", "schema version 0 (no change)"), 0},
		{"RedoAt0", db("redo"), text("nothing to roll back", "schema version 0 (no change)"), 0},
		{"UpFrom0", db("up"), text(createdSchema, "schema version 21"), 21},
		{"UpToReached", db("up-to", "5"), text("schema version 21 (no change)"), 21},
	} {
		dryRun := strings.Contains(strings.Join(s.args, " "), "-dry-run")
		var before []schemaObject
		if dryRun {
			before = objectsOf(t, path)
		}
		got := mustMigrate(t, s.args...)
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Fatalf("%s: migrate %s output (-want +got):\n%s", s.name, strings.Join(s.args, " "), diff)
		}
		want := []int64{s.file}
		if s.file == 0 {
			want = []int64{} // version 0 is no row
		}
		if diff := cmp.Diff(want, schemaVersion(t, path)); diff != "" {
			t.Fatalf("%s: schema_version rows in the file (-want +got):\n%s", s.name, diff)
		}
		if dryRun {
			if diff := cmp.Diff(before, objectsOf(t, path)); diff != "" {
				t.Fatalf("%s: a dry run changed sqlite_master (-before +after):\n%s", s.name, diff)
			}
		}
	}
}

// TestUsageErrors checks that command-line mistakes exit 2 with the message
// and the usage line on standard error, before any file is created.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		args []string
		msg  string
	}{
		{"NoCommand", nil, "no command given"},
		{"UnknownCommand", []string{"frob"}, `unknown command "frob"`},
		{"UpToWithoutN", []string{"up-to"}, "up-to needs one version number"},
		{"DownToTooHigh", []string{"down-to", "99"}, `down-to: version must be a number from 0 to 21, got "99"`},
		{"UpToNotANumber", []string{"up-to", "four"}, `up-to: version must be a number from 1 to 21, got "four"`},
		{"UpExtraArgument", []string{"up", "now"}, `up takes no arguments, got "now"`},
		{"StatusDryRun", []string{"status", "-dry-run"}, "-dry-run applies to up, up-to, down and down-to, not status"},
		{"RedoDryRun", []string{"redo", "-dry-run"}, "-dry-run applies to up, up-to, down and down-to, not redo"},
		{"VersionDryRun", []string{"-dry-run", "version"}, "-dry-run applies to up, up-to, down and down-to, not version"},
		// up-to accepts 1…21 only; 0 must be refused like any other bad
		// number, before the database is opened (and created).
		{"UpToZero", []string{"up-to", "0"}, `up-to: version must be a number from 1 to 21, got "0"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r := migrate(t, append([]string{"-db", filepath.Join(dir, "state.db")}, tt.args...)...)
			if r.code != 2 {
				t.Errorf("exit status %d, want 2", r.code)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q, want nothing", r.stdout)
			}
			if diff := cmp.Diff("migrate: "+tt.msg+"\n"+usageLine+"\n", r.stderr); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{}, dbtest.DirNames(t, dir)); diff != "" {
				t.Errorf("files created (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("UnknownFlag", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		r := migrate(t, "-db", filepath.Join(dir, "state.db"), "up", "-force")
		if r.code != 2 {
			t.Errorf("exit status %d, want 2", r.code)
		}
		// Once, from cli.Exit: the flag package prints nothing itself.
		if diff := cmp.Diff("migrate: flag provided but not defined: -force\n"+usageLine+"\n", r.stderr); diff != "" {
			t.Errorf("stderr (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{}, dbtest.DirNames(t, dir)); diff != "" {
			t.Errorf("files created (-want +got):\n%s", diff)
		}
	})

	t.Run("Help", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		r := migrate(t, "-db", filepath.Join(dir, "state.db"), "-h")
		if r.code != 0 {
			t.Errorf("exit status %d, want 0", r.code)
		}
		if !strings.HasPrefix(r.stdout, "usage: migrate [-db PATH] [-hermes-home DIR] [-dry-run] [-v] COMMAND [N]\n") || r.stderr != "" {
			t.Errorf("help is not on stdout alone:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		}
		for _, cmd := range []string{"up", "up-to N", "down", "down-to N", "redo", "status", "version", "-db", "-hermes-home", "-dry-run", "-version"} {
			if !strings.Contains(r.stdout, "  "+cmd) {
				t.Errorf("help does not mention %q", cmd)
			}
		}
		if diff := cmp.Diff([]string{}, dbtest.DirNames(t, dir)); diff != "" {
			t.Errorf("files created (-want +got):\n%s", diff)
		}
	})
}

// TestFailures checks that a file migrate cannot use makes it exit 1 with one
// line on standard error, leaving the file as it was.
func TestFailures(t *testing.T) {
	t.Parallel()

	// Files that are not a usable database: refused with one line naming
	// the file once and the typed error's text, nothing written (the
	// directory keeps only the file).
	for _, bad := range []struct {
		name    string
		content []byte
		want    string // after "migrate: open PATH: "
	}{
		{"NotADatabase", []byte("these are notes, not a database\n"), sqlite.ErrNotDatabase.Error() + ": file is not a database"},
		{"ZeroBytes", []byte{}, sqlite.ErrNotDatabase.Error() + ": the file is empty (0 bytes)"},
		{"TruncatedHeader", []byte("SQLite format 3\x00\x10\x00\x01\x01"), sqlite.ErrNotDatabase.Error() + ": file is not a database"},
	} {
		t.Run(bad.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "state.db")
			if err := os.WriteFile(path, bad.content, 0o600); err != nil {
				t.Fatal(err)
			}
			before := dbtest.FileHash(t, path)
			line := failureLine(t, migrate(t, "-db", path, "up"), 1)
			if want := "migrate: open " + path + ": " + bad.want; line != want {
				t.Errorf("message %q, want %q", line, want)
			}
			if dbtest.FileHash(t, path) != before {
				t.Error("the file was changed")
			}
			if diff := cmp.Diff([]string{"state.db"}, dbtest.DirNames(t, dir)); diff != "" {
				t.Errorf("files in the directory (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("Directory", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := filepath.Join(dir, "state.db")
		if err := os.Mkdir(path, 0o700); err != nil {
			t.Fatal(err)
		}
		line := failureLine(t, migrate(t, "-db", path, "up"), 1)
		// internal/sqlite documents ErrCantOpen for "a directory in place of
		// the file"; store.Open reports it so.
		if want := "migrate: open " + path + ": " + sqlite.ErrCantOpen.Error() + ": it is a directory"; line != want {
			t.Errorf("message %q, want %q", line, want)
		}
		if diff := cmp.Diff([]string{"state.db"}, dbtest.DirNames(t, dir)); diff != "" {
			t.Errorf("files in the directory (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{}, dbtest.DirNames(t, path)); diff != "" {
			t.Errorf("files created in the directory named like the database (-want +got):\n%s", diff)
		}
	})

	t.Run("NoFTS5", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := filepath.Join(dir, "state.db")
		r := runBin(t, 30*time.Second, nil, migrateNoFTSBin, "-db", path, "up")
		line := failureLine(t, r, 1)
		for _, want := range []string{"-tags sqlite_fts5", sqlite.ErrNoFTS5.Error()} {
			if !strings.Contains(line, want) {
				t.Errorf("message %q does not contain %q", line, want)
			}
		}
		if diff := cmp.Diff([]string{}, dbtest.DirNames(t, dir)); diff != "" {
			t.Errorf("files created (-want +got):\n%s", diff)
		}
	})

	t.Run("NoFTS5ExistingFile", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := filepath.Join(dir, "state.db")
		mustMigrate(t, "-db", path, "up-to", "10")
		before := dbtest.FileHash(t, path)
		for _, cmd := range []string{"up", "status"} {
			line := failureLine(t, runBin(t, 30*time.Second, nil, migrateNoFTSBin, "-db", path, cmd), 1)
			if !strings.Contains(line, sqlite.ErrNoFTS5.Error()) {
				t.Errorf("%s: message %q does not contain %q", cmd, line, sqlite.ErrNoFTS5.Error())
			}
		}
		if dbtest.FileHash(t, path) != before {
			t.Error("the file was changed")
		}
		if diff := cmp.Diff([]string{"state.db"}, dbtest.DirNames(t, dir)); diff != "" {
			t.Errorf("files in the directory (-want +got):\n%s", diff)
		}
	})

	t.Run("NewerSchema", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := filepath.Join(dir, "state.db")
		mustMigrate(t, "-db", path, "up")
		// A v22 file, self-contained: rollback journal, no -wal or -shm.
		db := openDB(t, path, "")
		if _, err := db.Exec("UPDATE schema_version SET version = 22"); err != nil {
			t.Fatal(err)
		}
		if mode := dbtest.Value[string](t, db, "PRAGMA journal_mode = DELETE"); mode != "delete" {
			t.Fatalf("journal_mode = %q after switching to DELETE", mode)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"state.db"}, dbtest.DirNames(t, dir)); diff != "" {
			t.Fatalf("files after setup (-want +got):\n%s", diff)
		}
		before := dbtest.FileHash(t, path)

		// up has nothing to do: exit 0 and one line, as goose does.
		for _, args := range [][]string{{"up"}, {"up", "-dry-run"}} {
			r := migrate(t, append([]string{"-db", path}, args...)...)
			want := path + " is at schema version 22, newer than this build's 21: nothing was done\n"
			if r.code != 0 || r.stdout != want || r.stderr != "" {
				t.Errorf("migrate %s: exit %d, stdout %q, stderr %q; want 0, %q", strings.Join(args, " "), r.code, r.stdout, r.stderr, want)
			}
			if dbtest.FileHash(t, path) != before {
				t.Fatalf("migrate %s changed the file", strings.Join(args, " "))
			}
		}
		for _, args := range [][]string{{"down"}, {"up-to", "11"}, {"down-to", "3"}, {"redo"}} {
			line := failureLine(t, migrate(t, append([]string{"-db", path}, args...)...), 1)
			want := fmt.Sprintf("migrate: %s: %s: %v: the database is at schema version 22 and this build knows versions up to %d; it was written by a newer Hermes and is left untouched",
				path, args[0], migrations.ErrNewerSchema, migrations.Latest)
			if diff := cmp.Diff(want, line); diff != "" {
				t.Errorf("migrate %s: message (-want +got):\n%s", strings.Join(args, " "), diff)
			}
			if dbtest.FileHash(t, path) != before {
				t.Fatalf("migrate %s changed the file", strings.Join(args, " "))
			}
			if diff := cmp.Diff([]string{"state.db"}, dbtest.DirNames(t, dir)); diff != "" {
				t.Fatalf("migrate %s: files in the directory (-want +got):\n%s", strings.Join(args, " "), diff)
			}
		}

		got := mustMigrate(t, "-db", path, "status")
		if diff := cmp.Diff(statusText(21, "schema version 22: newer than this build (21), written by a later Hermes"), got); diff != "" {
			t.Errorf("status output (-want +got):\n%s", diff)
		}
		if got := mustMigrate(t, "-db", path, "version"); got != "22\n" {
			t.Errorf("version output = %q, want %q", got, "22\n")
		}
		// status and version only read: the DELETE-mode file is not switched
		// to WAL.
		if dbtest.FileHash(t, path) != before {
			t.Error("status or version changed the file")
		}
	})

	t.Run("NoSuchDirectory", func(t *testing.T) {
		t.Parallel()
		// An explicit path in a directory that does not exist: every command
		// fails the same way and creates nothing (a typo must not become a
		// new database).
		dir := t.TempDir()
		missing := filepath.Join(dir, "not", "yet")
		for _, args := range [][]string{{"up"}, {"up-to", "4"}, {"down"}, {"status"}, {"version"}, {"up", "-dry-run"}} {
			r := migrate(t, append([]string{"-db", filepath.Join(missing, "state.db")}, args...)...)
			want := "migrate: no such directory: " + missing + "\n"
			if r.code != 1 || r.stdout != "" || r.stderr != want {
				t.Errorf("migrate %s: exit %d, stdout %q, stderr %q; want 1 and %q", strings.Join(args, " "), r.code, r.stdout, r.stderr, want)
			}
		}
		if diff := cmp.Diff([]string{}, dbtest.DirNames(t, dir)); diff != "" {
			t.Errorf("files created (-want +got):\n%s", diff)
		}
	})

	t.Run("URL", func(t *testing.T) {
		t.Parallel()
		// What once made a directory named "mysql:" and a SQLite file in
		// it: a usage error now. (postgres:// selects PostgreSQL:
		// postgres_test.go.)
		dir := t.TempDir()
		r := runBinIn(t, dir, migrateBin, "-db", "mysql://host/db", "up")
		want := "migrate: -db mysql://host/db: " + dbpath.ErrURL.Error() + "\n" + usageLine + "\n"
		if r.code != 2 || r.stdout != "" || r.stderr != want {
			t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", r.code, r.stdout, r.stderr, want)
		}
		if diff := cmp.Diff([]string{}, dbtest.DirNames(t, dir)); diff != "" {
			t.Errorf("files created (-want +got):\n%s", diff)
		}
	})

	t.Run("MissingFileNotCreated", func(t *testing.T) {
		t.Parallel()
		// Only up and up-to create a file; a rollback or a dry run on a
		// missing one creates nothing.
		dir := t.TempDir()
		path := filepath.Join(dir, "state.db")
		for _, c := range []struct {
			args       []string
			code       int
			out, errln string
		}{
			{[]string{"down"}, 1, "", "migrate: no database at " + path + ": nothing to roll back\n"},
			{[]string{"down-to", "0"}, 1, "", "migrate: no database at " + path + ": nothing to roll back\n"},
			{[]string{"redo"}, 1, "", "migrate: no database at " + path + ": nothing to roll back\n"},
			{[]string{"up", "-dry-run"}, 0, "dry run: " + path + " does not exist; up would create it at schema version 21\n", ""},
			{[]string{"up-to", "3", "-dry-run"}, 0, "dry run: " + path + " does not exist; up-to would create it at schema version 3\n", ""},
		} {
			r := migrate(t, append([]string{"-db", path}, c.args...)...)
			if r.code != c.code || r.stdout != c.out || r.stderr != c.errln {
				t.Errorf("migrate %s: exit %d, stdout %q, stderr %q; want %d, %q, %q", strings.Join(c.args, " "), r.code, r.stdout, r.stderr, c.code, c.out, c.errln)
			}
		}
		if diff := cmp.Diff([]string{}, dbtest.DirNames(t, dir)); diff != "" {
			t.Errorf("files created (-want +got):\n%s", diff)
		}
	})

	t.Run("StatusOfMissingFile", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := filepath.Join(dir, "state.db")
		got := mustMigrate(t, "-db", path, "status")
		if diff := cmp.Diff(statusText(0, "schema version 0: "+path+" does not exist yet"), got); diff != "" {
			t.Errorf("status output (-want +got):\n%s", diff)
		}
		if got := mustMigrate(t, "-db", path, "version"); got != "0\n" {
			t.Errorf("version output = %q, want %q", got, "0\n")
		}
		if diff := cmp.Diff([]string{}, dbtest.DirNames(t, dir)); diff != "" {
			t.Errorf("status/version created files (-want +got):\n%s", diff)
		}
	})
}

// TestLockedDatabase runs up while another connection holds the write lock.
func TestLockedDatabase(t *testing.T) {
	t.Parallel()

	t.Run("OlderFile", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "state.db")
		mustMigrate(t, "-db", path, "up-to", "10")
		lock := dbtest.HoldWriteLock(t, path)

		start := time.Now()
		r := runBin(t, time.Minute, nil, migrateBin, "-db", path, "up")
		elapsed := time.Since(start)
		line := failureLine(t, r, 1)
		for _, want := range []string{"locked", sqlite.ErrBusy.Error()} {
			if !strings.Contains(line, want) {
				t.Errorf("message %q does not contain %q", line, want)
			}
		}
		// 15 attempts, each waiting out the 1 s busy timeout.
		if elapsed < 10*time.Second {
			t.Errorf("gave up after %v, before its retry budget", elapsed)
		}
		lock.Release()
		if diff := cmp.Diff([]int64{10}, schemaVersion(t, path)); diff != "" {
			t.Errorf("schema_version (-want +got):\n%s", diff)
		}
	})

	t.Run("CurrentFile", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "state.db")
		mustMigrate(t, "-db", path, "up")
		dbtest.HoldWriteLock(t, path)

		// A current file needs no write lock: each command returns at once
		// (a wait for the lock would take 15 s and then fail).
		for _, s := range []struct {
			args []string
			want string
		}{
			{[]string{"up"}, text("schema version 21 (no change)")},
			{[]string{"version"}, "21\n"},
			{[]string{"status"}, statusText(21, "")},
		} {
			r := runBin(t, 10*time.Second, nil, migrateBin, append([]string{"-db", path}, s.args...)...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("migrate %s: exit %d\nstderr:\n%s", strings.Join(s.args, " "), r.code, r.stderr)
			}
			if diff := cmp.Diff(s.want, normalize(r.stdout)); diff != "" {
				t.Errorf("migrate %s: output (-want +got):\n%s", strings.Join(s.args, " "), diff)
			}
		}
	})
}

// message is one messages row of the fixtures.
type message struct {
	ID                           int64
	SessionID, Role              string
	Content, ToolName, ToolCalls sql.NullString
	Timestamp                    float64
}

func messages(t *testing.T, db *sql.DB) []message {
	t.Helper()
	rows, err := db.Query("SELECT id, session_id, role, content, tool_name, tool_calls, timestamp FROM messages ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []message
	for rows.Next() {
		var m message
		if err := rows.Scan(&m.ID, &m.SessionID, &m.Role, &m.Content, &m.ToolName, &m.ToolCalls, &m.Timestamp); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLegacyFixtures upgrades files the Python original wrote at v1 and v9.
func TestLegacyFixtures(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		fixture string
		want    string
	}{
		{"state-v1.db", text(upgraded(1, dbtest.NewTables(true), dbtest.NewIndexes, dbtest.GatewayColumns, dbtest.V5Tokens, dbtest.WorkspaceColumns, dbtest.V5Billing, []string{
			"add column sessions.title",
			"add column sessions.api_call_count",
		}, dbtest.LateSessionColumns, dbtest.EffectColumn, []string{
			"add column messages.finish_reason",
			"add column messages.reasoning",
			"add column messages.reasoning_content",
			"add column messages.reasoning_details",
			"add column messages.codex_reasoning_items",
			"add column messages.codex_message_items",
		}, dbtest.LateMessageColumns, dbtest.LateIndexes, dbtest.V11Step, dbtest.DataSteps, []string{"create index idx_sessions_title_unique"}), "schema version 21")},
		{"state-v9.db", text(upgraded(9, dbtest.NewTables(false), dbtest.NewIndexes, dbtest.GatewayColumns, dbtest.WorkspaceColumns, dbtest.LateSessionColumns,
			dbtest.EffectColumn, dbtest.LateMessageColumns, dbtest.LateIndexes, dbtest.V11Step, dbtest.DataSteps), "schema version 21")},
	} {
		t.Run(strings.ToUpper(tt.fixture[6:8])+"Fixture", func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "state.db")
			dbtest.CopyFile(t, filepath.Join("..", "..", "testdata", tt.fixture), path)
			before := openDB(t, path, "mode=ro")
			wantSessions := dbtest.Values[string](t, before, "SELECT id FROM sessions ORDER BY id")
			wantMessages := messages(t, before)
			before.Close()
			if len(wantSessions) != 4 || len(wantMessages) != 8 {
				t.Fatalf("fixture has %d sessions and %d messages, want 4 and 8", len(wantSessions), len(wantMessages))
			}

			if diff := cmp.Diff(tt.want, mustMigrate(t, "-db", path, "up")); diff != "" {
				t.Errorf("up output (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(text("schema version 21 (no change)"), mustMigrate(t, "-db", path, "up")); diff != "" {
				t.Errorf("second up output (-want +got):\n%s", diff)
			}

			db := openDB(t, path, "mode=ro")
			if diff := cmp.Diff([]int64{21}, dbtest.Values[int64](t, db, "SELECT version FROM schema_version")); diff != "" {
				t.Errorf("schema_version (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantSessions, dbtest.Values[string](t, db, "SELECT id FROM sessions ORDER BY id")); diff != "" {
				t.Errorf("sessions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantMessages, messages(t, db)); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(freshObjects, objectNames(schemaObjects(t, db))); diff != "" {
				t.Errorf("sqlite_master (-want +got):\n%s", diff)
			}
			// Message 2 calls web_search, message 3 is its result: both
			// found, by tool fields v11 indexes, each once.
			for _, fts := range []string{"messages_fts", "messages_fts_trigram"} {
				got := dbtest.Values[int64](t, db, "SELECT rowid FROM "+fts+" WHERE "+fts+" MATCH 'web_search' ORDER BY rowid")
				if diff := cmp.Diff([]int64{2, 3}, got); diff != "" {
					t.Errorf("%s MATCH 'web_search' (-want +got):\n%s", fts, diff)
				}
				if n := dbtest.Value[int64](t, db, "SELECT count(*) FROM "+fts); n != 8 {
					t.Errorf("%s has %d rows, want 8", fts, n)
				}
			}
		})
	}
}

// TestVersionFlag: migrate --version prints cli.PrintVersion's text (the
// build, the linked SQLite, the schema version) and exits 0, without a
// database.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--version", "-version"} {
		dir := t.TempDir()
		r := runBinIn(t, dir, migrateBin, flag)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("migrate %s: exit %d, stderr %q", flag, r.code, r.stderr)
		}
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if len(lines) != 6 || !strings.HasPrefix(lines[0], "migrate ") || !strings.HasPrefix(lines[1], "module  github.com/hermesstate/hermesstate") ||
			!strings.HasPrefix(lines[4], "sqlite  3.") || !strings.HasSuffix(lines[4], ", FTS5 yes, trigram yes") || lines[5] != "schema  version 21" {
			t.Errorf("migrate %s output:\n%s", flag, r.stdout)
		}
		if diff := cmp.Diff([]string{}, dbtest.DirNames(t, dir)); diff != "" {
			t.Errorf("files created (-want +got):\n%s", diff)
		}
	}
}

// TestUpstreamFiles runs migrate on copies of files upstream Hermes wrote
// (testdata/upstream): its v21 file is current (up changes nothing, not a
// byte), its v16 file is migrated with the gateway metadata of the
// sessions.json in -hermes-home or $HERMES_HOME, and the v21 file stamped 22
// is a newer Hermes's.
func TestUpstreamFiles(t *testing.T) {
	t.Parallel()

	t.Run("V21", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := dbtest.CopyFile(t, dbtest.Testdata("upstream", "state-v21.db"), filepath.Join(dir, "state.db"))
		before := dbtest.FileHash(t, path)
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"up"}, text("schema version 21 (no change)")},
			{[]string{"version"}, "21\n"},
			{[]string{"status"}, statusText(21, "")},
		} {
			if diff := cmp.Diff(c.want, mustMigrate(t, append([]string{"-db", path}, c.args...)...)); diff != "" {
				t.Errorf("migrate %s: output (-want +got):\n%s", strings.Join(c.args, " "), diff)
			}
			if dbtest.FileHash(t, path) != before {
				t.Fatalf("migrate %s changed the file", strings.Join(c.args, " "))
			}
			if diff := cmp.Diff([]string{"state.db"}, dbtest.DirNames(t, dir)); diff != "" {
				t.Fatalf("migrate %s: files in the directory (-want +got):\n%s", strings.Join(c.args, " "), diff)
			}
		}
	})

	t.Run("V16", func(t *testing.T) {
		t.Parallel()
		home := dbtest.Testdata("upstream", "hermes-home")
		upFromV16 := text(upgraded(16, []string{
			"create table session_model_usage",
			"create table gateway_routing",
			"create table async_delegations",
			"create index idx_session_model_usage_session",
			"create index idx_session_model_usage_model",
			"create index idx_async_delegations_delivery",
		}, dbtest.GatewayColumns, []string{
			"add column sessions.git_branch",
			"add column sessions.git_repo_root",
			"add column sessions.compression_failure_cooldown_until",
			"add column sessions.compression_failure_error",
			"add column sessions.compression_fallback_streak",
			"add column messages.effect_disposition",
			"add column messages.compacted",
			"create the deferred indexes",
			"v18: copy gateway metadata from sessions.json into 1 session",
			"v20: seed per-model usage",
			"set schema version 21",
		}), "schema version 21")
		for _, c := range []struct {
			name string
			env  []string
			args []string
		}{
			{"Flag", []string{"HERMES_HOME=" + t.TempDir()}, []string{"-hermes-home", home}},
			{"Environment", []string{"HERMES_HOME=" + home}, nil},
		} {
			path := dbtest.CopyFile(t, dbtest.Testdata("upstream", "state-v16.db"), filepath.Join(t.TempDir(), "state.db"))
			r := runBin(t, 30*time.Second, envWithout([]string{"HERMES_HOME"}, c.env...), migrateBin, append(c.args, "-db", path, "up")...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("%s: migrate up: exit %d\nstderr:\n%s", c.name, r.code, r.stderr)
			}
			if diff := cmp.Diff(upFromV16, normalize(r.stdout)); diff != "" {
				t.Errorf("%s: migrate up output (-want +got):\n%s", c.name, diff)
			}
			got := dbtest.Rows(t, openDB(t, path, "mode=ro"), "SELECT session_key, chat_id, chat_type, thread_id, display_name, origin_json, expiry_finalized FROM sessions WHERE id = 'fx16-old'")
			want := [][]any{{"agent:main:telegram:dm:5", "5", "dm", nil, "User Five", `{"platform": "telegram", "chat_id": "5", "thread_id": null}`, int64(1)}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: fx16-old (-want +got):\n%s", c.name, diff)
			}
		}
	})

	t.Run("Newer", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := dbtest.CopyFile(t, dbtest.Testdata("upstream", "state-v21.db"), filepath.Join(dir, "state.db"))
		// Stamped 22 through a rollback-journal connection: the file stays
		// self-contained.
		db := openDB(t, path, "")
		if mode := dbtest.Value[string](t, db, "PRAGMA journal_mode = DELETE"); mode != "delete" {
			t.Fatalf("journal_mode = %q after switching to DELETE", mode)
		}
		dbtest.Exec(t, db, "UPDATE schema_version SET version = 22")
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		before := dbtest.FileHash(t, path)
		newer := fmt.Sprintf("%v: the database is at schema version 22 and this build knows versions up to 21; it was written by a newer Hermes and is left untouched", migrations.ErrNewerSchema)
		for _, c := range []struct {
			args       []string
			code       int
			out, errln string
		}{
			{[]string{"up"}, 0, path + " is at schema version 22, newer than this build's 21: nothing was done\n", ""},
			{[]string{"up-to", "5"}, 1, "", "migrate: " + path + ": up-to: " + newer + "\n"},
			{[]string{"down"}, 1, "", "migrate: " + path + ": down: " + newer + "\n"},
			{[]string{"down-to", "0"}, 1, "", "migrate: " + path + ": down-to: " + newer + "\n"},
			{[]string{"redo"}, 1, "", "migrate: " + path + ": redo: " + newer + "\n"},
			{[]string{"version"}, 0, "22\n", ""},
			{[]string{"status"}, 0, statusText(21, "schema version 22: newer than this build (21), written by a later Hermes"), ""},
		} {
			r := migrate(t, append([]string{"-db", path}, c.args...)...)
			if r.code != c.code || r.stdout != c.out || r.stderr != c.errln {
				t.Errorf("migrate %s: exit %d\nstdout %q\nstderr %q\nwant %d\nstdout %q\nstderr %q", strings.Join(c.args, " "), r.code, r.stdout, r.stderr, c.code, c.out, c.errln)
			}
			if dbtest.FileHash(t, path) != before {
				t.Fatalf("migrate %s changed the file", strings.Join(c.args, " "))
			}
			if diff := cmp.Diff([]string{"state.db"}, dbtest.DirNames(t, dir)); diff != "" {
				t.Fatalf("migrate %s: files in the directory (-want +got):\n%s", strings.Join(c.args, " "), diff)
			}
		}
	})
}

// TestDoesNotLinkTheStore: the migrate binary links the migrations and the
// connection setup, not the store API (nor its generated queries).
func TestDoesNotLinkTheStore(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-tags", "sqlite_fts5", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, pkg := range []string{"github.com/hermesstate/hermesstate/store", "github.com/hermesstate/hermesstate/db"} {
		if slices.Contains(deps, pkg) {
			t.Errorf("cmd/migrate depends on %s", pkg)
		}
	}
	if !slices.Contains(deps, "github.com/hermesstate/hermesstate/migrations") {
		t.Errorf("go list -deps does not list the migrations: %q", deps)
	}
}
