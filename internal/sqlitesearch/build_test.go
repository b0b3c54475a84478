package sqlitesearch

import (
	"database/sql"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hermesstate/hermesstate/fts"
)

// TestBuild pins the statement and the arguments Build gives for plans
// (fts.Parse's, for each route and statement shape) crossed with options
// (every filter off, on, and on with an empty list; the page).
func TestBuild(t *testing.T) {
	t.Parallel()
	page := Options{Limit: 20}
	for _, c := range []struct {
		name  string
		query string
		opts  Options
		want  string // the statement's name
		args  Args
	}{
		// One statement per route and shape, no filter.
		{"Unicode61", "docker OR podman", page, "unicode61", Args{Match: "docker OR podman", Limit: 20}},
		{"Unicode61Repaired", "it's", page, "unicode61", Args{Match: `"it's"`, Limit: 20}},
		{"Trigram", "记忆断裂*", page, "trigram", Args{Match: `"记忆断裂"`, Limit: 20}},
		{"LikeOneTerm", "通信", page, "like", Args{Pattern: "%通信%", Anchor: "通信", Limit: 20}},
		{"LikeOneTermEscaped", `100%完成_\`, page, "like", Args{Pattern: `%100\%完成\_\\%`, Anchor: `100%完成_\`, Limit: 20}},
		{"LikeTwoTerms", "东京 tokyo", page, "like-groups",
			Args{Groups: `[{"all":["%东京%","%tokyo%"],"none":[]}]`, Anchor: "东京", Limit: 20}},
		{"LikeNot", "通信 NOT 记忆", page, "like-groups",
			Args{Groups: `[{"all":["%通信%"],"none":["%记忆%"]}]`, Anchor: "通信", Limit: 20}},
		{"LikeOr", "广西 OR 桂林", page, "like-groups",
			Args{Groups: `[{"all":["%广西%"],"none":[]},{"all":["%桂林%"],"none":[]}]`, Anchor: "广西", Limit: 20}},
		{"LikeGroupsEscaped", `通_信 OR 50% NOT a\b`, page, "like-groups",
			Args{Groups: `[{"all":["%通\\_信%"],"none":[]},{"all":["%50\\%%"],"none":["%a\\\\b%"]}]`, Anchor: "通_信", Limit: 20}},

		// Filters: nil is off; an empty Sources keeps none, an empty
		// ExcludeSources or Roles is off.
		{"SourcesNil", "docker", Options{Sources: nil, Limit: 20}, "unicode61", Args{Match: "docker", Limit: 20}},
		{"SourcesEmpty", "docker", Options{Sources: []string{}, Limit: 20}, "unicode61",
			Args{Match: "docker", Sources: new(`[]`), Limit: 20}},
		{"Sources", "通信", Options{Sources: []string{"cli", "telegram"}, Limit: 20}, "like",
			Args{Pattern: "%通信%", Anchor: "通信", Sources: new(`["cli","telegram"]`), Limit: 20}},
		{"ExcludeEmpty", "docker", Options{ExcludeSources: []string{}, Limit: 20}, "unicode61", Args{Match: "docker", Limit: 20}},
		{"Exclude", "记忆断裂", Options{ExcludeSources: []string{"cron"}, Limit: 20}, "trigram",
			Args{Match: `"记忆断裂"`, ExcludeSources: new(`["cron"]`), Limit: 20}},
		{"RolesEmpty", "docker", Options{Roles: []string{}, Limit: 20}, "unicode61", Args{Match: "docker", Limit: 20}},
		{"Roles", "通信 NOT 记忆", Options{Roles: []string{"user", "assistant"}, Limit: 20}, "like-groups",
			Args{Groups: `[{"all":["%通信%"],"none":["%记忆%"]}]`, Anchor: "通信", Roles: new(`["user","assistant"]`), Limit: 20}},
		{"AllFilters", "docker", Options{Sources: []string{`a"b`}, ExcludeSources: []string{"c"}, Roles: []string{"tool"}, Limit: 20},
			"unicode61", Args{Match: "docker", Sources: new(`["a\"b"]`), ExcludeSources: new(`["c"]`), Roles: new(`["tool"]`), Limit: 20}},

		// The page is bound as given.
		{"Page", "docker", Options{Limit: 5, Offset: 10}, "unicode61", Args{Match: "docker", Limit: 5, Offset: 10}},
		{"NoLimit", "通信", Options{Limit: -1}, "like", Args{Pattern: "%通信%", Anchor: "通信", Limit: -1}},
		{"ZeroLimit", "docker", Options{}, "unicode61", Args{Match: "docker"}},
		// Inactive rows and the orders.
		{"IncludeInactive", "docker", Options{IncludeInactive: true, Limit: 20}, "unicode61",
			Args{Match: "docker", IncludeInactive: 1, Limit: 20}},
		{"LikeIncludeInactive", "通信", Options{IncludeInactive: true, Limit: 20}, "like",
			Args{Pattern: "%通信%", Anchor: "通信", IncludeInactive: 1, Limit: 20}},
		{"Newest", "docker", Options{Order: OrderNewest, Limit: 20}, "unicode61-newest", Args{Match: "docker", Limit: 20}},
		{"Oldest", "docker", Options{Order: OrderOldest, Limit: 20}, "unicode61-oldest", Args{Match: "docker", Limit: 20}},
		{"TrigramNewest", "记忆断裂", Options{Order: OrderNewest, Limit: 20}, "trigram-newest", Args{Match: `"记忆断裂"`, Limit: 20}},
		{"TrigramOldest", "记忆断裂", Options{Order: OrderOldest, Limit: 20}, "trigram-oldest", Args{Match: `"记忆断裂"`, Limit: 20}},
		// The LIKE scan: newest first by default and for Newest, oldest
		// first for Oldest.
		{"LikeNewest", "通信", Options{Order: OrderNewest, Limit: 20}, "like", Args{Pattern: "%通信%", Anchor: "通信", Limit: 20}},
		{"LikeOldest", "通信", Options{Order: OrderOldest, Limit: 20}, "like-oldest", Args{Pattern: "%通信%", Anchor: "通信", Limit: 20}},
		{"LikeGroupsOldest", "广西 OR 桂林", Options{Order: OrderOldest, Limit: 20}, "like-groups-oldest",
			Args{Groups: `[{"all":["%广西%"],"none":[]},{"all":["%桂林%"],"none":[]}]`, Anchor: "广西", Limit: 20}},
		// An order Build does not know reads as the default, as upstream
		// reads an unknown sort.
		{"UnknownOrder", "docker", Options{Order: Order(7), Limit: 20}, "unicode61", Args{Match: "docker", Limit: 20}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			st, ok := Build(fts.Parse(c.query), c.opts)
			if !ok {
				t.Fatalf("Build(Parse(%q)) has no statement", c.query)
			}
			if got := st.Name(); got != c.want {
				t.Errorf("Build(Parse(%q)) is %q, want %q", c.query, got, c.want)
			}
			if diff := cmp.Diff(c.args, st.Args); diff != "" {
				t.Errorf("Build(Parse(%q)) arguments (-want +got):\n%s", c.query, diff)
			}
		})
	}
}

// TestBuildNothingToSearch: a plan with nothing to search for has no
// statement.
func TestBuildNothingToSearch(t *testing.T) {
	t.Parallel()
	for _, p := range []fts.Plan{fts.Parse("***"), fts.Parse(""), {}, {Route: fts.Route(99), Match: "docker"}} {
		st, ok := Build(p, Options{Sources: []string{"cli"}, Limit: 20})
		if ok || st != (Statement{}) {
			t.Errorf("Build(%+v) = %+v, %v; want the zero Statement, false", p, st, ok)
		}
	}
	var zero Statement
	if zero.Name() != "" || zero.SQL() != "" || zero.Named() != nil {
		t.Errorf("the zero Statement is %q, %q, %v; want no name, no text, no arguments", zero.Name(), zero.SQL(), zero.Named())
	}
}

// TestBuildLikeShapes: the one-pattern statement only for one group of one
// term without exclusions; hand-built plans whose shape Parse makes rarely.
func TestBuildLikeShapes(t *testing.T) {
	t.Parallel()
	term := func(s string) fts.LikeTerm { return fts.LikeTerm{Text: s, Pattern: "%" + s + "%"} }
	for _, c := range []struct {
		name   string
		groups []fts.LikeGroup
		want   string
		args   Args
	}{
		{"OneTerm", []fts.LikeGroup{{All: []fts.LikeTerm{term("a")}}}, "like", Args{Pattern: "%a%", Anchor: "a"}},
		{"OneTermOneExclusion", []fts.LikeGroup{{All: []fts.LikeTerm{term("a")}, None: []fts.LikeTerm{term("b")}}}, "like-groups",
			Args{Groups: `[{"all":["%a%"],"none":["%b%"]}]`, Anchor: "a"}},
		{"TwoGroupsOfOne", []fts.LikeGroup{{All: []fts.LikeTerm{term("a")}}, {All: []fts.LikeTerm{term("b")}}}, "like-groups",
			Args{Groups: `[{"all":["%a%"],"none":[]},{"all":["%b%"],"none":[]}]`, Anchor: "a"}},
	} {
		st, ok := Build(fts.Plan{Route: fts.RouteLike, Groups: c.groups, Anchor: c.groups[0].All[0].Text}, Options{})
		if !ok || st.Name() != c.want {
			t.Errorf("%s: Build gives %q, %v; want %q", c.name, st.Name(), ok, c.want)
		}
		if diff := cmp.Diff(c.args, st.Args); diff != "" {
			t.Errorf("%s: arguments (-want +got):\n%s", c.name, diff)
		}
	}
}

// parameter finds a named parameter in SQL text (the statements hold no
// '@' in a string literal).
var parameter = regexp.MustCompile(`@[a-z_]+`)

// TestNamedBindsEveryParameter: each statement's Named binds exactly the
// parameters its text names, each once, so none is left NULL by a
// misspelling (SQLite binds an unknown name to nothing, silently) and none
// is bound for nothing.
func TestNamedBindsEveryParameter(t *testing.T) {
	t.Parallel()
	var names []string
	for _, st := range All() {
		names = append(names, st.Name())
		var inText []string
		for _, p := range parameter.FindAllString(st.SQL(), -1) {
			if !slices.Contains(inText, p[1:]) {
				inText = append(inText, p[1:])
			}
		}
		var bound []string
		for _, a := range st.Named() {
			n, ok := a.(sql.NamedArg)
			if !ok {
				t.Fatalf("%s: argument %#v is not an sql.NamedArg", st.Name(), a)
			}
			bound = append(bound, n.Name)
		}
		slices.Sort(inText)
		slices.Sort(bound)
		if !slices.Equal(inText, bound) {
			t.Errorf("%s names %q and binds %q", st.Name(), inText, bound)
		}
	}
	if want := []string{
		"unicode61", "unicode61-newest", "unicode61-oldest", "trigram", "trigram-newest", "trigram-oldest",
		"like", "like-oldest", "like-groups", "like-groups-oldest",
	}; !slices.Equal(names, want) {
		t.Errorf("All() = %q, want %q", names, want)
	}
}

// TestNamedValues: what each statement binds, by name, for one plan.
func TestNamedValues(t *testing.T) {
	t.Parallel()
	opts := Options{Sources: []string{"cli"}, Limit: 7, Offset: 3}
	sources := new(`["cli"]`)
	filters := []any{
		sql.Named("include_inactive", 0), sql.Named("sources", sources), sql.Named("exclude_sources", (*string)(nil)), sql.Named("roles", (*string)(nil)),
		sql.Named("limit", 7), sql.Named("offset", 3),
	}
	for _, c := range []struct {
		query string
		want  []any
	}{
		{"docker", append([]any{sql.Named("match", "docker")}, filters...)},
		{"记忆断裂", append([]any{sql.Named("match", `"记忆断裂"`)}, filters...)},
		{"通信", append([]any{sql.Named("pattern", "%通信%"), sql.Named("anchor", "通信")}, filters...)},
		{"通信 OR 桂林", append([]any{
			sql.Named("groups", `[{"all":["%通信%"],"none":[]},{"all":["%桂林%"],"none":[]}]`), sql.Named("anchor", "通信"),
		}, filters...)},
	} {
		st, _ := Build(fts.Parse(c.query), opts)
		if diff := cmp.Diff(c.want, st.Named(), cmpopts.IgnoreUnexported(sql.NamedArg{})); diff != "" {
			t.Errorf("%q (%s): Named (-want +got):\n%s", c.query, st.Name(), diff)
		}
	}
}
