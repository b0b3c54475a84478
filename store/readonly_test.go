package store

// Tests of Options.ReadOnly: nothing is created, migrated or written;
// every read works, and sees what other Stores write.

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadOnlyMissingFile checks that a read-only open of a missing file
// fails with fs.ErrNotExist and creates nothing, not even the directory.
func TestReadOnlyMissingFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "state.db")
	s, err := Open(t.Context(), path, &Options{ReadOnly: true})
	if !errors.Is(err, fs.ErrNotExist) || s != nil {
		t.Errorf("Open(missing, ReadOnly) = %v, %v; want nil, fs.ErrNotExist", s, err)
	}
	if diff := cmp.Diff([]string{}, dirNames(t, dir)); diff != "" {
		t.Errorf("files created (-want +got):\n%s", diff)
	}
}

// TestReadOnlyRefusesWrites calls every write on a read-only store: each
// returns ErrReadOnly, and the file exports as before.
func TestReadOnlyRefusesWrites(t *testing.T) {
	t.Parallel()
	w, path := openStore(t, quick(&Options{Now: fixtureClock()}))
	fillExportFixture(t, w)
	want := exportText(t, w, ExportOptions{})
	s := openAt(t, path, &Options{ReadOnly: true})
	import1 := jsonLines(t, sess("imported", "", "", 1000))
	for _, tc := range []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"CreateSession", func(ctx context.Context) error {
			_, err := s.CreateSession(ctx, NewSession{ID: "new", Source: "cli"})
			return err
		}},
		{"EnsureSession", func(ctx context.Context) error { return s.EnsureSession(ctx, "new", "cli", "m") }},
		{"EndSession", func(ctx context.Context) error { return s.EndSession(ctx, "tg", "done") }},
		{"ReopenSession", func(ctx context.Context) error { return s.ReopenSession(ctx, "root") }},
		{"UpdateSystemPrompt", func(ctx context.Context) error { return s.UpdateSystemPrompt(ctx, "root", "p") }},
		{"UpdateTokenCounts", func(ctx context.Context) error {
			return s.UpdateTokenCounts(ctx, "root", TokenUpdate{InputTokens: 1})
		}},
		{"SetSessionTitle", func(ctx context.Context) error { return s.SetSessionTitle(ctx, "tg", "new title") }},
		{"AppendMessage", func(ctx context.Context) error {
			_, err := s.AppendMessage(ctx, "root", NewMessage{Role: "user", Content: new("hi")})
			return err
		}},
		{"ReplaceMessages", func(ctx context.Context) error {
			return s.ReplaceMessages(ctx, "root", []NewMessage{{Role: "user", Content: new("hi")}})
		}},
		{"ClearMessages", func(ctx context.Context) error { return s.ClearMessages(ctx, "root") }},
		{"DeleteSession", func(ctx context.Context) error { return s.DeleteSession(ctx, "root", "") }},
		{"PruneSessions", func(ctx context.Context) error {
			_, err := s.PruneSessions(ctx, PruneOptions{OlderThan: 1})
			return err
		}},
		{"SetMeta", func(ctx context.Context) error { return s.SetMeta(ctx, "k", "v") }},
		{"ImportJSONL", func(ctx context.Context) error {
			res, err := s.ImportJSONL(ctx, strings.NewReader(import1), ImportOptions{})
			if res != (ImportResult{}) {
				t.Errorf("ImportJSONL on a read-only store = %+v, want nothing done", res)
			}
			return err
		}},
		{"RebuildSearchIndex", func(ctx context.Context) error { return s.RebuildSearchIndex(ctx) }},
		{"Checkpoint", func(ctx context.Context) error {
			_, err := s.Checkpoint(ctx, CheckpointTruncate)
			return err
		}},
		{"Vacuum", func(ctx context.Context) error { _, err := s.Vacuum(ctx); return err }},
		{"AutoMaintain", func(ctx context.Context) error {
			res := s.AutoMaintain(ctx, AutoMaintainOptions{Retention: 1})
			if res.Pruned != 0 || res.Vacuumed {
				t.Errorf("AutoMaintain on a read-only store = %+v, want nothing done", res)
			}
			return res.Err
		}},
	} {
		if err := tc.call(t.Context()); !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s on a read-only store: error = %v, want ErrReadOnly", tc.name, err)
		}
	}
	if diff := cmp.Diff(want, exportText(t, s, ExportOptions{})); diff != "" {
		t.Errorf("the file changed (-before +after):\n%s", diff)
	}
}

// TestReadOnlyReads checks the reads of a read-only store against the
// same calls on a writable store of the same file, and that it sees what
// the writable store writes after it was opened.
func TestReadOnlyReads(t *testing.T) {
	t.Parallel()
	w, path := openStore(t, quick(&Options{Now: fixtureClock()}))
	fillExportFixture(t, w)
	s := openAt(t, path, &Options{ReadOnly: true})
	ctx := t.Context()

	reads := func(st *Store) map[string]any {
		out := map[string]any{}
		record := func(name string, v any, err error) {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			out[name] = v
		}
		v1, err := st.GetSession(ctx, "root")
		record("GetSession", v1, err)
		v2, err := st.GetMessages(ctx, "root")
		record("GetMessages", v2, err)
		v3, err := st.ListSessionsRich(ctx, ListOptions{IncludeChildren: true})
		record("ListSessionsRich", v3, err)
		v4, err := st.SearchMessages(ctx, "search", SearchOptions{})
		record("SearchMessages", v4, err)
		v5, err := st.Lineage(ctx, "grandchild")
		record("Lineage", v5, err)
		v6, err := st.Conversation(ctx, "grandchild", true)
		record("Conversation", v6, err)
		v7, err := st.TokenStatsBySource(ctx)
		record("TokenStatsBySource", v7, err)
		v8, err := st.SessionCount(ctx, "")
		record("SessionCount", v8, err)
		v9, err := st.PruneSessions(ctx, PruneOptions{OlderThan: 1, DryRun: true})
		record("PruneSessions dry run", v9, err)
		v10, err := st.SchemaVersion(ctx)
		record("SchemaVersion", v10, err)
		var buf bytes.Buffer
		_, err = st.ExportJSONL(ctx, &buf, ExportOptions{})
		record("ExportJSONL", buf.String(), err)
		return out
	}
	want := reads(w)
	if diff := cmp.Diff(want, reads(s)); diff != "" {
		t.Errorf("reads of the read-only store (-writable +read-only):\n%s", diff)
	}
	if want["PruneSessions dry run"] != 3 {
		t.Errorf("PruneSessions dry run = %v, want 3 (root, child and empty have ended)", want["PruneSessions dry run"])
	}

	id := mustAppend(t, w, "tg", NewMessage{Role: "user", Content: new("written later")})
	msgs, err := s.GetMessages(ctx, "tg")
	if err != nil {
		t.Fatal(err)
	}
	if last := msgs[len(msgs)-1]; last.ID != id || deref(last.Content) != "written later" {
		t.Errorf("read-only store's last tg message = %d %q, want %d \"written later\"", last.ID, deref(last.Content), id)
	}
}
