package pgmigrations

import (
	"strings"
	"testing"
)

// TestVersionTableDDLInMigration holds the migrator's schema_version DDL
// and the one 00021_schema_v21.sql carries (for sqlc and readers) equal.
func TestVersionTableDDLInMigration(t *testing.T) {
	b, err := FS.ReadFile("00021_schema_v21.sql")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), sqlCreateVersionTable+";\n") {
		t.Fatalf("00021_schema_v21.sql lacks the migrator's statement %q", sqlCreateVersionTable)
	}
}
