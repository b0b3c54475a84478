// Package backend is the seam between the store's rules and the two
// engines, in River's manner (riverdriver): the store runs every SQL-level
// operation through Queries, in the domain types of package db (SQLite's
// sqlc package, whose param and row structs PostgreSQL's pgdb mirrors field
// for field), on a Tx that carries the connection of the engine the store
// was opened on. The implementations are generated (internal/cmd/backendgen)
// from the two sqlc packages; a PostgreSQL method that must do more than
// its query (index the message text for search) is hand-written beside
// them.
package backend

import (
	"errors"
	"fmt"

	"github.com/hermesstate/hermesstate/db"
	pgdb "github.com/hermesstate/hermesstate/db/postgres"
)

// Tx is the connection, pool or transaction a query runs on: DBTX for
// SQLite (a *sql.DB, *sql.Conn or *sql.Tx of mattn/go-sqlite3), PG for
// PostgreSQL (a pgx transaction, connection or pool). Exactly one is set.
type Tx struct {
	db.DBTX
	PG pgdb.DBTX
}

// SQLiteTx returns the Tx of a SQLite connection, pool or transaction.
func SQLiteTx(c db.DBTX) Tx { return Tx{DBTX: c} }

// PostgresTx returns the Tx of a PostgreSQL connection, pool or
// transaction.
func PostgresTx(c pgdb.DBTX) Tx { return Tx{PG: c} }

// SQLite returns the SQLite engine's Backend.
func SQLite() Backend { return sqliteQueries{q: db.New()} }

// Postgres returns the PostgreSQL engine's Backend.
func Postgres() Backend { return postgresQueries{q: pgdb.New()} }

// postgresQueries runs each query through pgdb's generated method on tx.PG,
// converting params and rows.
type postgresQueries struct{ q *pgdb.Queries }

// ErrNotPorted is the error of a query that has no PostgreSQL twin in
// queries/postgres/ yet.
var ErrNotPorted = errors.New("not available on PostgreSQL yet")

func notPorted(name string) error {
	return fmt.Errorf("%s: %w", name, ErrNotPorted)
}

// convertSlice converts every row of rows with conv.
func convertSlice[R, T any](rows []R, conv func(R) T) []T {
	if rows == nil {
		return nil
	}
	out := make([]T, len(rows))
	for i, r := range rows {
		out[i] = conv(r)
	}
	return out
}
