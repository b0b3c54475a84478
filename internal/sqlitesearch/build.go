package sqlitesearch

import (
	"database/sql"
	"encoding/json"

	"github.com/hermesstate/hermesstate/fts"
)

// Order is the order of a search's hits.
type Order int

const (
	// OrderRank, the zero Order, is upstream's default (sort=None): the
	// full-text routes best first (bm25), the LIKE scan newest first.
	OrderRank Order = iota
	// OrderNewest is upstream's sort="newest": newest message first, then
	// by rank on the full-text routes.
	OrderNewest
	// OrderOldest is upstream's sort="oldest": oldest message first, then
	// by rank on the full-text routes. Upstream's LIKE scan ignores it
	// (newest first, §8 defect 1); here it reads oldest first there too.
	OrderOldest
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
	// IncludeInactive finds every row; otherwise rewound rows (active = 0
	// and compacted = 0) are left out, on every route (upstream's LIKE
	// scan forgets the filter: §8 defect 1).
	IncludeInactive bool
	// Order is the hits' order.
	Order Order
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
	// IncludeInactive (@include_inactive) is 1 to find rewound rows too,
	// else 0.
	IncludeInactive int
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

// names and indexes are each kind's name and full-text table; texts are
// each kind's SQL text for each order.
var (
	names   = [...]string{noStatement: "", unicode61: "unicode61", trigram: "trigram", like: "like", likeGroups: "like-groups"}
	indexes = [...]string{noStatement: "", unicode61: "messages_fts", trigram: "messages_fts_trigram", like: "", likeGroups: ""}
	texts   = [...][3]string{
		noStatement: {},
		unicode61:   {searchUnicode61SQL, searchUnicode61NewestSQL, searchUnicode61OldestSQL},
		trigram:     {searchTrigramSQL, searchTrigramNewestSQL, searchTrigramOldestSQL},
		like:        {searchLikeSQL, searchLikeSQL, searchLikeOldestSQL},
		likeGroups:  {searchLikeGroupsSQL, searchLikeGroupsSQL, searchLikeGroupsOldestSQL},
	}
	orderNames = [...]string{OrderRank: "", OrderNewest: "-newest", OrderOldest: "-oldest"}
)

// Statement is one search statement and its arguments, ready to run. The
// zero Statement is no statement: no name, no text, no arguments.
type Statement struct {
	kind  kind
	order Order
	Args  Args
}

// Name returns which statement it is: unicode61 and trigram (a MATCH on
// messages_fts, messages_fts_trigram), like (one LIKE pattern, the
// original's condition) or like-groups (alternatives of several terms),
// followed by -newest or -oldest for those orders (the LIKE scans, newest
// first by default, have only -oldest); "" for the zero Statement.
func (s Statement) Name() string {
	if s.kind == noStatement {
		return ""
	}
	if (s.kind == like || s.kind == likeGroups) && s.order == OrderNewest {
		return names[s.kind]
	}
	return names[s.kind] + orderNames[s.order]
}

// SQL returns the statement's text, built from constants only: the same
// text for every plan of its kind and order.
func (s Statement) SQL() string { return texts[s.kind][s.order] }

// Index returns the full-text index the statement searches
// ("messages_fts", "messages_fts_trigram"), or "" for the LIKE scans: the
// table whose emptiness explains a search that found nothing.
func (s Statement) Index() string { return indexes[s.kind] }

// Named returns the arguments as sql.NamedArg values, one for each
// parameter the statement names and no other, for QueryContext.
func (s Statement) Named() []any {
	named := s.leadArgs(true)
	if named == nil {
		return nil
	}
	return append(named, sql.Named("limit", s.Args.Limit), sql.Named("offset", s.Args.Offset))
}

// All returns one Statement of each distinct text Build produces (each
// kind in each order it has), with zero arguments, for tests that prepare
// or read every statement.
func All() []Statement {
	var out []Statement
	for k := unicode61; int(k) < len(texts); k++ {
		for _, o := range []Order{OrderRank, OrderNewest, OrderOldest} {
			if (k == like || k == likeGroups) && o == OrderNewest {
				continue // the same text as OrderRank
			}
			out = append(out, Statement{kind: k, order: o})
		}
	}
	return out
}

// Build returns the statement that runs plan with opts. The route picks
// the statement; a LIKE plan of one group of one term without exclusions
// gets the original's one-pattern statement, any other LIKE plan the
// groups statement. ok is false, with the zero Statement, when the plan has
// nothing to search for (RouteNone, or a route it does not know).
func Build(plan fts.Plan, opts Options) (st Statement, ok bool) {
	order := opts.Order
	if order < OrderRank || order > OrderOldest {
		order = OrderRank // as upstream reads an unknown sort
	}
	a := Args{
		IncludeInactive: btoi(opts.IncludeInactive),
		Sources:         jsonList(opts.Sources, true),
		ExcludeSources:  jsonList(opts.ExcludeSources, false),
		Roles:           jsonList(opts.Roles, false),
		Limit:           opts.Limit,
		Offset:          opts.Offset,
	}
	switch plan.Route {
	case fts.RouteUnicode61:
		a.Match = plan.Match
		return Statement{kind: unicode61, order: order, Args: a}, true
	case fts.RouteTrigram:
		a.Match = plan.Match
		return Statement{kind: trigram, order: order, Args: a}, true
	case fts.RouteLike:
		if order == OrderRank {
			order = OrderNewest // the LIKE scan has no rank: newest first
		}
		a.Anchor = plan.Anchor
		if g := plan.Groups; len(g) == 1 && len(g[0].All) == 1 && len(g[0].None) == 0 {
			a.Pattern = g[0].All[0].Pattern
			return Statement{kind: like, order: order, Args: a}, true
		}
		a.Groups = groupsJSON(plan.Groups)
		return Statement{kind: likeGroups, order: order, Args: a}, true
	}
	return Statement{}, false
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
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
