package store_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/internal/pgtest"
	"github.com/hermesstate/hermesstate/internal/storetest"
	"github.com/hermesstate/hermesstate/store"
)

// pgCaps is what PostgreSQL does differently from SQLite, the reference
// (see storetest.Caps and README "PostgreSQL"): text cannot hold U+0000,
// sequences keep the ids a rolled-back write took, ts_rank_cd ranks
// otherwise than bm25, and snippets are cut by the engine's own rules.
var pgCaps = storetest.Caps{}

// TestConformancePostgres runs the engine-neutral conformance suite
// against PostgreSQL, every store on a database of its own, once for each
// of pgx's query exec modes a deployment may need: the default (prepared
// statements cached per connection), "exec" and "simple_protocol", the two
// that work behind PgBouncer in transaction mode (no prepared statement
// outlives its transaction there), as River tests its drivers.
func TestConformancePostgres(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"", "exec", "simple_protocol"} {
		name := "postgres"
		if mode != "" {
			name += "-" + mode
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			open := func(t *testing.T, opts *store.Options) *store.Store {
				t.Helper()
				dsn := pgtest.Migrated(t)
				if mode != "" {
					u, err := url.Parse(dsn)
					if err != nil {
						t.Fatal(err)
					}
					q := u.Query()
					q.Set("default_query_exec_mode", mode)
					u.RawQuery = q.Encode()
					dsn = u.String()
				}
				s, err := store.Open(context.Background(), dsn, opts)
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
				Name: name,
				Open: func(t *testing.T) *store.Store { return open(t, nil) },
				OpenAt: func(t *testing.T, now func() time.Time) *store.Store {
					return open(t, &store.Options{Now: now})
				},
				Caps: pgCaps,
			})
		})
	}
}
