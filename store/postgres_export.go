package store

import (
	"context"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
	"github.com/hermesstate/hermesstate/internal/transfer"
)

// The export's hand-written statements on PostgreSQL (see exportOrderSQL
// and columnsSQL for SQLite's): the same order of sessions, and the
// columns in their table order, which on PostgreSQL is the DDL's, v21's
// order, since the schema is never altered column by column.
const (
	pgExportOrderSQL = `
SELECT s.id, COALESCE(
    (SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id),
    s.started_at
) AS last_active
FROM sessions s
WHERE $1::text IS NULL OR s.source = $1
ORDER BY last_active DESC, s.started_at DESC, s.id DESC`
	pgColumnsSQL = `SELECT column_name::text FROM information_schema.columns
WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`
)

// pgExportOrder is exportOrder on PostgreSQL: read once per Store (the
// schema only changes through migrations, which a running Store does not
// run again).
func (s *Store) pgExportOrder(ctx context.Context, q backend.Tx) (transfer.Order, error) {
	c := &s.orders
	c.mu.Lock()
	if c.ok {
		o := c.order
		c.mu.Unlock()
		return o, nil
	}
	c.mu.Unlock()
	var cols [2][]string
	for i, table := range []string{"sessions", "messages"} {
		rows, err := q.PG.Query(ctx, pgColumnsSQL, table)
		if err != nil {
			return transfer.Order{}, err
		}
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				rows.Close()
				return transfer.Order{}, err
			}
			cols[i] = append(cols[i], name)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return transfer.Order{}, err
		}
	}
	o := transfer.NewOrder(cols[0], cols[1])
	c.mu.Lock()
	c.ok, c.order = true, o
	c.mu.Unlock()
	return o, nil
}

// pgWalkSessions is walkSessions on PostgreSQL. The ids are read first:
// one connection carries one result at a time, and each session's row is
// read by a statement of its own.
func (s *Store) pgWalkSessions(ctx context.Context, tx backend.Tx, source string, fn func(db.Session, sqlnum.Real) error) error {
	type entry struct {
		id         string
		lastActive sqlnum.Real
	}
	rows, err := tx.PG.Query(ctx, pgExportOrderSQL, nullable(source))
	if err != nil {
		return err
	}
	var all []entry
	for rows.Next() {
		var e entry
		if err := rows.Scan(&e.id, &e.lastActive); err != nil {
			rows.Close()
			return err
		}
		all = append(all, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, e := range all {
		r, err := s.q.SessionGet(ctx, tx, e.id)
		if err != nil {
			return err
		}
		if err := fn(r, e.lastActive); err != nil {
			return err
		}
	}
	return nil
}
