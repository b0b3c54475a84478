package backend

import "context"

// Locks serialises what SQLite's single writer serialises by itself. Every
// method runs inside a write transaction and holds its lock until the
// transaction ends; on SQLite each is a no-op (the transaction already
// holds the database's one write lock).
type Locks interface {
	// LockSession makes the transaction the only writer of session id's
	// messages and counters until it ends.
	LockSession(ctx context.Context, tx Tx, id string) error
	// LockTitles makes the transaction the only one allocating titles.
	LockTitles(ctx context.Context, tx Tx) error
}

// Backend is one engine's SQL-level operations: its queries and its locks.
type Backend interface {
	Queries
	Locks
	Maintenance
}

// LockSession is a no-op: the write transaction holds the file's lock.
func (sqliteQueries) LockSession(context.Context, Tx, string) error { return nil }

// LockTitles is a no-op: the write transaction holds the file's lock.
func (sqliteQueries) LockTitles(context.Context, Tx) error { return nil }

// LockSession locks session id's row (EngineLockSession) until tx ends.
func (p postgresQueries) LockSession(ctx context.Context, tx Tx, id string) error {
	_, err := p.q.EngineLockSession(ctx, tx.PG, id)
	return err
}

// LockTitles takes the titles' advisory lock (EngineLockTitles) until tx
// ends.
func (p postgresQueries) LockTitles(ctx context.Context, tx Tx) error {
	return p.q.EngineLockTitles(ctx, tx.PG)
}
