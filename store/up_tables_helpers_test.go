package store

import (
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// Helpers of the v21 tables' tests (up_locks_test.go, up_gateway_test.go,
// up_handoff_test.go, up_delegations_test.go).

// setClock is a store clock the test sets, in epoch seconds: upstream's
// tests monkeypatch time.time to fixed values (1000.0, then 1005.0, …).
type setClock struct{ ns atomic.Int64 }

// newSetClock returns a clock showing sec.
func newSetClock(sec float64) *setClock {
	c := &setClock{}
	c.Set(sec)
	return c
}

// Set moves the clock to sec.
func (c *setClock) Set(sec float64) { c.ns.Store(int64(math.Round(sec * 1e9))) }

// Now is the clock for Options.Now.
func (c *setClock) Now() time.Time { return time.Unix(0, c.ns.Load()) }

// clockStore opens a store on a new file whose clock is c.
func clockStore(t *testing.T, c *setClock) *Store {
	t.Helper()
	s, _ := openStore(t, &Options{Now: c.Now})
	return s
}

// newSession creates session id with source through the store API, the
// only setup most of these tests need (upstream: db.create_session(id, source)).
func newSession(t *testing.T, s *Store, id, source string) {
	t.Helper()
	mustCreate(t, s, NewSession{ID: id, Source: source})
}

// tableRows returns every row of query on the store's writer connection,
// for comparing a table with exactly what a test expects.
func tableRows(t *testing.T, s *Store, query string, args ...any) [][]any {
	t.Helper()
	return dbtest.Rows(t, s.w, query, args...)
}

// wantRows fails the test unless query returns exactly want.
func wantRows(t *testing.T, s *Store, want [][]any, query string, args ...any) {
	t.Helper()
	if diff := cmp.Diff(want, tableRows(t, s, query, args...)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", query, diff)
	}
}
