package store

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// runOriginal runs testdata/reference_init.py, a transcription of the Python
// original's SessionDB setup and _init_schema (reference-spec §2, §3, §5.3),
// on path with the system's python3 and sqlite3 module.
func runOriginal(t *testing.T, path string, args ...string) string {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed: the interoperability check needs it")
	}
	out, err := exec.Command(python, append([]string{"testdata/reference_init.py", path}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("reference_init.py: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestInteropWithTheOriginal: a file this store wrote is one the original
// opens as its own (it changes nothing), and a file the original created is
// one this store opens as its own (without even taking the write lock).
func TestInteropWithTheOriginal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("OriginalOpensOurFile", func(t *testing.T) {
		t.Parallel()
		s, path := openStore(t, nil)
		addSession(t, s, "go-session", nil, 1)
		if err := appendLabelledTo(ctx, s, "go-session", "written by go"); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		raw := rawDB(t, path)
		before := schemaRows(t, raw)
		if got := runOriginal(t, path); got != "version 11" {
			t.Errorf("original says %q, want version 11", got)
		}
		if diff := cmp.Diff(before, schemaRows(t, raw)); diff != "" {
			t.Errorf("the original changed the schema (-ours +after):\n%s", diff)
		}
		if got := dbtest.Values[string](t, raw, "SELECT CAST(rowid AS TEXT) FROM messages_fts WHERE messages_fts MATCH 'written'"); !cmp.Equal(got, []string{"1"}) {
			t.Errorf("FTS hits after the original opened the file: %v", got)
		}
	})

	t.Run("WeOpenTheOriginalsFile", func(t *testing.T) {
		t.Parallel()
		path := t.TempDir() + "/state.db"
		if got := runOriginal(t, path, "seed"); got != "version 11" {
			t.Fatalf("original says %q, want version 11", got)
		}
		raw := rawDB(t, path)
		before := schemaRows(t, raw)
		raw.Close()

		lock := holdWriteLock(t, path)
		s := openAt(t, path, &Options{WriteAttempts: 1})
		after := schemaRows(t, s.r)
		lock.release()
		if diff := cmp.Diff(before, after); diff != "" {
			t.Errorf("opening changed the original's schema (-original +after):\n%s", diff)
		}
		got, err := s.q.SessionGet(ctx, s.r, "py-session")
		if err != nil {
			t.Fatal(err)
		}
		if got.Source != "cli" || got.ModelConfig == nil || *got.ModelConfig != `{"temperature": 0.5}` {
			t.Errorf("session = %+v", got)
		}
		if hits := dbtest.Values[string](t, s.r, "SELECT CAST(rowid AS TEXT) FROM messages_fts WHERE messages_fts MATCH 'PYTOOL'"); !cmp.Equal(hits, []string{"1"}) {
			t.Errorf("FTS hits for the tool name = %v, want [1]", hits)
		}
		if err := appendLabelledTo(ctx, s, "py-session", "and by go"); err != nil {
			t.Errorf("append to the original's session: %v", err)
		}
	})
}
