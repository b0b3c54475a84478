package store

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDeleteSessionRemovesOnlyItsOwnFiles deletes sessions whose ids are
// path syntax or glob patterns and checks, file by file, that each took
// exactly its own transcripts: never a file of another session, outside
// the sessions directory, or in a subdirectory of it.
func TestDeleteSessionRemovesOnlyItsOwnFiles(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, nil)
	root := t.TempDir()
	dir := filepath.Join(root, "sessions")
	for _, d := range []string{dir, filepath.Join(dir, "a")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	files := []string{
		// What a careless join or glob of the hostile ids below would reach.
		"x.json", "x.jsonl", // beside the sessions directory: "../x"
		"sessions/a/b.json", "sessions/a/b.jsonl", // in a subdirectory: "a/b"
		"sessions/other.json", "sessions/request_dump_other_001.json", // any dump: "*"
		"sessions/request_dump_x_001.json", // a dump "[x]" matches as a glob
		// The hostile sessions' own files, named literally.
		"sessions/*.json", "sessions/*.jsonl", "sessions/request_dump_*_001.json",
		"sessions/[x].json", "sessions/request_dump_[x]_001.json",
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(root, f), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"../x", "a/b", "*", "[x]", "other", "x"} {
		mustCreate(t, s, NewSession{ID: id, Source: "cli"})
	}
	for _, id := range []string{"../x", "a/b", "*", "[x]"} {
		if err := s.DeleteSession(t.Context(), id, dir); err != nil {
			t.Fatalf("DeleteSession(%q): %v", id, err)
		}
	}

	want := []string{
		"sessions/a/b.json", "sessions/a/b.jsonl",
		"sessions/other.json", "sessions/request_dump_other_001.json",
		"sessions/request_dump_x_001.json",
		"x.json", "x.jsonl",
	}
	if diff := cmp.Diff(want, filesUnder(t, root)); diff != "" {
		t.Errorf("files left (-want +got):\n%s", diff)
	}
	var left []string
	for _, id := range []string{"../x", "a/b", "*", "[x]", "other", "x"} {
		if got, err := s.GetSession(t.Context(), id); err == nil && got != nil {
			left = append(left, id)
		}
	}
	if diff := cmp.Diff([]string{"other", "x"}, left); diff != "" {
		t.Errorf("sessions left (-want +got):\n%s", diff)
	}
}

// filesUnder lists the regular files under root, as slash-separated paths
// relative to it, sorted.
func filesUnder(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
