package store

import (
	"context"
	"database/sql"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// sqlcStatements returns every statement sqlc generated from queries/sqlite/*.sql,
// by name, as the db package sends it (sqlc.embed expanded, parameters
// numbered): the string constants of db/*.sql.go that start with
// "-- name: ".
func sqlcStatements(t testing.TB) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "db", "*.sql.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no generated query files: %v", err)
	}
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			text, err := strconv.Unquote(lit.Value)
			if err != nil || !strings.HasPrefix(text, "-- name: ") {
				return true
			}
			name := strings.Fields(text)[2]
			if _, dup := out[name]; dup {
				t.Fatalf("query %s generated twice", name)
			}
			out[name] = text
			return true
		})
	}
	// Every query of queries/sqlite/*.sql must be there (db/ is regenerated from
	// them; make verify checks it is not stale).
	sources, err := filepath.Glob(filepath.Join("..", "queries", "sqlite", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, path := range sources {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want += len(regexp.MustCompile(`(?m)^-- name: `).FindAll(text, -1))
	}
	if len(out) != want {
		t.Fatalf("%d generated statements, queries/sqlite/*.sql names %d", len(out), want)
	}
	return out
}

// nullArgs binds NULL to every parameter of stmt, numbered (?N) or named
// (@name): EXPLAIN QUERY PLAN needs them bound, not their values.
func nullArgs(stmt string) []any {
	var args []any
	most := 0
	for _, m := range regexp.MustCompile(`\?(\d+)`).FindAllStringSubmatch(stmt, -1) {
		n, _ := strconv.Atoi(m[1])
		most = max(most, n)
	}
	for range most {
		args = append(args, nil)
	}
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`@(\w+)`).FindAllStringSubmatch(stmt, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			args = append(args, sql.Named(m[1], nil))
		}
	}
	return args
}

// queryPlan returns the rows of EXPLAIN QUERY PLAN for stmt on q, every
// parameter NULL, each indented by its depth in the plan tree.
func queryPlan(t testing.TB, q db.DBTX, stmt string) []string {
	t.Helper()
	return explainPlan(t, q, stmt, nullArgs(stmt), true)
}

// explainPlan returns the rows of EXPLAIN QUERY PLAN for stmt with args on
// q, indented by their depth when indent is set, else as SQLite writes
// them.
func explainPlan(t testing.TB, q db.DBTX, stmt string, args []any, indent bool) []string {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+stmt, args...)
	if err != nil {
		t.Fatalf("EXPLAIN QUERY PLAN: %v\n%s", err, stmt)
	}
	defer rows.Close()
	depth := map[int64]int{}
	var out []string
	for rows.Next() {
		var id, parent, notused int64
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		depth[id] = depth[parent] + 1
		if indent {
			detail = strings.Repeat("  ", depth[id]-1) + detail
		}
		out = append(out, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// fullScanExceptions are the statements that must read every message, or
// stop at the first, and so may scan messages whole, each with the reason.
// Every other statement must reach messages through an index search (or
// the rowid, or a full-text index), never a scan of the table or of a
// whole index.
var fullScanExceptions = map[string]string{
	"MessageCount":                    "counts every message row (COUNT(*) reads the smallest index whole: SQLite keeps no row count)",
	"HealthCounterMismatches":         "Check: recounts every session's messages against its counters",
	"HealthOrphanMessages":            "Check: looks at every message for a missing session row",
	"HealthBadMessageValues":          "Check: looks at the storage class of every message's numbers",
	"HealthHasNULText":                "Check: looks for a NUL byte in every message's text (stops at the first)",
	"wordIndexEmptySQL":               "EXISTS (SELECT 1 FROM messages) reads the first row only",
	"trigramIndexEmptySQL":            "EXISTS (SELECT 1 FROM messages) reads the first row only",
	"sqlitesearch like":               "LIKE '%term%' (short CJK queries) has no index to use: upstream's LIKE scan reads every message",
	"sqlitesearch like-oldest":        "LIKE '%term%' has no index to use",
	"sqlitesearch like-groups":        "LIKE '%term%' has no index to use",
	"sqlitesearch like-groups-oldest": "LIKE '%term%' has no index to use",
}

// planStatements is every statement the module sends: the sqlc queries
// and the hand-written ones, by name.
func planStatements(t testing.TB) map[string]string {
	t.Helper()
	stmts := sqlcStatements(t)
	tt, ok := t.(*testing.T)
	if !ok {
		t.Fatal("planStatements needs a *testing.T")
	}
	for name, stmt := range handWrittenSQL(tt) {
		if _, dup := stmts[name]; dup {
			t.Fatalf("%s is both an sqlc query and a hand-written statement", name)
		}
		stmts[name] = stmt
	}
	return stmts
}

// messagesAliases returns the names stmt gives the messages table: messages
// itself and every alias after it ("messages m", "messages AS m").
func messagesAliases(stmt string) map[string]bool {
	names := map[string]bool{"messages": true}
	keywords := map[string]bool{"WHERE": true, "JOIN": true, "LEFT": true, "INNER": true, "CROSS": true,
		"ON": true, "GROUP": true, "ORDER": true, "LIMIT": true, "SET": true, "USING": true, "UNION": true,
		"INDEXED": true, "NOT": true, "VALUES": true, "WINDOW": true, "NATURAL": true, "DEFAULT": true, "RETURNING": true}
	for _, m := range regexp.MustCompile(`(?i)\bmessages\s+(?:AS\s+)?([A-Za-z_][A-Za-z0-9_]*)`).FindAllStringSubmatch(stmt, -1) {
		if !keywords[strings.ToUpper(m[1])] {
			names[m[1]] = true
		}
	}
	return names
}

// partialIndexes returns the names of the file's partial indexes: a scan
// of one reads only the rows its WHERE keeps, not every message.
func partialIndexes(t testing.TB, q db.DBTX) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, name := range dbtest.Values[string](t, q, `SELECT name FROM pragma_index_list('messages') WHERE partial = 1`) {
		out[name] = true
	}
	if len(out) == 0 {
		t.Fatal("no partial index on messages: the schema changed")
	}
	return out
}

// fullScans returns the rows of plan that scan messages whole: "SCAN
// <name>" for a name stmt gives messages, with no index or with an index
// that is not partial.
func fullScans(plan []string, aliases, partial map[string]bool) []string {
	var out []string
	scan := regexp.MustCompile(`^SCAN (\S+)(?: USING (?:COVERING )?INDEX (\S+))?`)
	for _, row := range plan {
		m := scan.FindStringSubmatch(strings.TrimSpace(row))
		if m != nil && aliases[m[1]] && !partial[m[2]] {
			out = append(out, strings.TrimSpace(row))
		}
	}
	return out
}

// checkNoFullScans fails for every statement whose plan on q scans
// messages whole, unless it is a named exception; and, when strict, for
// every exception whose plan no longer does (the reason is stale). It
// returns every statement's plan.
func checkNoFullScans(t *testing.T, q db.DBTX, stmts map[string]string, strict bool) map[string][]string {
	t.Helper()
	plans := map[string][]string{}
	partial := partialIndexes(t, q)
	for name := range fullScanExceptions {
		if _, ok := stmts[name]; !ok {
			t.Errorf("exception %s names no statement", name)
		}
	}
	for name, stmt := range stmts {
		plan := queryPlan(t, q, stmt)
		plans[name] = plan
		scans := fullScans(plan, messagesAliases(stmt), partial)
		_, excepted := fullScanExceptions[name]
		switch {
		case len(scans) > 0 && !excepted:
			t.Errorf("%s scans every message (%s) although idx_messages_session could serve it; plan:\n  %s",
				name, strings.Join(scans, "; "), strings.Join(plan, "\n  "))
		case len(scans) == 0 && excepted && strict:
			t.Errorf("%s is a named full-scan exception but no longer scans messages; plan:\n  %s", name, strings.Join(plan, "\n  "))
		}
	}
	return plans
}

// TestNoFullScanOfMessages checks the plan of every statement the module
// sends (every sqlc query, every hand-written one, every search statement)
// on a populated file at schema v21 on which ANALYZE never ran, as users'
// files are (neither upstream nor the store runs it): none may scan
// messages whole but the named exceptions. A second pass runs ANALYZE
// first, as a user's sqlite3 shell might, so that sqlite_stat1 exists: the
// same rule holds with the statistics.
func TestNoFullScanOfMessages(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, nil)
	buildPlanCorpus(t, s, planCorpus{Sessions: 400, MeanMessages: 10, Seed: 3})
	if n := dbtest.Value[int](t, s.r, `SELECT COUNT(*) FROM sqlite_schema WHERE name = 'sqlite_stat1'`); n != 0 {
		t.Fatalf("sqlite_stat1 exists before ANALYZE (%d)", n)
	}
	stmts := planStatements(t)
	if len(stmts) < 150 {
		t.Fatalf("only %d statements found", len(stmts))
	}
	before := checkNoFullScans(t, s.r, stmts, true)

	// With statistics SQLite may plan a LIKE search sessions first, each
	// session's messages through idx_messages_session: no scan row, but
	// still every message read, so the exceptions are not held to their
	// scan there. The statements whose plan the statistics change are
	// logged.
	t.Run("after ANALYZE", func(t *testing.T) {
		execSQL(t, s, "ANALYZE")
		if n := dbtest.Value[int](t, s.r, `SELECT COUNT(*) FROM sqlite_stat1 WHERE tbl = 'messages'`); n == 0 {
			t.Fatal("ANALYZE wrote no statistics for messages")
		}
		after := checkNoFullScans(t, s.r, stmts, false)
		var changed []string
		for name, plan := range after {
			if !reflect.DeepEqual(plan, before[name]) {
				changed = append(changed, name)
			}
		}
		sort.Strings(changed)
		t.Logf("%d of %d plans change with sqlite_stat1: %s", len(changed), len(after), strings.Join(changed, ", "))
	})
}

// TestFullScanCheckFails shows the check failing: the SessionBrowse of
// before (upstream's GROUP BY over every message) is reported, and so is
// every exception's statement once its exception is dropped.
func TestFullScanCheckFails(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, nil)
	partial := partialIndexes(t, s.r)
	scans := fullScans(queryPlan(t, s.r, oldSessionBrowseSQL), messagesAliases(oldSessionBrowseSQL), partial)
	if want := []string{"SCAN messages USING COVERING INDEX idx_messages_session"}; !reflect.DeepEqual(scans, want) {
		t.Fatalf("old SessionBrowse: full scans %q, want %q", scans, want)
	}
	newSQL := sqlcStatements(t)["SessionBrowse"]
	if scans := fullScans(queryPlan(t, s.r, newSQL), messagesAliases(newSQL), partial); len(scans) != 0 {
		t.Fatalf("SessionBrowse: full scans %q, want none", scans)
	}
	// A scan through a partial index is not a full scan.
	if scans := fullScans([]string{"SCAN m USING COVERING INDEX idx_messages_active_null"}, map[string]bool{"m": true}, partial); len(scans) != 0 {
		t.Fatalf("partial-index scan reported: %q", scans)
	}
	if got := messagesAliases("SELECT 1 FROM messages m JOIN messages AS m2 ON m2.id = m.id JOIN messages_fts f WHERE x IN (SELECT 1 FROM messages WHERE 1)"); !reflect.DeepEqual(got, map[string]bool{"messages": true, "m": true, "m2": true}) {
		t.Fatalf("messagesAliases: %v", got)
	}
}
