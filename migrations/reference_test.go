package migrations

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// The hand-built legacy files of the original's tests
// (reference-tests.md §A.12 and §A.25), opened the way the store opens a file:
// Up, then Reconcile.

func TestReferenceMigrationFromV2(t *testing.T) {
	t.Parallel()
	path := dbtest.LegacyFile(t, "v2.sql")
	db := openWriter(t, path)
	up(t, db)

	if got := versionOf(t, db); got != Latest {
		t.Errorf("version = %d, want %d", got, Latest)
	}
	got := dbtest.Rows(t, db, "SELECT id, title, api_call_count FROM sessions")
	if diff := cmp.Diff([][]any{{"existing", nil, int64(0)}}, got); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
	res, err := db.Exec("UPDATE sessions SET title = 'Migrated Title' WHERE id = 'existing'")
	if err != nil {
		t.Fatalf("set title: %v", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("set title: %d rows, %v; want 1 row", n, err)
	}
	got = dbtest.Rows(t, db, "SELECT title FROM sessions WHERE id = 'existing'")
	if diff := cmp.Diff([][]any{{"Migrated Title"}}, got); diff != "" {
		t.Errorf("title (-want +got):\n%s", diff)
	}
}

// TestReferenceRenumberedV7 is the file of a7d78d3bf's renumbering: it says 7
// but holds v8's api_call_count and lacks v7's reasoning_content (and v9's
// codex_message_items).
func TestReferenceRenumberedV7(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := dbtest.LegacyFile(t, "v7-renumbered.sql")
	db := openWriter(t, path)
	m := newMigrator(t, db, nil)
	changes := upgradedOnce(t, ctx, m, 7).Changes
	// Upstream's order: SCHEMA_SQL's missing objects, the columns (v8's
	// api_call_count is there, v7's reasoning_content is not), the platform
	// and deferred indexes, the v11 step, the v16 and v20 data steps, the
	// version, the title index.
	wantChanges := slices.Concat(
		dbtest.NewTables(true),
		[]string{
			"create index idx_sessions_source",
			"create index idx_sessions_source_id",
			"create index idx_sessions_parent",
			"create index idx_sessions_started",
			"create index idx_messages_session",
			"create index idx_compression_locks_expires",
			"create index idx_session_model_usage_session",
			"create index idx_session_model_usage_model",
			"create index idx_async_delegations_delivery",
		},
		dbtest.GatewayColumns,
		dbtest.WorkspaceColumns,
		dbtest.LateSessionColumns,
		[]string{
			"add column messages.effect_disposition",
			"add column messages.reasoning_content",
			"add column messages.codex_message_items",
		},
		dbtest.LateMessageColumns,
		dbtest.LateIndexes,
		dbtest.V11Step,
		dbtest.DataSteps,
		[]string{"create index idx_sessions_title_unique"},
	)
	if diff := cmp.Diff(wantChanges, changes); diff != "" {
		t.Errorf("Up changes (-want +got):\n%s", diff)
	}
	if got := versionOf(t, db); got != Latest {
		t.Errorf("version = %d, want %d", got, Latest)
	}
	got := dbtest.Rows(t, db, "SELECT role, content, reasoning, reasoning_content, reasoning_details, codex_reasoning_items, codex_message_items FROM messages WHERE session_id = 's1'")
	if diff := cmp.Diff([][]any{{"assistant", "hello", nil, nil, nil, nil, nil}}, got); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
	// state_meta comes from SCHEMA_SQL.
	if diff := cmp.Diff([]string{"key", "value"}, columnNames(t, db, "state_meta")); diff != "" {
		t.Errorf("state_meta columns (-want +got):\n%s", diff)
	}
}

// TestReferenceV10ToV11 is A.25: a v10 file with nullable session columns, a
// messages.id without AUTOINCREMENT and external-content FTS indexes that
// never saw the tool fields.
func TestReferenceV10ToV11(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := dbtest.LegacyFile(t, "v10-external-fts.sql")
	db := openWriter(t, path)
	if diff := cmp.Diff([]int64{}, rowids(t, db, "messages_fts", "LEGACYTOOL")); diff != "" {
		t.Fatalf("v10 index already finds the tool name (-want +got):\n%s", diff)
	}

	changes := upgradedOnce(t, ctx, newMigrator(t, db, nil), 10).Changes
	// Every missing session column can be added (none is NOT NULL without a
	// default); the nullable source and started_at stay as they are.
	wantChanges := slices.Concat(
		dbtest.NewTables(true),
		[]string{
			"create index idx_sessions_source",
			"create index idx_sessions_source_id",
			"create index idx_sessions_parent",
			"create index idx_sessions_started",
			"create index idx_messages_session",
			"create index idx_compression_locks_expires",
			"create index idx_session_model_usage_session",
			"create index idx_session_model_usage_model",
			"create index idx_async_delegations_delivery",
			"add column sessions.user_id",
		},
		dbtest.GatewayColumns,
		[]string{
			"add column sessions.model",
			"add column sessions.model_config",
			"add column sessions.system_prompt",
			"add column sessions.end_reason",
			"add column sessions.input_tokens",
			"add column sessions.output_tokens",
		},
		dbtest.V5Tokens,
		dbtest.WorkspaceColumns,
		dbtest.V5Billing,
		dbtest.LateSessionColumns,
		[]string{"add column messages.effect_disposition"},
		dbtest.LateMessageColumns,
		dbtest.LateIndexes,
		dbtest.V11Step,
		dbtest.DataSteps,
		[]string{"create index idx_sessions_title_unique"},
	)
	if diff := cmp.Diff(wantChanges, changes); diff != "" {
		t.Errorf("Up changes (-want +got):\n%s", diff)
	}
	for _, match := range []string{"LEGACYTOOL", "LEGACYARG"} {
		if diff := cmp.Diff([]int64{1}, rowids(t, db, "messages_fts", match)); diff != "" {
			t.Errorf("messages_fts MATCH %q (-want +got):\n%s", match, diff)
		}
	}
	if got := versionOf(t, db); got != Latest {
		t.Errorf("version = %d, want %d", got, Latest)
	}
}
