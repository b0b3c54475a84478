package reliability

import (
	"database/sql"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", for dbtest's helpers

	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/internal/pgtest"
)

// TestManyWritersManyProcessesPostgres is TestManyWritersManyProcesses on
// PostgreSQL: the same 4 writer processes × 4 goroutines and the same
// ledger of acknowledged writes, against a database of its own. Nothing
// acknowledged is lost, nothing failed is there, message ids are the ones
// acknowledged, counters equal the rows (the replay's model holds both),
// and the search index holds exactly the message rows.
func TestManyWritersManyProcessesPostgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewDatabase(t)
	runManyWriters(t, dsn, func(t *testing.T) (map[string]fileSession, map[string]int64) {
		q, err := sql.Open("pgx", dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { q.Close() })
		// Hand-written checks of the engine's invariants: every message
		// has its search row and no search row outlives its message (the
		// cascade), and schema_version holds one row, 21.
		if n := dbtest.Value[int64](t, q, `SELECT COUNT(*) FROM messages m LEFT JOIN messages_search s ON s.id = m.id WHERE s.id IS NULL`); n != 0 {
			t.Errorf("%d messages have no search row", n)
		}
		if n := dbtest.Value[int64](t, q, `SELECT COUNT(*) FROM messages_search s LEFT JOIN messages m ON m.id = s.id WHERE m.id IS NULL`); n != 0 {
			t.Errorf("%d search rows have no message", n)
		}
		if v := dbtest.Values[int64](t, q, "SELECT version FROM schema_version"); len(v) != 1 || v[0] != 21 {
			t.Errorf("schema_version holds %v, want [21]", v)
		}
		return readSessions(t, q)
	})
}
