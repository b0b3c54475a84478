package main

// prune and delete as Hermes's `hermes sessions` runs them: they show what
// they will delete and ask y/N on a terminal (answered for real on a
// pseudo-terminal), delete exactly what was shown, refuse without a
// terminal unless --yes, and list without deleting with --dry-run.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/store"
)

// interactive is a terminal on standard input and standard error: a
// person at a shell.
var interactive = onTerminal{stdin: true, stderr: true}

// refusedWithoutTerminal is what prune and delete say, before the usage
// line, when standard input is not a terminal and --yes is missing.
const refusedWithoutTerminal = "standard input is not a terminal, so there is no one to ask: nothing deleted; " +
	"--yes deletes without asking, --dry-run lists what would be deleted"

// cancelled is the last line on the terminal after answering no.
const cancelled = "sessions: cancelled; nothing deleted\n"

// fixturePrune is the fixture's two ended sessions, both started on
// 1 March 2025, as prune lists them.
const fixturePrune = "2 sessions to prune (ended, started before 2025-03-02 00:00):\n" +
	"  20250301_090000_a1a1a1  Deploy notes   cli       2025-03-01 09:00\n" +
	"  20250301_100000_e5e5e5  Refactor plan  telegram  2025-03-01 10:00\n"

// migratedV9 copies testdata/state-v9.db (written by the Python original)
// and migrates the copy to this build's schema through the store, as
// `migrate up` would; it returns the copy's path.
func migratedV9(t *testing.T) string {
	t.Helper()
	path := dbtest.CopyFixture(t, "state-v9.db")
	openTestStore(t, path, nil).Close()
	return path
}

// transcripts creates the sessions directory beside the database at
// dbPath with a transcript file for each id, and returns it.
func transcripts(t *testing.T, dbPath string, ids ...string) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(dbPath), "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// checkResult compares a run with the exit code and exact outputs wanted.
func checkResult(t *testing.T, what string, want, got result) {
	t.Helper()
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

func TestPruneConfirm(t *testing.T) {
	t.Parallel()
	prune := []string{"prune", "--older-than", "2025-03-02"}

	t.Run("Yes", func(t *testing.T) {
		t.Parallel()
		path := fixtureCopy(t)
		dir := transcripts(t, path, idDeploy, idRefactor, idCJK)
		r := runTerminal(t, interactive, nil, "y", append([]string{"-db", path}, prune...)...)
		checkResult(t, "prune answered y", result{stdout: "pruned 2 sessions\n",
			stderr: fixturePrune + "Delete these 2 sessions and all their messages? [y/N] y\n"}, r)
		if diff := cmp.Diff(text(idCJK, idRefactor2, idSubA1, idSubB, idSubA), listIDs(t, path)); diff != "" {
			t.Errorf("sessions left (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{idCJK + ".jsonl"}, dbtest.DirNames(t, dir)); diff != "" {
			t.Errorf("transcript files left (-want +got):\n%s", diff)
		}
	})

	t.Run("No", func(t *testing.T) {
		t.Parallel()
		for _, answer := range []string{"n", "no thanks", " "} {
			path := fixtureCopy(t)
			before := dbtest.FileHash(t, path)
			r := runTerminal(t, interactive, nil, answer, append([]string{"-db", path}, prune...)...)
			checkResult(t, "prune answered "+answer, result{code: 1,
				stderr: fixturePrune + "Delete these 2 sessions and all their messages? [y/N] " + answer + "\n" + cancelled}, r)
			if dbtest.FileHash(t, path) != before {
				t.Errorf("prune answered %q changed the file", answer)
			}
		}
	})

	t.Run("NoTerminal", func(t *testing.T) {
		t.Parallel()
		path := fixtureCopy(t)
		before := dbtest.FileHash(t, path)
		c, _ := lookup("prune")
		// Refused with stderr alone on a terminal too: the question
		// needs an answer from standard input.
		for _, on := range []onTerminal{{}, {stderr: true}} {
			r := runTerminal(t, on, nil, "", append([]string{"-db", path}, prune...)...)
			checkResult(t, fmt.Sprintf("prune with %+v", on), result{code: 2,
				stderr: text("sessions: prune: "+refusedWithoutTerminal, c.usage())}, r)
		}
		if dbtest.FileHash(t, path) != before {
			t.Error("a refused prune changed the file")
		}
	})

	t.Run("YesFlag", func(t *testing.T) {
		t.Parallel()
		for _, yes := range []string{"--yes", "-y"} {
			path := fixtureCopy(t)
			if got := sessions(t, append(append([]string{"-db", path}, prune...), yes)...); got != "pruned 2 sessions\n" {
				t.Errorf("prune %s: %q", yes, got)
			}
		}
		// On a terminal too: nothing is asked.
		path := fixtureCopy(t)
		r := runTerminal(t, interactive, nil, "", append(append([]string{"-db", path, "--json"}, prune...), "--yes")...)
		checkResult(t, "prune --yes on a terminal", result{
			stdout: `{"pruned":2,"dry_run":false,"ids":["` + idDeploy + `","` + idRefactor + `"]}` + "\n"}, r)
	})

	t.Run("DryRun", func(t *testing.T) {
		t.Parallel()
		path := fixtureCopy(t)
		before := dbtest.FileHash(t, path)
		listed := "would prune 2 sessions (ended, started before 2025-03-02 00:00):\n" +
			"  20250301_090000_a1a1a1  Deploy notes   cli       2025-03-01 09:00\n" +
			"  20250301_100000_e5e5e5  Refactor plan  telegram  2025-03-01 10:00\n"
		if got := sessions(t, append(append([]string{"-db", path}, prune...), "--dry-run")...); got != listed {
			t.Errorf("prune --dry-run:\n%s\nwant:\n%s", got, listed)
		}
		want := "would prune 1 session (ended, started before 2025-03-02 00:00, source telegram):\n" +
			"  20250301_100000_e5e5e5  Refactor plan  telegram  2025-03-01 10:00\n"
		if got := sessions(t, append(append([]string{"-db", path}, prune...), "--dry-run", "--source", "telegram")...); got != want {
			t.Errorf("prune --dry-run --source telegram:\n%s\nwant:\n%s", got, want)
		}
		if got, want := sessions(t, "-db", path, "prune", "--dry-run", "--older-than", "2025-03-01 08:00"),
			"would prune 0 sessions (ended, started before 2025-03-01 08:00)\n"; got != want {
			t.Errorf("prune --dry-run of nothing: %q, want %q", got, want)
		}
		if got, want := sessions(t, append(append([]string{"-db", path, "--json"}, prune...), "--dry-run")...),
			`{"pruned":2,"dry_run":true,"ids":["`+idDeploy+`","`+idRefactor+`"]}`+"\n"; got != want {
			t.Errorf("prune --json --dry-run: %q, want %q", got, want)
		}
		// On a terminal nothing is asked either.
		r := runTerminal(t, interactive, nil, "", append(append([]string{"-db", path}, prune...), "--dry-run")...)
		checkResult(t, "prune --dry-run on a terminal", result{stdout: listed}, r)
		if dbtest.FileHash(t, path) != before {
			t.Error("prune --dry-run changed the file")
		}
	})

	t.Run("ExactlyWhatWasShown", func(t *testing.T) {
		t.Parallel()
		// While the question waits, another process ends subA (started
		// 09:02, so now old enough) and reopens refactor: the answer y
		// deletes deploy alone, of the two shown.
		path := fixtureCopy(t)
		meanwhile := func(*os.Process) {
			s := openTestStore(t, path, nil)
			if err := s.EndSession(t.Context(), idSubA, "user_exit"); err != nil {
				t.Fatal(err)
			}
			if err := s.ReopenSession(t.Context(), idRefactor); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
		r := runTerminalAt(t, interactive, nil, "y", meanwhile, append([]string{"-db", path}, prune...)...)
		checkResult(t, "prune while another process writes", result{stdout: "pruned 1 session\n",
			stderr: fixturePrune + "Delete these 2 sessions and all their messages? [y/N] y\n" +
				"1 session of those listed changed meanwhile (reopened or deleted) and was not pruned\n"}, r)
		if diff := cmp.Diff(text(idCJK, idRefactor2, idRefactor, idSubA1, idSubB, idSubA), listIDs(t, path)); diff != "" {
			t.Errorf("sessions left (-want +got):\n%s", diff)
		}
	})

	t.Run("Interrupted", func(t *testing.T) {
		t.Parallel()
		// SIGINT or SIGTERM while the question waits: stopped, nothing
		// deleted.
		for sig, name := range map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"} {
			path := fixtureCopy(t)
			before := dbtest.FileHash(t, path)
			r := runTerminalAt(t, interactive, nil, "", func(p *os.Process) { p.Signal(sig) }, append([]string{"-db", path}, prune...)...)
			checkResult(t, "prune stopped by "+name, result{code: 128 + int(sig),
				stderr: fixturePrune + "Delete these 2 sessions and all their messages? [y/N] \nsessions: stopped by " + name + "\n"}, r)
			if dbtest.FileHash(t, path) != before {
				t.Errorf("prune stopped by %s changed the file", name)
			}
		}
	})

	t.Run("NothingToAsk", func(t *testing.T) {
		t.Parallel()
		path := fixtureCopy(t)
		r := runTerminal(t, interactive, nil, "", "-db", path, "prune", "--older-than", "2024-01-01")
		checkResult(t, "prune of nothing on a terminal", result{stdout: "pruned 0 sessions\n"}, r)
	})

	t.Run("RealFixture", func(t *testing.T) {
		t.Parallel()
		// The original's v9 file, migrated: "old" (cron, May 2026) is the
		// one ended session started before June.
		path := migratedV9(t)
		dir := transcripts(t, path, "old", "root")
		before := dbtest.FileHash(t, path)
		args := []string{"-db", path, "prune", "--older-than", "2026-06-01"}
		shown := "1 session to prune (ended, started before 2026-06-01 00:00):\n" +
			"  old  -  cron  2026-05-16 13:43\n" +
			"Delete this session and all its messages? [y/N] "
		checkResult(t, "prune of the v9 file answered N", result{code: 1, stderr: shown + "N\n" + cancelled},
			runTerminal(t, interactive, nil, "N", args...))
		if dbtest.FileHash(t, path) != before {
			t.Error("prune answered N changed the file")
		}
		checkResult(t, "prune of the v9 file answered yes", result{stdout: "pruned 1 session\n", stderr: shown + "YES\n"},
			runTerminal(t, interactive, nil, "YES", args...))
		if diff := cmp.Diff(text("child", "tg", "root"), listIDs(t, path)); diff != "" {
			t.Errorf("sessions left (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"root.jsonl"}, dbtest.DirNames(t, dir)); diff != "" {
			t.Errorf("transcript files left (-want +got):\n%s", diff)
		}
	})

	t.Run("Many", func(t *testing.T) {
		t.Parallel()
		// 21 ended sessions: too many to list; their number and span are
		// shown instead, and exactly they go.
		path := endedSessions(t, 21)
		r := runTerminal(t, interactive, nil, "y", "-db", path, "prune", "--older-than", "2025-03-02")
		checkResult(t, "prune of 21 sessions", result{stdout: "pruned 21 sessions\n",
			stderr: "21 sessions to prune (ended, started before 2025-03-02 00:00); started from 2025-03-01 00:00 to 2025-03-01 00:20\n" +
				"Delete these 21 sessions and all their messages? [y/N] y\n"}, r)
		if got := listIDs(t, path); got != "" {
			t.Errorf("sessions left:\n%s", got)
		}
		path = endedSessions(t, 20)
		r = runTerminal(t, interactive, nil, "n", "-db", path, "prune", "--older-than", "2025-03-02")
		if want := "20 sessions to prune (ended, started before 2025-03-02 00:00):\n  s00  title 0   cli  2025-03-01 00:00\n"; r.code != 1 ||
			!strings.HasPrefix(r.stderr, want) || strings.Count(r.stderr, "\n  s") != 20 {
			t.Errorf("prune of 20 sessions: exit %d, terminal:\n%s", r.code, r.stderr)
		}
	})
}

// endedSessions writes a database of n ended cli sessions s00, s01, …
// titled "title 0", … and started a minute apart from 1 March 2025
// 00:00 UTC, and returns its path.
func endedSessions(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	var now time.Time
	s := openTestStore(t, path, &store.Options{Now: func() time.Time { return now }})
	for i := range n {
		now = fixtureDay.Add(time.Duration(i) * time.Minute)
		id := fmt.Sprintf("s%02d", i)
		if _, err := s.CreateSession(t.Context(), store.NewSession{ID: id, Source: "cli"}); err != nil {
			t.Fatal(err)
		}
		if err := s.SetSessionTitle(t.Context(), id, fmt.Sprintf("title %d", i)); err != nil {
			t.Fatal(err)
		}
		if err := s.EndSession(t.Context(), id, "user_exit"); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDeleteConfirm(t *testing.T) {
	t.Parallel()
	// Named by title (the newest of its lineage), by prefix, and twice.
	args := func(path string) []string {
		return []string{"-db", path, "delete", "Refactor plan", "20250301_1100", idRefactor2}
	}
	shown := "2 sessions to delete:\n" +
		"  20250301_103000_f6f6f6  Refactor plan #2  telegram  2025-03-01 10:30\n" +
		"  20250301_110000_0a0a0a  -                 discord   2025-03-01 11:00\n" +
		"Delete these 2 sessions and all their messages? [y/N] "

	t.Run("Yes", func(t *testing.T) {
		t.Parallel()
		path := fixtureCopy(t)
		dir := transcripts(t, path, idRefactor2, idCJK, idDeploy)
		checkResult(t, "delete answered y", result{stdout: "deleted 2 sessions\n", stderr: shown + "y\n"},
			runTerminal(t, interactive, nil, "y", args(path)...))
		if diff := cmp.Diff(text(idRefactor, idSubA1, idSubB, idSubA, idDeploy), listIDs(t, path)); diff != "" {
			t.Errorf("sessions left (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{idDeploy + ".jsonl"}, dbtest.DirNames(t, dir)); diff != "" {
			t.Errorf("transcript files left (-want +got):\n%s", diff)
		}
	})

	t.Run("No", func(t *testing.T) {
		t.Parallel()
		path := fixtureCopy(t)
		before := dbtest.FileHash(t, path)
		checkResult(t, "delete answered n", result{code: 1, stderr: shown + "n\n" + cancelled},
			runTerminal(t, interactive, nil, "n", args(path)...))
		if dbtest.FileHash(t, path) != before {
			t.Error("delete answered n changed the file")
		}
	})

	t.Run("NoTerminal", func(t *testing.T) {
		t.Parallel()
		path := fixtureCopy(t)
		before := dbtest.FileHash(t, path)
		c, _ := lookup("delete")
		failure(t, 2, []string{"sessions: delete: " + refusedWithoutTerminal, c.usage()}, args(path)...)
		if dbtest.FileHash(t, path) != before {
			t.Error("a refused delete changed the file")
		}
	})

	t.Run("YesFlagOrphansChildren", func(t *testing.T) {
		t.Parallel()
		path := fixtureCopy(t)
		if got := sessions(t, "-db", path, "delete", "--yes", "Deploy notes"); got != "deleted 1 session\n" {
			t.Errorf("delete --yes: %q", got)
		}
		for _, id := range []string{idSubA, idSubB} {
			if got := sessionsJSON[obj](t, "-db", path, "show", id)["parent_session_id"]; got != nil {
				t.Errorf("%s keeps the deleted parent %v", id, got)
			}
		}
		if got := sessionsJSON[obj](t, "-db", path, "show", idSubA1)["parent_session_id"]; got != idSubA {
			t.Errorf("the grandchild's parent = %v, want %s", got, idSubA)
		}
		if got, want := sessions(t, "-db", path, "--json", "delete", "-y", idCJK), `{"deleted":1,"dry_run":false,"ids":["`+idCJK+`"]}`+"\n"; got != want {
			t.Errorf("delete --json: %q, want %q", got, want)
		}
	})

	t.Run("DryRun", func(t *testing.T) {
		t.Parallel()
		path := fixtureCopy(t)
		before := dbtest.FileHash(t, path)
		want := "would delete 2 sessions:\n" +
			"  20250301_103000_f6f6f6  Refactor plan #2  telegram  2025-03-01 10:30\n" +
			"  20250301_110000_0a0a0a  -                 discord   2025-03-01 11:00\n"
		if got := sessions(t, append(args(path), "--dry-run")...); got != want {
			t.Errorf("delete --dry-run:\n%s\nwant:\n%s", got, want)
		}
		if dbtest.FileHash(t, path) != before {
			t.Error("delete --dry-run changed the file")
		}
	})

	t.Run("Unresolved", func(t *testing.T) {
		t.Parallel()
		path := fixtureCopy(t)
		before := dbtest.FileHash(t, path)
		// One reference that names nothing: nothing is deleted, and
		// nothing is asked.
		checkResult(t, "delete of a missing session", result{code: 1, stderr: `sessions: no session has the id, id prefix or title "nope"` + "\n"},
			runTerminal(t, interactive, nil, "", "-db", path, "delete", idCJK, "nope"))
		failure(t, 2, []string{"sessions: delete: needs at least one session id, id prefix or title", deleteCommand.usage()}, "-db", path, "delete", "--yes")
		if dbtest.FileHash(t, path) != before {
			t.Error("a failed delete changed the file")
		}
	})

	t.Run("RealFixture", func(t *testing.T) {
		t.Parallel()
		// "my project" names the newest of its lineage, "my project #2"
		// (child); its transcript goes with it.
		path := migratedV9(t)
		dir := transcripts(t, path, "child", "root")
		r := runTerminal(t, interactive, nil, "y", "-db", path, "delete", "my project")
		checkResult(t, "delete in the v9 file", result{stdout: "deleted 1 session\n", stderr: "1 session to delete:\n" +
			"  child  my project #2  cli  2026-12-02 13:43\n" +
			"Delete this session and all its messages? [y/N] y\n"}, r)
		if diff := cmp.Diff(text("tg", "root", "old"), listIDs(t, path)); diff != "" {
			t.Errorf("sessions left (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"root.jsonl"}, dbtest.DirNames(t, dir)); diff != "" {
			t.Errorf("transcript files left (-want +got):\n%s", diff)
		}
	})
}
