package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Begin opens a transaction on b with opts. A connection of a pool that
// the server ended while it idled (a restart, a failover,
// pg_terminate_backend, idle_session_timeout) answers the BEGIN with the
// FATAL 57P01 it left behind, or with a network error; pgx then closes it
// and the pool drops it. Nothing ran on it, so Begin takes another, as
// many times as the pool holds connections and once more (every idle one
// may be dead: the next is a fresh one), as pgxpool's own Acquire does for
// connections that fail its ping. On a single connection it tries once.
//
// It returns the transaction, or the last BEGIN's error (IsConnectionLost
// tells a dead connection from a refusal).
func Begin(ctx context.Context, b Beginner, opts pgx.TxOptions) (pgx.Tx, error) {
	tries := 1
	if p, ok := b.(*pgxpool.Pool); ok {
		tries = int(p.Config().MaxConns) + 1
	}
	for try := 1; ; try++ {
		tx, err := b.BeginTx(ctx, opts)
		if err == nil || !IsConnectionLost(err) || try >= tries || ctx.Err() != nil {
			if err != nil {
				return nil, fmt.Errorf("begin: %w", err)
			}
			return tx, nil
		}
	}
}
