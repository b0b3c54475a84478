package store

import (
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"testing"
)

// descriptorFuncs are the functions, by import path, that open a file
// descriptor from a path (or hand one out, os.NewFile; or open files
// later, os.DirFS; or rewrite a file by path, os.Truncate). Closing any
// descriptor on the database file or its -shm drops every SQLite lock the
// process holds on it (sqlite.org/howtocorrupt.html §2.2, and
// TestLocksAreNeverDropped's controls): code of the module inspects those
// files with os.Stat and changes them with os.Chmod, by path, and only
// SQLite opens them.
var descriptorFuncs = map[string][]string{
	"os":                    {"Open", "OpenFile", "ReadFile", "Create", "CreateTemp", "WriteFile", "Truncate", "NewFile", "DirFS", "OpenRoot", "OpenInRoot"},
	"io/ioutil":             {"ReadFile", "WriteFile", "TempFile"},
	"syscall":               {"Open", "Openat", "Creat"},
	"golang.org/x/sys/unix": {"Open", "Openat", "Openat2", "Creat"},
}

// allowedUse is an allow-list entry: call may appear in the top-level
// declaration fn of file (a path from the module root), for reason why.
type allowedUse struct{ file, fn, call, why string }

// descriptorAllowed lists the only places that may call a descriptorFuncs
// function, each with the reason it never touches a database path.
var descriptorAllowed = []allowedUse{
	{"internal/cmd/benchreport/machine.go", "cpuModel", "os.Open",
		"benchmark tool: reads /proc/cpuinfo, not a database"},
	{"internal/cmd/benchreport/machine.go", "loadAverage", "os.ReadFile",
		"benchmark tool: reads /proc/loadavg, not a database"},
	{"internal/cmd/benchreport/main.go", "run", "os.WriteFile",
		"benchmark tool: writes the Markdown report (-o), a text file, after every store of the run is closed"},
	{"internal/cmd/benchreport/main.go", "copyFile", "os.Open",
		"benchmark tool: reads a corpus file no connection of the process has open (runCorpus copies it before opening the copy), refused when its -wal is not empty"},
	{"internal/cmd/benchreport/main.go", "copyFile", "os.Create",
		"benchmark tool: creates the working copy of a corpus in the run's new temporary directory, before any connection opens it"},
	{"internal/cmd/benchreport/original.go", "startOriginal", "os.WriteFile",
		"benchmark tool: writes original.py, a Python script, into the run's temporary directory"},
	{"internal/cmd/backendgen/main.go", "main", "os.ReadFile",
		"code generator: reads its own earlier output (internal/backend/*_gen.go) for -check; no database"},
	{"internal/cmd/backendgen/main.go", "main", "os.WriteFile",
		"code generator: writes Go source (internal/backend/*_gen.go); no database"},
	{"fts/internal/unicode61gen/main.go", "main", "os.WriteFile",
		"code generator: writes Go source (fts's unicode61 tables); its only database is in memory"},
	{"internal/cmd/schemadump/main.go", "run", "os.WriteFile",
		"writes the schema dump (schema/schema.sql), a text file; the command's only database is in memory"},
	{"internal/dbtest/dbtest.go", "CopyFixture", "os.ReadFile",
		"test helper: reads a fixture in testdata/ that no connection ever opens (tests open the copy)"},
	{"internal/dbtest/dbtest.go", "CopyFixture", "os.WriteFile",
		"test helper: creates the copy in a new t.TempDir() before any connection opens it"},
	{"internal/dbtest/dbtest.go", "LegacyFile", "os.ReadFile",
		"test helper: reads a SQL script in testdata/legacy, not a database"},
	{"internal/dbtest/layout.go", "GoldenLayout", "os.ReadFile",
		"test helper: reads a golden JSON file in testdata/golden, not a database"},
	{"internal/dbtest/files.go", "CopyFile", "os.ReadFile",
		"test helper: reads a closed database (a fixture or a file whose store is closed) that no connection of the test has open"},
	{"internal/dbtest/files.go", "CopyFile", "os.OpenFile",
		"test helper: creates the copy (O_EXCL) before any connection opens it"},
	{"internal/dbtest/dirs.go", "NotRegularFiles", "os.WriteFile",
		"test helper: creates a small text file in a test's own new directory, beside no database"},
	{"internal/dbtest/files.go", "FileHash", "os.ReadFile",
		"test helper: hashes a file while no connection of the test process has it open (before and after a command the test ran in another process)"},
	{"internal/publish/publish.go", "Create", "os.OpenFile",
		"creates a new temporary file (O_EXCL) under a new random name starting with publish.TempPrefix, which no database, -wal or -shm has"},
	{"internal/publish/publish.go", "syncDir", "os.Open",
		"syncs the directory of a published file, a directory, not a database file"},
	{"internal/publish/lock_unix.go", "openNoFollow", "os.OpenFile",
		"opens a possibly stale temporary file (named with publish.TempPrefix) that Lstat showed to be a regular file with one link: a database, -wal or -shm has its own name, so under this one it would have two; O_NOFOLLOW refuses a link put there meanwhile"},
	{"internal/publish/lock_other.go", "openNoFollow", "os.Open",
		"as lock_unix.go's openNoFollow, on systems where no temporary file is ever found stale (links reports 0), so it is never reached"},
	{"internal/dbtest/walrefused_linux.go", "RefuseWAL", "os.OpenFile",
		"test helper: creates (O_EXCL) the -shm of a database no connection has open yet and holds OFD locks on it; closing it drops only that description's own locks, and it is closed after the test's connections"},
	{"internal/dbtest/tmpfs.go", "Fill", "os.OpenFile",
		"test helper: creates a new filler file (O_EXCL) beside a database, never the database or its -wal/-shm"},
	{"migrations/gateway_backfill.go", "backfillGatewayMetadata", "os.ReadFile",
		"the v18 step's HERMES_HOME/sessions/sessions.json; isDatabaseFile has refused the database and its -wal/-shm (by file identity) before it gets here"},
	{"cmd/sessions/import.go", "openInput", "os.Open",
		"import's input file; notTheDatabase has refused the database and its -wal/-shm (by file identity) before it gets here"},
}

// descriptorUse is one reference to a descriptorFuncs function.
type descriptorUse struct {
	pos  token.Position
	fn   string // the enclosing top-level declaration (see funcName)
	call string // "os.Open"
}

// descriptorUses finds every reference (a call, or the function used as a
// value) to a descriptorFuncs function in pkg's files.
func descriptorUses(fset *token.FileSet, pkg goPackage) []descriptorUse {
	var out []descriptorUse
	imports := map[*ast.File]map[string]string{}
	inspectDecls(pkg, func(f *ast.File, decl string, n ast.Node) {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return
		}
		if imports[f] == nil {
			imports[f] = importNames(f)
		}
		path, imported := imports[f][x.Name]
		if imported && slices.Contains(descriptorFuncs[path], sel.Sel.Name) {
			out = append(out, descriptorUse{fset.Position(sel.Pos()), decl, x.Name + "." + sel.Sel.Name})
		}
	})
	return out
}

// TestNoDescriptorOnTheDatabase: no code of the module opens a file
// descriptor by path, except the allow-listed places that provably never
// see a database path. SQLite alone opens the database, its -wal and its
// -shm.
func TestNoDescriptorOnTheDatabase(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	used := make([]bool, len(descriptorAllowed))
	for _, pkg := range modulePackages(t, fset) {
		for _, u := range descriptorUses(fset, pkg) {
			i := slices.IndexFunc(descriptorAllowed, func(a allowedUse) bool {
				return a.file == u.pos.Filename && a.fn == u.fn && a.call == u.call
			})
			if i < 0 {
				t.Errorf("%s: %s in %s opens a file descriptor by path; a descriptor closed on the database drops SQLite's locks (use os.Stat/os.Chmod by path, or allow-list it with a reason)", u.pos, u.call, u.fn)
				continue
			}
			used[i] = true
		}
	}
	for i, a := range descriptorAllowed {
		if !used[i] {
			t.Errorf("allow-list entry %s %s %s is not used any more; remove it", a.file, a.fn, a.call)
		}
	}

	t.Run("SeesEveryForm", func(t *testing.T) {
		t.Parallel()
		fset := token.NewFileSet()
		pkg := parseSnippet(t, fset, "snippet/x.go", `package x

import (
	stdos "os"
	"syscall"
)

type T struct{}

func (*T) Peek(p string) { f, _ := stdos.Open(p); f.Close() }

var read = stdos.ReadFile

func Raw(p string) { fd, _ := syscall.Open(p, 0, 0); syscall.Close(fd); _ = stdos.Chmod(p, 0o600) }
`)
		var got []string
		for _, u := range descriptorUses(fset, pkg) {
			got = append(got, fmt.Sprintf("%d %s %s", u.pos.Line, u.fn, u.call))
		}
		want := []string{"10 T.Peek stdos.Open", "12 read stdos.ReadFile", "14 Raw syscall.Open"}
		if !slices.Equal(got, want) {
			t.Errorf("uses = %q, want %q", got, want)
		}
	})
}
