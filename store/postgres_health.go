package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/hermesstate/hermesstate/internal/backend"
	pgmigrations "github.com/hermesstate/hermesstate/migrations/postgres"
)

// Hand-written checks of the PostgreSQL engine's search index, which no
// query of the store needs: every message has its messages_search row
// (written in the message's own transaction) and no row outlives its
// message (the cascade). The trigram route needs no check: its index is
// on an expression of the messages' own columns, always in step.
const (
	pgServerVersionSQL = `SELECT current_setting('server_version')`
	pgSearchIndexSQL   = `SELECT
    (SELECT COUNT(*) FROM messages m WHERE NOT EXISTS (SELECT 1 FROM messages_search s WHERE s.id = m.id)),
    (SELECT COUNT(*) FROM messages_search s WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = s.id))`
)

// pgCheck is Check on PostgreSQL, in one snapshot: the schema version;
// the server's version (ServerVersion); the database's own checks
// (pgmigrations.Check: a UTF-8 ctype, pg_trgm, CJK trigrams, every index
// of the schema), reported as Integrity lines ("ok" when all pass, as
// SQLite's integrity_check reports); the search index against the
// messages (FTS, as table messages_search); counters against the rows and
// orphan messages, by the queries SQLite's Check runs. PostgreSQL's typed
// columns hold no value of another type, so BadValues stays empty, and the
// server keeps its own WAL, so WALBytes is 0.
func (s *Store) pgCheck(ctx context.Context) (*Health, error) {
	return read(s, ctx, func(ctx context.Context, q backend.Tx) (*Health, error) {
		h := &Health{Integrity: []string{}, FTS: []FTSCheck{}, Counters: []CounterMismatch{}, BadValues: []BadValue{}}
		if err := q.PG.QueryRow(ctx, pgServerVersionSQL).Scan(&h.ServerVersion); err != nil {
			return nil, err
		}
		v, err := pgmigrations.ReadVersionOf(ctx, q.PG)
		if err != nil {
			return nil, err
		}
		h.SchemaVersion = v
		findings, err := pgmigrations.Check(ctx, q.PG)
		if err != nil {
			return nil, err
		}
		for _, f := range findings {
			if f.Err != nil && f.Check != "schema version" { // the version has its own problem
				h.Integrity = append(h.Integrity, fmt.Sprintf("%s: %v", f.Check, f.Err))
			}
		}
		if len(h.Integrity) == 0 {
			h.Integrity = []string{"ok"}
		}
		var missing, extra int64
		if err := q.PG.QueryRow(ctx, pgSearchIndexSQL).Scan(&missing, &extra); err != nil {
			return nil, err
		}
		var problems []string
		if missing > 0 {
			problems = append(problems, fmt.Sprintf("%d messages missing from the index", missing))
		}
		if extra > 0 {
			problems = append(problems, fmt.Sprintf("%d index rows without a message", extra))
		}
		h.FTS = append(h.FTS, FTSCheck{Table: "messages_search", Problem: strings.Join(problems, "; ")})
		if err := s.counterMismatches(ctx, q, h); err != nil {
			return nil, err
		}
		h.OrphanMessages, err = s.q.HealthOrphanMessages(ctx, q)
		return h, err
	})
}
