package migrations

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// upstreamHome is a HERMES_HOME holding the sessions.json that
// mk_upstream_fixtures.py gave upstream when it migrated state-v16.db into
// state-v21-from-v16.db (testdata/README.md).
var upstreamHome = dbtest.Testdata("upstream", "hermes-home")

// TestNewFileIsUpstreams: a file Up creates is the file upstream c2a3b9ce5
// creates (testdata/upstream/state-v21.db, written by it): sqlite_master by
// rowid, PRAGMA table_xinfo of every table, and the schema_version rows,
// byte for byte. (The fixture holds upstream's sessions too; an empty file
// has none.)
func TestNewFileIsUpstreams(t *testing.T) {
	t.Parallel()
	path := newPath(t)
	res, err := newMigrator(t, openWriter(t, path), nil).Up(context.Background())
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	if res.From != 0 || res.To != Latest || len(res.Migrations) != 0 {
		t.Errorf("Up = %+v, want 0 → %d without goose migrations", res, Latest)
	}
	want := dbtest.ReadLayout(t, fixture("upstream/state-v21.db")(t))
	got := dbtest.ReadLayout(t, path)
	if diff := cmp.Diff(want.SQLiteMaster, got.SQLiteMaster); diff != "" {
		t.Errorf("sqlite_master differs from upstream's (-upstream +ours):\n%s", diff)
	}
	if diff := cmp.Diff(want.TableXInfo, got.TableXInfo); diff != "" {
		t.Errorf("table_xinfo differs from upstream's (-upstream +ours):\n%s", diff)
	}
	if diff := cmp.Diff([][]any{{Latest}}, got.Rows["schema_version"]); diff != "" {
		t.Errorf("schema_version rows (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want.Rows["schema_version"], got.Rows["schema_version"]); diff != "" {
		t.Errorf("schema_version rows differ from upstream's (-upstream +ours):\n%s", diff)
	}
	// goose's history: every version applied.
	st, err := newMigrator(t, openWriter(t, path), nil).Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range st {
		if s.Version != int64(i+1) || s.Name != dbtest.MigrationNames[i] || !s.Applied {
			t.Errorf("status %d = %+v, want %s applied", i, s, dbtest.MigrationNames[i])
		}
	}
	if len(st) != int(Latest) {
		t.Errorf("%d statuses, want %d", len(st), Latest)
	}
}

// TestLegacyFilesBecomeUpstreams: every file an older Hermes wrote, migrated
// by Up, ends exactly as upstream c2a3b9ce5 leaves it: the golden layouts in
// testdata/golden were recorded by running upstream on copies of the same
// files, with a HERMES_HOME that holds no sessions.json (testdata/README.md).
func TestLegacyFilesBecomeUpstreams(t *testing.T) {
	t.Parallel()
	cases := []struct {
		golden string
		from   int64
		file   func(t *testing.T) string
	}{
		{"history-state-v1", 1, fixture("history/state-v1.db")},
		{"history-state-v4", 4, fixture("history/state-v4.db")},
		{"history-state-v5", 5, fixture("history/state-v5.db")},
		{"history-state-v6", 6, fixture("history/state-v6.db")},
		{"history-state-v7-renumbered", 7, fixture("history/state-v7-renumbered.db")},
		{"state-v1", 1, fixture("state-v1.db")},
		{"state-v9", 9, fixture("state-v9.db")},
		{"state-v11-fresh", 11, fixture("state-v11-fresh.db")},
		{"legacy-v2", 2, legacy("v2.sql")},
		{"legacy-v7-renumbered", 7, legacy("v7-renumbered.sql")},
		{"legacy-v10-external-fts", 10, legacy("v10-external-fts.sql")},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			t.Parallel()
			path := c.file(t)
			// An empty HERMES_HOME, as upstream had: the v18 step finds no
			// sessions.json.
			m := newMigrator(t, openWriter(t, path), &Options{HermesHome: t.TempDir()})
			res, err := m.Up(context.Background())
			if err != nil {
				t.Fatalf("Up: %v", err)
			}
			if res.From != c.from || res.To != Latest || len(res.Changes) == 0 {
				t.Errorf("Up = %+v, want changes from %d up to %d", res, c.from, Latest)
			}
			if diff := cmp.Diff(dbtest.GoldenLayout(t, c.golden), dbtest.ReadLayout(t, path)); diff != "" {
				t.Errorf("differs from what upstream makes of it (-upstream +ours):\n%s", diff)
			}
		})
	}
}

// TestUpstreamV16BecomesUpstreamsV21: upstream's own v16 file
// (testdata/upstream/state-v16.db, written by d62979a6f), migrated by Up
// with the HERMES_HOME upstream had, is byte for byte what c2a3b9ce5 made of
// it (state-v21-from-v16.db): the schema text, column order, indexes
// (partial ones included), every row after the v18 and v20 data steps, and
// both FTS indexes.
func TestUpstreamV16BecomesUpstreamsV21(t *testing.T) {
	t.Parallel()

	t.Run("WithSessionsJSON", func(t *testing.T) {
		t.Parallel()
		want := dbtest.ReadLayout(t, fixture("upstream/state-v21-from-v16.db")(t))
		path := fixture("upstream/state-v16.db")(t)
		res, err := newMigrator(t, openWriter(t, path), &Options{HermesHome: upstreamHome}).Up(context.Background())
		if err != nil {
			t.Fatalf("Up: %v", err)
		}
		wantChanges := slices.Concat(
			[]string{
				"create table session_model_usage",
				"create table gateway_routing",
				"create table async_delegations",
				"create index idx_session_model_usage_session",
				"create index idx_session_model_usage_model",
				"create index idx_async_delegations_delivery",
			},
			dbtest.GatewayColumns,
			[]string{
				"add column sessions.git_branch",
				"add column sessions.git_repo_root",
				"add column sessions.compression_failure_cooldown_until",
				"add column sessions.compression_failure_error",
				"add column sessions.compression_fallback_streak",
				"add column messages.effect_disposition",
				"add column messages.compacted",
				"create the deferred indexes",
				"v18: copy gateway metadata from sessions.json into 1 session",
				"v20: seed per-model usage",
				"set schema version 21",
			},
		)
		if diff := cmp.Diff(wantChanges, res.Changes); diff != "" || res.From != 16 || res.To != Latest {
			t.Errorf("Up = %d → %d, changes (-want +got):\n%s", res.From, res.To, diff)
		}
		if diff := cmp.Diff(want, dbtest.ReadLayout(t, path)); diff != "" {
			t.Errorf("differs from upstream's migration (-upstream +ours):\n%s", diff)
		}
	})

	t.Run("WithoutSessionsJSON", func(t *testing.T) {
		t.Parallel()
		// No HermesHome: the v18 step copies nothing, as upstream does
		// without the file; everything else is the same.
		path := fixture("upstream/state-v16.db")(t)
		if _, err := newMigrator(t, openWriter(t, path), nil).Up(context.Background()); err != nil {
			t.Fatalf("Up: %v", err)
		}
		got := dbtest.ReadLayout(t, path)
		want := dbtest.ReadLayout(t, fixture("upstream/state-v21-from-v16.db")(t))
		cols := columnNames(t, openWriter(t, path), "sessions")
		copied := 0
		for _, r := range want.Rows["sessions"] {
			if r[0] != "fx16-old" {
				continue
			}
			for j, c := range cols {
				switch c {
				case "session_key", "chat_id", "chat_type", "thread_id", "display_name", "origin_json":
					r[j], copied = nil, copied+1
				case "expiry_finalized":
					r[j], copied = int64(0), copied+1
				}
			}
		}
		if copied != 7 {
			t.Fatalf("found %d of fx16-old's 7 gateway columns in state-v21-from-v16.db", copied)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("differs from upstream's migration without its v18 copy (-want +ours):\n%s", diff)
		}
	})
}

// TestEmptyVersionTableIsNew: a file whose schema_version table has no row
// is new to upstream: stamped 21, and the v16, v18 and v20 data steps do not
// run (no delegate tag, no sessions.json copy, no usage seed), even where
// they would match rows (upstream-v21.md §2.3).
func TestEmptyVersionTableIsNew(t *testing.T) {
	t.Parallel()
	path := fixture("upstream/state-v16.db")(t)
	db := openWriter(t, path)
	dbtest.Exec(t, db, "DELETE FROM schema_version")
	before := dbtest.Rows(t, db, "SELECT id, model_config FROM sessions ORDER BY id")
	res, err := newMigrator(t, db, &Options{HermesHome: upstreamHome}).Up(context.Background())
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	if res.From != 0 || res.To != Latest {
		t.Errorf("Up = %d → %d, want 0 → %d", res.From, res.To, Latest)
	}
	if diff := cmp.Diff([][]any{{Latest}}, dbtest.Rows(t, db, "SELECT version FROM schema_version")); diff != "" {
		t.Errorf("schema_version (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, dbtest.Rows(t, db, "SELECT id, model_config FROM sessions ORDER BY id")); diff != "" {
		t.Errorf("model_config changed (-before +after):\n%s", diff)
	}
	checks := map[string][][]any{
		"SELECT count(*) FROM session_model_usage":                                   {{int64(0)}},
		"SELECT count(*) FROM sessions WHERE session_key IS NOT NULL":                {{int64(0)}},
		"SELECT count(*) FROM sessions WHERE display_name IS NOT NULL":               {{int64(0)}},
		"SELECT count(*) FROM sessions WHERE expiry_finalized = 1":                   {{int64(0)}},
		"SELECT count(*) FROM sessions WHERE input_tokens + output_tokens > 0":       {{int64(2)}},
		"SELECT count(*) FROM sessions WHERE parent_session_id IS NOT NULL":          {{int64(1)}},
		"SELECT count(*) FROM messages WHERE active = 1":                             {{int64(4)}},
		"SELECT name FROM sqlite_master WHERE name = 'idx_sessions_title_unique'":    {{"idx_sessions_title_unique"}},
		"SELECT count(*) FROM sqlite_master WHERE type = 'trigger'":                  {{int64(6)}},
		"SELECT count(*) FROM messages_fts":                                          {{int64(6)}},
		"SELECT count(*) FROM messages_fts_trigram":                                  {{int64(6)}},
		"SELECT count(*) FROM pragma_table_info('sessions')":                         {{int64(45)}},
		"SELECT count(*) FROM pragma_table_info('messages')":                         {{int64(20)}},
		"SELECT count(*) FROM sqlite_master WHERE name = 'async_delegations'":        {{int64(1)}},
		"SELECT count(*) FROM sqlite_master WHERE name = 'idx_messages_active_null'": {{int64(1)}},
	}
	for q, want := range checks {
		if diff := cmp.Diff(want, dbtest.Rows(t, db, q)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", q, diff)
		}
	}
}

// fixture copies testdata/name.
func fixture(name string) func(t *testing.T) string {
	return func(t *testing.T) string {
		dst := filepath.Join(t.TempDir(), "state.db")
		return dbtest.CopyFile(t, dbtest.Testdata(name), dst)
	}
}

// legacy builds testdata/legacy/name.
func legacy(name string) func(t *testing.T) string {
	return func(t *testing.T) string { return dbtest.LegacyFile(t, name) }
}
