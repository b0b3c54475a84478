package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mattn/go-sqlite3"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// TestUsageErrors gives bad command lines: each exits 2 with the problem
// and the command's usage line on standard error, and nothing else.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "state.db")
	const top = "usage: sessions [-db PATH] [--json] list|show|search|lineage|export|import|prune|delete|archive|unarchive|rename|vacuum|backup|stats|doctor|help|version [ARGS] (-h for help)"
	usage := func(cmd string) string {
		c, _ := lookup(cmd)
		return c.usage()
	}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"NoCommand", nil, []string{"sessions: no command given", top}},
		{"UnknownCommand", []string{"frob"}, []string{`sessions: unknown command "frob"`, top}},
		{"UnknownGlobalFlag", []string{"--force", "list"}, []string{"sessions: flag provided but not defined: -force", top}},
		{"UnknownFlag", []string{"list", "--force"}, []string{"sessions: list: flag provided but not defined: -force", usage("list")}},
		{"FlagOfAnotherCommand", []string{"show", "--source", "cli", "x"}, []string{"sessions: show: flag provided but not defined: -source", usage("show")}},
		{"BadNumber", []string{"list", "--limit", "ten"}, []string{`sessions: list: invalid value "ten" for flag -limit: parse error`, usage("list")}},
		{"ZeroLimit", []string{"search", "--limit", "0", "x"}, []string{"sessions: search: --limit must be at least 1, got 0", usage("search")}},
		{"NegativeOffset", []string{"list", "--offset=-1"}, []string{"sessions: list: --offset must not be negative, got -1", usage("list")}},
		{"ListArgument", []string{"list", "all"}, []string{`sessions: list: takes no arguments, got "all"`, usage("list")}},
		{"ShowNothing", []string{"show"}, []string{"sessions: show: needs one session id, id prefix or title", usage("show")}},
		{"ShowTwo", []string{"show", "a", "b"}, []string{`sessions: show: takes one session id, id prefix or title, got "a b"`, usage("show")}},
		{"SearchNothing", []string{"search"}, []string{"sessions: search: needs a query", usage("search")}},
		{"LineageNothing", []string{"lineage"}, []string{"sessions: lineage: needs one session id, id prefix or title", usage("lineage")}},
		{"ImportNothing", []string{"import"}, []string{"sessions: import: needs one file", usage("import")}},
		{"ImportBatch", []string{"import", "--batch", "0", "f"}, []string{"sessions: import: --batch must be at least 1, got 0", usage("import")}},
		{"BackupNothing", []string{"backup"}, []string{"sessions: backup: needs one backup path", usage("backup")}},
		{"PruneWithoutAge", []string{"prune"}, []string{"sessions: prune: --older-than is required", usage("prune")}},
		{"PruneBadAge", []string{"prune", "--older-than", "soon"}, []string{`sessions: prune: --older-than: "soon" is not an age: give days (90), hours, days or weeks (36h, 90d, 2w), or a date or time (2025-06-01, "2025-06-01 14:30")`, usage("prune")}},
		{"PruneMinutes", []string{"prune", "--older-than", "90m", "--yes"}, []string{`sessions: prune: --older-than: "90m" is not an age: give days (90), hours, days or weeks (36h, 90d, 2w), or a date or time (2025-06-01, "2025-06-01 14:30")`, usage("prune")}},
		{"PruneZero", []string{"prune", "--older-than", "0", "--dry-run"}, []string{`sessions: prune: --older-than: "0" is not an age: it must be more than 0`, usage("prune")}},
		{"PruneNegative", []string{"prune", "--older-than=-3d", "--dry-run"}, []string{`sessions: prune: --older-than: "-3d" is not an age: give days (90), hours, days or weeks (36h, 90d, 2w), or a date or time (2025-06-01, "2025-06-01 14:30")`, usage("prune")}},
		{"PruneNoTerminal", []string{"prune", "--older-than", "90"}, []string{"sessions: prune: " + refusedWithoutTerminal, usage("prune")}},
		{"DeleteNoTerminal", []string{"delete", "x"}, []string{"sessions: delete: " + refusedWithoutTerminal, usage("delete")}},
		{"DeleteNothing", []string{"delete", "-y"}, []string{"sessions: delete: needs at least one session id, id prefix or title", usage("delete")}},
		{"ArchiveNothing", []string{"archive"}, []string{"sessions: archive: needs at least one session id, id prefix or title", usage("archive")}},
		{"UnarchiveNothing", []string{"unarchive"}, []string{"sessions: unarchive: needs at least one session id, id prefix or title", usage("unarchive")}},
		{"SearchSort", []string{"search", "--sort", "best", "x"}, []string{`sessions: search: --sort must be newest or oldest, got "best"`, usage("search")}},
		{"RenameNoTitle", []string{"rename", "x"}, []string{"sessions: rename: needs a session id, id prefix or title, and the new title", usage("rename")}},
		{"ForceWithoutFile", []string{"export", "--force"}, []string{"sessions: export: --force needs -o FILE", usage("export")}},
		{"HelpTwo", []string{"help", "list", "show"}, []string{`sessions: help: takes at most one command, got "list show"`, usage("help")}},
		{"HelpUnknown", []string{"help", "frob"}, []string{`sessions: help: unknown command "frob"`, usage("help")}},
		{"VersionArgument", []string{"version", "now"}, []string{`sessions: version: takes no arguments, got "now"`, usage("version")}},
		{"VacuumArgument", []string{"vacuum", "now"}, []string{`sessions: vacuum: takes no arguments, got "now"`, usage("vacuum")}},
		{"StatsBy", []string{"stats", "--by", "day"}, []string{`sessions: stats: --by must be model or source, got "day"`, usage("stats")}},
		{"StatsTop", []string{"stats", "--top", "-1"}, []string{"sessions: stats: --top must not be negative, got -1", usage("stats")}},
		{"DoctorArgument", []string{"doctor", "now"}, []string{`sessions: doctor: takes no arguments, got "now"`, usage("doctor")}},
		{"EmptyReference", []string{"show", ""}, []string{"sessions: show: the session id, prefix or title is empty", usage("show")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-db", db}, tt.args...)
			if tt.name == "EmptyReference" {
				args[1] = fixturePath
			}
			failure(t, 2, tt.want, args...)
		})
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a usage error created the database (%v)", err)
	}
}

// TestHelp prints the help: the command list for sessions -h, a command's
// flags for sessions COMMAND -h; exit 0.
func TestHelp(t *testing.T) {
	t.Parallel()
	r := runSessions(t, nil, "-h")
	if r.code != 0 || r.stdout != "" {
		t.Errorf("sessions -h: exit %d, stdout %q", r.code, r.stdout)
	}
	for _, c := range commands {
		if !strings.Contains(r.stderr, "\n  "+c.name+" ") {
			t.Errorf("sessions -h does not list %s:\n%s", c.name, r.stderr)
		}
	}
	r = runSessions(t, nil, "export", "-h")
	wantStart := "usage: sessions export [-db PATH] [--json] [--source S] [-o FILE [--force]] [ID|PREFIX|TITLE]...\n\n" +
		"Write sessions (all, or those named) with their messages as JSON Lines, one session a line.\n\nFlags:\n"
	if r.code != 0 || r.stdout != "" || !strings.HasPrefix(r.stderr, wantStart) || !strings.Contains(r.stderr, "-o FILE") {
		t.Errorf("sessions export -h: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestDatabasePath finds the file as cmd/migrate does: -db, else
// $HERMES_HOME/state.db, else ~/.hermes/state.db. The reading commands
// never create a missing file.
func TestDatabasePath(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	fixture, err := os.ReadFile(fixturePath)
	if err != nil {
		t.Fatal(err)
	}
	place := func(path string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, fixture, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	place(filepath.Join(tmp, "hermes-home", "state.db"))
	place(filepath.Join(tmp, "home", ".hermes", "state.db"))
	want := sessions(t, "-db", fixturePath, "list", "--source", "telegram")
	for _, env := range [][]string{
		{"HERMES_HOME=  " + filepath.Join(tmp, "hermes-home") + "  "},
		{"HOME=" + filepath.Join(tmp, "home")},
		{"HERMES_HOME= \t ", "HOME=" + filepath.Join(tmp, "home")},
	} {
		r := runSessions(t, env, "list", "--source", "telegram")
		if r.code != 0 || r.stderr != "" || r.stdout != want {
			t.Errorf("sessions list with %q: exit %d\nstdout:\n%s\nstderr:\n%s", env, r.code, r.stdout, r.stderr)
		}
	}

	empty := filepath.Join(tmp, "nowhere")
	for _, args := range [][]string{{"list"}, {"show", "x"}, {"search", "x"}, {"lineage", "x"}, {"export"}, {"stats"},
		{"doctor"}, {"prune", "--older-than", "1d", "--yes"}, {"delete", "--yes", "x"}, {"archive", "x"}, {"unarchive", "x"}, {"rename", "x", "y"}, {"vacuum"},
		{"backup", filepath.Join(tmp, "b.db")}} {
		r := runSessions(t, []string{"HERMES_HOME=" + empty}, args...)
		if diff := cmp.Diff(result{code: 1, stderr: "sessions: no database at " + filepath.Join(empty, "state.db") + "\n"}, r,
			cmp.AllowUnexported(result{})); diff != "" {
			t.Errorf("sessions %v on a missing file (-want +got):\n%s", args, diff)
		}
	}
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Errorf("a command created %s (%v)", empty, err)
	}
}

// TestReadingLeavesFileAlone runs every reading command on a copy of the
// fixture: the database file keeps its bytes.
func TestReadingLeavesFileAlone(t *testing.T) {
	t.Parallel()
	path := fixtureCopy(t)
	before := dbtest.FileHash(t, path)
	for _, args := range [][]string{{"list", "--all"}, {"list", "--archived"}, {"show", idDeploy}, {"show", "--raw", idDeploy},
		{"show", "--all", idDeploy}, {"show", "--raw", "--all", idDeploy}, {"search", "docker"}, {"search", "--all", "docker"},
		{"lineage", idSubA}, {"export"}, {"stats"}, {"doctor"}, {"prune", "--older-than", "1d", "--dry-run"},
		{"backup", filepath.Join(t.TempDir(), "b.db")}} {
		sessions(t, append([]string{"-db", path}, args...)...)
	}
	if dbtest.FileHash(t, path) != before {
		t.Error("a reading command changed the database file")
	}
}

// TestFlagsAnywhere puts the shared flags before the command, after it, and
// after the arguments, with one dash or two.
func TestFlagsAnywhere(t *testing.T) {
	t.Parallel()
	want := sessions(t, "-db", fixturePath, "--json", "show", idCJK)
	for _, args := range [][]string{
		{"show", idCJK, "--db", fixturePath, "-json"},
		{"--json", "show", "-db=" + fixturePath, idCJK},
		{"-db", "elsewhere.db", "show", "--db", fixturePath, "--json", "--", idCJK},
	} {
		if got := sessions(t, args...); got != want {
			t.Errorf("sessions %v:\n%s\nwant:\n%s", args, got, want)
		}
	}
}

// TestVersion prints the command's version with cli.PrintVersion, for
// --version and for the version command alike, and exits 0 without
// looking for a database.
func TestVersion(t *testing.T) {
	t.Parallel()
	nowhere := []string{"HERMES_HOME=" + filepath.Join(t.TempDir(), "nowhere")}
	r := runSessions(t, nowhere, "--version")
	got := lines(r.stdout)
	v, _, _ := sqlite3.Version()
	if r.code != 0 || r.stderr != "" || len(got) != 6 || !strings.HasPrefix(got[0], "sessions ") ||
		!strings.HasPrefix(got[1], "module  github.com/hermesstate/hermesstate ") || !strings.HasPrefix(got[2], "commit  ") ||
		got[4] != "sqlite  "+v+", FTS5 yes, trigram yes" || got[5] != "schema  version 21" {
		t.Errorf("sessions --version: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{{"version"}, {"-db", "/nonexistent/state.db", "--version", "list"}} {
		if again := runSessions(t, nowhere, args...); again != r {
			t.Errorf("sessions %v: %+v, want what --version printed", args, again)
		}
	}
	// No home directory to find a database in: version and help do not
	// need one.
	if again := runSessions(t, []string{"HOME="}, "version"); again != r {
		t.Errorf("sessions version without HOME: %+v, want what --version printed", again)
	}
	if got := runSessions(t, []string{"HOME="}, "help"); got.code != 0 || got.stderr != "" || !strings.HasPrefix(got.stdout, "usage: sessions ") {
		t.Errorf("sessions help without HOME: %+v", got)
	}
}

// TestHelpCommand prints, on standard output, what -h prints on standard
// error: sessions help is sessions -h, sessions help COMMAND is sessions
// COMMAND -h.
func TestHelpCommand(t *testing.T) {
	t.Parallel()
	for _, c := range append([]string{""}, "prune", "delete", "rename", "backup", "export", "help") {
		help, flags := []string{"help"}, []string{"-h"}
		if c != "" {
			help, flags = append(help, c), []string{c, "-h"}
		}
		got, want := runSessions(t, nil, help...), runSessions(t, nil, flags...)
		if got.code != 0 || got.stderr != "" || got.stdout != want.stderr || want.stdout != "" || want.code != 0 {
			t.Errorf("sessions %v: %+v; want on standard output what sessions %v printed: %+v", help, got, flags, want)
		}
	}
}
