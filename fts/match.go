package fts

import (
	"errors"
	"strings"
)

// ErrUnsupportedMatch is returned by [ParseMatch] for a MATCH expression
// outside the part of FTS5's syntax a [Plan] can hold (NEAR groups,
// parentheses, column lists, '^', a column filter other than content):
// Parse never produces one, so an engine meeting it has been handed a
// plan that Parse did not make.
var ErrUnsupportedMatch = errors.New("fts: MATCH expression outside the syntax of a plan")

// ExprKind is the kind of an [Expr] node.
type ExprKind int

const (
	// ExprPhrase is one phrase: a bareword or a "quoted string", perhaps
	// with a prefix '*'.
	ExprPhrase ExprKind = iota
	// ExprAnd matches what every child matches (AND, and the implicit AND
	// of phrases written side by side).
	ExprAnd
	// ExprOr matches what any child matches.
	ExprOr
	// ExprNot matches what its first child matches and its second does
	// not (FTS5's binary NOT: a NOT b).
	ExprNot
)

// Expr is a parsed MATCH expression of a [RouteUnicode61] or
// [RouteTrigram] plan, with FTS5's precedence applied: implicit AND binds
// tightest, then NOT, AND, OR; operators of a kind are left-associative.
type Expr struct {
	Kind ExprKind
	// Text is a phrase's text, its quotes removed ("" read as "): what the
	// route's tokenizer splits into the phrase's tokens.
	Text string
	// Prefix reports a phrase's trailing '*': its last token matches as a
	// prefix.
	Prefix bool
	// Implicit reports an ExprAnd of phrases written side by side (FTS5
	// drops a phrase without tokens from such a group; see
	// sqlite3Fts5ParseImplicitAnd), as opposed to an explicit AND.
	Implicit bool
	// Children are an operator's operands: two or more for ExprAnd and
	// ExprOr, exactly two for ExprNot.
	Children []Expr
}

// ParseMatch parses a plan's Match into its expression tree. Its error is
// [ErrUnsupportedMatch] for syntax a plan never holds (see there).
func ParseMatch(match string) (Expr, error) {
	toks, ok := lex(match)
	if !ok || len(toks) == 0 {
		return Expr{}, ErrUnsupportedMatch
	}
	p := &treeParser{toks: toks}
	e, err := p.expr(0)
	if err != nil {
		return Expr{}, err
	}
	if p.pos != len(p.toks) {
		return Expr{}, ErrUnsupportedMatch
	}
	return e, nil
}

type treeParser struct {
	toks []token
	pos  int
}

func (p *treeParser) peek(k tokenKind) bool {
	return p.pos < len(p.toks) && p.toks[p.pos].kind == k
}

// expr is check's grammar (syntax.go), building the tree.
func (p *treeParser) expr(min int) (Expr, error) {
	left, err := p.operand()
	if err != nil {
		return Expr{}, err
	}
	for p.pos < len(p.toks) {
		op := p.toks[p.pos].kind
		prec := precedence(op)
		if prec == 0 || prec < min {
			break
		}
		p.pos++
		right, err := p.expr(prec + 1)
		if err != nil {
			return Expr{}, err
		}
		left = join(op, left, right)
	}
	return left, nil
}

// join combines two operands; AND and OR absorb explicit children of
// their own kind, as FTS5's nodes do.
func join(op tokenKind, l, r Expr) Expr {
	kind := map[tokenKind]ExprKind{tokAnd: ExprAnd, tokOr: ExprOr, tokNot: ExprNot}[op]
	if kind == ExprNot {
		return Expr{Kind: ExprNot, Children: []Expr{l, r}}
	}
	var kids []Expr
	for _, e := range []Expr{l, r} {
		if e.Kind == kind && !e.Implicit {
			kids = append(kids, e.Children...)
		} else {
			kids = append(kids, e)
		}
	}
	return Expr{Kind: kind, Children: kids}
}

// operand is one or more phrases side by side (an implicit AND).
func (p *treeParser) operand() (Expr, error) {
	var phrases []Expr
	for p.peek(tokString) || p.peek(tokMinus) {
		e, err := p.filteredPhrase()
		if err != nil {
			return Expr{}, err
		}
		phrases = append(phrases, e)
	}
	switch len(phrases) {
	case 0:
		return Expr{}, ErrUnsupportedMatch
	case 1:
		return phrases[0], nil
	}
	return Expr{Kind: ExprAnd, Implicit: true, Children: phrases}, nil
}

// filteredPhrase is [content:]phrase; -content: (every column but
// content: nothing, on a one-column table) is refused.
func (p *treeParser) filteredPhrase() (Expr, error) {
	if p.peek(tokMinus) {
		return Expr{}, ErrUnsupportedMatch
	}
	if p.pos+1 < len(p.toks) && p.toks[p.pos+1].kind == tokColon {
		if !equalFoldASCII([]rune(dequote(p.toks[p.pos].text)), strings.ToUpper(column)) {
			return Expr{}, ErrUnsupportedMatch
		}
		p.pos += 2
	}
	if !p.peek(tokString) {
		return Expr{}, ErrUnsupportedMatch
	}
	e := Expr{Kind: ExprPhrase, Text: dequote(p.toks[p.pos].text)}
	p.pos++
	if p.peek(tokStar) {
		e.Prefix = true
		p.pos++
	}
	return e, nil
}

// Resolve applies FTS5's rule for phrases without tokens (a phrase the
// route's tokenizer makes nothing of, such as "..." for unicode61 or a
// phrase under 3 characters for trigram), which empty reports: such a
// phrase matches nothing (FTS5 makes it an EOF node), an implicit AND
// drops it unless all its phrases are such (sqlite3Fts5ParseImplicitAnd),
// an explicit AND with one matches nothing, an OR ignores it, and NOT
// with one on its right is its left side. It returns the expression left,
// with no such phrase in it, or ok false when the whole expression
// matches nothing.
func (e Expr) Resolve(empty func(phrase Expr) bool) (_ Expr, ok bool) {
	switch e.Kind {
	case ExprPhrase:
		return e, !empty(e)
	case ExprNot:
		l, ok := e.Children[0].Resolve(empty)
		if !ok {
			return Expr{}, false
		}
		r, ok := e.Children[1].Resolve(empty)
		if !ok {
			return l, true
		}
		return Expr{Kind: ExprNot, Children: []Expr{l, r}}, true
	}
	var kids []Expr
	for _, c := range e.Children {
		r, ok := c.Resolve(empty)
		if !ok {
			if e.Kind == ExprAnd && !e.Implicit {
				return Expr{}, false
			}
			continue
		}
		kids = append(kids, r)
	}
	switch len(kids) {
	case 0:
		return Expr{}, false
	case 1:
		return kids[0], true
	}
	return Expr{Kind: e.Kind, Implicit: e.Implicit, Children: kids}, true
}
