package store_test

import (
	"path/filepath"
	"testing"

	"github.com/hermesstate/hermesstate/internal/storetest"
	"github.com/hermesstate/hermesstate/store"
)

// TestConformance runs the engine-neutral conformance suite on SQLite.
func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, storetest.Harness{
		Name: "sqlite",
		Open: func(t *testing.T) *store.Store {
			t.Helper()
			s, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "state.db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s
		},
		Caps: storetest.Caps{RankOrder: true, SnippetText: true, NULInText: true},
	})
}
