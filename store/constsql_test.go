package store

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// constSQL decides, for one package's files, which expressions hold a
// value built only from constants: literals and named constants, joined
// with +, through variables, parameters, containers and the package's own
// functions whose every input is such a value. It is what
// TestSQLIsNeverBuiltFromInput asks of every SQL argument.
//
// Variables and parameters are followed through every assignment in the
// package, so the answer is a greatest fixed point: everything starts out
// constant and loses it as soon as one source of its value is not
// (computed by settle). It errs on the side of "not constant":
//
//   - a parameter is constant only when every call of its function in the
//     package passes a constant, and never when the function is used as a
//     value, called as a method expression or not called in the package at
//     all (an exported function called from elsewhere);
//   - a variable whose address is taken, or that is assigned a result of a
//     multi-value call, is never constant;
//   - writing into a container or field (x[i] = v, x.f = v) counts v as a
//     source of the variable x;
//   - a package-level variable that is exported is never constant: another
//     package may assign it;
//   - calls of anything but the package's own single-result functions
//     (fmt.Sprintf, strings.Join, …), and receivers, are never constant,
//     except a call of another of the module's packages' functions or
//     methods that take no parameters and that their own package finds
//     constant (moduleTypes.constFunc): a search statement's SQL method.
//
// A slice or map passed to a function that fills it in would escape this;
// the module has none on an SQL path.
type constSQL struct {
	module   *moduleTypes
	info     *types.Info
	sources  map[*types.Var][]valueSource
	params   map[*types.Var]paramOf
	decls    map[*types.Func]*ast.FuncDecl
	calls    map[*types.Func][]*ast.CallExpr
	escaped  map[*types.Func]bool
	notConst map[types.Object]bool
}

// valueSource is one way a variable gets a value: expr, or the zero value
// (a var without initialiser), or something constSQL does not follow.
type valueSource struct {
	expr    ast.Expr
	zero    bool
	unknown bool
}

// paramOf places a parameter in its function's signature.
type paramOf struct {
	fn       *types.Func
	index    int
	variadic bool
}

// moduleTypes type-checks a module's packages from their source, each
// once, for constSQL. An import of one of the module's own packages is that
// package, checked, so that a call into it resolves to its function and
// constSQL can ask that package's verdict (see constFunc); every other
// import is an empty stub: constSQL needs no other package's objects, and
// loading real export data would mean compiling the cgo driver once more.
type moduleTypes struct {
	fset    *token.FileSet
	byPath  map[string]goPackage
	checked map[string]*checkedPackage
	stubs   map[string]*types.Package
}

// checkedPackage is one type-checked package and, once judged, its constSQL.
type checkedPackage struct {
	info *types.Info
	pkg  *types.Package
	c    *constSQL
}

// newModuleTypes serves pkgs, each under the import path module/dir.
func newModuleTypes(fset *token.FileSet, module string, pkgs []goPackage) *moduleTypes {
	m := &moduleTypes{fset: fset, byPath: map[string]goPackage{}, checked: map[string]*checkedPackage{}, stubs: map[string]*types.Package{}}
	for _, p := range pkgs {
		m.byPath[module+"/"+p.dir] = p
	}
	return m
}

// Import returns the module's package at path, checked, or an empty stub.
func (m *moduleTypes) Import(path string) (*types.Package, error) {
	if _, ok := m.byPath[path]; ok {
		return m.check(path).pkg, nil
	}
	if p := m.stubs[path]; p != nil {
		return p, nil
	}
	p := types.NewPackage(path, path[strings.LastIndex(path, "/")+1:])
	p.MarkComplete()
	m.stubs[path] = p
	return p, nil
}

// check type-checks the package at path once (errors about the stubbed
// imports ignored: the package's own objects are all recorded).
func (m *moduleTypes) check(path string) *checkedPackage {
	if cp := m.checked[path]; cp != nil {
		return cp
	}
	cp := &checkedPackage{info: &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}}
	conf := types.Config{Importer: m, Error: func(error) {}}
	cp.pkg, _ = conf.Check(path, m.fset, m.byPath[path].files, cp.info)
	m.checked[path] = cp
	return cp
}

// judge returns the constSQL of the module's package in directory dir.
func (m *moduleTypes) judge(dir string) *constSQL {
	for path, p := range m.byPath {
		if p.dir == dir {
			return m.judgePath(path)
		}
	}
	panic("no package in " + dir)
}

func (m *moduleTypes) judgePath(path string) *constSQL {
	cp := m.check(path)
	if cp.c == nil {
		cp.c = newConstSQL(m, m.byPath[path], cp.info)
	}
	return cp.c
}

// constFunc reports whether fn, declared in another of the module's
// packages, returns a value built only from constants however it is
// called: it has no parameters (a receiver is never a constant, so its
// result cannot hang on one) and its own package's constSQL finds it
// constant.
func (m *moduleTypes) constFunc(fn *types.Func) bool {
	fn = fn.Origin()
	if fn.Pkg() == nil {
		return false
	}
	path := fn.Pkg().Path()
	if _, ok := m.byPath[path]; !ok {
		return false
	}
	if sig, _ := fn.Type().(*types.Signature); sig == nil || sig.Params().Len() != 0 {
		return false
	}
	c := m.judgePath(path)
	return c.decls[fn] != nil && !c.notConst[fn]
}

// newConstSQL computes which of pkg's variables, parameters and functions
// are constant, from its type information info (checked by m, which also
// answers for calls into the module's other packages).
func newConstSQL(m *moduleTypes, pkg goPackage, info *types.Info) *constSQL {
	c := &constSQL{
		module:   m,
		info:     info,
		sources:  map[*types.Var][]valueSource{},
		params:   map[*types.Var]paramOf{},
		decls:    map[*types.Func]*ast.FuncDecl{},
		calls:    map[*types.Func][]*ast.CallExpr{},
		escaped:  map[*types.Func]bool{},
		notConst: map[types.Object]bool{},
	}
	for _, f := range pkg.files {
		c.collect(f)
	}
	c.settle()
	return c
}

// collect records f's function declarations, calls and assignments.
func (c *constSQL) collect(f *ast.File) {
	callee := map[*ast.Ident]bool{} // function names in call position
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			fn, _ := c.info.Defs[n.Name].(*types.Func)
			if fn == nil {
				break
			}
			c.decls[fn] = n
			i := 0
			for _, field := range n.Type.Params.List {
				_, variadic := field.Type.(*ast.Ellipsis)
				for _, name := range field.Names {
					if v, ok := c.info.Defs[name].(*types.Var); ok {
						c.params[v] = paramOf{fn, i, variadic}
					}
					i++
				}
				if len(field.Names) == 0 {
					i++
				}
			}
		case *ast.CallExpr:
			id, fn := c.callee(n)
			if fn == nil {
				break
			}
			callee[id] = true
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
				if s := c.info.Selections[sel]; s != nil && s.Kind() == types.MethodExpr {
					c.escaped[fn] = true // receiver passed as the first argument
				}
			}
			c.calls[fn] = append(c.calls[fn], n)
		case *ast.ValueSpec:
			for i, name := range n.Names {
				switch {
				case len(n.Values) == len(n.Names):
					c.assign(name, valueSource{expr: n.Values[i]})
				case len(n.Values) == 0:
					c.assign(name, valueSource{zero: true})
				default:
					c.assign(name, valueSource{unknown: true})
				}
			}
		case *ast.AssignStmt:
			switch {
			case len(n.Lhs) == len(n.Rhs):
				for i := range n.Lhs {
					c.assign(n.Lhs[i], valueSource{expr: n.Rhs[i]})
				}
			default: // v, ok := m[k] / x.(T) / <-ch, or a multi-value call
				_, isCall := n.Rhs[0].(*ast.CallExpr)
				for i, lhs := range n.Lhs {
					c.assign(lhs, valueSource{expr: n.Rhs[0], unknown: isCall || i > 0})
				}
			}
		case *ast.RangeStmt:
			if n.Key != nil {
				c.assign(n.Key, valueSource{unknown: true})
			}
			if n.Value != nil {
				c.assign(n.Value, valueSource{expr: n.X}) // an element of X
			}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				c.assign(n.X, valueSource{unknown: true})
			}
		}
		return true
	})
	// A function referred to other than by calling it may be called in ways
	// not seen here.
	for id, obj := range c.info.Uses {
		if fn, ok := obj.(*types.Func); ok && !callee[id] && c.decls[fn] != nil && c.inFile(id, f) {
			c.escaped[fn] = true
		}
	}
}

// inFile reports whether id lies in f.
func (c *constSQL) inFile(id *ast.Ident, f *ast.File) bool {
	return f.FileStart <= id.Pos() && id.Pos() < f.FileEnd
}

// assign records src as a value of the variable at the root of lhs (x in
// x, x[i], x.f). Through a pointer (*p = v) nothing is recorded: the
// pointee's address was taken, which already makes it unknown.
func (c *constSQL) assign(lhs ast.Expr, src valueSource) {
	for {
		switch e := ast.Unparen(lhs).(type) {
		case *ast.IndexExpr:
			lhs = e.X
		case *ast.SelectorExpr:
			lhs = e.X
		case *ast.Ident:
			obj := c.info.Defs[e]
			if obj == nil {
				obj = c.info.Uses[e]
			}
			if v, ok := obj.(*types.Var); ok {
				c.sources[v] = append(c.sources[v], src)
			}
			return
		default:
			return
		}
	}
}

// callee returns the identifier and the function a call calls, when it is
// a function or method declared in the package or elsewhere (not a
// builtin, conversion or function value).
func (c *constSQL) callee(call *ast.CallExpr) (*ast.Ident, *types.Func) {
	fun := ast.Unparen(call.Fun)
	switch f := fun.(type) { // generic instantiation f[T]
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return nil, nil
	}
	fn, _ := c.info.Uses[id].(*types.Func)
	return id, fn
}

// settle computes the greatest fixed point: it marks what is not constant
// until nothing changes.
func (c *constSQL) settle() {
	for changed := true; changed; {
		changed = false
		for v := range c.sources {
			if !c.notConst[v] && !c.varConst(v) {
				c.notConst[v], changed = true, true
			}
		}
		for v := range c.params {
			if !c.notConst[v] && !c.varConst(v) {
				c.notConst[v], changed = true, true
			}
		}
		for fn := range c.decls {
			if !c.notConst[fn] && !c.funcConst(fn) {
				c.notConst[fn], changed = true, true
			}
		}
	}
}

// varConst is one step of settle for a variable or parameter.
func (c *constSQL) varConst(v *types.Var) bool {
	if v.Exported() && v.Pkg() != nil && v.Parent() == v.Pkg().Scope() {
		return false // another package may assign it
	}
	if p, ok := c.params[v]; ok {
		calls := c.calls[p.fn]
		if len(calls) == 0 || c.escaped[p.fn] {
			return false
		}
		for _, call := range calls {
			if p.index >= len(call.Args) && !p.variadic {
				return false
			}
			// A variadic parameter takes every argument from its index on
			// (or the one slice spread into it).
			for i := p.index; i < len(call.Args); i++ {
				if !c.isConst(call.Args[i]) {
					return false
				}
				if !p.variadic {
					break
				}
			}
		}
		// A parameter may also be assigned in its function's body.
	}
	for _, src := range c.sources[v] {
		if src.unknown || !src.zero && !c.isConst(src.expr) {
			return false
		}
	}
	return true
}

// funcConst is one step of settle for a function: it has one result and
// every return statement returns a constant expression.
func (c *constSQL) funcConst(fn *types.Func) bool {
	d := c.decls[fn]
	sig, _ := fn.Type().(*types.Signature)
	if d.Body == nil || sig == nil || sig.Results().Len() != 1 {
		return false
	}
	ok := true
	ast.Inspect(d.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false // its returns are its own
		case *ast.ReturnStmt:
			ok = ok && len(n.Results) == 1 && c.isConst(n.Results[0])
		}
		return ok
	})
	return ok
}

// isConst reports whether e's value is built only from constants, given
// what settle has found so far.
func (c *constSQL) isConst(e ast.Expr) bool {
	if tv, ok := c.info.Types[e]; ok && tv.Value != nil {
		return true // a literal, a named constant, a constant expression
	}
	switch e := e.(type) {
	case *ast.ParenExpr:
		return c.isConst(e.X)
	case *ast.BinaryExpr:
		return e.Op == token.ADD && c.isConst(e.X) && c.isConst(e.Y)
	case *ast.Ident:
		switch obj := c.info.Uses[e].(type) {
		case *types.Const:
			return true
		case *types.Var:
			_, known := c.sources[obj]
			_, param := c.params[obj]
			return (known || param) && !c.notConst[obj]
		}
	case *ast.CompositeLit:
		for _, elt := range e.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				elt = kv.Value
			}
			if !c.isConst(elt) {
				return false
			}
		}
		return true
	case *ast.IndexExpr: // an element of a constant container
		return c.isConst(e.X)
	case *ast.SliceExpr:
		return c.isConst(e.X)
	case *ast.CallExpr:
		if tv, ok := c.info.Types[e.Fun]; ok && tv.IsType() && len(e.Args) == 1 {
			return c.isConst(e.Args[0]) // a conversion
		}
		if id, ok := ast.Unparen(e.Fun).(*ast.Ident); ok && id.Name == "append" {
			if _, builtin := c.info.Uses[id].(*types.Builtin); builtin {
				for _, a := range e.Args {
					if !c.isConst(a) {
						return false
					}
				}
				return true
			}
		}
		if _, fn := c.callee(e); fn != nil && c.decls[fn] != nil {
			return !c.notConst[fn]
		} else if fn != nil && c.module != nil {
			return c.module.constFunc(fn)
		}
	}
	return false
}
