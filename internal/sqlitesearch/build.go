package sqlitesearch

import (
	"database/sql"
	"encoding/json"

	"github.com/hermesstate/hermesstate/fts"
)

// Options are a search's filters and page, with the original's meanings.
type Options struct {
	// Sources keeps only sessions from these sources: nil keeps every
	// source, an empty non-nil slice keeps none (the original's
	// source_filter=[]).
	Sources []string
	// ExcludeSources leaves these sources out (nil or empty: none).
	ExcludeSources []string
	// Roles keeps only these roles (nil or empty: all).
	Roles []string
	// Limit and Offset are the page, bound as they are (a limit below 0
	// is SQLite's no limit); the caller has applied its default.
	Limit, Offset int
}

// Args are a statement's arguments, each bound to the parameter of its
// name (in parentheses); a statement binds the ones it names (see
// [Statement.Named]).
type Args struct {
	// Match (@match) is the FTS5 MATCH expression (unicode61, trigram).
	Match string
	// Pattern (@pattern) is the one term's LIKE pattern (like).
	Pattern string
	// Groups (@groups) are the LIKE groups' patterns as JSON, an array of
	// {"all": [...], "none": [...]} (like-groups).
	Groups string
	// Anchor (@anchor) is the text whose first occurrence in content
	// centres a LIKE hit's snippet (like, like-groups).
	Anchor string
	// Sources (@sources), ExcludeSources (@exclude_sources) and Roles
	// (@roles) are the filters as JSON arrays; nil binds NULL, the filter
	// off.
	Sources, ExcludeSources, Roles *string
	// Limit (@limit) and Offset (@offset) are the page.
	Limit, Offset int
}

// kind is one of the statements Build produces; the zero kind is none.
type kind int

const (
	noStatement kind = iota
	unicode61
	trigram
	like
	likeGroups
)

// names and texts are each kind's name and SQL text.
var (
	names   = [...]string{noStatement: "", unicode61: "unicode61", trigram: "trigram", like: "like", likeGroups: "like-groups"}
	indexes = [...]string{noStatement: "", unicode61: "messages_fts", trigram: "messages_fts_trigram", like: "", likeGroups: ""}
	texts   = [...]string{noStatement: "", unicode61: searchUnicode61SQL, trigram: searchTrigramSQL, like: searchLikeSQL, likeGroups: searchLikeGroupsSQL}
)

// Statement is one search statement and its arguments, ready to run. The
// zero Statement is no statement: no name, no text, no arguments.
type Statement struct {
	kind kind
	Args Args
}

// Name returns which statement it is: unicode61 and trigram (a MATCH on
// messages_fts, messages_fts_trigram), like (one LIKE pattern, the
// original's condition) or like-groups (alternatives of several terms);
// "" for the zero Statement.
func (s Statement) Name() string { return names[s.kind] }

// SQL returns the statement's text, built from constants only: the same
// text for every plan of its kind.
func (s Statement) SQL() string { return texts[s.kind] }

// Index returns the full-text index the statement searches
// ("messages_fts", "messages_fts_trigram"), or "" for the LIKE scans: the
// table whose emptiness explains a search that found nothing.
func (s Statement) Index() string { return indexes[s.kind] }

// Named returns the arguments as sql.NamedArg values, one for each
// parameter the statement names and no other, for QueryContext.
func (s Statement) Named() []any {
	a := s.Args
	var named []any
	switch s.kind {
	case unicode61, trigram:
		named = []any{sql.Named("match", a.Match)}
	case like:
		named = []any{sql.Named("pattern", a.Pattern), sql.Named("anchor", a.Anchor)}
	case likeGroups:
		named = []any{sql.Named("groups", a.Groups), sql.Named("anchor", a.Anchor)}
	default:
		return nil
	}
	return append(named,
		sql.Named("sources", a.Sources), sql.Named("exclude_sources", a.ExcludeSources), sql.Named("roles", a.Roles),
		sql.Named("limit", a.Limit), sql.Named("offset", a.Offset))
}

// All returns one Statement of each kind Build produces, with zero
// arguments, for tests that prepare or read every statement.
func All() []Statement {
	out := make([]Statement, 0, len(texts)-1)
	for k := unicode61; int(k) < len(texts); k++ {
		out = append(out, Statement{kind: k})
	}
	return out
}

// Build returns the statement that runs plan with opts. The route picks
// the statement; a LIKE plan of one group of one term without exclusions
// gets the original's one-pattern statement, any other LIKE plan the
// groups statement. ok is false, with the zero Statement, when the plan has
// nothing to search for (RouteNone, or a route it does not know).
func Build(plan fts.Plan, opts Options) (st Statement, ok bool) {
	a := Args{
		Sources:        jsonList(opts.Sources, true),
		ExcludeSources: jsonList(opts.ExcludeSources, false),
		Roles:          jsonList(opts.Roles, false),
		Limit:          opts.Limit,
		Offset:         opts.Offset,
	}
	switch plan.Route {
	case fts.RouteUnicode61:
		a.Match = plan.Match
		return Statement{kind: unicode61, Args: a}, true
	case fts.RouteTrigram:
		a.Match = plan.Match
		return Statement{kind: trigram, Args: a}, true
	case fts.RouteLike:
		a.Anchor = plan.Anchor
		if g := plan.Groups; len(g) == 1 && len(g[0].All) == 1 && len(g[0].None) == 0 {
			a.Pattern = g[0].All[0].Pattern
			return Statement{kind: like, Args: a}, true
		}
		a.Groups = groupsJSON(plan.Groups)
		return Statement{kind: likeGroups, Args: a}, true
	}
	return Statement{}, false
}

// jsonList binds a filter list as a JSON array, or nil when the filter is
// off: a nil slice is off; an empty one is off too unless emptyMeansNone
// (the original's source_filter=[] keeps nothing, its exclude and role
// filters treat [] as absent).
func jsonList(items []string, emptyMeansNone bool) *string {
	if items == nil || (len(items) == 0 && !emptyMeansNone) {
		return nil
	}
	b, _ := json.Marshal(items) // []string always marshals
	s := string(b)
	return &s
}

// groupsJSON encodes the LIKE groups' patterns for searchLikeGroupsSQL.
func groupsJSON(groups []fts.LikeGroup) string {
	type group struct {
		All  []string `json:"all"`
		None []string `json:"none"`
	}
	out := make([]group, len(groups))
	for i, g := range groups {
		out[i] = group{All: patterns(g.All), None: patterns(g.None)}
	}
	b, _ := json.Marshal(out) // strings and slices always marshal
	return string(b)
}

// patterns returns the terms' LIKE patterns, never nil (JSON [] not null).
func patterns(terms []fts.LikeTerm) []string {
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = t.Pattern
	}
	return out
}
