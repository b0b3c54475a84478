package store

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// listingAnswers is testdata/upstream/answers/listing.json: what upstream
// c2a3b9ce5 answered, per upstream fixture (a copy, opened by upstream),
// for list_sessions_rich under each case's options (limit 50),
// session_count, get_compression_tip and resolve_resume_session_id of every
// session, distinct_session_cwds(include_archived=True) and
// search_sessions_by_id("fx"). It was written by a script run against
// upstream outside the repository (see docs/upstream-tests/listing.md).
type listingAnswers map[string]struct {
	List           map[string][]listedRow `json:"list"`
	Count          map[string]int64       `json:"count"`
	CompressionTip map[string]string      `json:"compression_tip"`
	Resume         map[string]string      `json:"resume"`
	Cwds           []CwdUsage             `json:"distinct_cwds_include_archived"`
	SearchByID     []string               `json:"search_by_id_fx"`
}

// listedRow is the part of a listing row the answers record.
type listedRow struct {
	ID              string  `json:"id"`
	LineageRootID   *string `json:"_lineage_root_id"`
	Title           *string `json:"title"`
	EndReason       *string `json:"end_reason"`
	Preview         string  `json:"preview"`
	LastActive      float64 `json:"last_active"`
	StartedAt       float64 `json:"started_at"`
	MessageCount    int64   `json:"message_count"`
	Archived        int64   `json:"archived"`
	HasSystemPrompt bool    `json:"has_system_prompt"`
}

// listingCases are the answers' cases as ListOptions (Limit 50 added).
var listingCases = map[string]ListOptions{
	"default":                               {},
	"include_children":                      {IncludeChildren: true},
	"include_archived":                      {IncludeArchived: true},
	"archived_only":                         {ArchivedOnly: true},
	"order_by_last_active":                  {OrderByLastActive: true},
	"order_by_last_active_include_archived": {OrderByLastActive: true, IncludeArchived: true},
	"raw_roots_include_archived":            {RawCompressionRoots: true, IncludeArchived: true},
	"search_chain":                          {SearchQuery: "chain", IncludeArchived: true, OrderByLastActive: true},
	"id_query_FX21_sub":                     {IDQuery: "FX21-SUB", OrderByLastActive: true, IncludeChildren: true},
	"compact_rows":                          {CompactRows: true},
	"source_telegram":                       {Source: "telegram", IncludeArchived: true},
	"exclude_cli":                           {ExcludeSources: []string{"cli"}, IncludeArchived: true},
	"min_messages_3":                        {MinMessageCount: 3},
}

// listingCounts are the answers' session_count cases.
var listingCounts = map[string]CountOptions{
	"default":          {},
	"include_archived": {IncludeArchived: true},
	"exclude_children": {ExcludeChildren: true},
	"archived_only":    {ArchivedOnly: true},
}

// TestListingMatchesUpstreamOnFixtures reads copies of the three upstream
// fixtures (the v16 one migrated by the store, as upstream migrated it) and
// compares every listing, count, tip, resume target, cwd list and id search
// with upstream's recorded answers.
func TestListingMatchesUpstreamOnFixtures(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(dbtest.Testdata("upstream", "answers", "listing.json"))
	if err != nil {
		t.Fatal(err)
	}
	var answers listingAnswers
	if err := json.Unmarshal(b, &answers); err != nil {
		t.Fatal(err)
	}
	if len(answers) != 3 {
		t.Fatalf("answers for %d fixtures, want 3", len(answers))
	}
	for fixture, want := range answers {
		t.Run(fixture, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			path := dbtest.CopyFile(t, dbtest.Testdata("upstream", fixture), filepath.Join(t.TempDir(), "state.db"))
			s := openAt(t, path, nil)
			if len(want.List) != len(listingCases) || len(want.Count) != len(listingCounts) {
				t.Fatalf("answers hold %d listings and %d counts, the test %d and %d", len(want.List), len(want.Count), len(listingCases), len(listingCounts))
			}
			rows := 0
			for name, opts := range listingCases {
				opts.Limit = 50
				got := []listedRow{}
				for _, r := range listRich(t, s, opts) {
					got = append(got, listedRow{r.ID, nullable(r.LineageRootID), r.Title, r.EndReason, r.Preview,
						float64(r.LastActive), float64(r.StartedAt), r.MessageCount, r.Archived, r.SystemPrompt != nil || !opts.CompactRows})
				}
				rows += len(got)
				if diff := cmp.Diff(want.List[name], got, cmpEmptyRows); diff != "" {
					t.Errorf("ListSessionsRich %s (-upstream +store):\n%s", name, diff)
				}
			}
			if rows < 20 {
				t.Errorf("only %d rows compared", rows)
			}
			for name, opts := range listingCounts {
				if n, err := s.CountSessions(ctx, opts); err != nil || n != want.Count[name] {
					t.Errorf("CountSessions %s = %d, %v; upstream %d", name, n, err, want.Count[name])
				}
			}
			if len(want.Resume) == 0 || len(want.CompressionTip) != len(want.Resume) {
				t.Fatalf("answers hold %d tips and %d resume targets", len(want.CompressionTip), len(want.Resume))
			}
			for id, tip := range want.CompressionTip {
				if got := compressionTip(t, s, id); got != tip {
					t.Errorf("CompressionTip(%q) = %q, upstream %q", id, got, tip)
				}
				assertResume(t, s, id, want.Resume[id])
			}
			cwds, err := s.DistinctSessionCwds(ctx, true)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.Cwds, cwds, cmpEmptyCwds); diff != "" {
				t.Errorf("DistinctSessionCwds (-upstream +store):\n%s", diff)
			}
			if diff := cmp.Diff(want.SearchByID, idSearch(t, s, "fx", IDSearchOptions{}), cmpEmpty); diff != "" {
				t.Errorf("SearchSessionsByID(fx) (-upstream +store):\n%s", diff)
			}
		})
	}
}

// cmpEmptyRows and cmpEmptyCwds make nil and empty slices equal.
var (
	cmpEmptyRows = cmp.Transformer("emptyRows", func(s []listedRow) []listedRow {
		if s == nil {
			return []listedRow{}
		}
		return s
	})
	cmpEmptyCwds = cmp.Transformer("emptyCwds", func(s []CwdUsage) []CwdUsage {
		if s == nil {
			return []CwdUsage{}
		}
		return s
	})
)
