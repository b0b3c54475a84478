package fts

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// PostgreSQL's tsvector limits (src/include/tsearch/ts_type.h), which
// [TSVector] keeps so that an INSERT of its value never fails.
const (
	// MaxLexemeBytes is the longest lexeme written: PostgreSQL refuses
	// one of 2048 bytes or more (MAXSTRLEN is 2047); a longer token is cut
	// at a character boundary, in the document and in the query alike.
	MaxLexemeBytes = 2046
	// MaxPosition is the largest position (MAXENTRYPOS - 1).
	MaxPosition = 16383
	// MaxPositions is how many positions one lexeme keeps (MAXNUMPOS).
	MaxPositions = 256
	// maxStringBytes bounds the lexemes and positions of one value
	// (MAXSTRPOS, 1 MiB - 1: "string is too long for tsvector").
	maxStringBytes = 1<<20 - 1
)

// CapLexeme returns tok cut to at most [MaxLexemeBytes] bytes, at a
// character boundary: the lexeme PostgreSQL holds for an FTS5 token.
func CapLexeme(tok string) string {
	if len(tok) <= MaxLexemeBytes {
		return tok
	}
	i := MaxLexemeBytes
	for i > 0 && !utf8.RuneStart(tok[i]) {
		i--
	}
	return tok[:i]
}

// QuoteLexeme returns lex as a quoted lexeme of PostgreSQL's tsvector and
// tsquery input: in single quotes, a quote doubled and a backslash
// escaped. (unicode61 tokens hold neither; the quoting is for safety.)
func QuoteLexeme(lex string) string {
	return "'" + strings.NewReplacer(`'`, `''`, `\`, `\\`).Replace(lex) + "'"
}

// TSVector returns the tsvector literal of text for PostgreSQL's
// messages_search.tokens: every [Tokens] token as a lexeme (cut by
// [CapLexeme]) with its positions, the i-th token (from 0) at position i+1,
// so that adjacent tokens have adjacent positions as in FTS5 and a phrase
// query (<->) finds what an FTS5 phrase finds. Lexemes appear in the order
// of their first occurrence: 'how':1 'do':2,7 … The value is always one
// PostgreSQL accepts (the empty text gives ""), within its limits:
//
//   - a token past position [MaxPosition] (the 16,384th on) is kept
//     without that position, and a lexeme keeps its first [MaxPositions]
//     positions only: phrases through those occurrences no longer match
//     (a word alone, or a prefix, still does, its lexeme being there);
//   - a lexeme cut to [MaxLexemeBytes] matches any token of the same
//     first 2046 bytes;
//   - lexemes and positions take at most 1 MiB: the lexemes first met
//     past that are left out, and a word met only there is not found
//     (text of over 100,000 distinct words, about).
//
// FTS5 has none of these limits.
func TSVector(text string) string {
	type entry struct {
		lex string
		pos []int
	}
	var order []*entry
	seen := map[string]*entry{}
	for i, tok := range Tokens(text) {
		lex := CapLexeme(tok)
		e := seen[lex]
		if e == nil {
			e = &entry{lex: lex}
			seen[lex] = e
			order = append(order, e)
		}
		if p := i + 1; p <= MaxPosition && len(e.pos) < MaxPositions {
			e.pos = append(e.pos, p)
		}
	}
	var b strings.Builder
	size := 0
	for _, e := range order {
		// tsvectorin's accounting: the lexeme padded to an even length,
		// then a count and the positions, two bytes each.
		cost := len(e.lex) + len(e.lex)%2
		withPos := cost
		if len(e.pos) > 0 {
			withPos += 2 + 2*len(e.pos)
		}
		switch {
		case size+withPos <= maxStringBytes:
			size += withPos
		case size+cost <= maxStringBytes:
			size += cost
			e.pos = nil
		default:
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(QuoteLexeme(e.lex))
		for i, p := range e.pos {
			if i == 0 {
				b.WriteByte(':')
			} else {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(p))
		}
	}
	return b.String()
}
