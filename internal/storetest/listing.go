package storetest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	register(
		group{"listing/rich", testListRich},
		group{"listing/browse", testSearchSessions},
		group{"listing/count", testCounts},
	)
}

// listingStore creates, session i started i seconds after epoch:
//
//	0 a     cli, cwd /home/u/proj, prompt; messages at 10 s and 200 s
//	1 b     telegram, title "AN-94"; 3 messages, the last at 13 s
//	2 root  cli, one message at 14 s, ended compression at 50 s
//	3 tip   root's continuation, title "Chain", one message at 60 s
//	4 br    /branch child of a, no messages
//	5 dl    delegate child of a, one message at 300 s
//	6 arch  archived, no messages
//	7 long  one 70-code-point user message at 20 s
func listingStore(t *testing.T, h Harness) *store.Store {
	t.Helper()
	ctx := t.Context()
	s, c := openClocked(t, h)
	for i, n := range []store.NewSession{
		{ID: "a", Source: "cli", Cwd: "/home/u/proj", SystemPrompt: "sp"},
		{ID: "b", Source: "telegram"},
		cli("root"),
		{ID: "tip", Source: "cli", ParentSessionID: "root"},
		{ID: "br", Source: "cli", ParentSessionID: "a", ModelConfig: json.RawMessage(`{"_branched_from":"a"}`)},
		{ID: "dl", Source: "cli", ParentSessionID: "a", ModelConfig: json.RawMessage(`{"_delegate_from":"a"}`)},
		cli("arch"),
		cli("long"),
	} {
		c.Set(epoch.Add(time.Duration(i) * time.Second))
		create(t, s, n)
	}
	msg := func(id, role, text string, sec int) {
		t.Helper()
		appendMsg(t, s, id, store.NewMessage{Role: role, Content: ptr(text), Timestamp: ptr(at(time.Duration(sec) * time.Second))})
	}
	msg("a", "user", "  first question\nwith newline ", 10)
	msg("a", "assistant", "answer", 200)
	msg("b", "user", "b1", 11)
	msg("b", "assistant", "b2", 12)
	msg("b", "user", "b3", 13)
	msg("root", "user", "root q", 14)
	msg("tip", "user", "tip says", 60)
	msg("dl", "user", "delegated", 300)
	msg("long", "user", strings.Repeat("é", 70), 20)
	ok(t, s.SetSessionTitle(ctx, "b", "AN-94"))
	ok(t, s.SetSessionTitle(ctx, "tip", "Chain"))
	c.Set(epoch.Add(50 * time.Second))
	end(t, s, "root", "compression")
	archived, err := s.SetSessionArchived(ctx, "arch", true)
	ok(t, err)
	equal(t, "archived", archived, true)
	return s
}

func testListRich(t *testing.T, h Harness) {
	ctx := t.Context()
	s := listingStore(t, h)
	list := func(opts store.ListOptions) []store.RichSession {
		t.Helper()
		got, err := s.ListSessionsRich(ctx, opts)
		ok(t, err)
		return got
	}
	rowID := func(r store.RichSession) string { return r.ID }

	t.Run("Rows", func(t *testing.T) {
		got := list(store.ListOptions{})
		equal(t, "ids", ids(got, rowID), []string{"long", "br", "tip", "b", "a"})
		if len(got) != 5 {
			t.FailNow()
		}
		equal(t, "a", got[4], store.RichSession{Session: get(t, s, "a"), LastActive: at(200 * time.Second), Preview: "first question with newline"})
		equal(t, "long preview", got[0].Preview, strings.Repeat("é", 60)+"...")
		equal(t, "no messages", [2]any{got[1].Preview, got[1].LastActive}, [2]any{"", at(4 * time.Second)})
		// The compression root's row, projected onto its tip.
		tip := get(t, s, "tip")
		want := store.RichSession{Session: get(t, s, "root"), LastActive: at(60 * time.Second), Preview: "tip says", LineageRootID: "root"}
		want.ID, want.EndedAt, want.EndReason, want.Title = "tip", nil, nil, ptr("Chain")
		want.MessageCount, want.ToolCallCount = tip.MessageCount, tip.ToolCallCount
		equal(t, "projected row", got[2], want)
	})
	for _, c := range []struct {
		name string
		opts store.ListOptions
		want []string
	}{
		{"Limit", store.ListOptions{Limit: 2}, []string{"long", "br"}},
		{"Offset", store.ListOptions{Limit: 1, Offset: 3}, []string{"b"}},
		{"NoLimit", store.ListOptions{Limit: -1}, []string{"long", "br", "tip", "b", "a"}},
		{"NegativeOffset", store.ListOptions{Offset: -1, Limit: 2}, []string{"long", "br"}},
		{"Source", store.ListOptions{Source: "telegram"}, []string{"b"}},
		{"ExcludeSources", store.ListOptions{ExcludeSources: []string{"cli"}}, []string{"b"}},
		{"MinMessageCount", store.ListOptions{MinMessageCount: 2}, []string{"b", "a"}},
		{"CwdPrefix", store.ListOptions{CwdPrefix: "/home/u"}, []string{"a"}},
		{"CwdPrefixSlash", store.ListOptions{CwdPrefix: "/home/u/proj//"}, []string{"a"}},
		{"CwdPrefixCase", store.ListOptions{CwdPrefix: "/HOME/U"}, []string{"a"}},
		{"CwdPrefixPartName", store.ListOptions{CwdPrefix: "/home/u/pro"}, []string{}},
		{"CwdPrefixWildcard", store.ListOptions{CwdPrefix: "/home/_"}, []string{"a"}},
		{"IncludeChildren", store.ListOptions{IncludeChildren: true}, []string{"long", "dl", "br", "tip", "root", "b", "a"}},
		{"RawCompressionRoots", store.ListOptions{RawCompressionRoots: true}, []string{"long", "br", "root", "b", "a"}},
		{"IncludeArchived", store.ListOptions{IncludeArchived: true}, []string{"long", "arch", "br", "tip", "b", "a"}},
		{"ArchivedOnly", store.ListOptions{ArchivedOnly: true}, []string{"arch"}},
		{"OrderByLastActive", store.ListOptions{OrderByLastActive: true}, []string{"a", "tip", "long", "b", "br"}},
		{"IDQuery", store.ListOptions{IDQuery: " TI "}, []string{"tip"}},
		{"IDQueryOfRoot", store.ListOptions{IDQuery: "roo"}, []string{"tip"}},
		{"SearchQuery", store.ListOptions{SearchQuery: "an94"}, []string{"b"}},
		{"SearchQueryTitle", store.ListOptions{SearchQuery: "CHAIN", OrderByLastActive: true}, []string{"tip"}},
		{"SearchQueryNone", store.ListOptions{SearchQuery: "zzz"}, []string{}},
	} {
		equal(t, c.name, ids(list(c.opts), rowID), c.want)
	}
	t.Run("QueryCase", func(t *testing.T) {
		// The query is lowercased as Python does, the ids and titles as
		// SQLite's lower() does: ASCII letters only.
		s, _ := openClocked(t, h)
		create(t, s, cli("ÉLAN-1"))
		create(t, s, cli("élan-2"))
		ok(t, s.SetSessionTitle(ctx, "élan-2", "Ärger"))
		for _, c := range []struct {
			idQuery, searchQuery string
			want                 []string
		}{
			{"LAN", "", []string{"élan-2", "ÉLAN-1"}},
			{"élan", "", []string{"élan-2"}},
			{"ÉLAN", "", []string{"élan-2"}},
			{"", "ärger", []string{}},
			{"", "RGER", []string{"élan-2"}},
		} {
			got, err := s.ListSessionsRich(ctx, store.ListOptions{IDQuery: c.idQuery, SearchQuery: c.searchQuery})
			ok(t, err)
			equal(t, "query "+c.idQuery+c.searchQuery, ids(got, rowID), c.want)
		}
	})
	t.Run("TieOrder", func(t *testing.T) {
		// Sessions started at the same time are ordered by id, compared as
		// bytes (SQLite's BINARY collation), never by a locale's rules.
		s, _ := openClocked(t, h)
		create(t, s, cli("p"))
		tied := []string{"b", "B", "a", "_x", "é", "e", "Z"}
		for _, id := range tied {
			create(t, s, store.NewSession{ID: id, Source: "cli", ParentSessionID: "p"})
		}
		desc := []string{"é", "p", "e", "b", "a", "_x", "Z", "B"} // p too: every one started at epoch
		got, err := s.ListSessionsRich(ctx, store.ListOptions{IncludeChildren: true, Limit: -1})
		ok(t, err)
		equal(t, "listing", ids(got, rowID), desc)
		browse, err := s.SearchSessions(ctx, "", -1, 0)
		ok(t, err)
		equal(t, "browse", ids(browse, func(a store.ActiveSession) string { return a.ID }), desc)
		nodes, err := s.Descendants(ctx, "p")
		ok(t, err)
		equal(t, "descendants", ids(nodes[1:], func(n store.LineageNode) string { return n.ID }), []string{"B", "Z", "_x", "a", "b", "e", "é"})
	})
	got := list(store.ListOptions{CompactRows: true, Source: "cli", Limit: -1})
	equal(t, "CompactRows", got[len(got)-1].SystemPrompt, (*string)(nil))
	equal(t, "without CompactRows", list(store.ListOptions{CwdPrefix: "/home"})[0].SystemPrompt, ptr("sp"))
}

func testSearchSessions(t *testing.T, h Harness) {
	ctx := t.Context()
	s := listingStore(t, h)
	activeID := func(r store.ActiveSession) string { return r.ID }
	for _, c := range []struct {
		name          string
		source        string
		limit, offset int
		want          []string
	}{
		{"All", "", 0, 0, []string{"dl", "a", "tip", "long", "root", "b", "arch", "br"}},
		{"Page", "", 3, 2, []string{"tip", "long", "root"}},
		{"NegativeIsNone", "", -1, -1, []string{"dl", "a", "tip", "long", "root", "b", "arch", "br"}},
		{"Source", "telegram", 0, 0, []string{"b"}},
		{"NoSource", "acp", 0, 0, []string{}},
	} {
		got, err := s.SearchSessions(ctx, c.source, c.limit, c.offset)
		ok(t, err)
		equal(t, c.name, ids(got, activeID), c.want)
	}
	got, err := s.SearchSessions(ctx, "", 1, 0)
	ok(t, err)
	equal(t, "row", got, []store.ActiveSession{{Session: get(t, s, "dl"), LastActive: at(300 * time.Second)}})
}

func testCounts(t *testing.T, h Harness) {
	ctx := t.Context()
	s := listingStore(t, h)
	for _, c := range []struct {
		name string
		opts store.CountOptions
		want int64
	}{
		{"Default", store.CountOptions{}, 7},
		{"Source", store.CountOptions{Source: "cli"}, 6},
		{"ExcludeSources", store.CountOptions{ExcludeSources: []string{"cli", "x"}}, 1},
		{"IncludeArchived", store.CountOptions{IncludeArchived: true}, 8},
		{"ArchivedOnly", store.CountOptions{ArchivedOnly: true}, 1},
		{"ExcludeChildren", store.CountOptions{ExcludeChildren: true}, 5}, // what the default listing pages through
		{"MinMessageCount", store.CountOptions{MinMessageCount: 1}, 6},
		{"CwdPrefix", store.CountOptions{CwdPrefix: "/home/u/"}, 1},
	} {
		n, err := s.CountSessions(ctx, c.opts)
		ok(t, err)
		equal(t, c.name, n, c.want)
	}
	for _, c := range []struct {
		source string
		want   int64
	}{{"", 7}, {"telegram", 1}, {"nope", 0}} {
		n, err := s.SessionCount(ctx, c.source)
		ok(t, err)
		equal(t, "SessionCount("+c.source+")", n, c.want)
	}
}
