package fts

import "strings"

// word is one whitespace-separated piece of a sanitised query.
type word struct {
	raw  string // as written, the quotes of its phrases included
	text string // what it searches for: raw without those quotes
	op   string // "AND", "OR" or "NOT" when the word is that operator
}

// splitWords splits a sanitised query at Python whitespace (and NUL, which
// Parse treats as a space). A balanced "quoted phrase" belongs to the word
// it starts in, spaces and all: '"' pairs with the next '"', as in step 1
// of [Sanitize]. A '"' with no partner is dropped. A word is an operator
// only when it is exactly AND, OR or NOT, unquoted and in upper case: FTS5
// reads lower-case and, or and not as ordinary words, and "OR" in quotes
// searches for the word.
func splitWords(s string) []word {
	rs := []rune(s)
	var words []word
	var raw, text strings.Builder
	flush := func() {
		if raw.Len() == 0 {
			return
		}
		w := word{raw: raw.String(), text: text.String()}
		switch w.raw {
		case "AND", "OR", "NOT":
			w.op = w.raw
		}
		words = append(words, w)
		raw.Reset()
		text.Reset()
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case isSpace(r) || r == 0:
			flush()
		case r == '"':
			end := indexRune(rs[i+1:], '"')
			if end < 0 {
				continue // a lone quote
			}
			inner := rs[i+1 : i+1+end]
			raw.WriteString(`"` + string(inner) + `"`)
			text.WriteString(strings.ReplaceAll(string(inner), "\x00", " "))
			i += end + 1
		default:
			raw.WriteRune(r)
			text.WriteRune(r)
		}
	}
	flush()
	return words
}

// arrange puts the operators of ws where FTS5 accepts them: between two
// terms. Operators before the first term or after the last are dropped,
// and of several operators in a row only the last counts ("a AND NOT b" is
// "a NOT b", "a AND OR b" is "a OR b"). A query of nothing but operators
// searches for them as words ("OR" finds the word or).
func arrange(ws []word) []word {
	var out []word
	var pending *word
	for i := range ws {
		w := ws[i]
		if w.op != "" {
			if len(out) > 0 {
				pending = &ws[i]
			}
			continue
		}
		if pending != nil {
			out = append(out, *pending)
			pending = nil
		}
		out = append(out, w)
	}
	if len(out) > 0 {
		return out
	}
	for _, w := range ws {
		out = append(out, word{raw: quotePhrase(w.op), text: w.op})
	}
	return out
}

// quotePhrase writes t as an FTS5 string: in double quotes, with each
// double quote inside doubled.
func quotePhrase(t string) string {
	return `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
}
