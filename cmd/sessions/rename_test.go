package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// TestRename sets titles as the original's set_session_title does: the
// words after the session joined, sanitised; "" removes the title; a title
// another session holds is refused naming it, and the file is untouched.
func TestRename(t *testing.T) {
	t.Parallel()
	path := fixtureCopy(t)
	for _, step := range []struct {
		args       []string
		want, show string
	}{
		{[]string{"20250301_1100", "A2A", "protocol"}, "renamed " + idCJK + " to A2A protocol\n", "A2A protocol"},
		{[]string{idCJK, "  spaced \t out  "}, "renamed " + idCJK + " to spaced out\n", "spaced out"},
		{[]string{"spaced out", "协议 notes"}, "renamed " + idCJK + " to 协议 notes\n", "协议 notes"},
		{[]string{idCJK, ""}, "removed the title of " + idCJK + "\n", ""},
	} {
		if got := sessions(t, append([]string{"-db", path, "rename"}, step.args...)...); got != step.want {
			t.Errorf("rename %q: %q, want %q", step.args, got, step.want)
		}
		title, _ := sessionsJSON[obj](t, "-db", path, "show", idCJK)["title"].(string)
		if title != step.show {
			t.Errorf("after rename %q the title is %q, want %q", step.args, title, step.show)
		}
	}
	if got, want := sessions(t, "-db", path, "--json", "rename", idSubB, "Sub", "B"), `{"id":"`+idSubB+`","title":"Sub B"}`+"\n"; got != want {
		t.Errorf("rename --json: %q, want %q", got, want)
	}

	before := dbtest.FileHash(t, path)
	failure(t, 1, []string{"sessions: Title 'Refactor plan' is already in use by session " + idRefactor},
		"-db", path, "rename", idCJK, "Refactor", "plan")
	failure(t, 1, []string{"sessions: Title too long (101 chars, max 100)"},
		"-db", path, "rename", idCJK, strings.Repeat("x", 101))
	failure(t, 1, []string{`sessions: no session has the id, id prefix or title "nope"`}, "-db", path, "rename", "nope", "x")
	if dbtest.FileHash(t, path) != before {
		t.Error("a refused rename changed the file")
	}
	// Renaming a session to the title it has is no conflict.
	if got := sessions(t, "-db", path, "rename", idRefactor, "Refactor plan"); got != "renamed "+idRefactor+" to Refactor plan\n" {
		t.Errorf("rename to its own title: %q", got)
	}
	if diff := cmp.Diff(text(idCJK, idRefactor2, idRefactor, idSubA1, idSubB, idSubA, idDeploy), listIDs(t, path)); diff != "" {
		t.Errorf("rename changed the sessions (-want +got):\n%s", diff)
	}
}

// TestAmbiguousPrefix names more sessions by one prefix than are listed:
// the newest 20 are, with their titles, and the command fails, exit 1,
// with nothing on standard output, also for delete (nothing deleted).
func TestAmbiguousPrefix(t *testing.T) {
	t.Parallel()
	path := endedSessions(t, 22)
	before := dbtest.FileHash(t, path)
	want := []string{`sessions: "s" is the start of more than 20 session ids; give more of the id (the newest 20):`}
	for i := 21; i >= 2; i-- {
		id := "s" + string(rune('0'+i/10)) + string(rune('0'+i%10))
		title := "title " + strings.TrimPrefix(id[1:], "0")
		pad := strings.Repeat(" ", len("title 21")-len(title))
		want = append(want, "  "+id+"  "+title+pad+"  cli  2025-03-01 00:"+id[1:])
	}
	for _, args := range [][]string{{"show", "s"}, {"delete", "--yes", "s"}, {"rename", "s", "x"}, {"export", "s"}} {
		failure(t, 1, want, append([]string{"-db", path}, args...)...)
	}
	if dbtest.FileHash(t, path) != before {
		t.Error("an ambiguous reference changed the file")
	}
}
