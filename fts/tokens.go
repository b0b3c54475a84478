package fts

import (
	"sort"
	"strings"
	"unicode/utf8"
)

//go:generate go run -tags sqlite_fts5 ./internal/unicode61gen -o unicode61_tables.go

// Tokens returns the tokens FTS5's unicode61 tokenizer makes of text with
// its default options (remove_diacritics=1, token characters the Unicode
// categories L*, N* and Co), in order: the terms messages_fts indexes for a
// message, each at the position of its index in the slice. It is the
// tokenizer of the other engines' search (PostgreSQL's tsvector, [TSVector])
// so that a word matches there exactly when it matches on SQLite.
//
// The rules are fts5UnicodeTokenize's (SQLite's fts5_unicode2.c and
// fts5_tokenize.c, read, not copied): a token is a run of token characters,
// which a token character starts, and which a token character or a
// diacritic (a combining mark unicode61 removes: U+0300..U+0331, some of
// them) continues; every other character separates tokens, a diacritic that
// no token character precedes included. Inside a token each character is
// folded as unicode61 folds it: to lower case, its diacritic removed
// (É → e, ﬀ stays), a diacritic dropped. Which characters are which, and
// their folds, are SQLite's own tables, not Go's unicode package (whose
// Unicode version differs): unicode61_tables.go was read from the
// tokenizer itself by internal/unicode61gen.
//
// Invalid UTF-8 is read as Go reads it, each bad byte U+FFFD, a
// separator; SQLite's decoder reads some invalid sequences otherwise, so
// for such text (which the store never writes) the tokens may differ. NUL
// separates. FTS5 cuts a token longer than 32768 bytes to that length;
// Tokens returns it whole (the engines cut it to their own limit).
func Tokens(text string) []string {
	spans := TokenSpans(text)
	if spans == nil {
		return nil
	}
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = sp.Token
	}
	return out
}

// TokenSpan is one token of a text and where it is: text[Start:End] is
// what the tokenizer read for it, from its first token character to its
// last token character or diacritic (FTS5's iStart and iEnd offsets).
type TokenSpan struct {
	Token      string
	Start, End int
}

// TokenSpans returns [Tokens]' tokens with their byte offsets in text, as
// FTS5's tokenizer reports them to snippet() and highlight().
func TokenSpans(text string) []TokenSpan {
	var out []TokenSpan
	var tok strings.Builder
	start, end := -1, 0
	flush := func() {
		if start >= 0 {
			out = append(out, TokenSpan{Token: tok.String(), Start: start, End: end})
			tok.Reset()
			start = -1
		}
	}
	for i, r := range text {
		switch classOf(r) {
		case classToken:
			if start < 0 {
				start = i
			}
		case classDiacritic:
			if start < 0 {
				continue // a diacritic does not start a token
			}
		default:
			flush()
			continue
		}
		end = i + utf8.RuneLen(r) // never U+FFFD (a bad byte): a separator
		if f, keep := fold(r); keep {
			tok.WriteRune(f)
		}
	}
	flush()
	return out
}

// runeRange is an inclusive range of code points.
type runeRange struct{ lo, hi rune }

// foldRange maps lo..hi to c+delta, or drops them from a token.
type foldRange struct {
	lo, hi, delta rune
	drop          bool
}

const (
	classSeparator = iota
	classToken
	classDiacritic
)

// classOf is r's class for the tokenizer.
func classOf(r rune) int {
	if r < 0x80 {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return classToken
		}
		return classSeparator
	}
	if inRuneRanges(unicode61TokenRanges, r) {
		return classToken
	}
	if inRuneRanges(unicode61DiacriticRanges, r) {
		return classDiacritic
	}
	return classSeparator
}

func inRuneRanges(rs []runeRange, r rune) bool {
	i := sort.Search(len(rs), func(i int) bool { return rs[i].hi >= r })
	return i < len(rs) && rs[i].lo <= r
}

// fold is what r becomes inside a token; keep is false when the tokenizer
// drops it.
func fold(r rune) (_ rune, keep bool) {
	if r < 0x80 {
		if r >= 'A' && r <= 'Z' {
			return r + 32, true
		}
		return r, true
	}
	i := sort.Search(len(unicode61Folds), func(i int) bool { return unicode61Folds[i].hi >= r })
	if i < len(unicode61Folds) && unicode61Folds[i].lo <= r {
		f := unicode61Folds[i]
		if f.drop {
			return 0, false
		}
		return r + f.delta, true
	}
	return r, true
}
