package pgmigrations_test

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/pgtest"
)

var update = flag.Bool("update", false, "rewrite schema/postgres.sql from a migrated database")

// dumpPath is the DBA's copy of the migrated schema.
const dumpPath = "../../schema/postgres.sql"

// dumpHeader opens schema/postgres.sql.
const dumpHeader = `-- schema/postgres.sql: the PostgreSQL schema at version 21, as pg_dump
-- --schema-only --no-owner --no-privileges prints a database that
-- migrations/postgres brought there (migrate -db postgres://... up), for
-- DBAs and reviewers. Generated, never edited: the migrations are the
-- source. TestSchemaDump fails when the two drift; rewrite it with
--   go test -tags sqlite_fts5 -run TestSchemaDump ./migrations/postgres -update
-- (with HERMESSTATE_TEST_PG set). pg_dump's version lines and its
-- per-run \restrict key are left out.
`

// pgDump returns the pg_dump on PATH, else the newest under
// /usr/lib/postgresql/*/bin, or "".
func pgDump() string {
	if p, err := exec.LookPath("pg_dump"); err == nil {
		return p
	}
	ms, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_dump")
	sort.Strings(ms) // single-digit majors are not expected next to 1x ones
	if len(ms) == 0 {
		return ""
	}
	return ms[len(ms)-1]
}

// normalizeDump drops what changes from run to run or from one pg_dump
// build to the next without the schema changing: the \restrict and
// \unrestrict lines (a random key per run, since 15.14) and the
// "Dumped from/by" version comments.
func normalizeDump(b []byte) string {
	var out []string
	for line := range strings.SplitSeq(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, `\restrict `), strings.HasPrefix(line, `\unrestrict `),
			strings.HasPrefix(line, "-- Dumped from database version"), strings.HasPrefix(line, "-- Dumped by pg_dump version"):
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// TestSchemaDump holds schema/postgres.sql equal to pg_dump's view of a
// freshly migrated database.
func TestSchemaDump(t *testing.T) {
	t.Parallel()
	url := pgtest.Migrated(t)
	bin := pgDump()
	if bin == "" {
		if r := os.Getenv(pgtest.RequireEnv); r != "" && r != "0" {
			t.Fatal("no pg_dump on PATH or under /usr/lib/postgresql/*/bin")
		}
		t.Skip("no pg_dump on PATH or under /usr/lib/postgresql/*/bin")
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bin, "--schema-only", "--no-owner", "--no-privileges", "--dbname", url)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pg_dump: %v\n%s", err, &stderr)
	}
	got := dumpHeader + normalizeDump(out)
	if *update {
		if err := os.WriteFile(dumpPath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(dumpPath)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Fatalf("schema/postgres.sql differs from the migrated schema (-file +migrated); rewrite it with -update:\n%s", diff)
	}
}
