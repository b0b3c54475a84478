package store

import (
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// sqlMethods are the database/sql, driver and pgx methods that take SQL text,
// with the index of the SQL argument.
var sqlMethods = map[string]int{
	"ExecContext": 1, "QueryContext": 1, "QueryRowContext": 1, "PrepareContext": 1,
	"Exec": 0, "Query": 0, "QueryRow": 0, "Prepare": 0,
}

// sqlExceptions are the only SQL arguments not built from constants, each
// with the reason they hold no input. (call is the method's name.)
var sqlExceptions = []allowedUse{
	{"internal/dbtest/dbtest.go", "Values", "QueryContext", "test helper: runs the SQL its callers, the tests, pass"},
	{"internal/pgtest/pgtest.go", "createDatabase", "Exec",
		"test helper: CREATE and DROP DATABASE take no parameters; the name is the helper's own random one"},
	{"internal/pgtest/migrated.go", "ensureTemplate", "Exec",
		"test helper: CREATE, ALTER and DROP DATABASE take no parameters; the names are the helper's own"},
	{"store/postgres_search.go", "pgScanHits", "Query",
		"pgsearch's Statement.SQL: constants and $n placeholders only, its shape following the plan's tree, every value a bound argument (internal/pgsearch's tests)"},
	{"internal/dbtest/dbtest.go", "Rows", "QueryContext", "test helper: runs the SQL its callers, the tests, pass"},
	{"internal/dbtest/dbtest.go", "Exec", "ExecContext", "test helper: runs the SQL its callers, the tests, pass"},
	{"migrations/declared.go", "loadDeclared", "ExecContext", "the embedded v21 DDL (migrations/v21/*.sql), into an in-memory database"},
	{"migrations/upgrade.go", "upgrade", "ExecContext",
		"the embedded v21 DDL and statements planned from it; the only names spliced in are of our own schema objects, quoted"},
	{"migrations/upgrade.go", "v11Step", "ExecContext",
		"DROP TRIGGER/TABLE IF EXISTS of the FTS tables and triggers the embedded DDL declares, their names quoted"},
	{"migrations/gomigration.go", "execAll", "ExecContext",
		"the Go migrations' statements: the embedded v21 data steps (backfill_v16.sql, backfill_v20.sql), the embedded DDL of their tables and ADD COLUMNs built from it (quoted), and string literals"},
	{"migrations/gateway_backfill.go", "backfillGatewayMetadata", "ExecContext",
		"the embedded v21 statement backfill_v18.sql; each sessions.json entry's values are bound parameters"},
	{"migrations/fts.go", "RebuildFTS", "ExecContext",
		"the declared FTS tables and triggers (the embedded v21 DDL) and the backfill with their quoted names, as upgrade's"},
	{"store/health.go", "Store.Check", "QueryRowContext",
		"the refresh statements of the ftsIndexes table, string constants (the checker does not follow struct fields)"},
	{"store/health.go", "checkFTS", "QueryRowContext",
		"the refresh and comparison statements of the ftsIndexes table, string constants (the checker does not follow struct fields)"},
	{"internal/sqlite/open.go", "writerDriver", "Exec",
		"walSizeLimitSQL and the platform's durability pragmas from durabilityFor, string constants chosen by GOOS"},
	{"store/groupcommit_stage.go", "stager.flush", "ExecContext",
		"multiInsertSQL: the generated MessageInsert's own text (captured by statementOf) with its VALUES row repeated and its ?N placeholders renumbered; every value a bound argument"},
	{"store/rawscan.go", "rawQuery", "QueryContext",
		"the text a generated sqlc method runs, recorded from that method's own call by captureDBTX (statementOf), or columnsSQL; the arguments are bound"},
	{"migrations/adopt.go", "adopt", "ExecContext",
		"DDL of the embedded migrations (ALTER TABLE ... ADD COLUMN from their own column definitions, quoted)"},
}

// sqlUse is one call of an sqlMethods method.
type sqlUse struct {
	pos    token.Position
	fn     string // the enclosing top-level declaration (see funcName)
	method string
	ok     bool // its SQL argument is built only from constants
}

// sqlUses finds every call of an sqlMethods method in pkg, one of m's
// packages, and judges its SQL argument.
func sqlUses(m *moduleTypes, pkg goPackage) []sqlUse {
	fset := m.fset
	c := m.judge(pkg.dir)
	var out []sqlUse
	inspectDecls(pkg, func(_ *ast.File, decl string, n ast.Node) {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return
		}
		sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		if !ok {
			return
		}
		arg, known := sqlMethods[sel.Sel.Name]
		if !known {
			return
		}
		// pgx's Exec, Query and QueryRow take the context first, as
		// database/sql's *Context methods do. Told by the argument's name
		// (ctx, in this module and in sqlc's output alike): the stubbed
		// imports leave context.Context without a type here.
		if arg == 0 && len(call.Args) > 1 {
			if id, ok := call.Args[0].(*ast.Ident); ok && id.Name == "ctx" {
				arg = 1
			}
		}
		if arg < len(call.Args) {
			out = append(out, sqlUse{fset.Position(call.Pos()), decl, sel.Sel.Name, c.isConst(call.Args[arg])})
		}
	})
	return out
}

// modulePath is the module's import path, the prefix of its packages'.
const modulePath = "github.com/hermesstate/hermesstate"

// TestSQLIsNeverBuiltFromInput: every statement the module runs (sqlc's
// generated code included) is text built only from constants: a literal,
// a named constant, or values computed from those alone, through
// variables, containers and the package's own functions, and through the
// parameterless functions of the module's other packages that are
// constant there (the search builder's Statement.SQL, whose texts are
// internal/sqlitesearch's). Arguments travel as bound parameters. The
// exceptions are listed with their reasons.
func TestSQLIsNeverBuiltFromInput(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	used := make([]bool, len(sqlExceptions))
	calls := 0
	pkgs := modulePackages(t, fset)
	m := newModuleTypes(fset, modulePath, pkgs)
	for _, pkg := range pkgs {
		for _, u := range sqlUses(m, pkg) {
			calls++
			i := slices.IndexFunc(sqlExceptions, func(a allowedUse) bool {
				return a.file == u.pos.Filename && a.fn == u.fn && a.call == u.method
			})
			switch {
			case i >= 0:
				used[i] = true
			case !u.ok:
				t.Errorf("%s: the SQL %s runs in %s is not built only from constants; bind the values as parameters", u.pos, u.method, u.fn)
			}
		}
	}
	for i, a := range sqlExceptions {
		if !used[i] {
			t.Errorf("exception %s %s %s is not used any more; remove it", a.file, a.fn, a.call)
		}
	}
	// sqlc's generated methods alone are over fifty calls.
	if calls < 60 {
		t.Errorf("saw %d SQL calls; the walk missed code", calls)
	}
	t.Logf("%d SQL calls checked", calls)

	t.Run("TellsConstantsFromInput", func(t *testing.T) {
		t.Parallel()
		fset := token.NewFileSet()
		pkg := parseSnippet(t, fset, "snippet/x.go", snippetSQL)
		var got []string
		for _, u := range sqlUses(newModuleTypes(fset, "example.com/m", []goPackage{pkg}), pkg) {
			got = append(got, fmt.Sprintf("%d %v", u.pos.Line, u.ok))
		}
		// The lines of snippetSQL's calls: the first five are constant.
		want := []string{
			"22 true", "23 true", "25 true", "26 true", "28 true",
			"30 false", "31 false", "32 false", "35 false", "38 false", "41 false", "43 false",
		}
		if !slices.Equal(got, want) {
			t.Errorf("verdicts (line, constant) = %q, want %q", got, want)
		}
	})

	t.Run("FollowsCallsIntoTheModule", func(t *testing.T) {
		t.Parallel()
		fset := token.NewFileSet()
		a := parseSnippet(t, fset, "snippet/a/a.go", snippetSQLBuilder)
		b := parseSnippet(t, fset, "snippet/b/b.go", snippetSQLRunner)
		m := newModuleTypes(fset, "example.com/m", []goPackage{a, b})
		var got []string
		for _, pkg := range []goPackage{a, b} {
			for _, u := range sqlUses(m, pkg) {
				got = append(got, fmt.Sprintf("%s:%d %v", pkg.dir, u.pos.Line, u.ok))
			}
		}
		want := []string{
			"snippet/a:24 true", "snippet/a:25 false",
			"snippet/b:11 true", "snippet/b:12 true",
			"snippet/b:14 false", "snippet/b:15 false", "snippet/b:16 false", "snippet/b:17 false", "snippet/b:18 false",
		}
		if !slices.Equal(got, want) {
			t.Errorf("verdicts (package:line, constant) = %q, want %q", got, want)
		}
	})
}

// snippetSQLBuilder and snippetSQLRunner are two packages of one module, a
// builder of statements and a package running them, for
// FollowsCallsIntoTheModule (whose line numbers these are).
const (
	snippetSQLBuilder = `package a

import "database/sql"

const base = "SELECT 1"

var texts = [...]string{"SELECT 2", base}

type Statement struct {
	kind int
	text string
}

func (s Statement) SQL() string  { return texts[s.kind] }
func (s Statement) Text() string { return s.text }
func Const() string              { return base }
func Echo(q string) string       { return q }

var Exported = "SELECT 3"

func Leak() string { return Exported }

func run(db *sql.DB) {
	db.Exec(Echo(base))
	db.Exec(Exported)
}
`
	snippetSQLRunner = `package b

import (
	"context"
	"database/sql"

	"example.com/m/snippet/a"
)

func run(ctx context.Context, db *sql.DB, st a.Statement, input string) {
	db.ExecContext(ctx, st.SQL())
	db.ExecContext(ctx, a.Const())

	db.ExecContext(ctx, st.Text())
	db.ExecContext(ctx, a.Echo("SELECT 4"))
	db.ExecContext(ctx, a.Leak())
	db.ExecContext(ctx, a.Exported)
	db.ExecContext(ctx, a.Statement{}.SQL()+input)
}
`
)

// snippetSQL exercises constSQL; the line numbers are TellsConstantsFromInput's.
const snippetSQL = `package x

import (
	"context"
	"database/sql"
	"fmt"
)

const base = "SELECT id FROM t"

var byMode = map[int]string{0: "SELECT 1", 1: base + " WHERE x = ?"}

func build(table string) string { return "SELECT * FROM " + table }

var built = build("sessions")

func leaky(table string) string { return "SELECT * FROM " + table }

func fill(p *string) {}

func run(ctx context.Context, db *sql.DB, input string, mode int) {
	db.ExecContext(ctx, base)
	db.ExecContext(ctx, built)
	q, _ := byMode[mode]
	db.QueryContext(ctx, q)
	db.QueryRowContext(ctx, ` + "`" + `SELECT 2` + "`" + `)
	var stmt string
	db.Exec(stmt)

	db.ExecContext(ctx, "DELETE FROM t WHERE id = '"+input+"'")
	db.ExecContext(ctx, fmt.Sprintf("SELECT %s", input))
	db.QueryRowContext(ctx, leaky(input))
	s := base
	s += input
	db.ExecContext(ctx, s)
	parts := []string{base}
	parts[0] = input
	db.ExecContext(ctx, parts[0])
	var p string
	fill(&p)
	db.Exec(p)
	for _, each := range []string{base, input} {
		db.Exec(each)
	}
}
`

// TestINListsAreSubqueries: no statement splices a list into its text.
// Lists travel as one bound JSON array that json_each turns into rows,
// so every IN in the queries and the hand-written statements is followed
// by a subquery, and no query uses sqlc.slice (which rewrites the text per
// call).
func TestINListsAreSubqueries(t *testing.T) {
	t.Parallel()
	texts := handWrittenSQL(t)
	files, err := filepath.Glob(filepath.Join("..", "queries", "sqlite", "*.sql"))
	if err != nil || len(files) < 5 {
		t.Fatalf("queries/sqlite/*.sql: %v, %d files", err, len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[filepath.Base(f)] = string(b)
	}
	in := regexp.MustCompile(`(?i)\bIN\s*\(\s*(\w*)`)
	comment := regexp.MustCompile(`--[^\n]*`)
	lists := 0
	for name, text := range texts {
		text = comment.ReplaceAllString(text, "")
		if strings.Contains(text, "sqlc.slice") {
			t.Errorf("%s uses sqlc.slice; bind the list as a JSON array and read it with json_each", name)
		}
		for _, m := range in.FindAllStringSubmatch(text, -1) {
			lists++
			if !strings.EqualFold(m[1], "SELECT") {
				t.Errorf("%s: %q is not a subquery", name, m[0])
			}
		}
	}
	if lists < 5 {
		t.Errorf("found %d IN lists; the scan is broken", lists)
	}
}
