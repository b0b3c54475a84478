package migrations

import (
	"context"
	"database/sql"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// TestMigrationsReproduceFixtures checks that replaying migrations 1…N on an
// empty file gives the schema the Python original wrote at version N.
func TestMigrationsReproduceFixtures(t *testing.T) {
	t.Parallel()

	t.Run("V1", func(t *testing.T) {
		t.Parallel()
		db := openNew(t)
		migrateTo(t, db, 1)
		want := schemaOf(t, openWriter(t, dbtest.CopyFixture(t, "state-v1.db")))
		if diff := cmp.Diff(want, schemaOf(t, db)); diff != "" {
			t.Errorf("schema after UpTo(1) differs from state-v1.db (-fixture +migrated):\n%s", diff)
		}
	})

	t.Run("V9", func(t *testing.T) {
		t.Parallel()
		db := openNew(t)
		migrateTo(t, db, 9)
		want := schemaOf(t, openWriter(t, dbtest.CopyFixture(t, "state-v9.db")))
		// The v9 original created its tables with every column in one CREATE
		// TABLE; the migrations add them one version at a time, so only the
		// column order may differ (title, reasoning_content).
		byName := cmpopts.SortSlices(func(a, b column) bool { return a.Name < b.Name })
		if diff := cmp.Diff(want, schemaOf(t, db), byName); diff != "" {
			t.Errorf("schema after UpTo(9) differs from state-v9.db (-fixture +migrated):\n%s", diff)
		}
	})
}

// TestEveryVersionUpgrades builds a file at each version 0…10 by replaying the
// migrations, stores rows in the columns that version has, upgrades it and
// checks rows, schema and both search indexes.
func TestEveryVersionUpgrades(t *testing.T) {
	t.Parallel()
	for n := range Latest {
		t.Run("FromV"+strconv.FormatInt(n, 10), func(t *testing.T) {
			t.Parallel()
			testUpgradeFrom(t, n)
		})
	}
}

// row is one row to insert, by column name.
type row map[string]any

// since is the version that added each column the upgrade test writes that v1
// did not have.
var since = map[string]int64{
	"finish_reason":       2,
	"title":               3,
	"cache_read_tokens":   5,
	"reasoning":           6,
	"reasoning_content":   7,
	"api_call_count":      8,
	"codex_message_items": 9,
}

// defaults is what a column added after the row was written reads.
var defaults = map[string]any{"cache_read_tokens": int64(0), "api_call_count": int64(0)}

var (
	upgradeSession = row{
		"id": "s1", "source": "cli", "model": "anthropic/claude-sonnet-4.6", "started_at": 1000.5,
		"message_count": int64(4), "title": "Deploy notes", "cache_read_tokens": int64(7), "api_call_count": int64(3),
	}
	upgradeMessages = []row{
		{"session_id": "s1", "role": "user", "content": "How do I deploy with Docker?", "timestamp": 1001.0},
		{
			"session_id": "s1", "role": "assistant", "timestamp": 1002.0,
			"tool_calls":    `[{"id": "call_1", "type": "function", "function": {"name": "web_search", "arguments": "{\"query\": \"UNIQUESEARCHTOKEN\"}"}}]`,
			"finish_reason": "tool_calls", "reasoning": "I should search.", "reasoning_content": "search first",
		},
		{"session_id": "s1", "role": "tool", "content": `{"result": "ok"}`, "tool_call_id": "call_1", "tool_name": "web_search", "timestamp": 1003.0},
		{
			"session_id": "s1", "role": "assistant", "content": "今天讨论A2A通信协议的实现", "timestamp": 1004.0,
			"finish_reason": "stop", "codex_message_items": `[{"id": "msg_1", "phase": "final"}]`,
		},
	}
	sessionColumns = []string{"id", "source", "model", "started_at", "message_count", "title", "cache_read_tokens", "api_call_count"}
	messageColumns = []string{
		"id", "session_id", "role", "content", "tool_call_id", "tool_calls", "tool_name", "timestamp",
		"finish_reason", "reasoning", "reasoning_content", "codex_message_items",
	}
)

func testUpgradeFrom(t *testing.T, n int64) {
	ctx := context.Background()
	db := openNew(t)
	migrateTo(t, db, n)
	if n > 0 {
		insertUpgradeRows(t, db)
	}

	upgradedOnce(t, ctx, newMigrator(t, db, nil), n)
	if n == 0 {
		// An empty file has no tables to hold rows before the upgrade.
		insertUpgradeRows(t, db)
	}

	if got := versionOf(t, db); got != Latest {
		t.Errorf("version = %d, want %d", got, Latest)
	}
	written := func(col string) bool { v, ok := since[col]; return n == 0 || !ok || v <= n }
	want := func(r row, cols []string, id int64) []any {
		out := []any{}
		for _, c := range cols {
			switch v, ok := r[c]; {
			case c == "id" && id > 0:
				out = append(out, id)
			case ok && written(c):
				out = append(out, v)
			default:
				out = append(out, defaults[c])
			}
		}
		return out
	}
	wantSessions := [][]any{want(upgradeSession, sessionColumns, 0)}
	if diff := cmp.Diff(wantSessions, dbtest.Rows(t, db, "SELECT "+strings.Join(sessionColumns, ", ")+" FROM sessions")); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
	var wantMessages [][]any
	for i, r := range upgradeMessages {
		wantMessages = append(wantMessages, want(r, messageColumns, int64(i+1)))
	}
	if diff := cmp.Diff(wantMessages, dbtest.Rows(t, db, "SELECT "+strings.Join(messageColumns, ", ")+" FROM messages ORDER BY id")); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}

	// The original appends the columns a version lacks, so only their
	// order may differ from a new file's.
	byName := cmpopts.SortSlices(func(a, b column) bool { return a.Name < b.Name })
	if diff := cmp.Diff(freshSchema(t), schemaOf(t, db), byName); diff != "" {
		t.Errorf("schema differs from a fresh file (-fresh +upgraded):\n%s", diff)
	}

	for _, q := range []struct {
		table, match string
		want         []int64
	}{
		{"messages_fts", "Docker", []int64{1}},
		{"messages_fts", "web_search", []int64{2, 3}},
		{"messages_fts", "UNIQUESEARCHTOKEN", []int64{2}},
		{"messages_fts_trigram", "通信协议", []int64{4}},
		{"messages_fts_trigram", "web_search", []int64{2, 3}},
	} {
		if diff := cmp.Diff(q.want, rowids(t, db, q.table, q.match)); diff != "" {
			t.Errorf("%s MATCH %q (-want +got):\n%s", q.table, q.match, diff)
		}
	}
	// v11 indexes content, tool name and tool calls joined by spaces.
	var indexed string
	if err := db.QueryRow("SELECT content FROM messages_fts WHERE rowid = 1").Scan(&indexed); err != nil {
		t.Fatal(err)
	}
	if want := "How do I deploy with Docker?  "; indexed != want {
		t.Errorf("indexed text of message 1 = %q, want %q", indexed, want)
	}
}

// insertUpgradeRows stores upgradeSession and upgradeMessages (ids 1…4) in
// the columns db has.
func insertUpgradeRows(t *testing.T, db *sql.DB) {
	t.Helper()
	insertRow(t, db, "sessions", upgradeSession)
	for _, m := range upgradeMessages {
		insertRow(t, db, "messages", m)
	}
}

// insertRow inserts the values of r whose columns the table has: a file at
// an older version lacks the later columns.
func insertRow(t *testing.T, db *sql.DB, table string, r row) {
	t.Helper()
	have := columnNames(t, db, table)
	var cols, marks []string
	var args []any
	for _, c := range slices.Sorted(maps.Keys(r)) {
		if slices.Contains(have, c) {
			cols = append(cols, quoteIdent(c))
			marks = append(marks, "?")
			args = append(args, r[c])
		}
	}
	stmt := "INSERT INTO " + quoteIdent(table) + " (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ")"
	if _, err := db.Exec(stmt, args...); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}
