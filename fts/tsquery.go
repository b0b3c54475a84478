package fts

import (
	"errors"
	"strings"
)

// ErrNotUnicode61 is returned by [TSQuery] for a plan of another route.
var ErrNotUnicode61 = errors.New("fts: not a unicode61 plan")

// TSQuery renders a [RouteUnicode61] plan as a PostgreSQL tsquery literal
// (for CAST($n AS tsquery)) that matches a [TSVector] document exactly when
// the plan's MATCH expression matches the same text in messages_fts,
// within TSVector's limits:
//
//   - each phrase is its [Tokens] tokens (cut by [CapLexeme]), quoted, one
//     after another: 'docker' <-> 'compose'; a prefix '*' makes its last
//     token a prefix: 'deplo':*;
//   - AND (and the implicit AND of phrases side by side) is &, OR is |,
//     a NOT b is a & !b, every operand in parentheses;
//   - phrases without tokens are resolved as FTS5 does ([Expr.Resolve]).
//
// NEAR never reaches a plan ([Sanitize] removes its parenthesis and NEAR is
// then a word); column filters neither. ok is false when the plan matches
// nothing at all (every phrase without tokens): there is no query to run.
// The error is [ErrNotUnicode61] for a plan of another route, or
// [ErrUnsupportedMatch] from [ParseMatch].
//
// The literal is for the tsquery type's input, not for to_tsquery: the
// lexemes are already unicode61's, and to_tsquery would run them through
// a text search configuration again (its parser splits and its lower()
// folds some of them otherwise), while the document side is a tsvector
// literal too.
func TSQuery(plan Plan) (q string, ok bool, err error) {
	if plan.Route != RouteUnicode61 {
		return "", false, ErrNotUnicode61
	}
	e, err := ParseMatch(plan.Match)
	if err != nil {
		return "", false, err
	}
	e, ok = e.Resolve(func(p Expr) bool { return len(Tokens(p.Text)) == 0 })
	if !ok {
		return "", false, nil
	}
	var b strings.Builder
	writeTSQuery(&b, e)
	return b.String(), true, nil
}

func writeTSQuery(b *strings.Builder, e Expr) {
	switch e.Kind {
	case ExprPhrase:
		toks := Tokens(e.Text)
		for i, t := range toks {
			if i > 0 {
				b.WriteString(" <-> ")
			}
			b.WriteString(QuoteLexeme(CapLexeme(t)))
			if e.Prefix && i == len(toks)-1 {
				b.WriteString(":*")
			}
		}
		return
	case ExprNot:
		b.WriteByte('(')
		writeTSQuery(b, e.Children[0])
		b.WriteString(") & !(")
		writeTSQuery(b, e.Children[1])
		b.WriteByte(')')
		return
	}
	op := " & "
	if e.Kind == ExprOr {
		op = " | "
	}
	for i, c := range e.Children {
		if i > 0 {
			b.WriteString(op)
		}
		b.WriteByte('(')
		writeTSQuery(b, c)
		b.WriteByte(')')
	}
}
