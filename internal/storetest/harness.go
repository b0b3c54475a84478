// Package storetest is the engine-neutral conformance suite of package
// store: every group runs against any engine through the public API only.
package storetest

import (
	"testing"

	"github.com/hermesstate/hermesstate/store"
)

// Harness is one engine under test.
type Harness struct {
	// Name names the engine in test names.
	Name string
	// Open returns a fresh, empty, migrated store, closed at cleanup.
	Open func(t *testing.T) *store.Store
	// Caps are the engine's known divergences from SQLite's behaviour.
	Caps Caps
}

// Caps are what an engine shares with SQLite where engines may differ; a
// true field means the engine behaves exactly as SQLite does.
type Caps struct {
	// RankOrder: by-relevance search results come in SQLite's bm25 order.
	// Without it the suite compares hit sets, and exact order only for
	// the time orders.
	RankOrder bool
	// SnippetText: snippets are FTS5's snippet() text.
	SnippetText bool
	// NULInText: the engine stores U+0000 in text; without it such text is
	// refused with store.ErrInvalidText.
	NULInText bool
}

// group is one area of the suite.
type group struct {
	name string
	run  func(t *testing.T, h Harness)
}

// groups are every area of the suite, registered by init functions.
var groups []group

// Run runs the whole suite against h.
func Run(t *testing.T, h Harness) {
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			g.run(t, h)
		})
	}
}
