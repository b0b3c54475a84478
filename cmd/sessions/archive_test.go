package main

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/store"
)

// TestArchive archives and unarchives sessions of upstream's v21 file by
// id, prefix and title: the list leaves archived sessions out and
// --archived lists them; unarchiving a compression tip unarchives its root
// too (the whole lineage, as upstream's set_session_archived); every name
// is resolved before anything is written, so one that names nothing changes
// nothing.
func TestArchive(t *testing.T) {
	t.Parallel()
	path := copyTo(t, "upstream/state-v21.db")
	before := dbtest.FileHash(t, path)
	failure(t, 1, []string{`sessions: no session has the id, id prefix or title "nope"`}, "-db", path, "archive", "fx21-gw", "nope")
	failure(t, 1, []string{`sessions: "fx21-arch" is the start of 2 session ids; give more of the id:`,
		"  fx21-arch-tip   -               cli  2026-12-03 07:46",
		"  fx21-arch-root  Archived chain  cli  2026-12-03 07:46",
	}, "-db", path, "unarchive", "fx21-arch")
	if dbtest.FileHash(t, path) != before {
		t.Fatal("a refused archive changed the file")
	}

	if got, want := sessions(t, "-db", path, "archive", "fx21-gw", "fx21-rew", "fx21-gw"), text("archived fx21-gw", "archived fx21-rewind"); got != want {
		t.Errorf("archive: %q, want %q", got, want)
	}
	if diff := cmp.Diff(text(
		"ID                 TITLE  PREVIEW                      LAST ACTIVE       MSGS  SOURCE  MODEL    FLAGS",
		"fx21-branch        -      -                            2026-12-03 07:46  1     cli     alpha-1  branch",
		"fx21-parent        -      delegate two things          2026-12-03 07:46  1     cli     alpha-1  -",
		"fx21-locked        -      -                            2026-12-03 07:46  0     cli     -        -",
		"fx21-compact       -      compact me 0                 2026-12-03 07:46  2     cli     alpha-1  -",
		"fx21-model-switch  -      Summarise the release notes  2026-12-03 07:46  4     cli     beta-2   -",
	), sessions(t, "-db", path, "list")); diff != "" {
		t.Errorf("list after archive (-want +got):\n%s", diff)
	}
	// By title: the root's, which names its lineage.
	got := sessionsJSON[obj](t, "-db", path, "unarchive", "Archived chain")
	if diff := cmp.Diff(obj{"archived": false, "ids": []any{"fx21-arch-root"}}, got); diff != "" {
		t.Errorf("--json unarchive (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(text(
		"ID           TITLE  PREVIEW               LAST ACTIVE       MSGS  SOURCE    MODEL    FLAGS",
		"fx21-gw      -      someone else talking  2026-12-03 07:46  3     telegram  -        archived",
		"fx21-rewind  -      first question        2026-12-03 07:46  4     cli       alpha-1  archived",
	), sessions(t, "-db", path, "list", "--all", "--archived")); diff != "" {
		t.Errorf("list --all --archived after unarchive (-want +got):\n%s", diff)
	}
	s := openTestStore(t, path, &store.Options{ReadOnly: true})
	for id, want := range map[string]int64{"fx21-gw": 1, "fx21-rewind": 1, "fx21-arch-root": 0, "fx21-arch-tip": 0, "fx21-compact": 0} {
		sess, err := s.GetSession(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if sess.Archived != want {
			t.Errorf("%s: archived = %d, want %d", id, sess.Archived, want)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// Archiving again is harmless; unarchiving brings the list back.
	sessions(t, "-db", path, "archive", "fx21-gw")
	if got, want := sessions(t, "-db", path, "unarchive", "fx21-gw", "fx21-rewind"), text("unarchived fx21-gw", "unarchived fx21-rewind"); got != want {
		t.Errorf("unarchive: %q, want %q", got, want)
	}
	if got := sessions(t, "-db", path, "list", "--archived"); got != "" {
		t.Errorf("list --archived after unarchiving everything: %q", got)
	}
	if diff := cmp.Diff(text(
		"ID                 TITLE  PREVIEW                      LAST ACTIVE       MSGS  SOURCE    MODEL    FLAGS",
		"fx21-branch        -      -                            2026-12-03 07:46  1     cli       alpha-1  branch",
		"fx21-parent        -      delegate two things          2026-12-03 07:46  1     cli       alpha-1  -",
		"fx21-gw            -      someone else talking         2026-12-03 07:46  3     telegram  -        -",
		"fx21-locked        -      -                            2026-12-03 07:46  0     cli       -        -",
		"fx21-arch-tip      -      continued after compression  2026-12-03 07:46  1     cli       alpha-1  -",
		"fx21-compact       -      compact me 0                 2026-12-03 07:46  2     cli       alpha-1  -",
		"fx21-rewind        -      first question               2026-12-03 07:46  4     cli       alpha-1  -",
		"fx21-model-switch  -      Summarise the release notes  2026-12-03 07:46  4     cli       beta-2   -",
	), sessions(t, "-db", path, "list")); diff != "" {
		t.Errorf("list after unarchive (-want +got):\n%s", diff)
	}
}
