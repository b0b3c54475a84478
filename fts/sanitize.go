package fts

import (
	"slices"
	"strconv"
	"strings"
)

// MaxQueryChars is upstream's MAX_FTS5_QUERY_CHARS: Sanitize reads at
// most this many code points of a query, as upstream does before any other
// step.
const MaxQueryChars = 2048

// Sanitize is the original's SessionDB._sanitize_fts5_query, reproduced
// exactly as upstream has it at schema v21 (c2a3b9ce5; v11's reference
// spec §9.1 plus the two changes since) with Python's Unicode \w, \b and
// \s and str.strip's whitespace set:
//
//  0. Only the first MaxQueryChars code points are read (v21).
//  1. Each balanced "quoted phrase" (a '"', the shortest run of non-'"'
//     characters, a '"') is set aside behind a placeholder "\x00Q<i>\x00".
//  2. Every remaining + { } ( ) : " ^ becomes a space (':' since v21: FTS5
//     reads word:term as a column filter).
//  3. Runs of '*' collapse to one; a '*' at the start or after whitespace
//     is dropped.
//  4. The text is stripped, one leading AND/OR/NOT (any case, followed by
//     a word boundary) is removed with the whitespace after it, the text is
//     stripped again, and one trailing AND/OR/NOT preceded by whitespace is
//     removed with that whitespace.
//  5. Every word of two or more \w runs joined by '.', '-' or '_' (chat-send,
//     P2.2, sp_new, my-app.config.ts) is wrapped in double quotes.
//  6. The phrases are put back (placeholder i replaced by phrase i, in
//     order, over the whole text) and the result is stripped.
//
// The result may be an invalid FTS5 query ("a AND OR b", "it's", "x - y"):
// the original then returned no results. [Parse] builds on
// Sanitize but never produces an invalid query. Each invalid UTF-8 byte in
// q is read as U+FFFD (Python only ever sees decoded text).
func Sanitize(q string) string {
	runes := []rune(q)
	if len(runes) > MaxQueryChars {
		runes = runes[:MaxQueryChars]
	}
	s, phrases := protectPhrases(runes)
	s = blankSpecials(s)
	s = dropStars(s)
	s = trimOperators(s)
	s = quoteCompounds(s)
	out := restorePhrases(string(s), phrases, slices.Contains(runes, 0))
	return string(strip([]rune(out)))
}

// restorePhrases is step 6: for i = 0, 1, …, every placeholder(i) in s is
// replaced with phrases[i]. When the user typed no NUL, the only
// placeholders are the ones step 1 made, each once, and a phrase put back
// (it starts and ends with '"') cannot complete another, so one pass does
// the same; with a NUL in the input, the original's replacements run one
// after the other.
func restorePhrases(s string, phrases []string, userNUL bool) string {
	if userNUL {
		for i, p := range phrases {
			s = strings.ReplaceAll(s, placeholder(i), p)
		}
		return s
	}
	var b strings.Builder
	for {
		start := strings.IndexByte(s, 0)
		if start < 0 {
			break
		}
		k := strings.IndexByte(s[start+1:], 0)
		if k < 0 {
			break
		}
		end := start + 1 + k
		i, ok := placeholderIndex(s[start+1 : end])
		if !ok || i >= len(phrases) { // not reached: step 1 made every NUL pair
			b.WriteString(s[:end])
			s = s[end:]
			continue
		}
		b.WriteString(s[:start])
		b.WriteString(phrases[i])
		s = s[end+1:]
	}
	b.WriteString(s)
	return b.String()
}

// placeholder is the text step 1 leaves in place of phrase i.
func placeholder(i int) string {
	return "\x00Q" + strconv.Itoa(i) + "\x00"
}

// placeholderIndex reads the "Q<i>" between a placeholder's NULs.
func placeholderIndex(s string) (int, bool) {
	digits, ok := strings.CutPrefix(s, "Q")
	if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	i, err := strconv.Atoi(digits)
	return i, err == nil
}

// protectPhrases is step 1, re.sub(r'"[^"]*"', …): it replaces each
// balanced phrase with its placeholder and returns the phrases in order.
func protectPhrases(s []rune) ([]rune, []string) {
	var out []rune
	var phrases []string
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			out = append(out, s[i])
			continue
		}
		end := indexRune(s[i+1:], '"')
		if end < 0 { // an unbalanced quote: no other '"' follows
			return append(out, s[i:]...), phrases
		}
		j := i + 1 + end
		phrases = append(phrases, string(s[i:j+1]))
		out = append(out, []rune(placeholder(len(phrases)-1))...)
		i = j
	}
	return out, phrases
}

// blankSpecials is step 2, re.sub(r'[+{}():\"^]', " ", s).
func blankSpecials(s []rune) []rune {
	out := make([]rune, len(s))
	for i, r := range s {
		switch r {
		case '+', '{', '}', '(', ')', ':', '"', '^':
			r = ' '
		}
		out[i] = r
	}
	return out
}

// dropStars is step 3: re.sub(r"\*+", "*", s) then
// re.sub(r"(^|\s)\*", r"\1", s). Once runs are collapsed no '*' follows
// another, so each '*' at the start or after whitespace simply goes.
func dropStars(s []rune) []rune {
	var collapsed []rune
	for i, r := range s {
		if r == '*' && i > 0 && s[i-1] == '*' {
			continue
		}
		collapsed = append(collapsed, r)
	}
	var out []rune
	for i, r := range collapsed {
		if r == '*' && (i == 0 || isSpace(collapsed[i-1])) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// trimOperators is step 4: re.sub(r"(?i)^(AND|OR|NOT)\b\s*", "", s.strip())
// then re.sub(r"(?i)\s+(AND|OR|NOT)\s*$", "", s.strip()).
func trimOperators(s []rune) []rune {
	s = strip(s)
	if n := operatorPrefix(s); n > 0 && isBoundary(s, n) {
		for n < len(s) && isSpace(s[n]) {
			n++
		}
		s = s[n:]
	}
	s = strip(s)
	if n := operatorSuffix(s); n > 0 && n < len(s) && isSpace(s[len(s)-n-1]) {
		end := len(s) - n
		for end > 0 && isSpace(s[end-1]) {
			end--
		}
		s = s[:end]
	}
	return s
}

// operatorWords are the boolean operators, upper case.
var operatorWords = []string{"AND", "OR", "NOT"}

// operatorPrefix returns the length of the operator (any ASCII case) s
// starts with, or 0.
func operatorPrefix(s []rune) int {
	for _, op := range operatorWords {
		if len(s) >= len(op) && equalFoldASCII(s[:len(op)], op) {
			return len(op)
		}
	}
	return 0
}

// operatorSuffix returns the length of the operator (any ASCII case) s ends
// with, or 0.
func operatorSuffix(s []rune) int {
	for _, op := range operatorWords {
		if len(s) >= len(op) && equalFoldASCII(s[len(s)-len(op):], op) {
			return len(op)
		}
	}
	return 0
}

// equalFoldASCII reports whether s equals the upper-case ASCII word w,
// ignoring ASCII case. Python's IGNORECASE folds no other character onto
// the letters of AND, OR and NOT.
func equalFoldASCII(s []rune, w string) bool {
	if len(s) != len(w) {
		return false
	}
	for i, r := range s {
		if r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		if r != rune(w[i]) {
			return false
		}
	}
	return true
}

// quoteCompounds is step 5, re.sub(r"\b(\w+(?:[._-]\w+)+)\b", r'"\1"', s).
//
// A match starts where a run of word characters starts. The regexp first
// takes the whole run and then as many ('.' or '-', next run) pairs as
// follow; if not even one follows, it backtracks into the run, which
// matches as a whole when it has a '_' with a word character on both sides
// ('_' is itself a word character). Either way the match ends at the end
// of a run, where \b holds.
func quoteCompounds(s []rune) []rune {
	var out []rune
	for i := 0; i < len(s); {
		if !isWord(s[i]) {
			out = append(out, s[i])
			i++
			continue
		}
		run := wordRunEnd(s, i)
		end := run
		for end+1 < len(s) && (s[end] == '.' || s[end] == '-') && isWord(s[end+1]) {
			end = wordRunEnd(s, end+1)
		}
		if end == run && !hasInnerUnderscore(s[i:run]) {
			out = append(out, s[i:run]...)
			i = run
			continue
		}
		out = append(out, '"')
		out = append(out, s[i:end]...)
		out = append(out, '"')
		i = end
	}
	return out
}

// wordRunEnd returns the index just past the run of word characters that
// starts at i.
func wordRunEnd(s []rune, i int) int {
	for i < len(s) && isWord(s[i]) {
		i++
	}
	return i
}

// hasInnerUnderscore reports whether the word run w has a '_' that is
// neither its first nor its last character.
func hasInnerUnderscore(w []rune) bool {
	for k := 1; k < len(w)-1; k++ {
		if w[k] == '_' {
			return true
		}
	}
	return false
}

func indexRune(s []rune, r rune) int {
	for i, c := range s {
		if c == r {
			return i
		}
	}
	return -1
}
