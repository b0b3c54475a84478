package storetest

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	groups = append(groups,
		group{"SearchQueryLanguage", bSearchQueryLanguage},
		group{"SearchFiltersAndPages", bSearchFiltersAndPages},
		group{"SearchResultFields", bSearchResultFields},
		group{"SearchActiveRows", bSearchActiveRows},
		group{"SearchLimitsAndEmpty", bSearchLimitsAndEmpty},
		group{"SearchSessionsByID", bSearchSessionsByID},
	)
}

// bCorpus is the search corpus: its messages by name, as AppendMessage
// numbered them.
type bCorpus map[string]int64

// bSearchCorpus builds the search corpus: sessions a (cli, model m1), b
// (telegram, model m2) and c (cli, no model), messages one second apart
// from t=1001 on.
func bSearchCorpus(t *testing.T, s *store.Store) bCorpus {
	t.Helper()
	bCreate(t, s, "a", "cli", func(n *store.NewSession) { n.Model = "m1" })
	bCreate(t, s, "b", "telegram", func(n *store.NewSession) { n.Model = "m2" })
	bCreate(t, s, "c", "cli")
	c := bCorpus{}
	for i, m := range []struct{ name, session, role, content string }{
		{"stack", "a", "user", "deploy the docker stack to production"},
		{"compose", "a", "assistant", "docker compose is running on port 8080"},
		{"podman", "b", "user", "podman replaces docker on fedora"},
		{"deployment", "b", "assistant", "the deployment finished without errors"},
		{"python", "c", "user", "python scripts are faster than java"},
		{"chatsend", "c", "assistant", "chat-send failed with error P2.2"},
		{"cjk", "a", "user", "我们需要讨论记忆系统的设计"},
		{"cjk2", "b", "assistant", "记忆系统已经上线"},
		{"cafe", "a", "assistant", "un café crème, s'il vous plaît"},
	} {
		c[m.name] = bSay(t, s, m.session, m.role, m.content, float64(1001+i))
	}
	tool := "memory_tool"
	content := "stored 42 notes"
	id, err := s.AppendMessage(t.Context(), "b", store.NewMessage{
		Role: "tool", Content: &content, ToolName: tool, ToolCallID: "call_1", Timestamp: new(store.Timestamp(1010)),
	})
	if err != nil {
		t.Fatal(err)
	}
	c["tool"] = id
	return c
}

// bHits returns the ids of hits.
func bHits(hits []store.SearchResult) []int64 {
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

// bIDs maps names of the corpus to their ids.
func (c bCorpus) ids(names ...string) []int64 {
	out := make([]int64, len(names))
	for i, n := range names {
		id, ok := c[n]
		if !ok {
			panic("no message " + n)
		}
		out[i] = id
	}
	return out
}

// bSearchCase is one search and its answer: the hits by name in their
// order. ranked marks an answer in rank order, compared exactly only where
// the engine ranks as SQLite does (Caps.RankOrder); the hit set always.
type bSearchCase struct {
	name   string
	query  string
	opts   store.SearchOptions
	want   []string
	ranked bool
}

// bRunSearches runs the cases over corpus c.
func bRunSearches(t *testing.T, h Harness, s *store.Store, c bCorpus, cases []bSearchCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := s.SearchMessages(t.Context(), tc.query, tc.opts)
			bErr(t, "SearchMessages("+tc.query+")", err, nil)
			got, want := bHits(hits), c.ids(tc.want...)
			if tc.ranked && !h.Caps.RankOrder {
				got, want = bSorted(got), bSorted(want)
			}
			bEq(t, "hits of "+tc.query, got, want)
		})
	}
}

// bSearchQueryLanguage checks the query language on the three routes:
// words (implicit AND), case, phrases, prefixes, AND/OR/NOT and their
// lower-case forms, punctuation-joined words, diacritics, tool names, CJK
// of three or more characters (trigram) and shorter (substring scan,
// newest first).
func bSearchQueryLanguage(t *testing.T, h Harness) {
	s := h.Open(t)
	c := bSearchCorpus(t, s)
	bRunSearches(t, h, s, c, []bSearchCase{
		{"Word", "docker", store.SearchOptions{}, []string{"podman", "stack", "compose"}, true},
		{"WordUpperCase", "DOCKER", store.SearchOptions{}, []string{"podman", "stack", "compose"}, true},
		{"ImplicitAnd", "docker stack", store.SearchOptions{}, []string{"stack"}, true},
		{"Phrase", `"docker compose"`, store.SearchOptions{}, []string{"compose"}, true},
		{"PhraseOrderMatters", `"compose docker"`, store.SearchOptions{}, []string{}, true},
		{"WholeWord", "deploy", store.SearchOptions{}, []string{"stack"}, true},
		{"Prefix", "deploy*", store.SearchOptions{Order: store.SearchOldest}, []string{"stack", "deployment"}, false},
		{"Or", "podman OR python", store.SearchOptions{Order: store.SearchOldest}, []string{"podman", "python"}, false},
		{"And", "docker AND fedora", store.SearchOptions{}, []string{"podman"}, true},
		{"Not", "docker NOT podman", store.SearchOptions{Order: store.SearchOldest}, []string{"stack", "compose"}, false},
		{"NotBindsTighterThanOr", "python OR docker NOT podman", store.SearchOptions{Order: store.SearchOldest}, []string{"stack", "compose", "python"}, false},
		{"LowerCaseOrIsAWord", "docker or python", store.SearchOptions{}, []string{}, true},
		{"QuotedOperatorIsAWord", `docker "NOT" podman`, store.SearchOptions{}, []string{}, true},
		{"Hyphenated", "chat-send", store.SearchOptions{}, []string{"chatsend"}, true},
		{"Dotted", "P2.2", store.SearchOptions{}, []string{"chatsend"}, true},
		{"Colon", "error:P2", store.SearchOptions{}, []string{"chatsend"}, true},
		{"Diacritics", "cafe creme", store.SearchOptions{}, []string{"cafe"}, true},
		{"Number", "8080", store.SearchOptions{}, []string{"compose"}, true},
		{"ToolName", "memory_tool", store.SearchOptions{}, []string{"tool"}, true},
		{"UnbalancedQuote", `"docker stack`, store.SearchOptions{}, []string{"stack"}, true},
		{"Parentheses", "(docker)", store.SearchOptions{Order: store.SearchOldest}, []string{"stack", "compose", "podman"}, false},
		{"TrigramNewest", "记忆系统", store.SearchOptions{Order: store.SearchNewest}, []string{"cjk2", "cjk"}, false},
		{"TrigramOldest", "记忆系统", store.SearchOptions{Order: store.SearchOldest}, []string{"cjk", "cjk2"}, false},
		{"TrigramRanked", "记忆系统", store.SearchOptions{}, []string{"cjk2", "cjk"}, true},
		{"TrigramNoMatch", "系统设计", store.SearchOptions{}, []string{}, true},
		{"TrigramMixed", "讨论记忆 设计", store.SearchOptions{}, []string{"cjk"}, true},
		{"LikeNewestByDefault", "记忆", store.SearchOptions{}, []string{"cjk2", "cjk"}, false},
		{"LikeOldest", "记忆", store.SearchOptions{Order: store.SearchOldest}, []string{"cjk", "cjk2"}, false},
		{"LikeOr", "上线 OR 讨论", store.SearchOptions{}, []string{"cjk2", "cjk"}, false},
		{"LikeAnd", "记忆 上线", store.SearchOptions{}, []string{"cjk2"}, false},
		{"LikeNot", "记忆 NOT 上线", store.SearchOptions{}, []string{"cjk"}, false},
		{"LikeNoMatch", "桂林", store.SearchOptions{}, []string{}, false},
		{"NonASCIICase", "CAFÉ CRÈME", store.SearchOptions{}, []string{"cafe"}, true},
	})

	// Case on the substring and trigram routes: the substring scan folds
	// ASCII letters only (SQLite's LIKE), so ä does not find Ä.
	u := h.Open(t)
	bCreate(t, u, "x", "cli")
	c2 := bCorpus{
		"mixed":   bSay(t, u, "x", "user", "记忆 APPLE Äpfel", 1),
		"trigram": bSay(t, u, "x", "user", "记忆系统 BANANA Öl", 2),
	}
	bRunSearches(t, h, u, c2, []bSearchCase{
		{"LikeASCIICase", "记忆 apple", store.SearchOptions{}, []string{"mixed"}, false},
		{"LikeNonASCIICaseKept", "记忆 äpfel", store.SearchOptions{}, []string{}, false},
		{"LikeNonASCIIExact", "记忆 Äpfel", store.SearchOptions{}, []string{"mixed"}, false},
		{"TrigramASCIICase", "记忆系统 banana", store.SearchOptions{}, []string{"trigram"}, true},
		{"TrigramSubstring", "记忆系统 nan", store.SearchOptions{}, []string{"trigram"}, true},
	})
}

// bSearchFiltersAndPages checks the source, excluded-source and role
// filters, the time orders and paging after the order.
func bSearchFiltersAndPages(t *testing.T, h Harness) {
	s := h.Open(t)
	c := bSearchCorpus(t, s)
	oldest := store.SearchOldest
	bRunSearches(t, h, s, c, []bSearchCase{
		{"Source", "docker", store.SearchOptions{Sources: []string{"telegram"}}, []string{"podman"}, true},
		{"Sources", "docker", store.SearchOptions{Sources: []string{"telegram", "cli"}, Order: oldest}, []string{"stack", "compose", "podman"}, false},
		{"SourcesEmptyKeepsNone", "docker", store.SearchOptions{Sources: []string{}}, []string{}, true},
		{"SourceUnknown", "docker", store.SearchOptions{Sources: []string{"discord"}}, []string{}, true},
		{"ExcludeSources", "docker", store.SearchOptions{ExcludeSources: []string{"telegram"}, Order: oldest}, []string{"stack", "compose"}, false},
		{"SourcesAndExclude", "docker", store.SearchOptions{Sources: []string{"cli"}, ExcludeSources: []string{"cli"}}, []string{}, true},
		{"Role", "docker", store.SearchOptions{Roles: []string{"assistant"}}, []string{"compose"}, true},
		{"RolesEmptyKeepsAll", "docker", store.SearchOptions{Roles: []string{}, Order: oldest}, []string{"stack", "compose", "podman"}, false},
		{"ExcludeSourcesEmpty", "docker", store.SearchOptions{ExcludeSources: []string{}, Order: oldest}, []string{"stack", "compose", "podman"}, false},
		{"ExcludeSourcesLike", "记忆", store.SearchOptions{ExcludeSources: []string{"cli"}}, []string{"cjk2"}, false},
		{"ExcludeSourcesTrigram", "记忆系统", store.SearchOptions{ExcludeSources: []string{"telegram"}}, []string{"cjk"}, true},
		{"SourceTrigram", "记忆系统", store.SearchOptions{Sources: []string{"telegram"}}, []string{"cjk2"}, true},
		{"Roles", "docker", store.SearchOptions{Roles: []string{"user", "tool"}, Order: oldest}, []string{"stack", "podman"}, false},
		{"RoleTrigram", "记忆系统", store.SearchOptions{Roles: []string{"user"}}, []string{"cjk"}, true},
		{"RoleLike", "记忆", store.SearchOptions{Roles: []string{"assistant"}}, []string{"cjk2"}, false},
		{"SourceLike", "记忆", store.SearchOptions{Sources: []string{"cli"}}, []string{"cjk"}, false},
		{"Newest", "docker", store.SearchOptions{Order: store.SearchNewest}, []string{"podman", "compose", "stack"}, false},
		{"Oldest", "docker", store.SearchOptions{Order: oldest}, []string{"stack", "compose", "podman"}, false},
		{"UnknownOrderIsRank", "docker", store.SearchOptions{Order: store.SearchOrder(9)}, []string{"podman", "stack", "compose"}, true},
		{"Limit", "docker", store.SearchOptions{Order: oldest, Limit: 2}, []string{"stack", "compose"}, false},
		{"LimitOffset", "docker", store.SearchOptions{Order: store.SearchNewest, Limit: 2, Offset: 1}, []string{"compose", "stack"}, false},
		{"OffsetPastEnd", "docker", store.SearchOptions{Offset: 3}, []string{}, false},
		// Undocumented, SQLite's LIMIT and OFFSET rules: a negative limit
		// is no limit, a negative offset none. (An engine whose LIMIT
		// refuses negative values must map them.)
		{"NegativeLimitIsAll", "docker", store.SearchOptions{Order: oldest, Limit: -1}, []string{"stack", "compose", "podman"}, false},
		{"NegativeOffsetIsNone", "docker", store.SearchOptions{Order: oldest, Offset: -5}, []string{"stack", "compose", "podman"}, false},
		{"NegativeLimitLike", "记忆", store.SearchOptions{Limit: -1, Offset: -1}, []string{"cjk2", "cjk"}, false},
		{"NegativeLimitTrigram", "记忆系统", store.SearchOptions{Order: oldest, Limit: -1}, []string{"cjk", "cjk2"}, false},
		{"LikeLimitOffset", "记忆", store.SearchOptions{Limit: 1, Offset: 1}, []string{"cjk"}, false},
		{"TrigramLimit", "记忆系统", store.SearchOptions{Order: oldest, Limit: 1}, []string{"cjk"}, false},
	})
	// The default page is 20 hits.
	for i := range 25 {
		bSay(t, s, "c", "user", "pagination filler", float64(2000+i))
	}
	hits, err := s.SearchMessages(t.Context(), "filler", store.SearchOptions{Order: oldest})
	bErr(t, "SearchMessages(filler)", err, nil)
	bEq(t, "default page size", len(hits), 20)
	bEq(t, "first of the default page", hits[0].Timestamp, store.Timestamp(2000))
	hits, err = s.SearchMessages(t.Context(), "filler", store.SearchOptions{Order: oldest, Offset: 20})
	bErr(t, "SearchMessages(filler, offset 20)", err, nil)
	bEq(t, "second page size", len(hits), 5)
}

// bSearchResultFields checks every field of a hit on each route: the
// session's source, model and start, the message's role, time and tool
// name, the snippet (exact where Caps.SnippetText, else holding the word)
// and the context of neighbours, cut to 200 code points.
func bSearchResultFields(t *testing.T, h Harness) {
	s := h.Open(t)
	c := bSearchCorpus(t, s)
	a, b := bGet(t, s, "a"), bGet(t, s, "b")
	m1, m2 := "m1", "m2"
	tool := "memory_tool"
	for _, tc := range []struct {
		name, query string
		opts        store.SearchOptions
		want        store.SearchResult
		// snippet is the exact snippet: the indexed text (content, tool
		// name and tool calls joined by spaces) with the match marked.
		snippet string
		word    string // what a snippet of another engine must hold
	}{
		{"Unicode61", "compose", store.SearchOptions{}, store.SearchResult{
			ID: c["compose"], SessionID: "a", Role: "assistant", Timestamp: 1002, Source: "cli", Model: &m1, SessionStarted: a.StartedAt,
			Context: []store.ContextMessage{
				{Role: "user", Content: "deploy the docker stack to production"},
				{Role: "assistant", Content: "docker compose is running on port 8080"},
				{Role: "user", Content: "我们需要讨论记忆系统的设计"},
			},
		}, "docker >>>compose<<< is running on port 8080  ", "compose"},
		{"ToolHit", "notes", store.SearchOptions{}, store.SearchResult{
			ID: c["tool"], SessionID: "b", Role: "tool", Timestamp: 1010, ToolName: &tool, Source: "telegram", Model: &m2, SessionStarted: b.StartedAt,
			Context: []store.ContextMessage{
				{Role: "assistant", Content: "记忆系统已经上线"},
				{Role: "tool", Content: "stored 42 notes"},
			},
		}, "stored 42 >>>notes<<< memory_tool ", "notes"},
		{"Trigram", "讨论记忆", store.SearchOptions{}, store.SearchResult{
			ID: c["cjk"], SessionID: "a", Role: "user", Timestamp: 1007, Source: "cli", Model: &m1, SessionStarted: a.StartedAt,
			Context: []store.ContextMessage{
				{Role: "assistant", Content: "docker compose is running on port 8080"},
				{Role: "user", Content: "我们需要讨论记忆系统的设计"},
				{Role: "assistant", Content: "un café crème, s'il vous plaît"},
			},
		}, "我们需要>>>讨论记忆<<<系统的设计  ", "讨论记忆"},
		{"First", "deploy", store.SearchOptions{}, store.SearchResult{
			ID: c["stack"], SessionID: "a", Role: "user", Timestamp: 1001, Source: "cli", Model: &m1, SessionStarted: a.StartedAt,
			Context: []store.ContextMessage{
				{Role: "user", Content: "deploy the docker stack to production"},
				{Role: "assistant", Content: "docker compose is running on port 8080"},
			},
		}, ">>>deploy<<< the docker stack to production  ", "deploy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := s.SearchMessages(t.Context(), tc.query, tc.opts)
			bErr(t, "SearchMessages", err, nil)
			if len(hits) != 1 {
				t.Fatalf("%d hits, want 1: %+v", len(hits), hits)
			}
			got := hits[0]
			snippet := got.Snippet
			got.Snippet = nil
			bEq(t, "hit", got, tc.want)
			switch {
			case snippet == nil:
				t.Fatalf("snippet is nil, want %q", tc.snippet)
			case h.Caps.SnippetText:
				bEq(t, "snippet", *snippet, tc.snippet)
			case !strings.Contains(strings.ToLower(*snippet), tc.word):
				t.Fatalf("snippet %q does not hold %q", *snippet, tc.word)
			}
		})
	}

	// The substring scan's snippet is the content itself (up to 120 code
	// points around the match, no markers), on every engine.
	t.Run("LikeSnippet", func(t *testing.T) {
		hits, err := s.SearchMessages(t.Context(), "上线", store.SearchOptions{})
		bErr(t, "SearchMessages", err, nil)
		if len(hits) != 1 || hits[0].Snippet == nil {
			t.Fatalf("hits %+v, want one with a snippet", hits)
		}
		bEq(t, "LIKE snippet", *hits[0].Snippet, "记忆系统已经上线")
		bEq(t, "LIKE hit", hits[0].ID, c["cjk2"])
		bEq(t, "LIKE context", hits[0].Context, []store.ContextMessage{
			{Role: "assistant", Content: "the deployment finished without errors"},
			{Role: "assistant", Content: "记忆系统已经上线"},
			{Role: "tool", Content: "stored 42 notes"},
		})
	})

	// A hit whose indexed text is past 32 KiB gets the store's own
	// snippet: 160 code points from 40 before the first occurrence.
	t.Run("LongHitSnippet", func(t *testing.T) {
		prefix, suffix := strings.Repeat("lorem ", 100), strings.Repeat("ipsum ", 6000)
		bCreate(t, s, "big", "cli")
		id := bSay(t, s, "big", "user", prefix+"walrus "+suffix, 4000)
		hits, err := s.SearchMessages(t.Context(), "walrus", store.SearchOptions{})
		bErr(t, "SearchMessages(walrus)", err, nil)
		bEq(t, "hits", bHits(hits), []int64{id})
		got := hits[0].Snippet
		want := "..." + prefix[len(prefix)-40:] + ">>>walrus<<<" + (" " + suffix)[:114] + "..."
		switch {
		case got == nil:
			t.Fatal("no snippet")
		case h.Caps.SnippetText:
			bEq(t, "long snippet", *got, want)
		case !strings.Contains(*got, "walrus"):
			t.Fatalf("snippet %q does not hold the word", *got)
		}
		bEq(t, "long hit's context", hits[0].Context, []store.ContextMessage{{Role: "user", Content: (prefix + "walrus " + suffix)[:200]}})
	})

	// Structured neighbours show their text parts, or a placeholder.
	t.Run("ContextMultimodal", func(t *testing.T) {
		bCreate(t, s, "mm", "cli")
		add := func(role string, content json.RawMessage, ts float64) {
			t.Helper()
			_, err := s.AppendMessage(t.Context(), "mm", store.NewMessage{Role: role, ContentJSON: content, Timestamp: new(store.Timestamp(ts))})
			bErr(t, "AppendMessage(structured)", err, nil)
		}
		add("user", json.RawMessage(`[{"type": "text", "text": " see "}, {"type": "image_url", "image_url": {"url": "u"}}, {"type": "text", "text": "picture"}]`), 5000)
		id := bSay(t, s, "mm", "assistant", "platypus here", 5001)
		add("user", json.RawMessage(`[{"type": "image_url", "image_url": {"url": "u"}}]`), 5002)
		hits, err := s.SearchMessages(t.Context(), "platypus", store.SearchOptions{})
		bErr(t, "SearchMessages(platypus)", err, nil)
		bEq(t, "hits", bHits(hits), []int64{id})
		bEq(t, "context", hits[0].Context, []store.ContextMessage{
			{Role: "user", Content: "see  picture"}, // parts joined by spaces, then stripped
			{Role: "assistant", Content: "platypus here"},
			{Role: "user", Content: "[multimodal content]"},
		})
	})

	// Context cuts every message to 200 code points (not bytes).
	t.Run("ContextCut", func(t *testing.T) {
		long := strings.Repeat("é", 250)
		bCreate(t, s, "long", "cli")
		bSay(t, s, "long", "user", long, 3000)
		id := bSay(t, s, "long", "assistant", "zebra "+long, 3001)
		hits, err := s.SearchMessages(t.Context(), "zebra", store.SearchOptions{})
		bErr(t, "SearchMessages(zebra)", err, nil)
		bEq(t, "hits", bHits(hits), []int64{id})
		bEq(t, "context", hits[0].Context, []store.ContextMessage{
			{Role: "user", Content: strings.Repeat("é", 200)},
			{Role: "assistant", Content: "zebra " + strings.Repeat("é", 194)},
		})
	})
}

// bSearchActiveRows checks that rewound messages are left out unless
// IncludeInactive, on every route, that compaction-archived ones are found,
// and that a hit's context follows the same rule.
func bSearchActiveRows(t *testing.T, h Harness) {
	s := h.Open(t)
	bCreate(t, s, "r", "cli")
	ids := map[string]int64{}
	for i, w := range []string{"one", "two", "three"} {
		ids["u"+w] = bSay(t, s, "r", "user", "needle "+w+" 通信记忆系统", float64(1000+2*i))
		ids["a"+w] = bSay(t, s, "r", "assistant", "reply "+w, float64(1001+2*i))
	}
	// Rewind from the third user message: it and its reply are inactive.
	res, err := s.RewindToMessage(t.Context(), "r", ids["uthree"])
	bErr(t, "RewindToMessage", err, nil)
	bEq(t, "rewound", res.Rewound, 2)
	// Compact the rest in place: the first four messages are archived
	// (compacted), the summary is live.
	n, err := s.ArchiveAndCompact(t.Context(), "r", []store.NewMessage{{Role: "user", Content: new("summary of the needle talk"), Timestamp: new(store.Timestamp(1100))}})
	bErr(t, "ArchiveAndCompact", err, nil)
	bEq(t, "compacted in", n, 1)
	live := bLive(t, s, "r", false)
	if len(live) != 1 {
		t.Fatalf("live after the compaction: %v, want the summary", live)
	}
	summary := live[0]
	ids["summary"] = summary
	c := bCorpus(ids)
	bRunSearches(t, h, s, c, []bSearchCase{
		{"Unicode61", "needle", store.SearchOptions{Order: store.SearchOldest}, []string{"uone", "utwo", "summary"}, false},
		{"Unicode61Inactive", "needle", store.SearchOptions{Order: store.SearchOldest, IncludeInactive: true}, []string{"uone", "utwo", "uthree", "summary"}, false},
		{"Unicode61Rewound", "three", store.SearchOptions{}, []string{}, true},
		{"Unicode61RewoundInactive", "three", store.SearchOptions{IncludeInactive: true, Order: store.SearchNewest}, []string{"athree", "uthree"}, false},
		{"Trigram", "记忆系统", store.SearchOptions{Order: store.SearchNewest}, []string{"utwo", "uone"}, false},
		{"TrigramInactive", "记忆系统", store.SearchOptions{Order: store.SearchNewest, IncludeInactive: true}, []string{"uthree", "utwo", "uone"}, false},
		{"Like", "通信", store.SearchOptions{}, []string{"utwo", "uone"}, false},
		{"LikeInactive", "通信", store.SearchOptions{IncludeInactive: true}, []string{"uthree", "utwo", "uone"}, false},
	})
	t.Run("Context", func(t *testing.T) {
		for _, inactive := range []bool{false, true} {
			hits, err := s.SearchMessages(t.Context(), "summary", store.SearchOptions{IncludeInactive: inactive})
			bErr(t, "SearchMessages(summary)", err, nil)
			bEq(t, "hits", bHits(hits), []int64{summary})
			prev := store.ContextMessage{Role: "assistant", Content: "reply two"}
			if inactive {
				prev = store.ContextMessage{Role: "assistant", Content: "reply three"}
			}
			bEq(t, "context", hits[0].Context, []store.ContextMessage{prev, {Role: "user", Content: "summary of the needle talk"}})
		}
	})
	// HasArchivedMessages is true for r, false for a session without
	// inactive rows and for an unknown one.
	bCreate(t, s, "plain", "cli")
	bSay(t, s, "plain", "user", "x", 0)
	for _, tc := range []struct {
		id   string
		want bool
	}{{"r", true}, {"plain", false}, {"nope", false}} {
		got, err := s.HasArchivedMessages(t.Context(), tc.id)
		bErr(t, "HasArchivedMessages", err, nil)
		bEq(t, "HasArchivedMessages("+tc.id+")", got, tc.want)
	}
}

// bSearchLimitsAndEmpty checks the query size limits (code points, words)
// and the queries with nothing to search for.
func bSearchLimitsAndEmpty(t *testing.T, h Harness) {
	s := h.Open(t)
	// An empty store has nothing to find and no error.
	for _, q := range []string{"docker", "记忆系统", "记忆"} {
		hits, err := s.SearchMessages(t.Context(), q, store.SearchOptions{})
		bErr(t, "SearchMessages on an empty store", err, nil)
		bEq(t, "hits on an empty store of "+q, len(hits), 0)
	}
	bSearchCorpus(t, s)
	// A search under an ended context returns the context's error.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, q := range []string{"docker", "记忆系统", "记忆"} {
		_, err := s.SearchMessages(ctx, q, store.SearchOptions{})
		bErr(t, "SearchMessages under a cancelled context", err, context.Canceled)
	}
	for _, tc := range []struct {
		name, query string
		err         error
		hits        int
	}{
		{"Empty", "", nil, 0},
		{"Spaces", "   \t ", nil, 0},
		{"OnlyOperators", "AND OR NOT", nil, 0},
		{"OnlyPunctuation", `*"(){}:^+`, nil, 0},
		{"MaxLength", strings.Repeat("é", store.MaxQueryLength), nil, 0},
		{"TooLong", strings.Repeat("é", store.MaxQueryLength+1), store.ErrQueryTooLong, 0},
		{"MaxTerms", strings.Repeat("docker ", store.MaxQueryTerms), nil, 3},
		{"TooManyTerms", strings.Repeat("docker ", store.MaxQueryTerms+1), store.ErrQueryTooLong, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := s.SearchMessages(t.Context(), tc.query, store.SearchOptions{})
			bErr(t, "SearchMessages", err, tc.err)
			if tc.err != nil {
				if hits != nil {
					t.Fatalf("hits %v with an error", hits)
				}
				return
			}
			if hits == nil {
				t.Fatal("nil hits, want an empty slice")
			}
			bEq(t, "hit count", len(hits), tc.hits)
		})
	}
}

// bSearchSessionsByID checks SearchSessionsByID: case-insensitive
// substring match on trimmed ids, exact then prefix then other matches
// each in activity order, the limit, archived sessions, and the
// compression projection (a root's id finds its tip).
func bSearchSessionsByID(t *testing.T, h Harness) {
	s := h.Open(t)
	bImport(t, s,
		`{"id": "alpha", "source": "cli", "started_at": 100}`,
		`{"id": "Alpha_2", "source": "cli", "started_at": 200}`,
		`{"id": "x_alpha", "source": "cli", "started_at": 300, "messages": [{"role": "user", "content": "hi", "timestamp": 900}]}`,
		`{"id": "y_alpha", "source": "cli", "started_at": 400}`,
		`{"id": "beta", "source": "cli", "started_at": 500}`,
		`{"id": "arch_alpha", "source": "cli", "started_at": 600, "archived": 1}`,
		`{"id": "root9", "source": "cli", "started_at": 700, "ended_at": 710, "end_reason": "compression"}`,
		`{"id": "tip9", "source": "cli", "started_at": 720, "parent_session_id": "root9"}`,
		`{"id": "ÜBER_x", "source": "cli", "started_at": 800}`,
		`{"id": "über_y", "source": "cli", "started_at": 810}`,
	)
	for _, tc := range []struct {
		name, query string
		opts        store.IDSearchOptions
		want        []string
	}{
		// Exact "alpha", then prefix "Alpha_2", then the rest newest
		// activity first (x_alpha's message at 900 beats arch_alpha's start).
		{"Ranked", "alpha", store.IDSearchOptions{}, []string{"alpha", "Alpha_2", "x_alpha", "arch_alpha", "y_alpha"}},
		{"CaseAndSpace", "  ALPHA ", store.IDSearchOptions{}, []string{"alpha", "Alpha_2", "x_alpha", "arch_alpha", "y_alpha"}},
		{"ExcludeArchived", "alpha", store.IDSearchOptions{ExcludeArchived: true}, []string{"alpha", "Alpha_2", "x_alpha", "y_alpha"}},
		{"Limit", "alpha", store.IDSearchOptions{Limit: 2}, []string{"alpha", "Alpha_2"}},
		// Only the 4×Limit most recently active matches are ranked: with
		// a limit of 1 the exact match, the least recent, is not among them.
		{"LimitRanksOnlyRecent", "alpha", store.IDSearchOptions{Limit: 1}, []string{"Alpha_2"}},
		{"HugeLimit", "alpha", store.IDSearchOptions{Limit: math.MaxInt}, []string{"alpha", "Alpha_2", "x_alpha", "arch_alpha", "y_alpha"}},
		{"NegativeLimit", "alpha", store.IDSearchOptions{Limit: -1}, []string{}},
		{"Empty", "  ", store.IDSearchOptions{}, []string{}},
		{"NoMatch", "gamma", store.IDSearchOptions{}, []string{}},
		{"Exact", "beta", store.IDSearchOptions{}, []string{"beta"}},
		{"RootFindsTip", "root9", store.IDSearchOptions{}, []string{"tip9"}},
		{"TipFindsTip", "tip9", store.IDSearchOptions{}, []string{"tip9"}},
		{"LikeCharsLiteral", "%", store.IDSearchOptions{}, []string{}},
		{"UnderscoreLiteral", "a_", store.IDSearchOptions{}, []string{"Alpha_2"}},
		// The query is lowercased as Python does, the ids as SQLite's
		// LOWER() does (ASCII only): Ü in an id never matches.
		{"NonASCIILower", "über", store.IDSearchOptions{}, []string{"über_y"}},
		{"NonASCIIUpper", "ÜBER", store.IDSearchOptions{}, []string{"über_y"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.SearchSessionsByID(t.Context(), tc.query, tc.opts)
			bErr(t, "SearchSessionsByID", err, nil)
			bEq(t, "sessions", bRichIDs(got), tc.want)
		})
	}
	got, err := s.SearchSessionsByID(t.Context(), "root9", store.IDSearchOptions{})
	bErr(t, "SearchSessionsByID(root9)", err, nil)
	bEq(t, "LineageRootID of the tip", got[0].LineageRootID, "root9")
}
