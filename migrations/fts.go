package migrations

import (
	"context"
	"database/sql"
	"fmt"
)

// sqlFTSBackfill indexes every existing message into a newly created FTS
// table, with the text the v11 triggers index: content, tool name and
// tool-call JSON joined by spaces, NULLs as empty text. It is the original's
// v11 backfill statement; %s is the FTS table's name from our own schema,
// quoted.
const sqlFTSBackfill = `INSERT INTO %s(rowid, content) SELECT id, COALESCE(content, '') || ' ' || COALESCE(tool_name, '') || ' ' || COALESCE(tool_calls, '') FROM messages`

// ftsTriggers returns the declared triggers that keep FTS table fts in sync,
// named <fts>_insert, <fts>_delete and <fts>_update, in that order.
func ftsTriggers(declared snapshot, fts string) []string {
	var out []string
	for _, op := range []string{"insert", "delete", "update"} {
		if o, ok := declared.objects[fts+"_"+op]; ok && o.Type == "trigger" {
			out = append(out, o.Name)
		}
	}
	return out
}

// ftsDrop is the statements that drop FTS table name and its triggers,
// each IF EXISTS. Dropping rather than clearing works whatever state the
// shadow tables are in: FTS5 drops them by name without reading them.
func ftsDrop(declared snapshot, name string) []string {
	var stmts []string
	for _, t := range ftsTriggers(declared, name) {
		stmts = append(stmts, "DROP TRIGGER IF EXISTS "+quoteIdent(t))
	}
	return append(stmts, "DROP TABLE IF EXISTS "+quoteIdent(name))
}

// ftsCreate is the statements that create FTS table name and its triggers
// as declared, then fill it from every message row.
func ftsCreate(declared snapshot, name string) []string {
	stmts := []string{declared.objects[name].SQL}
	for _, t := range ftsTriggers(declared, name) {
		stmts = append(stmts, declared.objects[t].SQL)
	}
	return append(stmts, fmt.Sprintf(sqlFTSBackfill, quoteIdent(name)))
}

// RebuildFTS recreates every full-text index the schema declares
// (messages_fts, messages_fts_trigram), with its triggers, and fills it from
// the messages table, inside tx: the repair for an index whose shadow tables
// are damaged or that has lost or gained rows. It returns what it did, one
// entry per index. The caller commits tx; until then nothing is visible.
func RebuildFTS(ctx context.Context, tx *sql.Tx) ([]string, error) {
	d, err := loadDeclared()
	if err != nil {
		return nil, err
	}
	var done []string
	for _, name := range d.fts {
		what := "rebuild full-text index " + name
		for _, stmt := range append(ftsDrop(d.full, name), ftsCreate(d.full, name)...) {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return nil, fmt.Errorf("%s: %w", what, err)
			}
		}
		done = append(done, what)
	}
	return done, nil
}
