// Command backendgen writes internal/backend's generated files from the
// two sqlc packages: the Queries interface (every method of db.Queries,
// SQLite's package, with a backend.Tx in place of the DBTX), its SQLite
// implementation (each method hands tx.DBTX to db's), and its PostgreSQL
// implementation (each method converts db's params to pgdb's and pgdb's
// rows back to db's by Go struct conversion, which compiles only while the
// two packages' structs have identical fields: a drift between the engines'
// queries is a compile error here). A db method without a pgdb twin, or
// with a hand-written adapter (a method of postgresQueries declared in a
// file of internal/backend that this command did not write), is left to
// that file; the command lists the missing ones.
//
// Run by make generate after sqlc (go run ./internal/cmd/backendgen); make
// verify runs it with -check.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	root := flag.String("root", ".", "the module's root directory")
	check := flag.Bool("check", false, "write nothing; fail if a generated file differs from what it would write (make verify)")
	flag.Parse()
	sq, err := parsePackage(filepath.Join(*root, "db"))
	if err != nil {
		log.Fatal(err)
	}
	pq, err := parsePackage(filepath.Join(*root, "db", "postgres"))
	if err != nil {
		log.Fatal(err)
	}
	hand, err := handWritten(filepath.Join(*root, "internal", "backend"))
	if err != nil {
		log.Fatal(err)
	}
	files := map[string][]byte{
		"queries_gen.go":  queriesInterface(sq),
		"sqlite_gen.go":   sqliteAdapter(sq),
		"postgres_gen.go": postgresAdapter(sq, pq, hand),
	}
	for name, src := range files {
		out, err := format.Source(src)
		if err != nil {
			log.Fatalf("%s: %v\n%s", name, err, src)
		}
		path := filepath.Join(*root, "internal", "backend", name)
		if *check {
			old, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(old, out) {
				log.Fatalf("%s is stale: run make generate", path)
			}
			continue
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

// method is one generated query method: its name, the parameters after
// ctx and the DBTX, and its results, as source text.
type method struct {
	name    string
	params  []field
	results []string
}

type field struct{ name, typ string }

// pkg is what backendgen reads of one sqlc package.
type pkg struct {
	methods []method
	structs map[string]bool // names of the package's struct types
	// fields are each struct's fields by name, with their types; order
	// their names in declaration order.
	fields map[string]map[string]string
	order  map[string][]string
}

func parsePackage(dir string) (*pkg, error) {
	fset := token.NewFileSet()
	matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	p := &pkg{structs: map[string]bool{}, fields: map[string]map[string]string{}, order: map[string][]string{}}
	for _, path := range matches {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						if st, ok := ts.Type.(*ast.StructType); ok {
							p.structs[ts.Name.Name] = true
							fs := map[string]string{}
							for _, f := range st.Fields.List {
								for _, n := range f.Names {
									fs[n.Name] = exprString(f.Type)
									p.order[ts.Name.Name] = append(p.order[ts.Name.Name], n.Name)
								}
							}
							p.fields[ts.Name.Name] = fs
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil || !d.Name.IsExported() || exprString(d.Recv.List[0].Type) != "*Queries" {
					continue
				}
				m := method{name: d.Name.Name}
				var all []field
				for _, fl := range d.Type.Params.List {
					for _, n := range fl.Names {
						all = append(all, field{n.Name, exprString(fl.Type)})
					}
				}
				if len(all) < 2 || all[1].typ != "DBTX" {
					return nil, fmt.Errorf("%s: %s does not take (ctx, db DBTX, …)", path, m.name)
				}
				m.params = all[2:]
				for _, fl := range d.Type.Results.List {
					m.results = append(m.results, exprString(fl.Type))
				}
				p.methods = append(p.methods, m)
			}
		}
	}
	slices.SortFunc(p.methods, func(a, b method) int { return strings.Compare(a.name, b.name) })
	return p, nil
}

func exprString(e ast.Expr) string {
	var b bytes.Buffer
	if err := format.Node(&b, token.NewFileSet(), e); err != nil {
		panic(err)
	}
	return b.String()
}

// handWritten returns the names of postgresQueries' methods declared in
// dir's files that backendgen does not write.
func handWritten(dir string) (map[string]bool, error) {
	out := map[string]bool{}
	matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	for _, path := range matches {
		base := filepath.Base(path)
		if strings.HasSuffix(base, "_gen.go") || strings.HasSuffix(base, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && exprString(fd.Recv.List[0].Type) == "postgresQueries" {
				out[fd.Name.Name] = true
			}
		}
	}
	return out, nil
}

const header = "// Code generated by internal/cmd/backendgen from db/ and db/postgres/. DO NOT EDIT.\n\npackage backend\n\n"

// qualify returns typ with the package's own struct names prefixed by
// prefix ("db." or "pgdb.").
func qualify(typ string, structs map[string]bool, prefix string) string {
	base := strings.TrimLeft(typ, "[]*")
	if structs[base] {
		return typ[:len(typ)-len(base)] + prefix + base
	}
	return typ
}

func signature(m method, structs map[string]bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(ctx context.Context, tx Tx", m.name)
	for _, p := range m.params {
		fmt.Fprintf(&b, ", %s %s", p.name, qualify(p.typ, structs, "db."))
	}
	b.WriteString(") ")
	var rs []string
	for _, r := range m.results {
		rs = append(rs, qualify(r, structs, "db."))
	}
	if len(rs) == 1 {
		b.WriteString(rs[0])
	} else {
		b.WriteString("(" + strings.Join(rs, ", ") + ")")
	}
	return b.String()
}

func imports(b *bytes.Buffer, paths ...string) {
	b.WriteString("import (\n")
	for _, p := range paths {
		fmt.Fprintf(b, "\t%s\n", p)
	}
	b.WriteString(")\n\n")
}

func needsSQLNum(p *pkg) bool {
	for _, m := range p.methods {
		for _, f := range m.params {
			if strings.Contains(f.typ, "sqlnum.") {
				return true
			}
		}
		for _, r := range m.results {
			if strings.Contains(r, "sqlnum.") {
				return true
			}
		}
	}
	return false
}

// start returns a generated file's buffer: the header and the imports
// every file needs (context, db, sqlnum when a signature names it), then
// extra ones.
func start(sq *pkg, extra ...string) *bytes.Buffer {
	var b bytes.Buffer
	b.WriteString(header)
	paths := append([]string{`"context"`, ``, `"github.com/hermesstate/hermesstate/db"`}, extra...)
	if needsSQLNum(sq) {
		paths = append(paths, `"github.com/hermesstate/hermesstate/internal/sqlnum"`)
	}
	imports(&b, paths...)
	return &b
}

func queriesInterface(sq *pkg) []byte {
	b := start(sq)
	b.WriteString("// Queries is every SQL-level operation of the store, one method per\n")
	b.WriteString("// sqlc query, in the domain types of package db, run on tx. SQLite returns\n")
	b.WriteString("// SQLite's implementation, Postgres PostgreSQL's.\n")
	b.WriteString("type Queries interface {\n")
	for _, m := range sq.methods {
		fmt.Fprintf(b, "\t%s\n", signature(m, sq.structs))
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func sqliteAdapter(sq *pkg) []byte {
	b := start(sq)
	b.WriteString("// sqliteQueries runs each query through db's generated method on tx.DBTX.\n")
	b.WriteString("type sqliteQueries struct{ q *db.Queries }\n\n")
	for _, m := range sq.methods {
		fmt.Fprintf(b, "func (s sqliteQueries) %s {\n\treturn s.q.%s(ctx, tx.DBTX", signature(m, sq.structs), m.name)
		for _, p := range m.params {
			fmt.Fprintf(b, ", %s", p.name)
		}
		b.WriteString(")\n}\n\n")
	}
	return b.Bytes()
}

func postgresAdapter(sq, pq *pkg, hand map[string]bool) []byte {
	pgm := map[string]method{}
	for _, m := range pq.methods {
		pgm[m.name] = m
	}
	b := start(sq, `pgdb "github.com/hermesstate/hermesstate/db/postgres"`)
	var missing []string
	nested := map[string]bool{}
	for _, m := range sq.methods {
		if hand[m.name] {
			continue
		}
		pm, ok := pgm[m.name]
		if !ok {
			missing = append(missing, m.name)
			continue
		}
		if len(pm.params) != len(m.params) || len(pm.results) != len(m.results) {
			log.Fatalf("%s: db and pgdb disagree on its parameters or results", m.name)
		}
		fmt.Fprintf(b, "func (p postgresQueries) %s {\n", signature(m, sq.structs))
		var args []string
		for _, par := range m.params {
			arg := convert(par.name, par.typ, sq.structs, "pgdb.")
			if sq.structs[par.typ] && sq.fields[par.typ]["Content"] == "*string" {
				fmt.Fprintf(b, "\tpa := %s\n\tpa.Content = encodeContent(pa.Content)\n", arg)
				arg = "pa"
			}
			args = append(args, arg)
		}
		if texts := textArgs(m, sq); len(texts) > 0 {
			fmt.Fprintf(b, "\tif err := noNUL(%s); err != nil {\n", strings.Join(texts, ", "))
			if len(m.results) == 1 {
				b.WriteString("\t\treturn err\n\t}\n")
			} else {
				fmt.Fprintf(b, "\t\tvar zero %s\n\t\treturn zero, err\n\t}\n", qualify(m.results[0], sq.structs, "db."))
			}
		}
		call := fmt.Sprintf("p.q.%s(ctx, tx.PG", m.name)
		for _, a := range args {
			call += ", " + a
		}
		call += ")"
		if len(m.results) == 1 { // error only
			fmt.Fprintf(b, "\treturn %s\n}\n\n", call)
			continue
		}
		r := m.results[0]
		base := strings.TrimLeft(r, "[]*")
		switch {
		case !sq.structs[base]:
			fmt.Fprintf(b, "\treturn %s\n}\n\n", call)
		case strings.HasPrefix(r, "[]"):
			fmt.Fprintf(b, "\trows, err := %s\n\treturn convertSlice(rows, func(r pgdb.%s) db.%s {\n%s\t\treturn %s\n\t}), err\n}\n\n",
				call, base, base, decodeFields(sq.fields[base], "\t\t"), rowConversion(sq, base, nested))
		default:
			fmt.Fprintf(b, "\tr, err := %s\n%s\treturn %s, err\n}\n\n", call, decodeFields(sq.fields[base], "\t"), rowConversion(sq, base, nested))
		}
	}
	for _, name := range sortedKeys(nested) {
		fmt.Fprintf(b, "// convert%s is db.%s of r, field by field: it holds an embedded row of\n// another struct type, which a struct conversion does not convert.\n", name, name)
		fmt.Fprintf(b, "func convert%s(r pgdb.%s) db.%s {\n\treturn db.%s{\n", name, name, name, name)
		for _, f := range sq.order[name] {
			if t := sq.fields[name][f]; sq.structs[t] {
				fmt.Fprintf(b, "\t\t%s: db.%s(r.%s),\n", f, t, f)
			} else {
				fmt.Fprintf(b, "\t\t%s: r.%s,\n", f, f)
			}
		}
		b.WriteString("\t}\n}\n\n")
	}
	if len(missing) > 0 {
		b.WriteString("// Without a PostgreSQL twin in queries/postgres/ yet (each fails with\n// ErrNotPorted):\n")
		for _, name := range missing {
			fmt.Fprintf(b, "//   - %s\n", name)
		}
		b.WriteString("\n")
		for _, name := range missing {
			for _, m := range sq.methods {
				if m.name != name {
					continue
				}
				fmt.Fprintf(b, "func (p postgresQueries) %s {\n", signature(m, sq.structs))
				if len(m.results) == 1 {
					fmt.Fprintf(b, "\treturn notPorted(%q)\n}\n\n", name)
				} else {
					fmt.Fprintf(b, "\tvar zero %s\n\treturn zero, notPorted(%q)\n}\n\n", qualify(m.results[0], sq.structs, "db."), name)
				}
			}
		}
		fmt.Fprintf(os.Stderr, "backendgen: %d queries have no PostgreSQL twin: %s\n", len(missing), strings.Join(missing, ", "))
	}
	return b.Bytes()
}

// convert returns the expression that turns the db-typed value name into
// pgdb's type: a struct conversion for the package's structs, the value
// itself otherwise.
func convert(name, typ string, structs map[string]bool, prefix string) string {
	if structs[typ] {
		return prefix + typ + "(" + name + ")"
	}
	if strings.TrimLeft(typ, "[]*") != typ && structs[strings.TrimLeft(typ, "[]*")] {
		log.Fatalf("parameter %s of type %s: only plain struct parameters convert", name, typ)
	}
	return name
}

// decodeFields returns the statements that undo encodeContent on a row r
// whose struct has the fields fs: its Content (either type) and Raw (the
// whole content as bytes) columns.
func decodeFields(fs map[string]string, indent string) string {
	var b strings.Builder
	switch fs["Content"] {
	case "*string":
		b.WriteString(indent + "r.Content = decodeContent(r.Content)\n")
	case "string":
		b.WriteString(indent + "r.Content = decodeContentText(r.Content)\n")
	}
	if fs["Raw"] == "[]byte" {
		b.WriteString(indent + "r.Raw = decodeContentBytes(r.Raw)\n")
	}
	return b.String()
}

// rowConversion returns the expression converting the pgdb row r to db's
// type name: a struct conversion, or a call of convertName (written once,
// recorded in nested) when the row embeds another struct.
func rowConversion(sq *pkg, name string, nested map[string]bool) string {
	for _, t := range sq.fields[name] {
		if sq.structs[t] {
			nested[name] = true
			return "convert" + name + "(r)"
		}
	}
	return "db." + name + "(r)"
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// textArgs returns the expressions of m's text arguments (string and
// *string parameters, and such fields of a struct parameter, as the
// adapter names them), which noNUL checks before PostgreSQL sees them.
func textArgs(m method, sq *pkg) []string {
	var out []string
	for _, par := range m.params {
		switch {
		case par.typ == "string" || par.typ == "*string":
			out = append(out, par.name)
		case sq.structs[par.typ]:
			prefix := par.name + "."
			if sq.fields[par.typ]["Content"] == "*string" {
				prefix = "pa." // the encoded content: its leading U+0000 is no NUL any more
			}
			for _, f := range sq.order[par.typ] {
				if t := sq.fields[par.typ][f]; t == "string" || t == "*string" {
					out = append(out, prefix+f)
				}
			}
		}
	}
	return out
}
