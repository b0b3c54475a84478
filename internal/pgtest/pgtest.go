// Package pgtest gives tests a PostgreSQL database of their own on the
// server HERMESSTATE_TEST_PG names (make pg-up starts one; .ci/run starts
// its own and sets HERMESSTATE_REQUIRE_PG, under which a test that cannot
// reach a server fails instead of skipping: a skipped PostgreSQL suite
// must never look green).
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The environment variables the tests read.
const (
	// DSNEnv names the server: a postgres:// URL whose user may create
	// databases (its database is only used to create and drop others).
	DSNEnv = "HERMESSTATE_TEST_PG"
	// RequireEnv, when set to anything but "" or "0", makes a test fail
	// when DSNEnv is unset or the server cannot be reached.
	RequireEnv = "HERMESSTATE_REQUIRE_PG"
)

// ServerDSN returns DSNEnv's URL after checking that the server answers.
// Without it (or without a server), the test is skipped, or failed when
// RequireEnv is set.
func ServerDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(DSNEnv)
	if dsn == "" {
		unavailable(t, DSNEnv+" is not set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		unavailable(t, "cannot reach the server "+DSNEnv+" names: "+err.Error())
	}
	c.Close(ctx)
	return dsn
}

func unavailable(t testing.TB, why string) {
	t.Helper()
	if r := os.Getenv(RequireEnv); r != "" && r != "0" {
		t.Fatalf("PostgreSQL is required (%s is set): %s", RequireEnv, why)
	}
	t.Skip("PostgreSQL tests skipped: " + why + " (make pg-up starts a server; set " + RequireEnv + "=1 to make this a failure)")
}

// NewDatabase creates an empty database of the test's own (UTF-8, from
// template0) on the server and returns its URL; the database is dropped
// when the test ends.
func NewDatabase(t testing.TB) string {
	t.Helper()
	return createDatabase(t, ServerDSN(t), "template0", "UTF8", "C.UTF-8")
}

// NewDatabaseLocale is [NewDatabase] with another encoding and locale
// (LC_CTYPE and LC_COLLATE), for the tests of databases the store must
// refuse, e.g. ("UTF8", "C") or ("SQL_ASCII", "C"). Both are the test's
// own constants, put into the statement as they are.
func NewDatabaseLocale(t testing.TB, encoding, locale string) string {
	t.Helper()
	return createDatabase(t, ServerDSN(t), "template0", encoding, locale)
}

// createDatabase creates a database of the test's own from template and
// returns its URL; it is dropped when the test ends.
func createDatabase(t testing.TB, server, template, encoding, locale string) string {
	t.Helper()
	name := randomName("hermestest_")
	ctx := context.Background()
	c, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	// Hand-written: CREATE DATABASE takes no parameters; the names and
	// the locale are ours (template0, or Migrated's template).
	if _, err := c.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+template+" ENCODING '"+encoding+"' LC_CTYPE '"+locale+"' LC_COLLATE '"+locale+"'"); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, server)
		if err != nil {
			t.Errorf("drop database %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	return databaseURL(t, server, name)
}

// databaseURL returns server's URL naming database name instead.
func databaseURL(t testing.TB, server, name string) string {
	t.Helper()
	u, err := dbURL(server, name)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// dbURL returns server's URL naming database name instead.
func dbURL(server, name string) (string, error) {
	u, err := url.Parse(server)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

// randomName returns prefix and 12 random hex digits: a database name no
// other test picks.
func randomName(prefix string) string {
	var b [6]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}
