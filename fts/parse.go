package fts

import (
	"strconv"
	"strings"
	"unicode"
)

// Route says which index a plan runs against, and so how its hits are
// ordered and cut into snippets.
type Route int

const (
	// RouteNone: nothing searchable; there is no statement to run and no
	// result.
	RouteNone Route = iota
	// RouteUnicode61: the MATCH expression against messages_fts (the
	// default unicode61 tokenizer), best first (bm25).
	RouteUnicode61
	// RouteTrigram: the MATCH expression against messages_fts_trigram
	// (tokenize='trigram'), best first (bm25).
	RouteTrigram
	// RouteLike: a substring scan of content, tool_name and tool_calls for
	// the plan's groups, newest first.
	RouteLike
)

// String returns the route's name: none, unicode61, trigram or like.
func (r Route) String() string {
	switch r {
	case RouteNone:
		return "none"
	case RouteUnicode61:
		return "unicode61"
	case RouteTrigram:
		return "trigram"
	case RouteLike:
		return "like"
	}
	return "Route(" + strconv.Itoa(int(r)) + ")"
}

// Plan is a parsed search, final: everything an engine needs to run it,
// decided here, so that each engine only renders it as its own statement.
// Only the fields of its Route are set; a RouteNone plan is the zero Plan.
type Plan struct {
	Route Route
	// Match is the FTS5 MATCH expression (RouteUnicode61, RouteTrigram);
	// always valid FTS5 syntax for both tables.
	Match string
	// Groups are the alternatives of a RouteLike plan: a message matches
	// when any group matches. Every group has at least one positive term,
	// and at least one group is present.
	Groups []LikeGroup
	// Anchor is, for RouteLike, the literal text whose first occurrence in
	// content centres the snippet: the Text of the first term of the first
	// group.
	Anchor string
}

// minTrigramCJK is the number of CJK code points a query, and every word of
// it that has any, needs for the trigram index; shorter CJK words go to the
// LIKE scan.
const minTrigramCJK = 3

// Parse builds the plan for a user's query; see the package documentation
// for the rules. It never panics. Invalid UTF-8 bytes are read as U+FFFD
// (which no tokenizer indexes, so on their own they search for nothing).
func Parse(q string) Plan {
	if isBlank(q) {
		return Plan{}
	}
	s := Sanitize(q)
	if s == "" {
		return Plan{}
	}
	if !ContainsCJK(s) {
		return unicode61Plan(s)
	}
	words := splitWords(s)
	if CountCJK(s) < minTrigramCJK {
		return likePlan(words)
	}
	for _, w := range words {
		if n := CountCJK(w.text); w.op == "" && n > 0 && n < minTrigramCJK {
			return likePlan(words)
		}
	}
	return trigramPlan(words)
}

// unicode61Plan is Sanitize's output when FTS5 accepts it, as the
// original ran it, and otherwise that output repaired word by word.
func unicode61Plan(s string) Plan {
	if c, ok := check(s); ok {
		if !anyIndexed(c.phrases) {
			return Plan{}
		}
		return Plan{Route: RouteUnicode61, Match: s}
	}
	var kept []word
	for _, w := range splitWords(s) {
		if w.op == "" {
			if c, ok := check(w.raw); ok && !c.operators {
				if !anyIndexed(c.phrases) {
					continue
				}
			} else {
				if !anyIndexed([]string{w.text}) {
					continue
				}
				w.raw = quotePhrase(w.text)
			}
		}
		kept = append(kept, w)
	}
	kept = arrange(kept)
	if len(kept) == 0 {
		return Plan{}
	}
	return Plan{Route: RouteUnicode61, Match: render(kept, func(w word) string { return w.raw })}
}

// trigramPlan quotes every word, as the original's trigram path does,
// keeping the operators between them. A '*' ending an unquoted word (a
// prefix marker) is dropped: trigram terms match anywhere in a word anyway.
func trigramPlan(words []word) Plan {
	terms := arrange(literalTerms(words))
	if len(terms) == 0 {
		return Plan{}
	}
	return Plan{Route: RouteTrigram, Match: render(terms, func(w word) string {
		return quotePhrase(w.text)
	})}
}

// literalTerms drops the prefix marker from the words of the trigram and
// LIKE routes, and the words left with nothing to search for.
func literalTerms(words []word) []word {
	var out []word
	for _, w := range words {
		if w.op == "" {
			if strings.HasSuffix(w.raw, "*") {
				w.text = strings.TrimSuffix(w.text, "*")
			}
			if w.text == "" {
				continue
			}
		}
		out = append(out, w)
	}
	return out
}

// render joins arranged words into a MATCH expression, writing each term
// with term. Should the expression still be one SQLite rejects (only an
// expression nested deeper than FTS5's limit of 256 can be), the operators
// are dropped and the terms ANDed.
func render(ws []word, term func(word) string) string {
	parts := make([]string, len(ws))
	var terms []string
	for i, w := range ws {
		if w.op != "" {
			parts[i] = w.op
			continue
		}
		parts[i] = term(w)
		terms = append(terms, parts[i])
	}
	if m := strings.Join(parts, " "); isValid(m) {
		return m
	}
	return strings.Join(terms, " ")
}

func isValid(m string) bool {
	_, ok := check(m)
	return ok
}

// anyIndexed reports whether some phrase has a character the unicode61
// tokenizer indexes (categories L*, N* and Co): a phrase without one
// matches nothing.
func anyIndexed(phrases []string) bool {
	for _, p := range phrases {
		for _, r := range p {
			if unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r) {
				return true
			}
		}
	}
	return false
}
