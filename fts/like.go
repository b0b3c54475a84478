package fts

import "strings"

// LikeGroup is one alternative of a RouteLike plan: a message matches the
// group when its text contains every term of All and none of None.
type LikeGroup struct {
	All, None []LikeTerm
}

// LikeTerm is one literal substring a RouteLike plan looks for, in both the
// forms an engine may need.
type LikeTerm struct {
	// Text is the substring itself, exactly as it is searched for (100%完成
	// looks for the '%'): for an engine that matches without LIKE (strpos,
	// instr, a trigram index's own operators).
	Text string
	// Pattern is Text as a LIKE pattern that matches it anywhere: '%', Text
	// with \ % and _ escaped by a backslash ([EscapeLike]), '%', for
	// LIKE ... ESCAPE '\' (which SQLite and PostgreSQL read alike).
	Pattern string
}

// likeTerm is text as a LikeTerm.
func likeTerm(text string) LikeTerm {
	return LikeTerm{Text: text, Pattern: "%" + EscapeLike(text) + "%"}
}

// likePlan splits the words at OR into groups. Within a group the words
// are ANDed, a word after NOT goes to None and AND is only a separator.
func likePlan(words []word) Plan {
	var groups []LikeGroup
	cur := LikeGroup{}
	negate := false
	for _, w := range arrange(literalTerms(words)) {
		switch w.op {
		case "OR":
			groups = appendGroup(groups, cur)
			cur, negate = LikeGroup{}, false
		case "AND":
			negate = false
		case "NOT":
			negate = true
		default:
			if negate {
				cur.None = append(cur.None, likeTerm(w.text))
			} else {
				cur.All = append(cur.All, likeTerm(w.text))
			}
			negate = false
		}
	}
	groups = appendGroup(groups, cur)
	if len(groups) == 0 {
		return Plan{}
	}
	return Plan{Route: RouteLike, Groups: groups, Anchor: groups[0].All[0].Text}
}

// appendGroup adds g unless it has no positive term.
func appendGroup(groups []LikeGroup, g LikeGroup) []LikeGroup {
	if len(g.All) == 0 {
		return groups
	}
	return append(groups, g)
}

// EscapeLike escapes \ % and _ with a backslash, for LIKE ... ESCAPE '\',
// as the original does.
func EscapeLike(s string) string {
	return likeEscaper.Replace(s)
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
