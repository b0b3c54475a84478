package fts

import "strings"

// A checker for FTS5 query syntax, used to tell whether [Sanitize]'s output
// can be handed to SQLite as it is and to make sure nothing else [Parse]
// builds fails. It follows SQLite's own lexer (fts5ExprGetToken) and
// grammar (fts5parse.y) for the part of the syntax Parse can produce:
// terms (barewords and "strings"), the prefix '*', column filters on the
// one column (content:term, -content:term), implicit AND, and AND, OR and
// NOT with their precedence (NOT binds tighter than AND, AND tighter than
// OR). It rejects, conservatively, the rest of FTS5's syntax — parentheses,
// {column lists}, NEAR(...), '+' and '^' — which Sanitize removes outside
// quotes, and a NUL byte, where SQLite stops reading the query.

// column is the one column of messages_fts and messages_fts_trigram, the
// only name a column filter may use.
const column = "content"

// maxDepth is SQLITE_FTS5_MAX_EXPR_DEPTH, the deepest expression tree FTS5
// accepts.
const maxDepth = 256

type tokenKind int

const (
	tokString tokenKind = iota // a bareword or a "quoted string"
	tokStar                    // *
	tokColon                   // :
	tokMinus                   // -
	tokAnd                     // AND
	tokOr                      // OR
	tokNot                     // NOT
)

type token struct {
	kind tokenKind
	text string // as written, quotes included
}

// isBareword reports whether FTS5 lets byte c appear in a bareword: ASCII
// letters and digits, '_', the substitute character 0x1A and every byte of
// a non-ASCII character.
func isBareword(c byte) bool {
	return c >= 0x80 || c == 0x1a || c == '_' ||
		(c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
}

// isFTS5Space reports whether FTS5 skips c between tokens. Only these
// four: '\v', '\f' and Unicode spaces are not separators to FTS5.
func isFTS5Space(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// lex splits s into FTS5 tokens. It fails on what SQLite rejects while
// reading (an unterminated string, a character that is neither a bareword
// character nor an operator) and on the operators this checker leaves out.
func lex(s string) ([]token, bool) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case isFTS5Space(c):
			i++
			continue
		case c == '*':
			toks = append(toks, token{tokStar, "*"})
			i++
		case c == ':':
			toks = append(toks, token{tokColon, ":"})
			i++
		case c == '-':
			toks = append(toks, token{tokMinus, "-"})
			i++
		case c == '"':
			j := i + 1
			for {
				k := strings.IndexByte(s[j:], '"')
				if k < 0 {
					return nil, false // unterminated string
				}
				j += k + 1
				if j == len(s) || s[j] != '"' {
					break
				}
				j++ // "" is an escaped quote
			}
			if strings.IndexByte(s[i:j], 0) >= 0 {
				return nil, false // SQLite's string would end at the NUL
			}
			toks = append(toks, token{tokString, s[i:j]})
			i = j
		case isBareword(c):
			j := i + 1
			for j < len(s) && isBareword(s[j]) {
				j++
			}
			toks = append(toks, barewordToken(s[i:j]))
			i = j
		default:
			return nil, false
		}
	}
	return toks, true
}

// barewordToken classifies a bareword: exactly AND, OR or NOT (upper case)
// is an operator, anything else a term.
func barewordToken(w string) token {
	switch w {
	case "AND":
		return token{tokAnd, w}
	case "OR":
		return token{tokOr, w}
	case "NOT":
		return token{tokNot, w}
	}
	return token{tokString, w}
}

// dequote returns the text of a string token: a "quoted string" loses its
// quotes and has "" read as ", a bareword stays as it is.
func dequote(t string) string {
	if !strings.HasPrefix(t, `"`) {
		return t
	}
	return strings.ReplaceAll(t[1:len(t)-1], `""`, `"`)
}

// checked is what check learns about a valid query.
type checked struct {
	phrases   []string // the text of every phrase, dequoted
	operators bool     // whether an AND, OR or NOT appears
}

// check reports whether s is a valid FTS5 query in the subset described
// above (so SQLite accepts it for messages_fts and messages_fts_trigram)
// and returns its phrases.
func check(s string) (checked, bool) {
	toks, ok := lex(s)
	if !ok || len(toks) == 0 {
		return checked{}, false
	}
	p := &parser{toks: toks}
	if _, ok := p.expr(0); !ok || p.pos != len(p.toks) {
		return checked{}, false
	}
	return p.out, true
}

// node is the shape of an expression tree, as much as the depth limit
// needs: AND and OR nodes absorb children of their own kind, a NOT node
// always has exactly two children.
type node struct {
	kind   tokenKind // tokString for a phrase, else the operator
	height int
}

type parser struct {
	toks []token
	pos  int
	out  checked
}

func (p *parser) peek(k tokenKind) bool {
	return p.pos < len(p.toks) && p.toks[p.pos].kind == k
}

func (p *parser) peekAt(off int, k tokenKind) bool {
	return p.pos+off < len(p.toks) && p.toks[p.pos+off].kind == k
}

// precedence of the binary operators; higher binds tighter.
func precedence(k tokenKind) int {
	switch k {
	case tokOr:
		return 1
	case tokAnd:
		return 2
	case tokNot:
		return 3
	}
	return 0
}

// expr parses operands joined by operators of at least precedence min,
// left-associatively.
func (p *parser) expr(min int) (node, bool) {
	left, ok := p.operand()
	if !ok {
		return node{}, false
	}
	for p.pos < len(p.toks) {
		op := p.toks[p.pos].kind
		prec := precedence(op)
		if prec == 0 || prec < min {
			break
		}
		p.pos++
		p.out.operators = true
		right, ok := p.expr(prec + 1)
		if !ok {
			return node{}, false
		}
		left = combine(op, left, right)
		if left.height > maxDepth {
			return node{}, false
		}
	}
	return left, true
}

// combine builds the node SQLite's sqlite3Fts5ParseNode would.
func combine(op tokenKind, l, r node) node {
	child := func(n node) int {
		if op != tokNot && n.kind == op {
			return n.height - 1 // its children become ours
		}
		return n.height
	}
	return node{op, max(child(l), child(r)) + 1}
}

// operand parses one or more phrases, each perhaps behind a column filter,
// joined by implicit AND. Its height is an upper bound: SQLite drops
// phrases without tokens from an implicit AND, which can only lower it.
func (p *parser) operand() (node, bool) {
	n := 0
	for p.peek(tokString) || p.peek(tokMinus) {
		if !p.filteredPhrase() {
			return node{}, false
		}
		n++
	}
	switch n {
	case 0:
		return node{}, false
	case 1:
		return node{tokString, 0}, true
	}
	return node{tokAnd, 1}, true
}

// filteredPhrase parses [-]column:phrase or phrase.
func (p *parser) filteredPhrase() bool {
	minus := p.peek(tokMinus)
	if minus {
		p.pos++
	}
	if p.peek(tokString) && p.peekAt(1, tokColon) {
		if !equalFoldASCII([]rune(dequote(p.toks[p.pos].text)), strings.ToUpper(column)) {
			return false // SQLite: no such column (names compare ASCII-case-insensitively)
		}
		p.pos += 2
	} else if minus {
		return false
	}
	return p.phrase()
}

// phrase parses a string with an optional prefix '*'.
func (p *parser) phrase() bool {
	if !p.peek(tokString) {
		return false
	}
	p.out.phrases = append(p.out.phrases, dequote(p.toks[p.pos].text))
	p.pos++
	if p.peek(tokStar) {
		p.pos++
	}
	return true
}
