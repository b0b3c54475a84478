package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	register(
		group{"lineage/walks", testLineage},
		group{"lineage/tip-choice", testTipChoice},
	)
}

// lineageTree creates, one second apart from epoch:
//
//	root (title "R", ended compression)
//	├── c1 (ended compression)
//	│   └── c2 (live, no messages)
//	│       ├── d (messages)
//	│       └── e (messages)
//	│           └── f (no messages)
//	├── br (_branched_from), dl (_delegate_from), tl (source "tool")
func lineageTree(t *testing.T, h Harness) *store.Store {
	t.Helper()
	s, c := openClocked(t, h)
	for _, n := range []store.NewSession{
		cli("root"),
		{ID: "c1", Source: "cli", ParentSessionID: "root"},
		{ID: "c2", Source: "cli", ParentSessionID: "c1"},
		{ID: "br", Source: "cli", ParentSessionID: "root", ModelConfig: json.RawMessage(`{"_branched_from":"root"}`)},
		{ID: "dl", Source: "cli", ParentSessionID: "root", ModelConfig: json.RawMessage(`{"_delegate_from":"root"}`)},
		{ID: "tl", Source: "tool", ParentSessionID: "root"},
		{ID: "d", Source: "cli", ParentSessionID: "c2"},
		{ID: "e", Source: "cli", ParentSessionID: "c2"},
		{ID: "f", Source: "cli", ParentSessionID: "e"},
	} {
		create(t, s, n)
		c.Advance(time.Second)
	}
	ok(t, s.SetSessionTitle(t.Context(), "root", "R"))
	end(t, s, "root", "compression")
	end(t, s, "c1", "compression")
	for _, id := range []string{"d", "e", "br", "dl", "tl"} {
		say(t, s, id, "user", "in "+id)
	}
	return s
}

func testLineage(t *testing.T, h Harness) {
	ctx := t.Context()
	s := lineageTree(t, h)
	for _, c := range []struct{ id, tip, resume string }{
		{"root", "c2", "e"}, {"c1", "c2", "e"}, {"c2", "c2", "e"}, {"e", "e", "e"}, {"f", "f", "f"},
		{"br", "br", "br"}, {"dl", "dl", "dl"}, {"nope", "nope", "nope"}, {"", "", ""},
	} {
		tip, err := s.CompressionTip(ctx, c.id)
		ok(t, err)
		equal(t, "CompressionTip("+c.id+")", tip, c.tip)
		resume, err := s.ResolveResumeSessionID(ctx, c.id)
		ok(t, err)
		equal(t, "ResolveResumeSessionID("+c.id+")", resume, c.resume)
	}
	for _, c := range []struct {
		id                string
		compression, tree []string
	}{
		{"root", []string{"root", "c1", "c2"}, []string{"root"}},
		{"c1", []string{"root", "c1", "c2"}, []string{"root", "c1"}},
		{"c2", []string{"root", "c1", "c2"}, []string{"root", "c1", "c2"}},
		{"f", []string{"f"}, []string{"root", "c1", "c2", "e", "f"}},
		{"br", []string{"br"}, []string{"root", "br"}},
	} {
		got, err := s.CompressionLineage(ctx, c.id)
		ok(t, err)
		equal(t, "CompressionLineage("+c.id+")", got, c.compression)
		got, err = s.Lineage(ctx, c.id)
		ok(t, err)
		equal(t, "Lineage("+c.id+")", got, c.tree)
	}
	_, err := s.CompressionLineage(ctx, "nope")
	isErr(t, "CompressionLineage unknown", err, store.ErrNotFound)
	got, err := s.Lineage(ctx, "nope")
	ok(t, err)
	equal(t, "Lineage unknown", got, []string{"nope"})

	node := func(id string, sec int, parent string, depth int) store.LineageNode {
		n := store.LineageNode{ID: id, StartedAt: at(time.Duration(sec) * time.Second), Depth: depth}
		if parent != "" {
			n.ParentSessionID = ptr(parent)
		}
		if id == "root" {
			n.Title = ptr("R")
		}
		return n
	}
	anc, err := s.Ancestors(ctx, "f")
	ok(t, err)
	equal(t, "Ancestors(f)", anc, []store.LineageNode{
		node("f", 8, "e", 0), node("e", 7, "c2", 1), node("c2", 2, "c1", 2), node("c1", 1, "root", 3), node("root", 0, "", 4),
	})
	desc, err := s.Descendants(ctx, "c1")
	ok(t, err)
	equal(t, "Descendants(c1)", desc, []store.LineageNode{
		node("c1", 1, "root", 0), node("c2", 2, "c1", 1), node("d", 6, "c2", 2), node("e", 7, "c2", 2), node("f", 8, "e", 3),
	})
	anc, err = s.Ancestors(ctx, "nope")
	ok(t, err)
	equal(t, "Ancestors of an unknown id", anc, []store.LineageNode{})
	desc, err = s.Descendants(ctx, "nope")
	ok(t, err)
	equal(t, "Descendants of an unknown id", desc, []store.LineageNode{})
}

// testTipChoice checks which of several continuations CompressionTip
// follows: one that ended by compression, else a live one, else the one
// active last, then the latest started, then the greatest id.
func testTipChoice(t *testing.T, h Harness) {
	ctx := t.Context()
	s, c := openClocked(t, h)
	tip := func(id string) string {
		t.Helper()
		got, err := s.CompressionTip(ctx, id)
		ok(t, err)
		return got
	}
	child := func(id, parent string) {
		t.Helper()
		c.Advance(time.Second)
		create(t, s, store.NewSession{ID: id, Source: "cli", ParentSessionID: parent})
	}
	create(t, s, cli("root"))
	end(t, s, "root", "compression")
	child("k1", "root")
	child("k2", "root")
	appendMsg(t, s, "k1", store.NewMessage{Role: "user", Content: ptr("x"), Timestamp: ptr(at(100 * time.Second))})
	appendMsg(t, s, "k2", store.NewMessage{Role: "user", Content: ptr("x"), Timestamp: ptr(at(50 * time.Second))})
	end(t, s, "k1", "user_exit")
	end(t, s, "k2", "user_exit")
	equal(t, "active last", tip("root"), "k1")
	child("k3", "root")
	equal(t, "a live one", tip("root"), "k3")
	child("k0", "root")
	equal(t, "the latest started live one", tip("root"), "k0")
	child("k4", "root")
	end(t, s, "k4", "compression")
	equal(t, "one that ended by compression", tip("root"), "k4")
	child("k5", "k4")
	equal(t, "followed on", tip("root"), "k5")

	create(t, s, cli("r2"))
	end(t, s, "r2", "compression")
	for _, id := range []string{"n", "m", "N"} { // started together
		create(t, s, store.NewSession{ID: id, Source: "cli", ParentSessionID: "r2"})
	}
	equal(t, "greatest id", tip("r2"), "n")
}
