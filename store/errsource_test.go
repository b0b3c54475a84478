package store

// Static checks of the error contract (the package doc's Errors section),
// over the package's own non-test files: the driver is not imported, the
// package prefix is written in wrap.go only, and every exported function
// that returns an error wraps it at its boundary.

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// storeFiles is this package's parsed non-test files.
func storeFiles(t *testing.T, fset *token.FileSet) []*ast.File {
	t.Helper()
	for _, pkg := range modulePackages(t, fset) {
		if pkg.dir == "store" {
			return pkg.files
		}
	}
	t.Fatal("the module walk did not find package store")
	return nil
}

// TestNoDriverImport: the store classifies SQLite errors only through
// internal/sqlite, so none of its files imports the driver.
func TestNoDriverImport(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	for _, f := range storeFiles(t, fset) {
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "github.com/mattn/go-sqlite3" {
				t.Errorf("%s imports %s: classify SQLite errors in internal/sqlite", fset.Position(imp.Pos()), path)
			}
		}
	}
}

// TestPrefixOnlyInWrap: no string in the package but wrap's says "store:",
// so no sentinel and no helper can name the package a second time.
func TestPrefixOnlyInWrap(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	for _, f := range storeFiles(t, fset) {
		file := fset.Position(f.Pos()).Filename
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if ok && lit.Kind == token.STRING && strings.Contains(lit.Value, "store:") && file != "store/wrap.go" {
				t.Errorf("%s: %s says %q: only wrap and wrapOn (wrap.go) add the package's name", fset.Position(lit.Pos()), lit.Value, "store:")
			}
			return true
		})
	}
}

// boundaryExceptions are the exported functions returning an error that
// need no wrap, with the reason.
var boundaryExceptions = map[string]string{
	"Open":                 "wraps twice on separate paths: before the default path is known, then with it",
	"JSONText.MarshalJSON": "never fails",
	"TitleInUseError.Is":   "part of a typed error",
	"AmbiguousError.Is":    "part of a typed error",
	"ImportError.Is":       "part of a typed error",
	"ImportError.Unwrap":   "part of a typed error",
}

// TestExportedCallsWrap: every exported function and method of an
// exported type that returns an error starts with `defer wrap(&err, …)`
// or `defer wrapOn(&err, …)`, the one boundary wrap.
func TestExportedCallsWrap(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	checked := 0
	for _, f := range storeFiles(t, fset) {
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			name := funcName(decl)
			if !ok || !returnsError(fd) || !exported(name) {
				continue
			}
			if _, ok := boundaryExceptions[name]; ok {
				continue
			}
			checked++
			if !startsWithWrap(fd) {
				t.Errorf("%s: %s returns an error without `defer wrap(&err, op)` or `defer wrapOn(&err, op, subject)` first",
					fset.Position(fd.Pos()), name)
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked %d functions; the walk missed the package", checked)
	}
}

// exported reports whether name ("F" or "T.M") is exported, type and all.
func exported(name string) bool {
	for part := range strings.SplitSeq(name, ".") {
		if !token.IsExported(part) {
			return false
		}
	}
	return name != ""
}

// returnsError reports whether fd's last result is an error.
func returnsError(fd *ast.FuncDecl) bool {
	res := fd.Type.Results
	if res == nil || len(res.List) == 0 {
		return false
	}
	id, ok := res.List[len(res.List)-1].Type.(*ast.Ident)
	return ok && id.Name == "error"
}

// startsWithWrap reports whether fd's first statement defers wrap or
// wrapOn on its named error result.
func startsWithWrap(fd *ast.FuncDecl) bool {
	if fd.Body == nil || len(fd.Body.List) == 0 {
		return false
	}
	d, ok := fd.Body.List[0].(*ast.DeferStmt)
	if !ok {
		return false
	}
	fn, ok := d.Call.Fun.(*ast.Ident)
	return ok && (fn.Name == "wrap" || fn.Name == "wrapOn")
}
