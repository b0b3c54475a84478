package main

import (
	"context"
	"database/sql"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/hermesstate/hermesstate/internal/pgtest"
)

// The lines migrate prints for the PostgreSQL schema's one migration.
const (
	pgApplied    = "applied      00021_schema_v21.sql  (…)"
	pgRolledBack = "rolled back  00021_schema_v21.sql  (…)"
)

func pgStatus(applied bool, last string) string {
	state := "pending"
	if applied {
		state = "applied"
	}
	return "VERSION  STATE    MIGRATION\n21       " + state + "  00021_schema_v21.sql\n" + last + "\n"
}

// withPassword returns the URL with a password in it (the test server
// trusts every connection, so it is never checked) and the password.
func withPassword(t *testing.T, dsn string) (string, string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	const pw = "s3cret-pw"
	u.User = url.UserPassword(u.User.Username(), pw)
	return u.String(), pw
}

// TestPostgresSmoke is TestSmoke on PostgreSQL, with both URL schemes: the
// same commands, the same last lines; down goes to 0 (the schema's only
// migration is 21). The password in the URL is never printed.
func TestPostgresSmoke(t *testing.T) {
	t.Parallel()
	for _, scheme := range []string{"postgres", "postgresql"} {
		t.Run(scheme, func(t *testing.T) {
			t.Parallel()
			dsn, pw := withPassword(t, pgtest.NewDatabase(t))
			dsn = scheme + strings.TrimPrefix(dsn, "postgres")
			runs := []struct {
				args []string
				want string
			}{
				{[]string{"version"}, "0\n"},
				{[]string{"status"}, pgStatus(false, "schema version 0")},
				{[]string{"up"}, text(pgApplied, "schema version 21")},
				{[]string{"status"}, pgStatus(true, "schema version 21")},
				{[]string{"version"}, "21\n"},
				{[]string{"up"}, text("schema version 21 (no change)")},
				{[]string{"-dry-run", "down"}, text("would roll back  00021_schema_v21.sql  (…)", "dry run: nothing was written; schema version 21")},
				{[]string{"down"}, text(pgRolledBack, "schema version 0")},
				{[]string{"down"}, text("nothing to roll back", "schema version 0 (no change)")},
				{[]string{"up-to", "20"}, text("schema version 0 (no change)")},
				{[]string{"-dry-run", "up"}, text("would apply  00021_schema_v21.sql  (…)", "dry run: nothing was written; schema version 0")},
				{[]string{"up"}, text(pgApplied, "schema version 21")},
				{[]string{"redo"}, text(pgRolledBack, pgApplied, "schema version 21")},
				{[]string{"down-to", "0"}, text(pgRolledBack, "schema version 0")},
				{[]string{"up-to", "21"}, text(pgApplied, "schema version 21")},
			}
			for _, r := range runs {
				got := mustMigrate(t, append([]string{"-db", dsn}, r.args...)...)
				if diff := cmp.Diff(r.want, got); diff != "" {
					t.Fatalf("migrate %s (-want +got):\n%s", strings.Join(r.args, " "), diff)
				}
				if strings.Contains(got, pw) {
					t.Fatalf("migrate %s printed the password: %q", strings.Join(r.args, " "), got)
				}
			}
		})
	}
}

// TestPostgresNewerSchema: a database at version 22 is never written: up
// says so and exits 0, down fails naming the URL without its password,
// status reports it.
func TestPostgresNewerSchema(t *testing.T) {
	t.Parallel()
	plain := pgtest.NewDatabase(t)
	db, err := sql.Open("pgx", plain)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range []string{"CREATE TABLE schema_version (version bigint NOT NULL)", "INSERT INTO schema_version VALUES (22)"} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	dsn, pw := withPassword(t, plain)
	shown := strings.Replace(dsn, ":"+pw, "", 1)
	if got, want := mustMigrate(t, "-db", dsn, "up"), shown+" is at schema version 22, newer than this build's 21: nothing was done\n"; got != want {
		t.Errorf("up: %q, want %q", got, want)
	}
	if got, want := mustMigrate(t, "-db", dsn, "status"), pgStatus(true, "schema version 22: newer than this build (21), written by a later Hermes"); got != want {
		t.Errorf("status: %q, want %q", got, want)
	}
	line := failureLine(t, migrate(t, "-db", dsn, "down"), 1)
	if !strings.HasPrefix(line, "migrate: "+shown+": down: database schema is newer than this build") || strings.Contains(line, pw) {
		t.Errorf("down: %q", line)
	}
	var v int64
	if err := db.QueryRow("SELECT version FROM schema_version").Scan(&v); err != nil || v != 22 {
		t.Errorf("schema_version = %d (%v), want 22 untouched", v, err)
	}
}

// TestPostgresUnreachable: a server that does not answer is one line on
// standard error and exit 1.
func TestPostgresUnreachable(t *testing.T) {
	t.Parallel()
	line := failureLine(t, migrate(t, "-db", "postgres://nobody:pw@127.0.0.1:1/x?sslmode=disable&connect_timeout=5", "up"), 1)
	if !strings.HasPrefix(line, "migrate: connect postgres://nobody@127.0.0.1:1/x?") || strings.Contains(line, ":pw@") {
		t.Errorf("stderr line %q", line)
	}
}

// TestPostgresConcurrentUp starts four `migrate up` processes on one new
// database at the same moment: each exits 0, exactly one applies the
// migration, and the others find version 21.
func TestPostgresConcurrentUp(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	modes := []string{"migrate", "migrate", "migrate", "migrate"}
	release, wait := startHelpers(t, ctx, dsn, modes)
	release()
	applied := 0
	for i, r := range wait() {
		out := normalize(r.stdout)
		switch {
		case r.code != 0 || r.stderr != "":
			t.Errorf("process %d: exit %d\nstdout:\n%s\nstderr:\n%s", i, r.code, r.stdout, r.stderr)
		case out == text(pgApplied, "schema version 21"):
			applied++
		case out != text("schema version 21 (no change)"):
			t.Errorf("process %d: stdout %q", i, out)
		}
	}
	if applied != 1 {
		t.Fatalf("%d processes applied the migration, want 1", applied)
	}
	if got := mustMigrate(t, "-db", dsn, "version"); got != "21\n" {
		t.Fatalf("version: %q", got)
	}
}
