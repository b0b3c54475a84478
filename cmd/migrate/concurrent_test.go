package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// TestConcurrentFirstOpen starts four `migrate up` processes and four
// store.Open processes on the same file at the same moment. Each must
// succeed, and the file must end up exactly as one migration of the same
// input leaves it: each migration applied once, each FTS row indexed once.
func TestConcurrentFirstOpen(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		// seed writes the input file at path; nil starts from no file.
		seed func(t *testing.T, path string)
		// rows and hits are what the result holds after insertProbe.
		rows map[string]int64
		hits map[string][]int64
	}{
		{
			name: "EmptyPath",
			rows: rowCounts(1, 1),
			hits: map[string][]int64{"web_search": {1}, "kubernetes": {}, "docker": {}, "probe": {1}},
		},
		{
			name: "LegacyV6",
			seed: seedV6,
			rows: rowCounts(3, 6),
			hits: map[string][]int64{"web_search": {2, 3, 6}, "kubernetes": {4, 5}, "docker": {1, 2}, "probe": {6}},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			single := filepath.Join(dir, "single.db")
			target := filepath.Join(dir, "concurrent.db")
			if tt.seed != nil {
				seed := filepath.Join(dir, "seed.db")
				tt.seed(t, seed)
				dbtest.CopyFile(t, seed, single)
				dbtest.CopyFile(t, seed, target)
			}
			mustMigrate(t, "-db", single, "up")

			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			modes := []string{"migrate", "open", "migrate", "open", "migrate", "open", "migrate", "open"}
			release, wait := startHelpers(t, ctx, target, modes)
			release()
			appliedBy := map[string]int{}
			for i, r := range wait() {
				if r.code != 0 || r.stderr != "" {
					t.Errorf("process %d (%s): exit %d\nstdout:\n%s\nstderr:\n%s", i, modes[i], r.code, r.stdout, r.stderr)
					continue
				}
				lines := strings.Split(strings.TrimSuffix(normalize(r.stdout), "\n"), "\n")
				last := lines[len(lines)-1]
				switch modes[i] {
				case "open":
					if r.stdout != "schema version 21\n" {
						t.Errorf("process %d (open): stdout %q, want %q", i, r.stdout, "schema version 21\n")
					}
				case "migrate":
					if last != "schema version 21" && last != "schema version 21 (no change)" {
						t.Errorf("process %d (migrate up): last line %q", i, last)
					}
					for _, l := range lines[:len(lines)-1] {
						appliedBy[l]++
					}
				}
			}
			t.Logf("migrate processes applied %d migrations between them; store.Open processes the rest", len(appliedBy))
			for line, n := range appliedBy {
				if n > 1 {
					t.Errorf("%d processes printed %q", n, line)
				}
			}

			want, got := inspect(t, single), inspect(t, target)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("concurrent migration differs from a single one (-single +concurrent):\n%s", diff)
			}
			if got.Integrity != "ok" {
				t.Errorf("PRAGMA integrity_check = %q", got.Integrity)
			}
			if diff := cmp.Diff(tt.rows, got.Rows); diff != "" {
				t.Errorf("row counts (-want +got):\n%s", diff)
			}
			wantHits := map[string][]int64{}
			for term, ids := range tt.hits {
				wantHits["messages_fts "+term] = ids
				wantHits["messages_fts_trigram "+term] = ids
			}
			if diff := cmp.Diff(wantHits, got.Hits); diff != "" {
				t.Errorf("FTS hits (-want +got):\n%s", diff)
			}
		})
	}
}

// seedV6 writes a file at schema version 6, made by the binary, holding two
// sessions and five messages.
func seedV6(t *testing.T, path string) {
	t.Helper()
	mustMigrate(t, "-db", path, "up-to", "6")
	db := openDB(t, path, "_foreign_keys=1")
	for _, stmt := range []string{
		`INSERT INTO sessions (id, source, started_at, title, message_count) VALUES
			('s1', 'cli', 1700000000.5, 'Docker deploy', 3),
			('s2', 'telegram', 1700000100.25, NULL, 2)`,
		`INSERT INTO messages (session_id, role, content, tool_name, tool_calls, timestamp) VALUES
			('s1', 'user', 'How do I deploy with Docker?', NULL, NULL, 1700000001),
			('s1', 'assistant', NULL, NULL, '[{"id": "call_1", "type": "function", "function": {"name": "web_search", "arguments": "{\"query\": \"docker\"}"}}]', 1700000002),
			('s1', 'tool', '{"result": "ok"}', 'web_search', NULL, 1700000003),
			('s2', 'user', 'continuing the Kubernetes work', NULL, NULL, 1700000101),
			('s2', 'assistant', 'Kubernetes pods restarted', NULL, NULL, 1700000102)`,
		`PRAGMA wal_checkpoint(TRUNCATE)`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{6}, schemaVersion(t, path)); diff != "" {
		t.Fatalf("seed schema_version (-want +got):\n%s", diff)
	}
}

// rowCounts is the row count of every counted table for a database with
// the given sessions and messages.
func rowCounts(sessions, messages int64) map[string]int64 {
	return map[string]int64{
		"sessions":                     sessions,
		"messages":                     messages,
		"schema_version":               1,
		"state_meta":                   0,
		"messages_fts":                 messages,
		"messages_fts_content":         messages,
		"messages_fts_docsize":         messages,
		"messages_fts_trigram":         messages,
		"messages_fts_trigram_content": messages,
		"messages_fts_trigram_docsize": messages,
	}
}

// dbState is what TestConcurrentFirstOpen compares.
type dbState struct {
	Versions  []int64
	Objects   []schemaObject
	Sequence  []string
	Rows      map[string]int64
	Hits      map[string][]int64 // "fts term": matching rowids
	Integrity string
}

// inspect adds a probe message to the database at path (through the
// triggers the migration left), checks both FTS indexes, and reads its state.
func inspect(t *testing.T, path string) dbState {
	t.Helper()
	db := openDB(t, path, "_foreign_keys=1")
	defer db.Close()
	for _, stmt := range []string{
		`INSERT INTO sessions (id, source, started_at) VALUES ('probe', 'cli', 1800000000)`,
		`INSERT INTO messages (session_id, role, content, tool_name, timestamp) VALUES ('probe', 'tool', 'probe result', 'web_search', 1800000001)`,
		`INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')`,
		`INSERT INTO messages_fts_trigram(messages_fts_trigram) VALUES ('integrity-check')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %s: %v", path, stmt, err)
		}
	}
	s := dbState{
		Versions:  dbtest.Values[int64](t, db, "SELECT version FROM schema_version"),
		Objects:   schemaObjects(t, db),
		Sequence:  dbtest.Values[string](t, db, "SELECT name || '=' || seq FROM sqlite_sequence ORDER BY name"),
		Rows:      map[string]int64{},
		Hits:      map[string][]int64{},
		Integrity: dbtest.Value[string](t, db, "PRAGMA integrity_check"),
	}
	for table := range rowCounts(0, 0) {
		// The names come from rowCounts, not from input.
		s.Rows[table] = dbtest.Value[int64](t, db, "SELECT count(*) FROM "+table)
	}
	for _, fts := range []string{"messages_fts", "messages_fts_trigram"} {
		for _, term := range []string{"web_search", "kubernetes", "docker", "probe"} {
			s.Hits[fts+" "+term] = dbtest.Values[int64](t, db, "SELECT rowid FROM "+fts+" WHERE "+fts+" MATCH ? ORDER BY rowid", term)
		}
	}
	return s
}
