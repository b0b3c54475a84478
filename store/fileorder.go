package store

import (
	"context"
	"sync"

	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/transfer"
)

// schemaVersionSQL reads the file's schema cookie, which SQLite changes
// with every change of the schema (an added column, a VACUUM): while it
// stays, the column order fileOrder read is still the file's. One small
// statement instead of the two pragma_table_info walks, which took a tenth
// of a one-session export.
const schemaVersionSQL = `PRAGMA schema_version`

// orderCache is the column order last read by fileOrder, and the schema
// cookie it was read at.
type orderCache struct {
	mu      sync.Mutex
	ok      bool
	version int64
	order   transfer.Order
}

// exportOrder is fileOrder for q's snapshot, read again only when the
// schema cookie moved since the last read.
func (s *Store) exportOrder(ctx context.Context, q backend.Tx) (transfer.Order, error) {
	if q.PG != nil {
		return s.pgExportOrder(ctx, q)
	}
	var v int64
	if err := q.QueryRowContext(ctx, schemaVersionSQL).Scan(&v); err != nil {
		return transfer.Order{}, err
	}
	c := &s.orders
	c.mu.Lock()
	if c.ok && c.version == v {
		o := c.order
		c.mu.Unlock()
		return o, nil
	}
	c.mu.Unlock()
	o, err := fileOrder(ctx, q)
	if err != nil {
		return transfer.Order{}, err
	}
	c.mu.Lock()
	c.ok, c.version, c.order = true, v, o
	c.mu.Unlock()
	return o, nil
}
