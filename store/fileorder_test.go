package store

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/transfer"
)

// TestExportOrderFollowsTheSchema: exportOrder answers from its cache
// while the schema cookie stays, and reads the file's column order again
// once another connection changes the schema.
func TestExportOrderFollowsTheSchema(t *testing.T) {
	s, path := openStore(t, nil)
	ctx := t.Context()
	order := func() transfer.Order {
		t.Helper()
		o, err := readConn(s, ctx, func(ctx context.Context, q backend.Tx) (transfer.Order, error) {
			return s.exportOrder(ctx, q)
		})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	want, err := fileOrder(ctx, backend.SQLiteTx(s.r))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, order(), cmp.AllowUnexported(want)); d != "" {
		t.Fatalf("first exportOrder differs from fileOrder:\n%s", d)
	}
	// A stand-in order under the current cookie is what comes back: the
	// cache is used.
	stale := transfer.NewOrder([]string{"title", "id"}, []string{"role", "id"})
	s.orders.order = stale
	if d := cmp.Diff(stale, order(), cmp.AllowUnexported(stale)); d != "" {
		t.Fatalf("exportOrder did not answer from its cache:\n%s", d)
	}
	before := s.orders.version
	if _, err := rawDB(t, path).ExecContext(ctx, "CREATE TABLE test_other (x)"); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, order(), cmp.AllowUnexported(want)); d != "" {
		t.Errorf("after another connection's schema change, exportOrder kept the cached order:\n%s", d)
	}
	if s.orders.version == before {
		t.Errorf("schema cookie still %d after CREATE TABLE", before)
	}
}
