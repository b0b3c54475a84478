package sqlitesearch

import (
	"database/sql"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hermesstate/hermesstate/fts"
)

// TestRanged pins the split statements' keys and arguments for each kind
// and order: the range statement binds the whole statement's filters (no
// page) and its bounds; the page statement the ids (and, on the full-text
// routes, the MATCH and the ids' span); the probe the MATCH and its cap.
func TestRanged(t *testing.T) {
	t.Parallel()
	src := new(`["cli"]`)
	filters := func(first ...any) []any {
		return append(first, sql.Named("include_inactive", 1), sql.Named("sources", src),
			sql.Named("exclude_sources", (*string)(nil)), sql.Named("roles", (*string)(nil)))
	}
	named := cmpopts.IgnoreUnexported(sql.NamedArg{})
	bounds := []any{sql.Named("lo", int64(-5)), sql.Named("hi", int64(9)), sql.Named("limit", int64(30))}
	for _, c := range []struct {
		name      string
		query     string
		order     Order
		keys      RangeKey
		desc      bool
		rangeArgs []any
		pageArgs  []any
		probe     bool
	}{
		{"Rank", "docker", OrderRank, KeysRank, false,
			append(filters(sql.Named("match", "docker")), bounds...),
			[]any{sql.Named("ids", "[7,3,5]"), sql.Named("match", "docker"), sql.Named("lo", int64(3)), sql.Named("hi", int64(7))}, true},
		{"Newest", "docker", OrderNewest, KeysTimeRank, true,
			append(filters(sql.Named("match", "docker")), bounds...),
			[]any{sql.Named("ids", "[7,3,5]"), sql.Named("match", "docker"), sql.Named("lo", int64(3)), sql.Named("hi", int64(7))}, true},
		{"TrigramOldest", "记忆断裂", OrderOldest, KeysTimeRank, false,
			append(filters(sql.Named("match", `"记忆断裂"`)), bounds...),
			[]any{sql.Named("ids", "[7,3,5]"), sql.Named("match", `"记忆断裂"`), sql.Named("lo", int64(3)), sql.Named("hi", int64(7))}, true},
		{"Like", "通信", OrderRank, KeysTime, true,
			append(filters(sql.Named("pattern", "%通信%")), bounds...),
			[]any{sql.Named("ids", "[7,3,5]"), sql.Named("anchor", "通信")}, false},
		{"LikeGroupsOldest", "广西 OR 桂林", OrderOldest, KeysTime, false,
			append(filters(sql.Named("groups", `[{"all":["%广西%"],"none":[]},{"all":["%桂林%"],"none":[]}]`)), bounds...),
			[]any{sql.Named("ids", "[7,3,5]"), sql.Named("anchor", "广西")}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			st, ok := Build(fts.Parse(c.query), Options{Sources: []string{"cli"}, IncludeInactive: true, Order: c.order, Limit: 20, Offset: 10})
			if !ok {
				t.Fatal("no statement")
			}
			if keys, desc := st.RangeKeys(); keys != c.keys || desc != c.desc {
				t.Errorf("RangeKeys() = %v, %v; want %v, %v", keys, desc, c.keys, c.desc)
			}
			if diff := cmp.Diff(c.rangeArgs, st.RangeNamed(-5, 9, 30), named); diff != "" {
				t.Errorf("RangeNamed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.pageArgs, st.PageNamed([]int64{7, 3, 5}), named); diff != "" {
				t.Errorf("PageNamed (-want +got):\n%s", diff)
			}
			if (st.ProbeSQL() != "") != c.probe {
				t.Errorf("ProbeSQL() = %q; want one: %v", st.ProbeSQL(), c.probe)
			}
			if (st.RowsRangeSQL() != "") != (c.keys == KeysRank) {
				t.Errorf("RowsRangeSQL() = %q; want one only by rank", st.RowsRangeSQL())
			}
			if st.RangeSQL() == "" || st.PageSQL() == "" {
				t.Error("no range or page statement")
			}
		})
	}
	var zero Statement
	if zero.RangeSQL() != "" || zero.PageSQL() != "" || zero.ProbeSQL() != "" || zero.RangeNamed(0, 1, 2) != nil || zero.PageNamed(nil) != nil {
		t.Error("the zero Statement has split statements")
	}
}
