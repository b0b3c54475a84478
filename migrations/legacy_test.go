package migrations

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// TestPythonFilesUpgrade upgrades databases written by the Python original at
// v1 and v9 (testdata/) and checks that nothing they held is lost and that
// search covers their old rows.
func TestPythonFilesUpgrade(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		fixture string
		from    int64
		// Exact values of the root session and of message 2 after the upgrade:
		// the v1 file gets the later columns' defaults.
		root []any
		msg2 []any
	}{
		{
			name: "V1", fixture: "state-v1.db", from: 1,
			root: []any{"cli", int64(4), nil, int64(0), int64(0), nil},
			msg2: []any{"assistant", "", nil, nil},
		},
		{
			name: "V9", fixture: "state-v9.db", from: 9,
			root: []any{"cli", int64(4), "my project", int64(10), int64(2), "openrouter"},
			msg2: []any{"assistant", "", "tool_calls", "I should search."},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := openWriter(t, dbtest.CopyFixture(t, tc.fixture))
			sessionCols := columnNames(t, db, "sessions")
			messageCols := columnNames(t, db, "messages")
			selectSessions := "SELECT " + strings.Join(sessionCols, ", ") + " FROM sessions ORDER BY rowid"
			selectMessages := "SELECT " + strings.Join(messageCols, ", ") + " FROM messages ORDER BY id"
			sessionsBefore := dbtest.Rows(t, db, selectSessions)
			messagesBefore := dbtest.Rows(t, db, selectMessages)
			if len(sessionsBefore) != 4 || len(messagesBefore) != 8 {
				t.Fatalf("fixture holds %d sessions and %d messages, want 4 and 8", len(sessionsBefore), len(messagesBefore))
			}

			upgradedOnce(t, ctx, newMigrator(t, db, nil), tc.from)
			if got := versionOf(t, db); got != Latest {
				t.Errorf("version = %d, want %d", got, Latest)
			}

			if diff := cmp.Diff(sessionsBefore, dbtest.Rows(t, db, selectSessions)); diff != "" {
				t.Errorf("sessions changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(messagesBefore, dbtest.Rows(t, db, selectMessages)); diff != "" {
				t.Errorf("messages changed (-before +after):\n%s", diff)
			}
			root := dbtest.Rows(t, db, "SELECT source, message_count, title, cache_read_tokens, api_call_count, billing_provider FROM sessions WHERE id = 'root'")
			if diff := cmp.Diff([][]any{tc.root}, root); diff != "" {
				t.Errorf("root session (-want +got):\n%s", diff)
			}
			msg2 := dbtest.Rows(t, db, "SELECT role, content, finish_reason, reasoning FROM messages WHERE id = 2")
			if diff := cmp.Diff([][]any{tc.msg2}, msg2); diff != "" {
				t.Errorf("message 2 (-want +got):\n%s", diff)
			}

			// An upgraded file has its columns in the original's order for it
			// (the golden test holds that); here, the same set.
			byName := cmpopts.SortSlices(func(a, b column) bool { return a.Name < b.Name })
			if diff := cmp.Diff(freshSchema(t), schemaOf(t, db), byName); diff != "" {
				t.Errorf("schema differs from a fresh file (-fresh +upgraded):\n%s", diff)
			}

			for _, q := range []struct {
				table, match string
				want         []int64
			}{
				// Message 2 holds docker-compose in its tool-call arguments.
				{"messages_fts", "Docker", []int64{1, 2, 4}},
				{"messages_fts", "web_search", []int64{2, 3}},
				{"messages_fts", "LEGACYARG", []int64{2}},
				{"messages_fts", "Kubernetes", []int64{8}},
				{"messages_fts_trigram", "通信协议", []int64{6}},
				{"messages_fts_trigram", "记忆断裂", []int64{5}},
				{"messages_fts_trigram", "안녕하세요", []int64{6}},
			} {
				if diff := cmp.Diff(q.want, rowids(t, db, q.table, q.match)); diff != "" {
					t.Errorf("%s MATCH %q (-want +got):\n%s", q.table, q.match, diff)
				}
			}

			if diff := cmp.Diff([][]any{{"ok"}}, dbtest.Rows(t, db, "PRAGMA integrity_check")); diff != "" {
				t.Errorf("integrity_check (-want +got):\n%s", diff)
			}
			for _, fts := range []string{"messages_fts", "messages_fts_trigram"} {
				// rank = 1 also compares the index with the stored text.
				stmt := "INSERT INTO " + fts + "(" + fts + ", rank) VALUES('integrity-check', 1)"
				dbtest.Exec(t, db, stmt)
			}
		})
	}
}

// TestAdoptColumnsAheadOfVersion upgrades files whose columns run ahead of
// their version, as a newer original's reconcile leaves them, through the
// goose migrations (UpTo below Latest); Up itself adds what is missing
// declaratively (UpAddsInDeclarationOrder).
func TestAdoptColumnsAheadOfVersion(t *testing.T) {
	t.Parallel()

	t.Run("WholeMigrations", func(t *testing.T) {
		t.Parallel()
		// At 5 with all of v6 and v7: both are adopted (recorded without
		// running), so goose applies 8…10 only.
		db := openNew(t)
		migrateTo(t, db, 5)
		dbtest.Exec(t, db,
			`ALTER TABLE messages ADD COLUMN "reasoning" TEXT`,
			`ALTER TABLE messages ADD COLUMN "reasoning_details" TEXT`,
			`ALTER TABLE messages ADD COLUMN "codex_reasoning_items" TEXT`,
			`ALTER TABLE messages ADD COLUMN "reasoning_content" TEXT`,
		)
		res := upTo(t, db, Latest-1)
		if diff := cmp.Diff(append(adoptedNames(6, 7), upNames(8, Latest-1)...), resultNames(res.Migrations)); diff != "" {
			t.Errorf("UpTo results (-want +got):\n%s", diff)
		}
		if got := versionOf(t, db); got != Latest-1 {
			t.Errorf("version = %d, want %d", got, Latest-1)
		}
		want := openNew(t)
		migrateTo(t, want, Latest-1)
		if diff := cmp.Diff(schemaOf(t, want), schemaOf(t, db)); diff != "" {
			t.Errorf("schema differs from a replayed file (-replayed +adopted):\n%s", diff)
		}
	})

	t.Run("ReconciledAtV3", func(t *testing.T) {
		t.Parallel()
		// A v3 file that a reconcile-era original opened and that never got
		// its version raised (the v11 step died half-way: the init is not one
		// transaction): SCHEMA_SQL created state_meta, _reconcile_columns
		// added every later column. v4 adds no column, yet v5's columns are
		// there: goose must not run 00005 as written.
		db := openNew(t)
		migrateTo(t, db, 3)
		dbtest.Exec(t, db,
			`CREATE TABLE IF NOT EXISTS state_meta (key TEXT PRIMARY KEY, value TEXT)`,
			`ALTER TABLE "sessions" ADD COLUMN "cache_read_tokens" INTEGER DEFAULT 0`,
			`ALTER TABLE "sessions" ADD COLUMN "cache_write_tokens" INTEGER DEFAULT 0`,
			`ALTER TABLE "sessions" ADD COLUMN "reasoning_tokens" INTEGER DEFAULT 0`,
			`ALTER TABLE "sessions" ADD COLUMN "billing_provider" TEXT`,
			`ALTER TABLE "sessions" ADD COLUMN "billing_base_url" TEXT`,
			`ALTER TABLE "sessions" ADD COLUMN "billing_mode" TEXT`,
			`ALTER TABLE "sessions" ADD COLUMN "estimated_cost_usd" REAL`,
			`ALTER TABLE "sessions" ADD COLUMN "actual_cost_usd" REAL`,
			`ALTER TABLE "sessions" ADD COLUMN "cost_status" TEXT`,
			`ALTER TABLE "sessions" ADD COLUMN "cost_source" TEXT`,
			`ALTER TABLE "sessions" ADD COLUMN "pricing_version" TEXT`,
			`ALTER TABLE "sessions" ADD COLUMN "api_call_count" INTEGER DEFAULT 0`,
			`ALTER TABLE "messages" ADD COLUMN "reasoning" TEXT`,
			`ALTER TABLE "messages" ADD COLUMN "reasoning_content" TEXT`,
			`ALTER TABLE "messages" ADD COLUMN "reasoning_details" TEXT`,
			`ALTER TABLE "messages" ADD COLUMN "codex_reasoning_items" TEXT`,
			`ALTER TABLE "messages" ADD COLUMN "codex_message_items" TEXT`,
		)
		res := upTo(t, db, Latest-1)
		// 4 (the title index, missing) through 9 are completed in place.
		if diff := cmp.Diff(append(adoptedNames(4, 9), upNames(10, Latest-1)...), resultNames(res.Migrations)); diff != "" {
			t.Errorf("UpTo results (-want +got):\n%s", diff)
		}
		upgradedOnce(t, context.Background(), newMigrator(t, db, nil), Latest-1)
		byName := cmpopts.SortSlices(func(a, b column) bool { return a.Name < b.Name })
		if diff := cmp.Diff(freshSchema(t), schemaOf(t, db), byName); diff != "" {
			t.Errorf("schema differs from a fresh file (-fresh +upgraded):\n%s", diff)
		}
	})

	t.Run("StopsAtTheTarget", func(t *testing.T) {
		t.Parallel()
		// UpTo(6) on the file of WholeMigrations: v7 is there too, but the
		// caller asked for 6.
		db := openNew(t)
		migrateTo(t, db, 5)
		dbtest.Exec(t, db,
			`ALTER TABLE messages ADD COLUMN "reasoning" TEXT`,
			`ALTER TABLE messages ADD COLUMN "reasoning_details" TEXT`,
			`ALTER TABLE messages ADD COLUMN "codex_reasoning_items" TEXT`,
			`ALTER TABLE messages ADD COLUMN "reasoning_content" TEXT`,
		)
		res, err := newMigrator(t, db, nil).UpTo(context.Background(), 6)
		if err != nil {
			t.Fatalf("UpTo(6): %v", err)
		}
		if diff := cmp.Diff(adoptedNames(6, 6), resultNames(res.Migrations)); diff != "" {
			t.Errorf("UpTo(6) results (-want +got):\n%s", diff)
		}
		if got := versionOf(t, db); got != 6 {
			t.Errorf("version after UpTo(6) = %d, want 6", got)
		}
	})

	t.Run("PartOfAMigration", func(t *testing.T) {
		t.Parallel()
		// At 5 with one of v6's three columns: adoption adds the other two
		// after it, in the migration's order.
		db := v5WithReasoningDetails(t)
		res := upTo(t, db, Latest-1)
		if diff := cmp.Diff(append(adoptedNames(6, 6), upNames(7, Latest-1)...), resultNames(res.Migrations)); diff != "" {
			t.Errorf("UpTo results (-want +got):\n%s", diff)
		}
		want := []string{
			"id", "session_id", "role", "content", "tool_call_id", "tool_calls", "tool_name", "timestamp", "token_count",
			"finish_reason", "reasoning_details", "reasoning", "codex_reasoning_items", "reasoning_content", "codex_message_items",
			"platform_message_id", "observed",
		}
		if diff := cmp.Diff(want, columnNames(t, db, "messages")); diff != "" {
			t.Errorf("messages columns (-want +got):\n%s", diff)
		}
	})

	t.Run("UpAddsInDeclarationOrder", func(t *testing.T) {
		t.Parallel()
		// The same file through Up: the original's _reconcile_columns adds
		// each missing column in SCHEMA_SQL's order, after what is there.
		db := v5WithReasoningDetails(t)
		res := upgradedOnce(t, context.Background(), newMigrator(t, db, nil), 5)
		wantChanges := slices.Concat(
			dbtest.NewTables(true),
			dbtest.NewIndexes,
			dbtest.GatewayColumns,
			dbtest.WorkspaceColumns,
			[]string{"add column sessions.api_call_count"},
			dbtest.LateSessionColumns,
			[]string{
				"add column messages.effect_disposition",
				"add column messages.reasoning",
				"add column messages.reasoning_content",
				"add column messages.codex_reasoning_items",
				"add column messages.codex_message_items",
			},
			dbtest.LateMessageColumns,
			dbtest.LateIndexes,
			dbtest.V11Step,
			dbtest.DataSteps,
		)
		if diff := cmp.Diff(wantChanges, res.Changes); diff != "" {
			t.Errorf("Up changes (-want +got):\n%s", diff)
		}
		want := []string{
			"id", "session_id", "role", "content", "tool_call_id", "tool_calls", "tool_name", "timestamp", "token_count",
			"finish_reason", "reasoning_details", "effect_disposition", "reasoning", "reasoning_content", "codex_reasoning_items",
			"codex_message_items", "platform_message_id", "observed", "active", "compacted",
		}
		if diff := cmp.Diff(want, columnNames(t, db, "messages")); diff != "" {
			t.Errorf("messages columns (-want +got):\n%s", diff)
		}
	})
}

// v5WithReasoningDetails is a v5 file holding one of v6's three columns.
func v5WithReasoningDetails(t *testing.T) *sql.DB {
	t.Helper()
	db := openNew(t)
	migrateTo(t, db, 5)
	dbtest.Exec(t, db, `ALTER TABLE messages ADD COLUMN "reasoning_details" TEXT`)
	return db
}
