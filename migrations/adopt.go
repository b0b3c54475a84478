package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"maps"
	"path"
	"slices"
	"time"
)

// adopt runs under the migration lock, before goose reads the version in
// UpTo below Latest, and lets a file the Python original wrote join the goose
// chain at its version even when its columns are ahead of that number. (Up
// to Latest needs none of this: it adds whatever is missing.)
//
// The original's historical steps each ran only if current_version < N and
// swallowed "duplicate column" errors; one of its versions was renumbered
// (a7d78d3bf inserted a new v7, reasoning_content, and moved the old v7,
// api_call_count, to v8); and its current code adds every declared column on
// open before it writes the new version, in separate transactions. So real
// files say 7 yet have v8's column, or say 3 yet have every column up to v9,
// and goose's plain ALTER TABLE would fail on them.
//
// adopt looks at the pending migrations from the file's version up to target
// that only add (columns and objects, per the replayed history) and stops at
// the first that does anything else. If the last of them with any of its
// columns already present is k, migrations version+1…k are completed the way
// the original completed them, idempotently: missing columns and objects are
// added, present ones left alone, and version k is recorded. goose then runs
// k+1… as written. Columns still missing (the wrinkle file's
// reasoning_content) are added by the way up to Latest, as in the original.
//
// A Go migration in that range (v16, v18, v20) is completed the same way and
// then its data step runs, as the original ran it (if current_version < N):
// completing v18 copies sessions.json's gateway metadata, completing v20
// seeds the per-model usage.
//
// It returns one Result (Adopted set) per migration it completed.
func adopt(ctx context.Context, conn *sql.Conn, target int64, env stepEnv) ([]Result, error) {
	log := env.log
	version, err := readVersion(ctx, conn)
	if err != nil || version < 1 || version >= target {
		return nil, err
	}
	h, err := loadHistory()
	if err != nil {
		return nil, err
	}
	live, err := takeSnapshot(ctx, conn)
	if err != nil {
		return nil, err
	}
	last := version
	for v := version + 1; v <= target; v++ {
		add, ok := h.additive[v]
		if !ok {
			break
		}
		for _, tc := range add.columns {
			if _, ok := live.column(tc.table, tc.col.Name); ok {
				last = v
				break
			}
		}
	}
	var out []Result
	for v := version + 1; v <= last; v++ {
		start := time.Now()
		add := h.additive[v]
		var stmts []string
		for _, tc := range add.columns {
			if _, ok := live.column(tc.table, tc.col.Name); !ok {
				stmts = append(stmts, addColumnSQL(tc.table, tc.col))
			}
		}
		for _, o := range add.objects {
			if _, ok := live.objects[o.Name]; !ok {
				stmts = append(stmts, o.SQL)
			}
		}
		for _, stmt := range stmts {
			if _, err := conn.ExecContext(ctx, stmt); err != nil {
				return nil, fmt.Errorf("adopt version %d: %s: %w", v, stmt, err)
			}
		}
		if g := goMigrationAt(v); g != nil {
			if err := g.data(ctx, conn, env); err != nil {
				return nil, fmt.Errorf("adopt version %d: %s: %w", v, g.name, err)
			}
		}
		if err := setVersion(ctx, conn, v); err != nil {
			return nil, err
		}
		log.InfoContext(ctx, "adopted migration partly present in the file",
			slog.Int64("version", v), slog.Int("statements", len(stmts)))
		out = append(out, Result{Version: v, Name: h.names[v], Direction: "up", Duration: time.Since(start), Adopted: true})
	}
	return out, nil
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

// sourceNames maps each migration version to its file name.
func sourceNames(m *Migrator) map[int64]string {
	out := map[int64]string{}
	for _, src := range m.goose.ListSources() {
		out[src.Version] = path.Base(src.Path)
	}
	return out
}
