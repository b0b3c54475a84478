// Package storetest is the engine-neutral conformance suite of package
// store, in the manner of River's riverdrivertest: one Run, called once per
// engine with a Harness that opens fresh stores of that engine, exercises
// every public method through the public API alone (no SQL, no file
// access), so that the same expectations hold on SQLite and PostgreSQL.
// Where the engines cannot agree, a Caps flag names the divergence and the
// test that meets it asserts each side's exact behaviour.
//
// The suite is split into groups, one per area; each file of the package
// registers its groups from init() with register, so that several authors
// can add areas without touching each other's files. Run runs every group
// as a subtest, in name order.
//
// An engine is wired with one test file in package store_test, such as
// store/conformance_sqlite_test.go:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, storetest.Harness{
//			Name:   "sqlite",
//			Open:   func(t *testing.T) *store.Store { … a fresh store, closed at cleanup … },
//			OpenAt: func(t *testing.T, now func() time.Time) *store.Store { … with Options.Now … },
//			Caps:   storetest.Caps{NULInText: true, RollbackReturnsIDs: true, RankOrder: true, SnippetText: true},
//		})
//	}
//
// PostgreSQL's opens each store on a database of its own
// (pgtest.NewDatabase) and leaves out the capabilities it lacks.
package storetest

import (
	"cmp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

// Harness opens stores of one engine for Run.
type Harness struct {
	// Name names the engine in test output ("sqlite", "postgres").
	Name string
	// Open returns a fresh, empty store at the current schema, with default
	// options; it is closed at t's cleanup (a test may close it earlier:
	// a second Close is no error). Two calls return independent stores.
	Open func(t *testing.T) *store.Store
	// OpenAt is Open with the store's clock (store.Options.Now) set to now,
	// for tests that assert exact timestamps and orders.
	OpenAt func(t *testing.T, now func() time.Time) *store.Store
	// Caps names where this engine's behaviour differs from the others'.
	Caps Caps
}

// Caps are what an engine shares with SQLite where engines may differ: a
// true field means the engine behaves exactly as SQLite does (SQLite's
// harness sets them all), a false one names a known, documented divergence.
// A test that depends on a flag asserts the exact behaviour of each side.
type Caps struct {
	// NULInText: text holding U+0000 is stored and reads back unchanged
	// (SQLite). Without it such text is refused with store.ErrInvalidText
	// and nothing is written (PostgreSQL's text type cannot hold it).
	NULInText bool
	// RollbackReturnsIDs: a rolled-back write gives back the message ids it
	// took, so the next message gets them (SQLite's AUTOINCREMENT counter is
	// part of the transaction). Without it they stay used up and the next
	// id leaves a gap (PostgreSQL's sequences are not transactional). On
	// both, an id freed by a delete is never given again.
	RollbackReturnsIDs bool
	// RankOrder: by-relevance search results come in SQLite's bm25 order.
	// Without it the suite compares hit sets, and exact order only for the
	// time orders.
	RankOrder bool
	// SnippetText: search snippets are FTS5's snippet() text.
	SnippetText bool
}

// group is one area of the suite: run gets a fresh t per area and opens
// the stores it needs from h.
type group struct {
	name string
	run  func(t *testing.T, h Harness)
}

// groups are the registered areas. Every file of the package appends to it
// from its init() (directly or through register), whoever wrote the file:
// no file lists another's groups. Init functions run one at a time, before
// any test, so no lock is needed.
var groups []group

// register adds areas to the suite; call it from init().
func register(gs ...group) { groups = append(groups, gs...) }

// Run runs the whole suite against h's engine: one parallel subtest per
// area, in name order, each with subtests per method or rule. Every area
// opens stores of its own, so areas never see each other's data.
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.Open == nil || h.OpenAt == nil {
		t.Fatalf("storetest: harness %q needs Open and OpenAt", h.Name)
	}
	gs := slices.Clone(groups)
	slices.SortStableFunc(gs, func(a, b group) int { return cmp.Compare(a.name, b.name) })
	for i := 1; i < len(gs); i++ {
		if gs[i].name == gs[i-1].name {
			t.Fatalf("storetest: two groups named %q", gs[i].name)
		}
	}
	for _, g := range gs {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			g.run(t, h)
		})
	}
}

// Clock is a settable store clock (pass its Now to Harness.OpenAt): it
// reads the same time until Set or Advance moves it. It is safe for
// concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock reading at.
func NewClock(at time.Time) *Clock { return &Clock{now: at} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to at.
func (c *Clock) Set(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = at
}

// Advance moves the clock d on and returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}
