package store

import (
	"slices"
	"strings"
	"testing"

	"github.com/hermesstate/hermesstate/internal/sqlitesearch"
)

// TestSplitSearchPlans prepares every range, page and probe statement of
// a split search against the current schema (on the reader, which runs
// them) and pins the plans the split rests on: FTS5 takes the range's
// rowid bounds and, by rank, the order itself (INDEX 32:M1><, no sort), so
// a range ranks only its own matches; the LIKE range reads only its rowids;
// the page statement reads each hit by its id, and on the full-text routes
// walks the MATCH once over the page's rowids (INDEX 0:M1><, not one MATCH
// per id, 0:=M1), without ranking; the probe walks the index without
// ranking. A top range (search_top.go) takes the rank as a column of the
// range's matches (INDEX 0:M1><: the bounds, not the order) into its
// candidates, and has no rows form (the page statement reads its hits).
func TestSplitSearchPlans(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, nil)
	statements := sqlitesearch.AllRanged()
	if len(statements) != 14 {
		t.Fatalf("%d split statements, want 14 (4 kinds, 3 orders, and the 2 top forms)", len(statements))
	}
	for _, st := range statements {
		name := st.Name()
		ranged := explainPlan(t, s.r, st.RangeSQL(), st.RangeNamed(1, 5, 20), false)
		page := explainPlan(t, s.r, st.PageSQL(), st.PageNamed([]int64{1, 2}), false)
		has := func(plan []string, part string) bool {
			return slices.ContainsFunc(plan, func(l string) bool { return strings.Contains(l, part) })
		}
		switch index := st.Index(); {
		case index == "":
			if !has(ranged, "SEARCH m USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)") {
				t.Errorf("%s range plan %q does not read only its rowids", name, ranged)
			}
			if st.ProbeSQL() != "" {
				t.Errorf("%s has a probe", name)
			}
		default:
			want := "SCAN " + index + " VIRTUAL TABLE INDEX 0:M1><"
			if st.Top() {
				if st.RowsRangeSQL() != "" || !has(ranged, "MATERIALIZE top") {
					t.Errorf("%s top range plan %q, or a rows range statement", name, ranged)
				}
			} else if keys, _ := st.RangeKeys(); keys == sqlitesearch.KeysRank {
				want = "SCAN " + index + " VIRTUAL TABLE INDEX 32:M1><"
				rows := explainPlan(t, s.r, st.RowsRangeSQL(), st.RangeNamed(1, 5, 20), false)
				if has(ranged, "TEMP B-TREE") || has(rows, "TEMP B-TREE") || !slices.Contains(rows, want) {
					t.Errorf("%s range plans %q, %q sort; FTS5 should take ORDER BY rank", name, ranged, rows)
				}
			} else if st.RowsRangeSQL() != "" {
				t.Errorf("%s has a rows range statement", name)
			}
			if !slices.Contains(ranged, want) {
				t.Errorf("%s range plan %q lacks %q", name, ranged, want)
			}
			if !slices.Contains(page, "SCAN "+index+" VIRTUAL TABLE INDEX 0:M1><") {
				t.Errorf("%s page plan %q does not walk the MATCH over the page's rowids", name, page)
			}
			probe := explainPlan(t, s.r, st.ProbeSQL(), st.ProbeNamed(10), false)
			if !slices.Contains(probe, "SCAN "+index+" VIRTUAL TABLE INDEX 0:M1") {
				t.Errorf("%s probe plan %q", name, probe)
			}
		}
		if !slices.Contains(page, "SEARCH m USING INTEGER PRIMARY KEY (rowid=?)") || slices.Contains(page, "SCAN m") {
			t.Errorf("%s page plan %q does not read each hit by its id", name, page)
		}
	}
}
