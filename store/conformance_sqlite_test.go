package store_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/internal/storetest"
	"github.com/hermesstate/hermesstate/store"
)

// TestConformance runs the engine-neutral conformance suite against SQLite:
// every store a file of its own in the test's temporary directory.
func TestConformance(t *testing.T) {
	t.Parallel()
	open := func(t *testing.T, opts *store.Options) *store.Store {
		t.Helper()
		s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		})
		return s
	}
	storetest.Run(t, storetest.Harness{
		Name: "sqlite",
		Open: func(t *testing.T) *store.Store { return open(t, nil) },
		OpenAt: func(t *testing.T, now func() time.Time) *store.Store {
			return open(t, &store.Options{Now: now})
		},
		// SQLite is the reference: it has every capability.
		Caps: storetest.Caps{NULInText: true, RollbackReturnsIDs: true, RankOrder: true, SnippetText: true},
	})
}
