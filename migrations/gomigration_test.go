package migrations

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// TestMigrationNames: the migrations are the 21 files of
// dbtest.MigrationNames, SQL and Go alike, and Status names them so.
func TestMigrationNames(t *testing.T) {
	t.Parallel()
	names, err := Names()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(dbtest.MigrationNames, names); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	var goNames []string
	for _, g := range goMigrations {
		goNames = append(goNames, g.name)
	}
	want := []string{"00016_delegate_sessions.go", "00018_sessions_gateway_metadata.go", "00020_session_model_usage.go"}
	if diff := cmp.Diff(want, goNames); diff != "" {
		t.Errorf("Go migrations (-want +got):\n%s", diff)
	}
	// Each is defined in the file it is named after.
	for _, name := range goNames {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `name:    "`+name+`"`) {
			t.Errorf("%s does not define the migration named after it", name)
		}
	}
}

// TestGoMigrationsRefuseOutsideTheSession: the functions registered with
// goose never run a step; they fail, so a goose that called them (on
// another connection, outside the session's transaction) would be seen.
func TestGoMigrationsRefuseOutsideTheSession(t *testing.T) {
	t.Parallel()
	for _, m := range gooseMigrations() {
		for dir, fn := range map[string]func() error{
			"up":   func() error { return m.UpFnContext(context.Background(), nil) },
			"down": func() error { return m.DownFnContext(context.Background(), nil) },
		} {
			if err := fn(); !errors.Is(err, errOutsideSession) || !strings.Contains(err.Error(), m.Source) {
				t.Errorf("%s %s: %v, want errOutsideSession naming the file", m.Source, dir, err)
			}
		}
	}
}

// goStepFile is a file at version 15 with the sessions the v16, v18 and
// v20 steps tell apart: a child of a live parent (a delegate), a child of a
// compression-ended parent (a continuation), a /branch child, an untitled
// root holding a tool message (an orphaned delegate), a titled one, and
// token counts on two sessions.
func goStepFile(t *testing.T) string {
	t.Helper()
	path := newPath(t)
	db := openWriter(t, path)
	migrateTo(t, db, 15)
	dbtest.Exec(t, db,
		`INSERT INTO sessions (id, source, started_at, ended_at, end_reason, model, input_tokens, output_tokens, api_call_count, billing_provider)
			VALUES ('root', 'cli', 100.0, NULL, NULL, 'm1', 10, 5, 1, 'prov')`,
		`INSERT INTO sessions (id, source, started_at, parent_session_id) VALUES ('delegate', 'cli', 101.0, 'root')`,
		`INSERT INTO sessions (id, source, started_at, ended_at, end_reason) VALUES ('compressed', 'cli', 102.0, 103.0, 'compression')`,
		`INSERT INTO sessions (id, source, started_at, parent_session_id, input_tokens) VALUES ('continuation', 'cli', 104.0, 'compressed', 7)`,
		`INSERT INTO sessions (id, source, started_at, parent_session_id, model_config) VALUES ('branch', 'cli', 105.0, 'root', '{"_branched_from": "root"}')`,
		`INSERT INTO sessions (id, source, started_at, message_count) VALUES ('orphan', 'telegram', 106.0, 1)`,
		`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('orphan', 'tool', 'result', 106.5)`,
		`INSERT INTO sessions (id, source, started_at, title, message_count) VALUES ('titled', 'cli', 107.0, 'kept', 1)`,
		`INSERT INTO messages (session_id, role, content, timestamp) VALUES ('titled', 'tool', 'result', 107.5)`,
	)
	return path
}

// gatewayHome writes a HERMES_HOME whose sessions.json names 'orphan'.
func gatewayHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	text := `{"agent:main:telegram:dm:9": {"session_id": "orphan", "chat_type": "dm", "display_name": "Nine", ` +
		`"origin": {"platform": "telegram", "chat_id": 9, "thread_id": null}, "memory_flushed": true}}`
	if err := os.WriteFile(filepath.Join(home, "sessions", "sessions.json"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// TestGoMigrationsUpAndDown walks a file from 15 to 20 and back through the
// Go migrations, one version at a time, with exact rows after each step.
func TestGoMigrationsUpAndDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := goStepFile(t)
	db := openWriter(t, path)
	m := newMigrator(t, db, &Options{HermesHome: gatewayHome(t)})
	step := func(v int64, want string) {
		t.Helper()
		res, err := m.UpTo(ctx, v)
		if err != nil {
			t.Fatalf("UpTo(%d): %v", v, err)
		}
		if diff := cmp.Diff([]string{"up " + want}, resultNames(res.Migrations)); diff != "" {
			t.Errorf("UpTo(%d) (-want +got):\n%s", v, diff)
		}
	}
	tags := func() [][]any {
		return dbtest.Rows(t, db, "SELECT id, model_config FROM sessions ORDER BY id")
	}

	step(16, "00016_delegate_sessions.go")
	// json_set's compact text; the branch child, the continuation and the
	// titled root are left alone.
	wantTags := [][]any{
		{"branch", `{"_branched_from": "root"}`},
		{"compressed", nil},
		{"continuation", nil},
		{"delegate", `{"_delegate_from":"root"}`},
		{"orphan", `{"_delegate_from":"__orphaned__"}`},
		{"root", nil},
		{"titled", nil},
	}
	if diff := cmp.Diff(wantTags, tags()); diff != "" {
		t.Errorf("model_config after 16 (-want +got):\n%s", diff)
	}

	step(17, "00017_sessions_gateway_peer.sql")
	step(18, "00018_sessions_gateway_metadata.go")
	gateway := "SELECT session_key, chat_id, typeof(chat_id), chat_type, thread_id, display_name, origin_json, expiry_finalized FROM sessions WHERE id = ?"
	// chat_id was the JSON number 9: bound as an integer, stored as text by
	// the column's affinity.
	wantOrphan := [][]any{{"agent:main:telegram:dm:9", "9", "text", "dm", nil, "Nine",
		`{"platform": "telegram", "chat_id": 9, "thread_id": null}`, int64(1)}}
	if diff := cmp.Diff(wantOrphan, dbtest.Rows(t, db, gateway, "orphan")); diff != "" {
		t.Errorf("orphan after 18 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]any{{nil, nil, "null", nil, nil, nil, nil, int64(0)}}, dbtest.Rows(t, db, gateway, "root")); diff != "" {
		t.Errorf("root after 18 (-want +got):\n%s", diff)
	}

	step(19, "00019_gateway_routing.sql")
	step(20, "00020_session_model_usage.go")
	usage := "SELECT session_id, model, billing_provider, billing_base_url, billing_mode, api_call_count, input_tokens, output_tokens, estimated_cost_usd, first_seen, last_seen FROM session_model_usage ORDER BY session_id"
	wantUsage := [][]any{
		{"continuation", "unknown", "", "", "", int64(0), int64(7), int64(0), 0.0, 104.0, 104.0},
		{"root", "m1", "prov", "", "", int64(1), int64(10), int64(5), 0.0, 100.0, 100.0},
	}
	if diff := cmp.Diff(wantUsage, dbtest.Rows(t, db, usage)); diff != "" {
		t.Errorf("session_model_usage after 20 (-want +got):\n%s", diff)
	}

	// Redo of 20: the table goes with its rows, and the seed comes back.
	down, up, err := m.Redo(ctx)
	if err != nil {
		t.Fatalf("Redo: %v", err)
	}
	if diff := cmp.Diff([]string{"down 00020_session_model_usage.go", "up 00020_session_model_usage.go"},
		resultNames(append([]Result{down}, up.Migrations...))); diff != "" {
		t.Errorf("Redo (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantUsage, dbtest.Rows(t, db, usage)); diff != "" {
		t.Errorf("session_model_usage after Redo (-want +got):\n%s", diff)
	}

	res, err := m.DownTo(ctx, 15)
	if err != nil {
		t.Fatalf("DownTo(15): %v", err)
	}
	if diff := cmp.Diff(downNames(20, 15), resultNames(res)); diff != "" {
		t.Errorf("DownTo(15) (-want +got):\n%s", diff)
	}
	h, err := loadHistory()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(viewOf(h.after[15]), schemaOf(t, db)); diff != "" {
		t.Errorf("schema at 15 (-replayed +rolled back):\n%s", diff)
	}
	// v16's down is a data step it cannot undo: the tags stay.
	if diff := cmp.Diff(wantTags, tags()); diff != "" {
		t.Errorf("model_config after DownTo(15) (-want +got):\n%s", diff)
	}
}

// TestGoMigrationFailureLeavesNoTrace: a Go migration that fails half-way
// (v20's second index name is taken) is rolled back whole, like a SQL one:
// the file stays at 19 without the table the step had created, and the
// error names the migration.
func TestGoMigrationFailureLeavesNoTrace(t *testing.T) {
	t.Parallel()
	db := openNew(t)
	migrateTo(t, db, 19)
	dbtest.Exec(t, db, "CREATE INDEX idx_session_model_usage_model ON sessions(model)")
	before := snap(t, db)
	res, err := newMigrator(t, db, nil).UpTo(context.Background(), 20)
	if err == nil || !strings.HasPrefix(err.Error(), "migrate up: 00020_session_model_usage.go: ") ||
		!strings.Contains(err.Error(), "index idx_session_model_usage_model already exists") {
		t.Fatalf("UpTo(20): %v, want the failure of 00020_session_model_usage.go", err)
	}
	if res.To != 19 || len(res.Migrations) != 0 {
		t.Errorf("UpTo(20) = %+v, want nothing applied", res)
	}
	if got := versionOf(t, db); got != 19 {
		t.Errorf("version = %d, want 19", got)
	}
	if diff := cmp.Diff(before, snap(t, db), cmp.AllowUnexported(snapshot{})); diff != "" {
		t.Errorf("schema changed (-before +after):\n%s", diff)
	}
}

// TestGoMigrationsDryRun: UpTo through the Go migrations in a dry run says
// what it would apply and leaves the file as it was, rows included.
func TestGoMigrationsDryRun(t *testing.T) {
	t.Parallel()
	path := goStepFile(t)
	db := openWriter(t, path)
	before := dbtest.ReadLayout(t, path)
	res, err := newMigrator(t, db, &Options{DryRun: true, HermesHome: gatewayHome(t)}).UpTo(context.Background(), 20)
	if err != nil {
		t.Fatalf("UpTo(20): %v", err)
	}
	if diff := cmp.Diff(upNames(16, 20), resultNames(res.Migrations)); diff != "" {
		t.Errorf("UpTo(20) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, dbtest.ReadLayout(t, path)); diff != "" {
		t.Errorf("the file changed (-before +after):\n%s", diff)
	}
}

// TestAdoptAcrossGoMigrations: files whose columns run ahead of their
// version across the Go migrations, as a crash in the middle of upstream's
// init leaves them. Adoption completes each migration up to the last one
// partly present and runs the Go ones' data steps on the way.
func TestAdoptAcrossGoMigrations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("At15WithV17Columns", func(t *testing.T) {
		t.Parallel()
		path := goStepFile(t)
		db := openWriter(t, path)
		dbtest.Exec(t, db, `ALTER TABLE "sessions" ADD COLUMN "session_key" TEXT`)
		res := upTo(t, db, 20)
		if diff := cmp.Diff(append(adoptedNames(16, 17), upNames(18, 20)...), resultNames(res.Migrations)); diff != "" {
			t.Errorf("UpTo(20) (-want +got):\n%s", diff)
		}
		// v16's tags, from the adoption.
		if diff := cmp.Diff([][]any{{`{"_delegate_from":"root"}`}}, dbtest.Rows(t, db, "SELECT model_config FROM sessions WHERE id = 'delegate'")); diff != "" {
			t.Errorf("delegate's model_config (-want +got):\n%s", diff)
		}
		byName := cmpopts.SortSlices(func(a, b column) bool { return a.Name < b.Name })
		want := openNew(t)
		migrateTo(t, want, 20)
		if diff := cmp.Diff(schemaOf(t, want), schemaOf(t, db), byName); diff != "" {
			t.Errorf("schema differs from a replayed v20 (-replayed +adopted):\n%s", diff)
		}
	})

	t.Run("UpstreamFileStampedBack", func(t *testing.T) {
		t.Parallel()
		// Upstream's test_v18_backfill_from_sessions_json builds its file
		// so: a current file stamped 17. Its v18 columns are there, so 18 is
		// adopted, and the adoption runs the copy.
		db := openNew(t)
		migrateTo(t, db, Latest)
		dbtest.Exec(t, db,
			"INSERT INTO sessions (id, source, user_id, started_at) VALUES ('orphan', 'telegram', 'u1', 1.0)",
			"UPDATE schema_version SET version = 17",
		)
		res, err := newMigrator(t, db, &Options{HermesHome: gatewayHome(t)}).UpTo(ctx, 18)
		if err != nil {
			t.Fatalf("UpTo(18): %v", err)
		}
		if diff := cmp.Diff(adoptedNames(18, 18), resultNames(res.Migrations)); diff != "" {
			t.Errorf("UpTo(18) (-want +got):\n%s", diff)
		}
		got := dbtest.Rows(t, db, "SELECT session_key, display_name, expiry_finalized FROM sessions WHERE id = 'orphan'")
		if diff := cmp.Diff([][]any{{"agent:main:telegram:dm:9", "Nine", int64(1)}}, got); diff != "" {
			t.Errorf("orphan (-want +got):\n%s", diff)
		}
	})
}

// TestUnversionedColumns: the columns and indexes no version added are
// exactly the ones upstream added without a bump (upstream-v21.md §1.4), in
// declaration order, and the replayed history plus them is a new file: the
// history and the declared schema agree on everything else.
func TestUnversionedColumns(t *testing.T) {
	t.Parallel()
	add := unversioned(t)
	var cols, objs []string
	for _, tc := range add.columns {
		cols = append(cols, tc.table+"."+tc.col.Name)
	}
	for _, o := range add.objects {
		objs = append(objs, o.Name)
	}
	wantCols := []string{
		"sessions.cwd", "sessions.git_branch", "sessions.git_repo_root", "sessions.handoff_state",
		"sessions.handoff_platform", "sessions.handoff_error", "sessions.compression_failure_cooldown_until",
		"sessions.compression_failure_error", "sessions.compression_fallback_streak", "sessions.rewind_count",
		"sessions.archived", "messages.effect_disposition", "messages.active", "messages.compacted",
	}
	if diff := cmp.Diff(wantCols, cols); diff != "" {
		t.Errorf("unversioned columns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"idx_messages_session_active", "idx_messages_active_null", "idx_sessions_handoff_state"}, objs); diff != "" {
		t.Errorf("unversioned indexes (-want +got):\n%s", diff)
	}
	h, err := loadHistory()
	if err != nil {
		t.Fatal(err)
	}
	byName := cmpopts.SortSlices(func(a, b column) bool { return a.Name < b.Name })
	if diff := cmp.Diff(freshSchema(t), plusUnversioned(t, h.after[Latest]), byName); diff != "" {
		t.Errorf("replayed history plus the unversioned part differs from a new file (-new +replayed):\n%s", diff)
	}
}

// TestUpstreamFilesThroughGoose: upstream's files carry columns no version
// added at whatever version they are stamped, and the goose path works on
// them: its v16 file goes up to 20 one version at a time and Up then makes
// of it what upstream does (columns in the same order, the same rows and
// FTS; only the order of the new tables in sqlite_master differs, 19's
// gateway_routing first); its v21 file goes down to 0 one step at a time
// and back up.
func TestUpstreamFilesThroughGoose(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("V16Up", func(t *testing.T) {
		t.Parallel()
		path := fixture("upstream/state-v16.db")(t)
		db := openWriter(t, path)
		m := newMigrator(t, db, &Options{HermesHome: upstreamHome})
		res, err := m.UpTo(ctx, 20)
		if err != nil {
			t.Fatalf("UpTo(20): %v", err)
		}
		if diff := cmp.Diff(upNames(17, 20), resultNames(res.Migrations)); diff != "" {
			t.Errorf("UpTo(20) (-want +got):\n%s", diff)
		}
		if _, err := m.Up(ctx); err != nil {
			t.Fatalf("Up: %v", err)
		}
		want := dbtest.ReadLayout(t, fixture("upstream/state-v21-from-v16.db")(t))
		got := dbtest.ReadLayout(t, path)
		for _, c := range []struct {
			what      string
			want, got any
		}{
			{"table_xinfo", want.TableXInfo, got.TableXInfo},
			{"rows", want.Rows, got.Rows},
			{"fts", want.FTS, got.FTS},
		} {
			if diff := cmp.Diff(c.want, c.got); diff != "" {
				t.Errorf("%s differs from upstream's (-upstream +ours):\n%s", c.what, diff)
			}
		}
		sorted := cmpopts.SortSlices(func(a, b []any) bool { return a[1].(string) < b[1].(string) })
		if diff := cmp.Diff(want.SQLiteMaster, got.SQLiteMaster, sorted); diff != "" {
			t.Errorf("sqlite_master differs from upstream's (-upstream +ours):\n%s", diff)
		}
	})

	t.Run("V21DownAndUp", func(t *testing.T) {
		t.Parallel()
		path := fixture("upstream/state-v21.db")(t)
		db := openWriter(t, path)
		m := newMigrator(t, db, nil)
		for v := Latest; v >= 1; v-- {
			res, err := m.Down(ctx)
			if err != nil {
				t.Fatalf("Down from %d: %v", v, err)
			}
			if diff := cmp.Diff(downNames(v, v-1), resultNames([]Result{res})); diff != "" {
				t.Errorf("Down from %d (-want +got):\n%s", v, diff)
			}
		}
		if diff := cmp.Diff([]string{"schema_version", "sqlite_sequence"}, masterNames(t, db)); diff != "" {
			t.Errorf("objects at 0 (-want +got):\n%s", diff)
		}
		upgradedOnce(t, ctx, m, 0)
		if diff := cmp.Diff(freshSchema(t), schemaOf(t, db)); diff != "" {
			t.Errorf("schema after Up differs from a new file (-new +got):\n%s", diff)
		}
	})

	t.Run("V21Redo", func(t *testing.T) {
		t.Parallel()
		path := fixture("upstream/state-v21.db")(t)
		db := openWriter(t, path)
		down, up, err := newMigrator(t, db, nil).Redo(ctx)
		if err != nil {
			t.Fatalf("Redo: %v", err)
		}
		want := []string{
			"create table async_delegations",
			"create index idx_async_delegations_delivery",
			"set schema version 21",
		}
		if down.Name != "00021_async_delegations.sql" {
			t.Errorf("Redo rolled back %s, want 00021_async_delegations.sql", down.Name)
		}
		if d := cmp.Diff(want, up.Changes); d != "" {
			t.Errorf("Redo's up (-want +got):\n%s", d)
		}
		if got := dbtest.Value[int64](t, db, "SELECT count(*) FROM async_delegations"); got != 0 {
			t.Errorf("async_delegations holds %d rows after the redo, want 0 (its down dropped them)", got)
		}
	})
}
