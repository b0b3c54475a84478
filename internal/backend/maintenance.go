package backend

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"

	pgdb "github.com/hermesstate/hermesstate/db/postgres"
	"github.com/hermesstate/hermesstate/internal/pgsearch"
	"github.com/hermesstate/hermesstate/migrations"
)

// Maintenance is what an engine does to its own search index.
type Maintenance interface {
	// RebuildSearchIndex makes the search index anew from every message,
	// in the write transaction tx, and returns what it did, one line each.
	RebuildSearchIndex(ctx context.Context, tx Tx) ([]string, error)
}

// RebuildSearchIndex drops and recreates both FTS5 tables with their
// triggers (migrations.RebuildFTS); tx.DBTX must be the *sql.Tx of a
// write transaction.
func (sqliteQueries) RebuildSearchIndex(ctx context.Context, tx Tx) ([]string, error) {
	t, ok := tx.DBTX.(*sql.Tx)
	if !ok {
		return nil, fmt.Errorf("rebuild search index: needs a write transaction, got %T", tx.DBTX)
	}
	return migrations.RebuildFTS(ctx, t)
}

// rebuildBatch is how many messages RebuildSearchIndex reads and writes at
// a time on PostgreSQL.
const rebuildBatch = 1000

// RebuildSearchIndex empties messages_search and writes every message's
// row again (pgsearch.IndexSQL, sent a batch at a time), in tx.
func (p postgresQueries) RebuildSearchIndex(ctx context.Context, tx Tx) ([]string, error) {
	if err := p.q.EngineSearchIndexClear(ctx, tx.PG); err != nil {
		return nil, err
	}
	var after, n int64
	for {
		rows, err := p.q.EngineMessagesToIndex(ctx, tx.PG, pgdb.EngineMessagesToIndexParams{After: after, Batch: rebuildBatch})
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			break
		}
		if err := indexRows(ctx, tx.PG, rows); err != nil {
			return nil, err
		}
		after, n = rows[len(rows)-1].ID, n+int64(len(rows))
	}
	return []string{fmt.Sprintf("rebuilt messages_search: %d messages indexed", n)}, nil
}

// batcher is what a pgx transaction or connection has beyond pgdb.DBTX:
// several statements sent in one round trip.
type batcher interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// indexRows writes the search rows of rows, in one round trip where q can
// batch.
func indexRows(ctx context.Context, q pgdb.DBTX, rows []pgdb.EngineMessagesToIndexRow) error {
	bq, ok := q.(batcher)
	if !ok {
		for _, r := range rows {
			if _, err := q.Exec(ctx, pgsearch.IndexSQL, pgsearch.IndexArgs(r.ID, decodeContent(r.Content), r.ToolName, r.ToolCalls)...); err != nil {
				return err
			}
		}
		return nil
	}
	var b pgx.Batch
	for _, r := range rows {
		b.Queue(pgsearch.IndexSQL, pgsearch.IndexArgs(r.ID, decodeContent(r.Content), r.ToolName, r.ToolCalls)...)
	}
	return bq.SendBatch(ctx, &b).Close()
}
