package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"maps"
	"slices"
)

// adopt runs under the migration lock, before goose reads the version, and
// lets a file the Python original wrote join the goose chain at its version
// even when its columns are ahead of that number.
//
// The original's historical steps each ran only if current_version < N and
// swallowed "duplicate column" errors, and one of its versions was renumbered
// (a7d78d3bf inserted a new v7, reasoning_content, and moved the old v7,
// api_call_count, to v8). So real files say 7 yet already have v8's column,
// and goose's plain ALTER TABLE for v8 would fail on them.
//
// adopt walks the pending migrations upwards from the file's version. While
// the next one only adds (columns and objects, per the replayed history) and
// at least one of its columns is already present, the step is completed the
// way the original's per-column try/except completed it: the missing columns
// and objects are added and the version is recorded. The walk stops at the
// first migration that does anything else or none of whose columns exist;
// goose runs the rest as written. Columns still missing after that (such a
// file's reasoning_content) are added by [Reconcile] at the end, as in the
// original.
func adopt(ctx context.Context, conn *sql.Conn, log *slog.Logger) error {
	version, err := readVersion(ctx, conn)
	if err != nil || version < 1 || version >= Latest {
		return err
	}
	h, err := loadHistory()
	if err != nil {
		return err
	}
	for v := version + 1; v <= Latest; v++ {
		add, ok := h.additive[v]
		if !ok || len(add.columns) == 0 {
			return nil
		}
		live, err := takeSnapshot(ctx, conn)
		if err != nil {
			return err
		}
		var missing []tableColumn
		for _, tc := range add.columns {
			if _, ok := live.column(tc.table, tc.col.Name); !ok {
				missing = append(missing, tc)
			}
		}
		if len(missing) == len(add.columns) {
			return nil
		}
		var stmts []string
		for _, tc := range missing {
			stmts = append(stmts, addColumnSQL(tc.table, tc.col))
		}
		for _, o := range add.objects {
			if _, ok := live.objects[o.Name]; !ok {
				stmts = append(stmts, o.SQL)
			}
		}
		for _, stmt := range stmts {
			if _, err := conn.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("adopt version %d: %s: %w", v, stmt, err)
			}
		}
		if err := setVersion(ctx, conn, v); err != nil {
			return err
		}
		log.InfoContext(ctx, "adopted migration already present in the file",
			slog.Int64("version", v), slog.Int("statements", len(stmts)))
	}
	return nil
}

// addColumnSQL is the original's reconcile statement:
// ALTER TABLE "t" ADD COLUMN "c" <type [NOT NULL] [DEFAULT x]>. The names and
// the definition come from our own migrations, never from input.
func addColumnSQL(table string, c column) string {
	stmt := "ALTER TABLE " + quoteIdent(table) + " ADD COLUMN " + quoteIdent(c.Name)
	if def := c.definition(); def != "" {
		stmt += " " + def
	}
	return stmt
}

func sortedNames[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
