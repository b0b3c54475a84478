package store

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The source-level tests (descriptors_test.go, sqlconst_test.go) read the
// module's own Go files: every non-test file, generated ones included.

// goPackage is the parsed non-test Go files of one directory of the module.
// File names in positions are slash-separated paths from the module root.
type goPackage struct {
	dir   string
	files []*ast.File
}

// modulePackages parses every non-test .go file of the module (the
// directory above this package), skipping testdata, vendor and hidden
// directories, grouped by directory in path order.
func modulePackages(t *testing.T, fset *token.FileSet) []goPackage {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if mod, err := os.ReadFile(filepath.Join(root, "go.mod")); err != nil || !strings.HasPrefix(string(mod), "module github.com/hermesstate/hermesstate\n") {
		t.Fatalf("%s is not the module root: %v", root, err)
	}
	byDir := map[string]*goPackage{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		if byDir[dir] == nil {
			byDir[dir] = &goPackage{dir: dir}
		}
		byDir[dir].files = append(byDir[dir].files, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []goPackage
	for _, p := range byDir {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b goPackage) int { return strings.Compare(a.dir, b.dir) })
	if len(out) < 10 {
		t.Fatalf("found %d packages; the walk missed the module", len(out))
	}
	return out
}

// parseSnippet parses src as the file name, for the checkers' self-tests.
func parseSnippet(t *testing.T, fset *token.FileSet, name, src string) goPackage {
	t.Helper()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	return goPackage{dir: filepath.Dir(name), files: []*ast.File{f}}
}

// funcName names a top-level declaration for allow-lists: "F", "T.M" for a
// method (pointer receivers too), the first name declared for a var or
// const declaration, "" for the rest.
func funcName(decl ast.Decl) string {
	fd, ok := decl.(*ast.FuncDecl)
	if !ok {
		if gd, ok := decl.(*ast.GenDecl); ok && len(gd.Specs) > 0 {
			if vs, ok := gd.Specs[0].(*ast.ValueSpec); ok {
				return vs.Names[0].Name
			}
		}
		return ""
	}
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	recv := fd.Recv.List[0].Type
	if star, ok := recv.(*ast.StarExpr); ok {
		recv = star.X
	}
	if idx, ok := recv.(*ast.IndexExpr); ok { // generic receiver T[P]
		recv = idx.X
	}
	if id, ok := recv.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// importNames maps the names f refers to its imports by to their paths.
// An unnamed import is known by its path's last element (golang.org/x/sys/unix:
// unix), which is its package name for every package these tests look for.
func importNames(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, imp := range f.Imports {
		path := strings.Trim(imp.Path.Value, `"`)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		out[name] = path
	}
	return out
}

// inspectDecls walks every node of pkg's files, telling fn the file and
// the top-level declaration (see funcName) the node is in.
func inspectDecls(pkg goPackage, fn func(f *ast.File, decl string, n ast.Node)) {
	for _, f := range pkg.files {
		for _, decl := range f.Decls {
			name := funcName(decl)
			ast.Inspect(decl, func(n ast.Node) bool {
				fn(f, name, n)
				return true
			})
		}
	}
}
