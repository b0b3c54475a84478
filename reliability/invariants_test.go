package reliability

import (
	"database/sql"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	// The checks read the file through the plain driver, as another tool
	// would, not through the store under test.
	_ "github.com/mattn/go-sqlite3"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// openPlain opens path through the driver with none of the store's setup
// (no pragmas, no retry, one connection), closed when the test ends at the
// latest. Opening a file a killed process left behind recovers its WAL
// here, as in any other program that opens it next.
func openPlain(t *testing.T, path string) *sql.DB {
	t.Helper()
	return dbtest.Plain(t, path)
}

// ftsTables are the FTS5 indexes of v11 to v21. The statements below are built
// from these constant names only, never from input.
var ftsTables = []string{"messages_fts", "messages_fts_trigram"}

// ftsIntegrityCheck is FTS5's own consistency check of an index: the index
// must match the text the table holds (the self-contained tables of v11 on) or its
// content table (the external-content indexes of v1–v10). It is a special
// INSERT, so it needs a writable connection; it changes nothing.
func ftsIntegrityCheck(table string) string {
	return fmt.Sprintf("INSERT INTO %[1]s(%[1]s) VALUES('integrity-check')", table)
}

// checkStructure fails the test unless the file is sound at whatever
// version it is: PRAGMA integrity_check says ok, no row breaks a foreign
// key (no message without its session), and every FTS5 index present
// passes FTS5's integrity check.
func checkStructure(t *testing.T, q dbtest.Queryer) {
	t.Helper()
	if got := dbtest.Values[string](t, q, "PRAGMA integrity_check"); !cmp.Equal(got, []string{"ok"}) {
		t.Errorf("PRAGMA integrity_check = %q, want [ok]", got)
	}
	if got := dbtest.Rows(t, q, "PRAGMA foreign_key_check"); len(got) != 0 {
		t.Errorf("PRAGMA foreign_key_check found %d rows breaking a foreign key: %v", len(got), got)
	}
	// Virtual tables declared with fts5: the FTS indexes of any version.
	for _, name := range dbtest.Values[string](t, q,
		"SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE % USING fts5%' ORDER BY name") {
		if !slices.Contains(ftsTables, name) {
			t.Errorf("unexpected FTS5 table %s", name)
			continue
		}
		dbtest.Exec(t, q, ftsIntegrityCheck(name))
	}
}

// ftsMismatch counts, for a v11–v21 FTS index, the messages whose FTS row is
// missing or holds other text than the insert trigger indexes (content,
// tool name and tool calls joined by spaces, as in schema/schema.sql), the
// FTS rows whose message is gone, and the rows of each table. The FTS5
// rowid lookups (f.rowid = m.id) keep it one pass over each table.
func ftsMismatch(table string) string {
	return fmt.Sprintf(`SELECT
  (SELECT COUNT(*) FROM messages m WHERE NOT EXISTS (SELECT 1 FROM %[1]s f WHERE f.rowid = m.id
     AND f.content = COALESCE(m.content, '') || ' ' || COALESCE(m.tool_name, '') || ' ' || COALESCE(m.tool_calls, ''))),
  (SELECT COUNT(*) FROM %[1]s f WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = f.rowid)),
  (SELECT COUNT(*) FROM %[1]s),
  (SELECT COUNT(*) FROM messages)`, table)
}

// counterMismatch lists the sessions whose message_count is not their
// number of message rows, or whose tool_call_count is not the number of
// calls in their messages' tool_calls arrays (the workloads here write
// tool calls only as JSON arrays). Exact for these workloads, which never
// rewind or compact: at v21 a rewound or compacted session's counters
// may count fewer rows (store.Health.Counters has the general rule).
const counterMismatch = `SELECT s.id FROM sessions s
WHERE COALESCE(s.message_count, 0) != (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id)
   OR COALESCE(s.tool_call_count, 0) != (SELECT COALESCE(SUM(json_array_length(m.tool_calls)), 0)
                                         FROM messages m WHERE m.session_id = s.id)
ORDER BY s.id`

// checkCurrent is checkStructure for a v21 file plus what v21 promises about
// its content: each FTS index holds exactly the message rows, each with the
// text its trigger indexes, and every session's counters equal its rows.
func checkCurrent(t *testing.T, q dbtest.Queryer) {
	t.Helper()
	checkStructure(t, q)
	for _, name := range ftsTables {
		row := dbtest.Rows(t, q, ftsMismatch(name))[0]
		if row[0].(int64) != 0 || row[1].(int64) != 0 || row[2] != row[3] {
			t.Errorf("%s: %d messages missing or indexed with other text, %d rows without a message; %d rows for %d messages",
				name, row[0], row[1], row[2], row[3])
		}
	}
	if bad := dbtest.Values[string](t, q, counterMismatch); len(bad) != 0 {
		t.Errorf("sessions whose message_count or tool_call_count differ from their rows: %q", bad)
	}
}
