package pgsearch

import (
	"slices"
	"strings"

	"github.com/hermesstate/hermesstate/fts"
)

// The store's snippet markers and size, as its SQLite statements call
// snippet(messages_fts, 0, '>>>', '<<<', '...', 40).
const (
	snippetOpen     = ">>>"
	snippetClose    = "<<<"
	snippetEllipsis = "..."
	snippetTokens   = 40
)

// Snippet returns FTS5's snippet() of a unicode61 hit, made in Go: text
// is the message's search text ([SearchText]), plan the search's. It
// follows fts5SnippetFunction and fts5HighlightCb (SQLite's fts5_aux.c,
// read, not copied): every window of 40 tokens that starts at a phrase
// instance, or at the sentence start before it, is scored (1000 for each
// phrase's first instance in it, 1 for each further one, 100 more for a
// sentence start, 120 for the text's), the best is centred on its
// instances, and within it the instances, overlapping ones merged, are
// marked >>> <<<, with "..." where the text is cut.
//
// The instances are those xInst reports: of the phrases found in the
// text (tokens consecutive, the last one a prefix under '*') in the parts
// of the query that match it (a phrase of an AND that fails, or of an
// OR's alternative that fails, or under a NOT, is not reported). ok is false for a plan of another route (the
// trigram route's snippet is FTS5's over trigrams, not reproduced: the
// caller falls back to its own).
func Snippet(text string, plan fts.Plan) (_ string, ok bool) {
	if plan.Route != fts.RouteUnicode61 {
		return "", false
	}
	e, err := fts.ParseMatch(plan.Match)
	if err != nil {
		return "", false
	}
	var phrases []phrase
	collectPhrases(e, &phrases)
	spans := fts.TokenSpans(text)
	insts := instances(spans, phrases)
	present := make([]bool, len(phrases))
	for _, in := range insts {
		present[in.phrase] = true
	}
	next := 0
	_, report := reported(e, present, &next)
	keep := make([]bool, len(phrases))
	for _, i := range report {
		keep[i] = true
	}
	insts = slices.DeleteFunc(insts, func(in instance) bool { return !keep[in.phrase] })

	// Sentence starts: the first token, and each token preceded by
	// whitespace and, before that, a '.' or ':' (fts5SentenceFinderCb).
	var firsts []int
	for i, sp := range spans {
		if i == 0 {
			firsts = append(firsts, 0)
			continue
		}
		j := sp.Start - 1
		for j >= 0 && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r') {
			j--
		}
		if j != sp.Start-1 && j >= 0 && (text[j] == '.' || text[j] == ':') {
			firsts = append(firsts, i)
		}
	}

	nDoc := len(spans)
	bestScore, bestStart := 0, 0
	for _, in := range insts {
		score, adj := scoreWindow(insts, phrases, len(phrases), nDoc, in.off)
		if score > bestScore {
			bestScore, bestStart = score, adj
		}
		if len(firsts) > 0 && nDoc > snippetTokens {
			jj := 0
			for jj < len(firsts)-1 && firsts[jj+1] <= in.off {
				jj++
			}
			if firsts[jj] < in.off {
				s, _ := scoreWindow(insts, phrases, len(phrases), nDoc, firsts[jj])
				if firsts[jj] == 0 {
					s += 120
				} else {
					s += 100
				}
				if s > bestScore {
					bestScore, bestStart = s, firsts[jj]
				}
			}
		}
	}
	return highlight(text, spans, coalesce(insts, phrases), bestStart, bestStart+snippetTokens-1), true
}

// phrase is one phrase of the query: its tokens, the last a prefix when
// prefix.
type phrase struct {
	tokens []string
	prefix bool
}

// collectPhrases lists e's phrases in the order they are written, as FTS5
// numbers them.
func collectPhrases(e fts.Expr, out *[]phrase) {
	if e.Kind == fts.ExprPhrase {
		var toks []string
		for _, t := range fts.Tokens(e.Text) {
			toks = append(toks, t)
		}
		*out = append(*out, phrase{tokens: toks, prefix: e.Prefix})
		return
	}
	for _, c := range e.Children {
		collectPhrases(c, out)
	}
}

// reported evaluates e on the text (present: which phrases occur) and
// returns whether it matches and, if it does, the phrases (numbered in
// order from *next) of the parts that match. A phrase without tokens is
// FTS5's EOF: it never matches, and an implicit AND ignores it unless all
// its phrases are such ([fts.Expr.Resolve]).
func reported(e fts.Expr, present []bool, next *int) (bool, []int) {
	switch e.Kind {
	case fts.ExprPhrase:
		i := *next
		*next++
		if present[i] {
			return true, []int{i}
		}
		return false, nil
	case fts.ExprNot:
		lm, lr := reported(e.Children[0], present, next)
		rm, _ := reported(e.Children[1], present, next)
		if lm && !rm {
			return true, lr
		}
		return false, nil
	}
	var rep []int
	all, any, counted := true, false, 0
	for _, c := range e.Children {
		if e.Implicit && c.Kind == fts.ExprPhrase && len(fts.Tokens(c.Text)) == 0 {
			*next++
			continue
		}
		counted++
		m, r := reported(c, present, next)
		if m {
			any = true
			rep = append(rep, r...)
		} else {
			all = false
		}
	}
	if e.Kind == fts.ExprOr {
		return any, rep
	}
	if counted == 0 || !all {
		return false, nil
	}
	return true, rep
}

// instance is one phrase found at token offset off.
type instance struct{ phrase, off int }

// instances are the phrases' occurrences, by offset and then phrase, as
// xInst lists them.
func instances(spans []fts.TokenSpan, phrases []phrase) []instance {
	var out []instance
	for off := range spans {
		for pi, p := range phrases {
			if len(p.tokens) == 0 || off+len(p.tokens) > len(spans) {
				continue
			}
			match := true
			for k, t := range p.tokens {
				got := spans[off+k].Token
				if p.prefix && k == len(p.tokens)-1 {
					match = strings.HasPrefix(got, t)
				} else {
					match = got == t
				}
				if !match {
					break
				}
			}
			if match {
				out = append(out, instance{pi, off})
			}
		}
	}
	return out
}

// scoreWindow is fts5SnippetScore: the score of the window of
// snippetTokens tokens from pos, and where a window centred on its
// instances would start.
func scoreWindow(insts []instance, phrases []phrase, nPhrase, nDoc, pos int) (score, adj int) {
	seen := make([]bool, nPhrase)
	first, last := -1, 0
	end := pos + snippetTokens
	// insts are in offset order: only those from pos on are read, so
	// that a text of many instances costs the instances times the window
	// (FTS5 reads them all for each window: quadratic).
	from, _ := slices.BinarySearchFunc(insts, pos, func(in instance, p int) int { return in.off - p })
	for _, in := range insts[from:] {
		if in.off >= end {
			break
		}
		if seen[in.phrase] {
			score++
		} else {
			score += 1000
		}
		seen[in.phrase] = true
		if first < 0 {
			first = in.off
		}
		last = in.off + len(phrases[in.phrase].tokens)
	}
	adj = first - (snippetTokens-(last-first))/2
	if adj+snippetTokens > nDoc {
		adj = nDoc - snippetTokens
	}
	if adj < 0 {
		adj = 0
	}
	return score, adj
}

// span is a run of tokens [start, end] to mark.
type span struct{ start, end int }

// coalesce merges overlapping instances (fts5CInstIterNext).
func coalesce(insts []instance, phrases []phrase) []span {
	var out []span
	for _, in := range insts {
		end := in.off - 1 + len(phrases[in.phrase].tokens)
		if n := len(out); n > 0 && in.off <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, end)
			continue
		}
		out = append(out, span{in.off, end})
	}
	return out
}

// highlight is fts5HighlightCb over the tokens from rangeStart to
// rangeEnd, then the snippet's ends.
func highlight(text string, spans []fts.TokenSpan, marks []span, rangeStart, rangeEnd int) string {
	var b strings.Builder
	if rangeStart > 0 {
		b.WriteString(snippetEllipsis)
	}
	it := 0
	cur := func() span {
		if it < len(marks) {
			return marks[it]
		}
		return span{-1, -1}
	}
	for it < len(marks) && marks[it].start < rangeStart {
		it++
	}
	off, open := 0, false
	for pos, sp := range spans {
		if pos < rangeStart || pos > rangeEnd {
			continue
		}
		if rangeStart > 0 && pos == rangeStart {
			off = sp.Start
		}
		m := cur()
		if open && (pos <= m.start || m.start < 0) && sp.Start > off {
			b.WriteString(snippetClose)
			open = false
		}
		if pos == m.start && !open {
			b.WriteString(text[off:sp.Start])
			b.WriteString(snippetOpen)
			off = sp.Start
			open = true
		}
		if pos == m.end {
			if !open {
				b.WriteString(snippetOpen)
				open = true
			}
			b.WriteString(text[off:sp.End])
			off = sp.End
			it++
			m = cur()
		}
		if pos == rangeEnd {
			if open {
				if m.start >= 0 && pos >= m.start {
					b.WriteString(text[off:sp.End])
					off = sp.End
				}
				b.WriteString(snippetClose)
				open = false
			}
			b.WriteString(text[off:sp.End])
			off = sp.End
		}
	}
	if open {
		b.WriteString(snippetClose)
	}
	if rangeEnd >= len(spans)-1 {
		b.WriteString(text[off:])
	} else {
		b.WriteString(snippetEllipsis)
	}
	return b.String()
}
