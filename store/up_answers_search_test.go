package store

// Upstream's recorded search_messages answers (testdata/upstream/answers:
// 16 queries × 5 variants on each fixture) replayed through SearchMessages.

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// searchDecision is how our answer to a recorded search call differs
// from upstream's on purpose: ours is upstream's answer (typedJSON) as the
// store gives it, and decision names why.
type searchDecision struct {
	ours     func(upstream any) any
	decision string
}

// searchAnswerDecisions are the recorded search calls the store answers
// otherwise on purpose, by fixture and call (answerKey).
var searchAnswerDecisions = func() map[string]map[string]searchDecision {
	// state-v21.db's session fx21-rewind: 5 "first question", 6 "first
	// answer", then 7 "second question (taken back)" and 8, rewound
	// (active = 0, compacted = 0). Upstream's context of hit 6 takes the
	// rewound row 7 as its next neighbour (upstream-v21.md §8 defect 1:
	// "the context around a hit includes rewound neighbours"); the store's
	// neighbours are the rows the search could find
	// (SearchOptions.IncludeInactive, TestSearchContextSkipsRewound), and
	// row 6 is the session's last of those. With include_inactive both
	// answer alike (that call is compared as it is).
	rewound := searchDecision{
		ours: func(up any) any {
			hits := up.([]any)
			hit := hits[0].(map[string]any)
			context := hit["context"].([]any)
			hit["context"] = context[:len(context)-1]
			return hits
		},
		decision: "context skips rewound neighbours (§8 defect 1, fixed)",
	}
	return map[string]map[string]searchDecision{
		"state-v21": {
			`search_messages["answer"]{}`:                          rewound,
			`search_messages["answer"]{"sort":"newest"}`:           rewound,
			`search_messages["answer"]{"limit":2,"sort":"oldest"}`: rewound,
		},
	}
}()

// searchCallOptions is the SearchOptions of recorded call c.
func searchCallOptions(t *testing.T, c answerCall) SearchOptions {
	t.Helper()
	opts := SearchOptions{Limit: c.num("limit"), Offset: c.num("offset"), IncludeInactive: c.flag("include_inactive")}
	for k := range c.Kwargs {
		switch k {
		case "limit", "offset", "include_inactive", "sort", "role_filter", "source_filter", "exclude_sources":
		default:
			t.Fatalf("%s%v: keyword %q has no SearchOptions field here", c.Call, c.Args, k)
		}
	}
	switch sort, _ := c.Kwargs["sort"].(string); sort {
	case "":
	case "newest":
		opts.Order = SearchNewest
	case "oldest":
		opts.Order = SearchOldest
	default:
		t.Fatalf("%s%v: sort %q", c.Call, c.Args, sort)
	}
	strs := func(key string) []string {
		v, ok := c.Kwargs[key]
		if !ok || v == nil {
			return nil
		}
		out := []string{}
		for _, x := range anyList(v) {
			out = append(out, x.(string))
		}
		return out
	}
	opts.Roles, opts.Sources, opts.ExcludeSources = strs("role_filter"), strs("source_filter"), strs("exclude_sources")
	return opts
}

// TestUpstreamAnswersForSearch replays every recorded search_messages
// call on a copy of each upstream fixture, the clock at the recording's
// now (state-v16.db migrated by this build first, as upstream migrated it
// before answering), and compares the hits exactly and in order: id,
// session_id, role, snippet, timestamp, tool_name, source, model,
// session_started and context, with their JSON types.
//
// upstream: (recorded answers) SessionDB.search_messages, c2a3b9ce5.
func TestUpstreamAnswersForSearch(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"state-v21", "state-v21-from-v16", "state-v16"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			answers := loadAnswers(t, name)
			clock := newSetClock(answers.Now)
			s := openAt(t, upstreamFixture(t, answers.Fixture), &Options{ReadOnly: name != "state-v16", Now: clock.Now})
			replayed, decided, hits := replaySearchAnswers(t, s, name, answers)
			t.Logf("%d search calls replayed (%d decided otherwise), %d upstream hits", replayed, decided, hits)
			if replayed != 80 {
				t.Errorf("%d search calls replayed, want the recorder's 80 (16 queries × 5 variants)", replayed)
			}
		})
	}
}

// replaySearchAnswers makes every recorded search_messages call of
// answers (fixture name) with s and compares our hits with upstream's, or
// with the decided answer of searchAnswerDecisions; it returns how many
// calls it made, how many of them were decided otherwise, and how many
// hits upstream answered in all.
func replaySearchAnswers(t *testing.T, s *Store, name string, answers answerWithNow) (replayed, decided, hits int) {
	t.Helper()
	for i, c := range answers.Calls {
		if c.Call != "search_messages" {
			continue
		}
		replayed++
		if len(c.Args) != 1 {
			t.Fatalf("call %d: args %v", i, c.Args)
		}
		query := c.Args[0].(string)
		res, err := s.SearchMessages(t.Context(), query, searchCallOptions(t, c))
		if err != nil {
			t.Errorf("call %d SearchMessages(%q, %v): %v", i, query, c.Kwargs, err)
			continue
		}
		ours := typedGo(res)
		want := typedJSON(t, c.Result)
		hits += len(want.([]any))
		if d, ok := searchAnswerDecisions[name][answerKey(c)]; ok {
			decided++
			decidedAnswer := d.ours(typedJSON(t, c.Result))
			if diff := cmp.Diff(decidedAnswer, ours); diff != "" {
				t.Errorf("call %d search_messages(%q, %v), decided (%s) (-decided +ours):\n%s", i, query, c.Kwargs, d.decision, diff)
			}
			if cmp.Equal(want, ours) {
				t.Errorf("call %d search_messages(%q, %v): upstream now answers as we do; drop the decision %q", i, query, c.Kwargs, d.decision)
			}
			continue
		}
		if diff := cmp.Diff(want, ours); diff != "" {
			t.Errorf("call %d search_messages(%q, %v) (-upstream +ours):\n%s", i, query, c.Kwargs, diff)
		}
	}
	return replayed, decided, hits
}
