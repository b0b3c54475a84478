package fts

import "strings"

// LikeGroup is one alternative of a LIKE-path query: a message matches the
// group when its text contains every term of All and none of None (terms
// are literal, unescaped substrings; escape them with [EscapeLike]).
type LikeGroup struct {
	All, None []string
}

// likeQuery splits the words at OR into groups. Within a group the words
// are ANDed, a word after NOT goes to None and AND is only a separator.
func likeQuery(words []word) Query {
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
				cur.None = append(cur.None, w.text)
			} else {
				cur.All = append(cur.All, w.text)
			}
			negate = false
		}
	}
	groups = appendGroup(groups, cur)
	if len(groups) == 0 {
		return Query{}
	}
	return Query{Route: RouteLike, Groups: groups, Anchor: groups[0].All[0]}
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
