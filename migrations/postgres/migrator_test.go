package pgmigrations_test

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/hermesstate/hermesstate/internal/pgtest"
	"github.com/hermesstate/hermesstate/migrations"
	pgmigrations "github.com/hermesstate/hermesstate/migrations/postgres"
)

const file21 = "00021_schema_v21.sql"

// v21Tables are the tables of a database at version 21, sorted.
var v21Tables = []string{"async_delegations", "compression_locks", "gateway_routing", "messages", "messages_search", "schema_version", "session_model_usage", "sessions", "state_meta"}

func open(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func newMigrator(t *testing.T, db *sql.DB, opts *pgmigrations.Options) *pgmigrations.Migrator {
	t.Helper()
	m, err := pgmigrations.New(db, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// tables lists the ordinary tables of the public schema, sorted.
func tables(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// versionRows returns schema_version's rows.
func versionRows(t *testing.T, db *sql.DB) []int64 {
	t.Helper()
	rows, err := db.Query("SELECT version FROM schema_version")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := []int64{}
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func hasTrgm(t *testing.T, db *sql.DB) bool {
	t.Helper()
	var ok bool
	if err := db.QueryRow("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm')").Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

func mustVersion(t *testing.T, m *pgmigrations.Migrator, want int64) {
	t.Helper()
	v, err := m.Version(context.Background())
	if err != nil || v != want {
		t.Fatalf("Version = %d, %v; want %d", v, err, want)
	}
}

var ignoreDurations = cmpopts.IgnoreFields(migrations.Result{}, "Duration")
var ignoreUpDuration = cmpopts.IgnoreFields(migrations.UpResult{}, "Duration")

func TestUpDownUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := open(t, pgtest.NewDatabase(t))
	m := newMigrator(t, db, nil)
	mustVersion(t, m, 0)
	if got := tables(t, db); len(got) != 0 {
		t.Fatalf("new database has tables %v", got)
	}

	up, err := m.Up(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := migrations.UpResult{From: 0, To: 21, Migrations: []migrations.Result{{Version: 21, Name: file21, Direction: "up"}}}
	if diff := cmp.Diff(want, up, ignoreDurations, ignoreUpDuration); diff != "" {
		t.Fatalf("Up (-want +got):\n%s", diff)
	}
	mustVersion(t, m, 21)
	if diff := cmp.Diff(v21Tables, tables(t, db)); diff != "" {
		t.Fatalf("tables after Up (-want +got):\n%s", diff)
	}
	if got := versionRows(t, db); !cmp.Equal(got, []int64{21}) {
		t.Fatalf("schema_version rows %v, want [21]", got)
	}
	if !hasTrgm(t, db) {
		t.Fatal("pg_trgm not installed by Up")
	}

	again, err := m.Up(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(migrations.UpResult{From: 21, To: 21}, again, ignoreUpDuration); diff != "" {
		t.Fatalf("second Up (-want +got):\n%s", diff)
	}

	down, err := m.Down(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(migrations.Result{Version: 21, Name: file21, Direction: "down"}, down, ignoreDurations); diff != "" {
		t.Fatalf("Down (-want +got):\n%s", diff)
	}
	mustVersion(t, m, 0)
	// The version table stays, empty, as on SQLite.
	if diff := cmp.Diff([]string{"schema_version"}, tables(t, db)); diff != "" {
		t.Fatalf("tables after Down (-want +got):\n%s", diff)
	}
	if got := versionRows(t, db); len(got) != 0 {
		t.Fatalf("schema_version rows after Down %v, want none", got)
	}
	if _, err := m.Down(ctx); !errors.Is(err, migrations.ErrNoChange) {
		t.Fatalf("Down at 0: %v, want ErrNoChange", err)
	}

	up, err = m.Up(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, up, ignoreDurations, ignoreUpDuration); diff != "" {
		t.Fatalf("Up after Down (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(v21Tables, tables(t, db)); diff != "" {
		t.Fatalf("tables after the second Up (-want +got):\n%s", diff)
	}
	st, err := m.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]migrations.Status{{Version: 21, Name: file21, Applied: true}}, st); diff != "" {
		t.Fatalf("Status (-want +got):\n%s", diff)
	}
}

func TestRedo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := open(t, pgtest.Migrated(t))
	if _, err := db.Exec("INSERT INTO state_meta (key, value) VALUES ('k', 'v')"); err != nil {
		t.Fatal(err)
	}
	m := newMigrator(t, db, nil)
	down, up, err := m.Redo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(migrations.Result{Version: 21, Name: file21, Direction: "down"}, down, ignoreDurations); diff != "" {
		t.Fatalf("Redo's down (-want +got):\n%s", diff)
	}
	want := migrations.UpResult{From: 0, To: 21, Migrations: []migrations.Result{{Version: 21, Name: file21, Direction: "up"}}}
	if diff := cmp.Diff(want, up, ignoreDurations, ignoreUpDuration); diff != "" {
		t.Fatalf("Redo's up (-want +got):\n%s", diff)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM state_meta").Scan(&n); err != nil || n != 0 {
		t.Fatalf("state_meta after Redo: %d rows (%v), want 0", n, err)
	}
	if _, _, err := newMigrator(t, db, &pgmigrations.Options{DryRun: true}).Redo(ctx); err == nil {
		t.Fatal("a dry Redo did not fail")
	}
	if _, err := m.Down(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.Redo(ctx); !errors.Is(err, migrations.ErrNoChange) {
		t.Fatalf("Redo at 0: %v, want ErrNoChange", err)
	}
}

func TestStatuses(t *testing.T) {
	if diff := cmp.Diff([]string{file21}, pgmigrations.Names()); diff != "" {
		t.Fatalf("Names (-want +got):\n%s", diff)
	}
	for v, applied := range map[int64]bool{0: false, 20: false, 21: true} {
		want := []migrations.Status{{Version: 21, Name: file21, Applied: applied}}
		if diff := cmp.Diff(want, pgmigrations.Statuses(v)); diff != "" {
			t.Errorf("Statuses(%d) (-want +got):\n%s", v, diff)
		}
	}
}

func TestTargets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := open(t, pgtest.NewDatabase(t))
	m := newMigrator(t, db, nil)
	for _, v := range []int64{0, 22} {
		if _, err := m.UpTo(ctx, v); !errors.Is(err, migrations.ErrInvalidVersion) {
			t.Errorf("UpTo(%d): %v, want ErrInvalidVersion", v, err)
		}
	}
	for _, v := range []int64{-1, 22} {
		if _, err := m.DownTo(ctx, v); !errors.Is(err, migrations.ErrInvalidVersion) {
			t.Errorf("DownTo(%d): %v, want ErrInvalidVersion", v, err)
		}
	}
	// Below 21 there is no PostgreSQL migration: nothing to apply.
	res, err := m.UpTo(ctx, 20)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(migrations.UpResult{}, res, ignoreUpDuration); diff != "" {
		t.Fatalf("UpTo(20) (-want +got):\n%s", diff)
	}
	mustVersion(t, m, 0)
	if got := tables(t, db); len(got) != 0 {
		t.Fatalf("UpTo(20) created tables %v", got)
	}
	if _, err := m.UpTo(ctx, 21); err != nil {
		t.Fatal(err)
	}
	mustVersion(t, m, 21)
	// DownTo 20 rolls back 21: below it the database is empty, at 0.
	down, err := m.DownTo(ctx, 20)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]migrations.Result{{Version: 21, Name: file21, Direction: "down"}}, down, ignoreDurations); diff != "" {
		t.Fatalf("DownTo(20) (-want +got):\n%s", diff)
	}
	mustVersion(t, m, 0)
}

func TestDryRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := open(t, pgtest.NewDatabase(t))
	dry := newMigrator(t, db, &pgmigrations.Options{DryRun: true})
	up, err := dry.Up(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := migrations.UpResult{From: 0, To: 21, Migrations: []migrations.Result{{Version: 21, Name: file21, Direction: "up"}}}
	if diff := cmp.Diff(want, up, ignoreDurations, ignoreUpDuration); diff != "" {
		t.Fatalf("dry Up (-want +got):\n%s", diff)
	}
	mustVersion(t, dry, 0)
	if got := tables(t, db); len(got) != 0 || hasTrgm(t, db) {
		t.Fatalf("dry run left tables %v (pg_trgm %v)", got, hasTrgm(t, db))
	}

	if _, err := newMigrator(t, db, nil).Up(ctx); err != nil {
		t.Fatal(err)
	}
	down, err := dry.Down(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if down.Version != 21 || down.Direction != "down" {
		t.Fatalf("dry Down = %+v", down)
	}
	mustVersion(t, dry, 21)
	if diff := cmp.Diff(v21Tables, tables(t, db)); diff != "" {
		t.Fatalf("tables after a dry Down (-want +got):\n%s", diff)
	}
}

// setVersion writes schema_version by hand, as another build would.
func setVersion(t *testing.T, db *sql.DB, v int64) {
	t.Helper()
	if _, err := db.Exec("CREATE TABLE schema_version (version bigint NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO schema_version VALUES ($1)", v); err != nil {
		t.Fatal(err)
	}
}

func TestRefusesVersions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tt := range []struct {
		version int64
		want    error
	}{
		{22, migrations.ErrNewerSchema},
		{20, migrations.ErrInvalidVersion},
	} {
		db := open(t, pgtest.NewDatabase(t))
		setVersion(t, db, tt.version)
		m := newMigrator(t, db, nil)
		if _, err := m.Up(ctx); !errors.Is(err, tt.want) {
			t.Errorf("version %d: Up: %v, want %v", tt.version, err, tt.want)
		}
		if _, err := m.Down(ctx); !errors.Is(err, tt.want) {
			t.Errorf("version %d: Down: %v, want %v", tt.version, err, tt.want)
		}
		if _, err := m.DownTo(ctx, 0); !errors.Is(err, tt.want) {
			t.Errorf("version %d: DownTo(0): %v, want %v", tt.version, err, tt.want)
		}
		mustVersion(t, m, tt.version)
		if diff := cmp.Diff([]string{"schema_version"}, tables(t, db)); diff != "" {
			t.Errorf("version %d: tables (-want +got):\n%s", tt.version, diff)
		}
	}
}

// TestFailedUpWritesNothing: a migration that fails half-way (a table it
// creates is there already) leaves the database exactly as it was: no
// version table, no extension, no table of the migration's.
func TestFailedUpWritesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := open(t, pgtest.NewDatabase(t))
	if _, err := db.Exec("CREATE TABLE gateway_routing (x int)"); err != nil {
		t.Fatal(err)
	}
	m := newMigrator(t, db, nil)
	res, err := m.Up(ctx)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42P07" {
		t.Fatalf("Up: %v, want a 42P07 (duplicate_table) *pgconn.PgError", err)
	}
	if diff := cmp.Diff(migrations.UpResult{}, res, ignoreUpDuration); diff != "" {
		t.Fatalf("failed Up's result (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"gateway_routing"}, tables(t, db)); diff != "" {
		t.Fatalf("tables after a failed Up (-want +got):\n%s", diff)
	}
	if hasTrgm(t, db) {
		t.Fatal("a failed Up left pg_trgm installed")
	}
	mustVersion(t, m, 0)
}

// TestLockSerialises: while another connection holds the migration lock,
// Up waits (here until its context ends, and then wrote nothing); once the
// lock is released it proceeds.
func TestLockSerialises(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := open(t, pgtest.NewDatabase(t))
	holder, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if _, err := holder.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := holder.ExecContext(ctx, pgmigrations.LockSQL); err != nil {
		t.Fatal(err)
	}
	m := newMigrator(t, db, nil)
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := m.Up(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Up while another connection held the lock: %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d < 450*time.Millisecond {
		t.Fatalf("Up returned after %v, before its context ended: it did not wait for the lock", d)
	}
	mustVersion(t, m, 0)
	if _, err := holder.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatal(err)
	}
	mustVersion(t, m, 21)
}

// TestConcurrentUp: many migrators, each with a pool of its own (a process
// each, as far as the server can tell), run Up on one new database at the
// same moment. Exactly one applies the migration; every other waits for it
// and finds version 21; none fails.
func TestConcurrentUp(t *testing.T) {
	t.Parallel()
	const n = 8
	ctx := context.Background()
	url := pgtest.NewDatabase(t)
	ms := make([]*pgmigrations.Migrator, n)
	for i := range ms {
		ms[i] = newMigrator(t, open(t, url), nil)
	}
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		results = make([]migrations.UpResult, n)
		errs    = make([]error, n)
	)
	for i := range ms {
		wg.Go(func() {
			<-start
			results[i], errs[i] = ms[i].Up(ctx)
		})
	}
	close(start)
	wg.Wait()
	applied := 0
	for i := range ms {
		if errs[i] != nil {
			t.Errorf("migrator %d: %v", i, errs[i])
			continue
		}
		if results[i].To != 21 {
			t.Errorf("migrator %d: To = %d, want 21", i, results[i].To)
		}
		switch len(results[i].Migrations) {
		case 0:
		case 1:
			applied++
			if results[i].From != 0 {
				t.Errorf("migrator %d applied from %d", i, results[i].From)
			}
		default:
			t.Errorf("migrator %d applied %v", i, results[i].Migrations)
		}
	}
	if applied != 1 {
		t.Fatalf("%d migrators applied the migration, want exactly 1", applied)
	}
	db := open(t, url)
	if got := versionRows(t, db); !cmp.Equal(got, []int64{21}) {
		t.Fatalf("schema_version rows %v, want [21]", got)
	}
	if diff := cmp.Diff(v21Tables, tables(t, db)); diff != "" {
		t.Fatalf("tables (-want +got):\n%s", diff)
	}
}

// TestMigratedTemplate: pgtest.Migrated's copies are at version 21 with
// the tables Up creates, and each is a database of its own.
func TestMigratedTemplate(t *testing.T) {
	t.Parallel()
	a, b := open(t, pgtest.Migrated(t)), open(t, pgtest.Migrated(t))
	for _, db := range []*sql.DB{a, b} {
		mustVersion(t, newMigrator(t, db, nil), 21)
		if diff := cmp.Diff(v21Tables, tables(t, db)); diff != "" {
			t.Fatalf("tables (-want +got):\n%s", diff)
		}
	}
	if _, err := a.Exec("INSERT INTO state_meta (key, value) VALUES ('k', 'v')"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := b.QueryRow("SELECT count(*) FROM state_meta").Scan(&n); err != nil || n != 0 {
		t.Fatalf("the other copy's state_meta has %d rows (%v), want 0", n, err)
	}
}
