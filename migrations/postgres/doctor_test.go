package pgmigrations_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/hermesstate/hermesstate/internal/pgtest"
	"github.com/hermesstate/hermesstate/migrations"
	pgmigrations "github.com/hermesstate/hermesstate/migrations/postgres"
)

// v21Indexes are the indexes 00021_schema_v21.sql creates, in file order.
var v21Indexes = []string{
	"idx_sessions_source", "idx_sessions_source_id", "idx_sessions_parent", "idx_sessions_started",
	"idx_messages_session", "idx_compression_locks_expires", "idx_session_model_usage_session",
	"idx_session_model_usage_model", "idx_async_delegations_delivery", "idx_messages_platform_msg_id",
	"idx_messages_session_active", "idx_messages_active_null", "idx_sessions_session_key",
	"idx_sessions_gateway_peer", "idx_sessions_handoff_state", "idx_sessions_title_unique",
	"idx_messages_search_tokens", "idx_messages_search_trgm",
}

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// outcome is a finding with its error reduced to the sentinel it matches.
type outcome struct {
	Check string
	Err   error
}

var sentinels = []error{pgmigrations.ErrNotUTF8, pgmigrations.ErrMissingExtension, pgmigrations.ErrMissingIndex, pgmigrations.ErrSchemaVersion}

func outcomes(t *testing.T, c *pgx.Conn) []outcome {
	t.Helper()
	fs, err := pgmigrations.Check(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	var out []outcome
	for _, f := range fs {
		o := outcome{Check: f.Check}
		if f.Err != nil {
			o.Err = errors.New("unmatched: " + f.Err.Error())
			for _, s := range sentinels {
				if errors.Is(f.Err, s) {
					o.Err = s
				}
			}
		}
		out = append(out, o)
	}
	return out
}

// want returns the outcomes of a healthy v21 database, with errs set on the
// named checks; cjk false leaves the CJK check out.
func want(cjk bool, errs map[string]error) []outcome {
	out := []outcome{{Check: "ctype"}, {Check: "extension pg_trgm"}}
	if cjk {
		out = append(out, outcome{Check: "cjk trigrams"})
	}
	for _, ix := range v21Indexes {
		out = append(out, outcome{Check: "index " + ix})
	}
	out = append(out, outcome{Check: "schema version"})
	for i := range out {
		out[i].Err = errs[out[i].Check]
	}
	return out
}

var cmpErr = cmp.Comparer(func(a, b error) bool { return a == b })

func TestCheckHealthy(t *testing.T) {
	t.Parallel()
	c := connect(t, pgtest.Migrated(t))
	if diff := cmp.Diff(want(true, nil), outcomes(t, c), cmpErr); diff != "" {
		t.Fatalf("findings (-want +got):\n%s", diff)
	}
	fs, err := pgmigrations.Check(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if err := pgmigrations.Problems(fs); err != nil {
		t.Fatalf("Problems = %v, want nil", err)
	}
	if fs[0].Detail != "C.UTF-8, encoding UTF8" || fs[len(fs)-1].Detail != "21" {
		t.Fatalf("details %q, %q", fs[0].Detail, fs[len(fs)-1].Detail)
	}
	if err := pgmigrations.CheckUTF8(context.Background(), c); err != nil {
		t.Fatalf("CheckUTF8 = %v", err)
	}
}

func TestCheckEmptyDatabase(t *testing.T) {
	t.Parallel()
	c := connect(t, pgtest.NewDatabase(t))
	errs := map[string]error{"extension pg_trgm": pgmigrations.ErrMissingExtension, "schema version": pgmigrations.ErrSchemaVersion}
	for _, ix := range v21Indexes {
		errs["index "+ix] = pgmigrations.ErrMissingIndex
	}
	if diff := cmp.Diff(want(false, errs), outcomes(t, c), cmpErr); diff != "" {
		t.Fatalf("findings (-want +got):\n%s", diff)
	}
}

func TestCheckDamaged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := connect(t, pgtest.Migrated(t))
	for _, stmt := range []string{
		"DROP INDEX idx_sessions_gateway_peer",
		// An index of the same name on another table is not the schema's.
		"DROP INDEX idx_messages_active_null",
		"CREATE INDEX idx_messages_active_null ON sessions (archived)",
		// indisvalid false is what a failed CREATE INDEX CONCURRENTLY leaves.
		"UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'idx_sessions_source'::regclass",
		"UPDATE schema_version SET version = 22",
	} {
		if _, err := c.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	errs := map[string]error{
		"index idx_sessions_gateway_peer": pgmigrations.ErrMissingIndex,
		"index idx_messages_active_null":  pgmigrations.ErrMissingIndex,
		"index idx_sessions_source":       pgmigrations.ErrMissingIndex,
		"schema version":                  pgmigrations.ErrSchemaVersion,
	}
	if diff := cmp.Diff(want(true, errs), outcomes(t, c), cmpErr); diff != "" {
		t.Fatalf("findings (-want +got):\n%s", diff)
	}
	fs, err := pgmigrations.Check(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := fs[len(fs)-1].Err; !errors.Is(err, migrations.ErrNewerSchema) {
		t.Fatalf("schema version 22: %v, want ErrNewerSchema too", err)
	}
	if err := pgmigrations.Problems(fs); !errors.Is(err, pgmigrations.ErrMissingIndex) || !errors.Is(err, pgmigrations.ErrSchemaVersion) {
		t.Fatalf("Problems = %v", err)
	}
}

// TestNotUTF8: a database whose ctype is C (UTF8 encoding) or whose
// encoding is SQL_ASCII is refused by CheckUTF8 and by Up (nothing
// written), and Check reports it. Under ctype C pg_trgm indeed finds no
// trigram in CJK text: the reason for the rule.
func TestNotUTF8(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tt := range []struct{ encoding, locale string }{{"UTF8", "C"}, {"SQL_ASCII", "C"}} {
		url := pgtest.NewDatabaseLocale(t, tt.encoding, tt.locale)
		c := connect(t, url)
		if err := pgmigrations.CheckUTF8(ctx, c); !errors.Is(err, pgmigrations.ErrNotUTF8) {
			t.Errorf("%s/%s: CheckUTF8 = %v, want ErrNotUTF8", tt.encoding, tt.locale, err)
		}
		db, err := sql.Open("pgx", url)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		m, err := pgmigrations.New(db, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Up(ctx); !errors.Is(err, pgmigrations.ErrNotUTF8) {
			t.Errorf("%s/%s: Up = %v, want ErrNotUTF8", tt.encoding, tt.locale, err)
		}
		var tables int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&tables); err != nil || tables != 0 {
			t.Errorf("%s/%s: %d tables after a refused Up (%v)", tt.encoding, tt.locale, tables, err)
		}
		got := outcomes(t, c)
		if got[0] != (outcome{Check: "ctype", Err: pgmigrations.ErrNotUTF8}) {
			t.Errorf("%s/%s: first finding %+v", tt.encoding, tt.locale, got[0])
		}
		if tt.encoding == "UTF8" {
			if _, err := c.Exec(ctx, "CREATE EXTENSION pg_trgm"); err != nil {
				t.Fatal(err)
			}
			var n int
			if err := c.QueryRow(ctx, "SELECT cardinality(show_trgm('数据库迁移'))").Scan(&n); err != nil || n != 0 {
				t.Errorf("show_trgm of CJK under ctype C: %d trigrams (%v), want 0", n, err)
			}
			got := outcomes(t, c)
			if got[2] != (outcome{Check: "cjk trigrams", Err: pgmigrations.ErrNotUTF8}) {
				t.Errorf("UTF8/C after CREATE EXTENSION: third finding %+v", got[2])
			}
		}
	}
}
