package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// TestMemoryStatisticsOff checks that SQLite's allocation statistics, and
// their process-wide mutex, are off: the init's sqlite3_config returned
// SQLITE_OK, and after a connection opened and ran a query SQLite reports
// no memory in use (with statistics on it reports what the connection
// holds).
func TestMemoryStatisticsOff(t *testing.T) {
	if memstatusRC != 0 {
		t.Fatalf("sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) = %d, want 0 (SQLITE_OK)", memstatusRC)
	}
	db, err := OpenWriter(t.Context(), filepath.Join(t.TempDir(), "state.db"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	dbtest.Exec(t, db, "CREATE TABLE t(x)")
	dbtest.Exec(t, db, "INSERT INTO t VALUES (randomblob(100000))")
	if got := memoryUsed(); got != 0 {
		t.Errorf("sqlite3_memory_used() = %d with a connection open, want 0 (statistics off)", got)
	}
}
