package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// ftsHits returns the ids of messages whose indexed text matches query in
// the given FTS table.
func ftsHits(t *testing.T, q dbtx, table, query string) []string {
	t.Helper()
	// table is one of our two FTS table names, never input.
	return dbtest.Values[string](t, q, fmt.Sprintf("SELECT CAST(rowid AS TEXT) FROM %s WHERE %s MATCH ? ORDER BY rowid", table, table), query)
}

// TestFTS5ToolCallMigration ports test_v10_to_v11_upgrade_backfills_tool_fields
// (reference-tests A.25, unchanged at c2a3b9ce5): a hand-built v10 file with
// external-content FTS, nullable session columns and a non-AUTOINCREMENT
// messages.id, opened by the v21 code: both indexes are rebuilt inline with
// the tool fields, and the file is stamped 21.
//
// upstream: TestFTS5ToolCallMigration::test_v10_to_v11_upgrade_backfills_tool_fields
func TestFTS5ToolCallMigration(t *testing.T) {
	t.Parallel()
	path := dbtest.LegacyFile(t, "v10-external-fts.sql")
	raw := rawDB(t, path)
	if got := ftsHits(t, raw, "messages_fts", "LEGACYTOOL"); len(got) != 0 {
		t.Fatalf("sanity: v10 index finds the tool name: %v", got)
	}
	raw.Close()

	s := openAt(t, path, nil)
	for _, q := range []string{"LEGACYTOOL", "LEGACYARG", "web_search"} {
		if diff := cmp.Diff([]string{"1"}, ftsHits(t, s.r, "messages_fts", q)); diff != "" {
			t.Errorf("messages_fts MATCH %s (-want +got):\n%s", q, diff)
		}
	}
	if diff := cmp.Diff([]string{"1"}, ftsHits(t, s.r, "messages_fts_trigram", "LEGACYARG")); diff != "" {
		t.Errorf("trigram MATCH LEGACYARG (-want +got):\n%s", diff)
	}
	if v, err := s.SchemaVersion(context.Background()); err != nil || v != 21 {
		t.Errorf("SchemaVersion = %d, %v; want 21", v, err)
	}
	// The reconcile added every declared column the legacy table lacked.
	if cols := columns(t, s.r, "sessions"); len(cols) != 45 || !slices.Contains(cols, "model") || !slices.Contains(cols, "archived") {
		t.Errorf("sessions has %d columns %v, want 45 including model and archived", len(cols), cols)
	}
}

// TestOpenOriginalsFiles opens databases the Python original wrote at v1 and
// v9: migrated to 21 with every row intact and searchable.
func TestOpenOriginalsFiles(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"state-v1.db", "state-v9.db"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := openAt(t, dbtest.CopyFixture(t, name), nil)
			ids := dbtest.Values[string](t, s.r, "SELECT id FROM sessions ORDER BY id")
			if diff := cmp.Diff([]string{"child", "old", "root", "tg"}, ids); diff != "" {
				t.Errorf("sessions (-want +got):\n%s", diff)
			}
			if n := dbtest.Value[int64](t, s.r, "SELECT COUNT(*) FROM messages"); n != 8 {
				t.Errorf("messages = %d, want 8", n)
			}
			for _, tt := range []struct{ table, query, want string }{
				{"messages_fts", "web_search", "2 3"}, // tool-call JSON and tool_name, new in v11's index
				{"messages_fts", "Kubernetes", "8"},   // plain content
				{"messages_fts", `"chat-send"`, "1"},  // a quoted hyphenated term
				{"messages_fts_trigram", "通信协议", "6"}, // CJK, trigram only
				{"messages_fts_trigram", "记忆断裂", "5"},
			} {
				got := fmt.Sprint(ftsHits(t, s.r, tt.table, tt.query))
				if want := "[" + tt.want + "]"; got != want {
					t.Errorf("%s MATCH %s = %s, want %s", tt.table, tt.query, got, want)
				}
			}
			for _, table := range []string{"messages_fts", "messages_fts_trigram"} {
				// FTS5's own consistency check of the index against its content.
				dbtest.Exec(t, s.w, fmt.Sprintf("INSERT INTO %s(%s, rank) VALUES('integrity-check', 1)", table, table))
			}
			if got := dbtest.Values[string](t, s.r, "PRAGMA integrity_check"); !slices.Equal(got, []string{"ok"}) {
				t.Errorf("integrity_check = %v", got)
			}
		})
	}
}

// TestOpenNewerSchema: a file a later Hermes wrote (version 22, with a table
// and column this build does not know) is refused, and with
// WriteNewerSchema opens for use, is not downgraded, and keeps what it has.
func TestOpenNewerSchema(t *testing.T) {
	t.Parallel()
	s, path := openStore(t, nil)
	addSession(t, s, "s", nil, 1)
	dbtest.Exec(t, s.w,
		"UPDATE schema_version SET version = 22",
		"CREATE TABLE future_things (id TEXT PRIMARY KEY)",
		"ALTER TABLE sessions ADD COLUMN future_flag TEXT",
	)
	before := schemaRows(t, s.r)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), path, nil); !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("Open: %v, want ErrNewerSchema", err)
	}
	again := openAt(t, path, &Options{WriteNewerSchema: true})
	if v, err := again.SchemaVersion(context.Background()); err != nil || v != 22 {
		t.Errorf("SchemaVersion = %d, %v; want 22", v, err)
	}
	if diff := cmp.Diff(before, schemaRows(t, again.r)); diff != "" {
		t.Errorf("schema changed (-before +after):\n%s", diff)
	}
	if err := appendLabelled(context.Background(), again, "still writable"); err != nil {
		t.Errorf("write to a newer file: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("NotADatabase", func(t *testing.T) {
		t.Parallel()
		path := t.TempDir() + "/state.db"
		content := []byte("SQLite format 2\x00 — not really\n")
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(ctx, path, nil); !errors.Is(err, ErrNotDatabase) {
			t.Errorf("Open = %v, want ErrNotDatabase", err)
		}
		if got, _ := os.ReadFile(path); string(got) != string(content) {
			t.Errorf("file changed to %q", got)
		}
	})
	t.Run("Directory", func(t *testing.T) {
		t.Parallel()
		if _, err := Open(ctx, t.TempDir(), nil); !errors.Is(err, ErrCantOpen) {
			t.Errorf("Open = %v, want ErrCantOpen", err)
		}
	})
}

func TestDefaultPath(t *testing.T) {
	// Not parallel: it sets the environment.
	home := t.TempDir()
	t.Setenv("HERMES_HOME", "  "+home+"\t")
	if got, err := DefaultPath(); err != nil || got != home+"/state.db" {
		t.Errorf("DefaultPath = %q, %v; want %s/state.db", got, err, home)
	}
	t.Setenv("HERMES_HOME", "   ")
	t.Setenv("HOME", home)
	if got, err := DefaultPath(); err != nil || got != home+"/.hermes/state.db" {
		t.Errorf("DefaultPath with blank HERMES_HOME = %q, %v; want %s/.hermes/state.db", got, err, home)
	}
}

// TestUseOriginalsFiles reads the files the Python original wrote through
// the API, after Open migrated them: search on every route, replay with the
// original's JSON text decoded, lineage and title lookups.
func TestUseOriginalsFiles(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"state-v1.db", "state-v9.db"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			s := openAt(t, dbtest.CopyFixture(t, name), nil)
			for _, tt := range []struct {
				query string
				ids   []int64
			}{
				{"Kubernetes", []int64{8}},
				{"chat-send", []int64{1}},
				{"LEGACYARG", []int64{2}},     // inside the original's tool-call JSON
				{"记忆断裂", []int64{5}},          // trigram
				{"通信", []int64{6}},            // LIKE
				{"100% done", []int64{4}},     // FTS: '%' is not a token
				{"gateway/run.py", []int64{}}, // repaired, no such text
			} {
				hits, err := s.SearchMessages(ctx, tt.query, SearchOptions{})
				if err != nil {
					t.Fatalf("search %q: %v", tt.query, err)
				}
				got := []int64{}
				for _, h := range hits {
					got = append(got, h.ID)
				}
				if diff := cmp.Diff(tt.ids, got); diff != "" {
					t.Errorf("search %q (-want +got):\n%s", tt.query, diff)
				}
			}

			conv, err := s.Conversation(ctx, "root", false)
			if err != nil {
				t.Fatal(err)
			}
			if len(conv) != 4 {
				t.Fatalf("root replay: %d messages, want 4", len(conv))
			}
			var calls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			}
			if err := json.Unmarshal(conv[1].ToolCalls, &calls); err != nil {
				t.Fatalf("tool calls %s: %v", conv[1].ToolCalls, err)
			}
			if len(calls) != 1 || calls[0].ID != "call_1" || calls[0].Function.Arguments != `{"query": "LEGACYARG docker-compose"}` {
				t.Errorf("root's tool calls = %+v", calls)
			}

			if name == "state-v9.db" { // titles arrived in v4
				if id, err := s.ResolveSessionByTitle(ctx, "my project"); err != nil || id != "child" {
					t.Errorf("ResolveSessionByTitle(my project) = %q, %v; want child (the newest numbered variant)", id, err)
				}
			}
			if lineage, err := s.Lineage(ctx, "child"); err != nil || !slices.Equal(lineage, []string{"root", "child"}) {
				t.Errorf("Lineage(child) = %v, %v", lineage, err)
			}
		})
	}
}
