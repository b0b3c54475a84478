package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"testing"
)

func TestWALResetFixed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		version string
		want    bool
	}{
		{"3.54.1", true},
		{"3.51.3", true},
		{"3.51.2", false},
		{"3.50.7", true},
		{"3.50.4", false},
		{"3.44.6", true},
		{"3.44.5", false},
		{"3.49.1", false},
		{"3.40.1", false},
		{"4.0.0", true},
	} {
		v, err := parseVersion(tt.version)
		if err != nil {
			t.Fatal(err)
		}
		if got := walResetFixed(v); got != tt.want {
			t.Errorf("walResetFixed(%s) = %v, want %v", tt.version, got, tt.want)
		}
	}
	if _, err := parseVersion("three"); !errors.Is(err, ErrSQLiteVersion) {
		t.Errorf("parseVersion(three) error = %v, want ErrSQLiteVersion", err)
	}
}

func TestCheckLibraryAcceptsTheBundledSQLite(t *testing.T) {
	t.Parallel()
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := CheckLibrary(context.Background(), db); err != nil {
		t.Fatalf("CheckLibrary: %v (is the test built with -tags sqlite_fts5?)", err)
	}
	var version string
	if err := db.QueryRow("SELECT sqlite_version()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version != "3.54.1" {
		t.Errorf("bundled SQLite is %s, want 3.54.1 (mattn/go-sqlite3 v1.14.53)", version)
	}
}
