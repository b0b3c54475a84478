package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/dbpath"
	"github.com/hermesstate/hermesstate/internal/postgres"
	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// IsPostgresURL reports whether path is a PostgreSQL connection URL
// (postgres:// or postgresql://), which Open opens on the PostgreSQL
// engine instead of as a file.
func IsPostgresURL(path string) bool { return dbpath.IsPostgresURL(path) }

// pgPoolSize is the pool's size for Options.ReadConnections: reads and
// writes share the pool on PostgreSQL (the server serialises per row, not
// per database), so it holds the reads' share and as many again for writes.
func pgPoolSize(readConnections int) int32 { return int32(2*readConnections + 1) }

// openPostgres is Open for a PostgreSQL URL: a pgx pool, the database's
// checks (a UTF-8 ctype, which trigram search needs), then the migration
// to version 21 (migrations/postgres), unless opts say otherwise.
func openPostgres(ctx context.Context, dsn string, o Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidURL, err)
	}
	cfg.MaxConns = pgPoolSize(o.ReadConnections)
	if o.ReadOnly {
		// Every transaction of every connection is read-only on the
		// server's side: a write cannot slip through even by mistake.
		cfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, postgres.Classify(err)
	}
	s := &Store{
		path: redact(dsn),
		opts: o,
		log:  o.Logger,
		q:    backend.Postgres(),
		pg:   pool,
		retry: sqlite.Retry{
			Attempts: o.WriteAttempts,
			MinDelay: o.RetryMinDelay,
			MaxDelay: o.RetryMaxDelay,
		},
		pgReadOnly: o.ReadOnly,
	}
	s.retry.OnRetry = func(int, error) { s.stats.retries.Add(1) }
	if err := s.preparePostgres(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// redact returns dsn with its password replaced by xxxxx, for Path and
// every message.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://…"
	}
	return u.Redacted()
}

// pgReadTx runs fn in one REPEATABLE READ, READ ONLY transaction on the
// pool: every statement fn runs sees one snapshot, as a read transaction
// on SQLite does. It is rolled back (it wrote nothing).
func pgReadTx[T any](s *Store, ctx context.Context, fn func(context.Context, backend.Tx) (T, error)) (T, error) {
	var zero T
	// postgres.Begin, not BeginTx: a pooled connection the server ended
	// while it idled fails the BEGIN, and the read takes another.
	tx, err := postgres.Begin(ctx, s.pg, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return zero, postgres.Classify(err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	v, err := fn(ctx, backend.PostgresTx(tx))
	return v, classify(err)
}

// pgReadOne is readOne on PostgreSQL: fn's one statement on the pool,
// outside an explicit transaction. When the connection it took was dead
// (the server ended it while it idled: a restart, a failover,
// idle_session_timeout), the statement runs again on another, as many
// times as the pool holds connections and once more: a read changes
// nothing, so running it again is safe.
func pgReadOne[T any](s *Store, ctx context.Context, fn func(context.Context, backend.Tx) (T, error)) (T, error) {
	tries := int(s.pg.Config().MaxConns) + 1
	for try := 1; ; try++ {
		v, err := fn(ctx, backend.PostgresTx(s.pg))
		if err == nil || try >= tries || ctx.Err() != nil || !postgres.IsConnectionLost(err) {
			return v, classify(err)
		}
	}
}

// pgBeginWriteSQL opens every write transaction on PostgreSQL, in one round
// trip (the simple protocol runs both statements): READ COMMITTED, and the
// shared form of advisory lock 7235102001, whose exclusive form
// (writeAll's pgBeginAllSQL: prune, import, deletes of many sessions)
// waits for every write in flight and holds off new ones.
const (
	pgBeginWriteSQL = "BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock_shared(7235102001)"
	pgBeginAllSQL   = "BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock(7235102001)"
)

// pgWrite is write on PostgreSQL: fn in one READ COMMITTED transaction,
// run again on a serialization failure, a deadlock or a connection lost
// before COMMIT (postgres.WriteTx), under the same attempts and delays as
// SQLite's busy retries. There is no group commit: PostgreSQL commits
// concurrent transactions side by side.
func (s *Store) pgWrite(ctx context.Context, fn writeFn) error {
	return s.pgWriteBegin(ctx, fn, pgBeginWriteSQL)
}

// pgWriteBegin is pgWrite with its transaction opened by begin
// (pgBeginWriteSQL, or writeAll's pgBeginAllSQL); the caller holds the
// store open (acquire).
func (s *Store) pgWriteBegin(ctx context.Context, fn writeFn, begin string) error {
	if s.pgReadOnly {
		return errOpenedReadOnly
	}
	err := postgres.WriteTx(ctx, s.pg, s.retry, begin, func(ctx context.Context, tx pgx.Tx) error {
		return fn(ctx, backend.PostgresTx(tx))
	})
	if err != nil {
		if errors.Is(err, ErrBusy) {
			s.stats.busy.Add(1)
		}
		return classify(err)
	}
	s.countCommit(1)
	return nil
}

// classify maps an engine's error to the store's sentinels: SQLite's by
// extended code, PostgreSQL's by SQLSTATE (each leaves the other's
// unchanged). Text PostgreSQL cannot hold (U+0000 outside the content
// column's leading marker, SQLSTATE 22021) is ErrInvalidText: the write
// that carried it was rolled back whole.
func classify(err error) error {
	if code, _, ok := postgres.Code(err); ok && code == postgres.CharacterNotInRepertoire && !errors.Is(err, ErrInvalidText) {
		return fmt.Errorf("%w: %w", ErrInvalidText, err)
	}
	return postgres.Classify(sqlite.Classify(err))
}

// isForeignKey reports whether err is a foreign-key failure on either
// engine.
func isForeignKey(err error) bool { return sqlite.IsForeignKey(err) || postgres.IsForeignKey(err) }

// isUnique reports whether err is a uniqueness failure on either engine.
func isUnique(err error) bool { return sqlite.IsUnique(err) || postgres.IsUnique(err) }
