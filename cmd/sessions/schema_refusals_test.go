package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// copyTo copies testdata/name into a directory of its own and returns the
// copy's path.
func copyTo(t *testing.T, name string) string {
	t.Helper()
	return dbtest.CopyFile(t, dbtest.Testdata(name), filepath.Join(t.TempDir(), "state.db"))
}

// TestNewerSchemaFile runs the commands on a copy of a file upstream Hermes
// wrote at schema version 21, restamped 22 as a newer Hermes would leave
// it: the reading commands read it (exact output), the writing commands
// refuse with store.ErrNewerSchema's line, exit 1, and the file stays byte
// for byte the same.
func TestNewerSchemaFile(t *testing.T) {
	t.Parallel()
	path := copyTo(t, "upstream/state-v21.db")
	restamp := dbtest.Plain(t, path)
	dbtest.Exec(t, restamp, "UPDATE schema_version SET version = 22")
	if err := restamp.Close(); err != nil {
		t.Fatal(err)
	}
	before := dbtest.FileHash(t, path)
	for _, c := range []struct {
		args []string
		want string
	}{
		// upstream's default listing: the archived chain (fx21-arch-root
		// and its tip) and the delegate fx21-sub are left out, the /branch
		// child is listed, flagged.
		{[]string{"list"}, text(
			"ID                 TITLE  PREVIEW                      LAST ACTIVE       MSGS  SOURCE    MODEL    FLAGS",
			"fx21-branch        -      -                            2026-12-03 07:46  1     cli       alpha-1  branch",
			"fx21-parent        -      delegate two things          2026-12-03 07:46  1     cli       alpha-1  -",
			"fx21-gw            -      someone else talking         2026-12-03 07:46  3     telegram  -        -",
			"fx21-locked        -      -                            2026-12-03 07:46  0     cli       -        -",
			"fx21-compact       -      compact me 0                 2026-12-03 07:46  2     cli       alpha-1  -",
			"fx21-rewind        -      first question               2026-12-03 07:46  4     cli       alpha-1  -",
			"fx21-model-switch  -      Summarise the release notes  2026-12-03 07:46  4     cli       beta-2   -")},
		{[]string{"lineage", "fx21-sub"}, text(
			"fx21-parent  -  2026-12-03 07:46",
			"└── fx21-sub  -  2026-12-03 07:46  ◀")},
		{[]string{"search", "French"}, text(
			"fx21-model-switch  #3  user  2026-12-03 07:46  cli  beta-2",
			"  Now in >>>French<<<",
			"  | assistant: Here is the summary.",
			"  | user: Now in French",
			"  | assistant: Voici le resume.")},
		// Per-model usage: the /model switch counts under both models.
		{[]string{"stats"}, text(
			"MODEL    SESSIONS  CALLS  INPUT  OUTPUT  CACHE READ  CACHE WRITE  REASONING  EST. COST  ACTUAL COST",
			"beta-2   1         2      210    95      50          0            7          $0.0030    $0.0025",
			"alpha-1  1         1      120    40      0           0            0          $0.0012    $0.0000",
			"",
			"ID                 TOKENS  EST. COST  MODEL   TITLE",
			"fx21-model-switch  465     $0.0042    beta-2  -")},
	} {
		r := runSessions(t, nil, append([]string{"-db", path}, c.args...)...)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("sessions %s: exit %d, stderr %q", strings.Join(c.args, " "), r.code, r.stderr)
		}
		if diff := cmp.Diff(c.want, r.stdout); diff != "" {
			t.Errorf("sessions %s (-want +got):\n%s", strings.Join(c.args, " "), diff)
		}
	}
	r := runSessions(t, nil, "-db", path, "export", "fx21-gw")
	if r.code != 0 || r.stderr != "" || !strings.HasPrefix(r.stdout, `{"id":"fx21-gw","source":"telegram",`) || strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("sessions export fx21-gw: exit %d, stderr %q, stdout %q", r.code, r.stderr, r.stdout)
	}

	refused := "sessions: store: open " + path + ": database schema is newer than this build: the file is at schema version 22, " +
		"this build's latest is 21 (a newer Hermes wrote it); nothing was changed. " +
		"Read it with Options.ReadOnly or the sessions reading commands (list, show, search, lineage, export, stats, doctor)"
	dir := filepath.Dir(path)
	files := dbtest.DirNames(t, dir)
	input := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(input, []byte(`{"id":"new","source":"cli","started_at":1.0,"messages":[]}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"import", input}, {"prune", "--older-than", "1h", "--yes"}, {"delete", "--yes", "fx21-gw"},
		{"archive", "fx21-gw"}, {"unarchive", "fx21-arch-tip"},
		{"rename", "fx21-gw", "new title"}, {"vacuum"}, {"doctor", "--fix-fts"},
	} {
		failure(t, 1, []string{refused}, append([]string{"-db", path}, args...)...)
		if dbtest.FileHash(t, path) != before {
			t.Fatalf("sessions %s changed the file", strings.Join(args, " "))
		}
		if diff := cmp.Diff(files, dbtest.DirNames(t, dir)); diff != "" {
			t.Fatalf("sessions %s: files beside it (-before +after):\n%s", strings.Join(args, " "), diff)
		}
	}
	if dbtest.FileHash(t, path) != before {
		t.Error("the file changed")
	}
}

// TestOlderSchemaFile: a reading command (doctor included) on a file below
// version 21 (upstream's own v16 file among them) prints one line naming its version and the command that
// upgrades it, exit 1, and leaves the file as it was.
func TestOlderSchemaFile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ fixture, version string }{
		{"state-v9.db", "9"},
		{"history/state-v6.db", "6"},
		{"upstream/state-v16.db", "16"},
	} {
		path := copyTo(t, c.fixture)
		before := dbtest.FileHash(t, path)
		want := "sessions: store: open " + path + ": database schema is older than this build: the file is at schema version " + c.version +
			", this build reads 21; upgrade it first: migrate -db " + path + " up"
		for _, args := range [][]string{{"list"}, {"show", "root"}, {"search", "docker"}, {"lineage", "root"}, {"export"}, {"stats"}, {"doctor"}, {"prune", "--older-than", "1h", "--dry-run"}} {
			failure(t, 1, []string{want}, append([]string{"-db", path}, args...)...)
		}
		if dbtest.FileHash(t, path) != before {
			t.Errorf("%s: the file changed", c.fixture)
		}
	}
}

// TestDatabaseArgument: an explicit -db in a directory that does not exist
// fails with "no such directory: DIR" (exit 1), a URL is a usage error
// (exit 2), and neither creates anything.
func TestDatabaseArgument(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	missing := filepath.Join(root, "no", "such")
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"list"}, {"import", in}, {"doctor"}} {
		failure(t, 1, []string{"sessions: no such directory: " + missing}, append([]string{"-db", filepath.Join(missing, "state.db")}, args...)...)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cwd := dbtest.DirNames(t, wd)
	failure(t, 2, []string{
		"sessions: list: -db mysql://host/db: is a URL with no backend: give a SQLite file path or a postgres:// URL",
		"usage: sessions list [-db PATH] [--json] [--source S] [--exclude-source S]... [--limit N] [--offset N] [--all] [--archived] (-h for help)",
	}, "-db", "mysql://host/db", "list")
	if diff := cmp.Diff([]string{}, dbtest.DirNames(t, root)); diff != "" {
		t.Errorf("created (-want +got):\n%s", diff)
	}
	if got := dbtest.DirNames(t, wd); !slices.Equal(cwd, got) {
		t.Errorf("the working directory changed: %q, then %q", cwd, got)
	}
}
