package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/mattn/go-sqlite3"

	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// dbConn is what the upgrade runs on: the migration session's connection.
type dbConn interface {
	querier
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// upgrade brings the database behind conn to Latest, or reconciles a file
// already there, inside the migration session's transaction, in the order
// of upstream's _init_schema at c2a3b9ce5 (upstream-v21.md §1.2, §2.1), so
// that the file ends up exactly as upstream leaves it (sqlite_master text
// and order, column order, rows, both FTS indexes):
//
//  1. SCHEMA_SQL, every statement IF NOT EXISTS: missing tables and
//     indexes;
//  2. the declarative column reconcile (_reconcile_columns): every declared
//     column the live table lacks, table by table and column by column in
//     declaration order, as ALTER TABLE "t" ADD COLUMN "c" <type…>;
//     columns SQLite cannot add (a primary key, NOT NULL without a default)
//     are skipped, as upstream ignores that error. This is how every
//     column arrives, the ones that came with a version and the ones
//     upstream added without one (handoff_*, cwd, active, …);
//  3. the platform message index on its own, then DEFERRED_INDEX_SQL (both
//     name columns the reconcile may just have added);
//  4. the heal, UPDATE messages SET active = 1 WHERE active IS NULL, on
//     every run (healActive);
//  5. the version: a file without a version row is new to upstream and
//     gets Latest, with no data step; one below Latest gets the v11 step
//     if below 11 (drop the six FTS triggers and both FTS tables, create
//     them inline as declared, index every message), the v16 step if below
//     16 (tag delegate sessions), the v18 step if below 18 (gateway
//     metadata from HermesHome/sessions/sessions.json), the v20 step if
//     below 20 (seed per-model usage), and one UPDATE to Latest;
//  6. the unique title index (a file with duplicate titles fails here, and
//     the whole session rolls back; upstream ignores the error and goes on
//     without the index);
//  7. the FTS probes: an FTS table that is missing, or one of whose
//     triggers is, is recreated with its triggers and filled from
//     messages. Upstream created a missing table empty, leaving search
//     blind to every older message (the one deliberate difference).
//
// Upstream's FTS5 probe needs no step: this build always has FTS5 and its
// trigram tokenizer (internal/sqlite refuses a SQLite without them).
// Upstream's v10 step runs only where SCHEMA_VERSION is 10, so never here.
// Unlike upstream, which sends each statement on its own (autocommit), the
// whole upgrade is one transaction: a failure leaves the file as it was.
//
// It returns a description of each change, in order.
func upgrade(ctx context.Context, conn dbConn, d *declaredSchema, version int64, hasRow bool, env stepEnv) ([]string, error) {
	var done []string
	run := func(what string, stmts ...string) error {
		for _, stmt := range stmts {
			if _, err := conn.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
		}
		done = append(done, what)
		return nil
	}
	live, err := takeSnapshot(ctx, conn)
	if err != nil {
		return nil, err
	}
	// 1. SCHEMA_SQL.
	if missing := missingObjects(d.base, live); len(missing) > 0 {
		if _, err := conn.ExecContext(ctx, schemaSQL); err != nil {
			return nil, fmt.Errorf("create the v11 tables: %w", err)
		}
		for _, name := range missing {
			done = append(done, "create "+d.base.objects[name].Type+" "+name)
		}
		if live, err = takeSnapshot(ctx, conn); err != nil {
			return nil, err
		}
	}
	// 2. The column reconcile.
	for _, c := range missingColumns(d.base, live) {
		if err := run("add column "+c.table+"."+c.col.Name, addColumnSQL(c.table, c.col)); err != nil {
			return nil, err
		}
	}
	// 2b. The indexes on reconciled columns: the platform message index on
	// its own, then DEFERRED_INDEX_SQL.
	if live, err = takeSnapshot(ctx, conn); err != nil {
		return nil, err
	}
	if _, ok := live.objects[platformIndex]; !ok {
		if _, ok := live.column("messages", "platform_message_id"); ok {
			if err := run("create index "+platformIndex, platformIndexSQL); err != nil {
				return nil, err
			}
		}
	}
	if missing := missingAny(live, deferredIndexes); missing {
		if err := run("create the deferred indexes", deferredIndexSQL); err != nil {
			return nil, err
		}
	}
	// 2c. The heal of rows an older reconcile left with a NULL active
	// (upstream #51646), on every run.
	if what, err := healActive(ctx, conn); err != nil {
		return nil, err
	} else if what != "" {
		done = append(done, what)
	}
	// 3. The version.
	switch {
	case !hasRow:
		if _, err := conn.ExecContext(ctx, sqlInsertVersion, Latest); err != nil {
			return nil, err
		}
		done = append(done, fmt.Sprintf("set schema version %d", Latest))
	case version < Latest:
		if version < 11 {
			if err := v11Step(ctx, conn, d, run); err != nil {
				return nil, err
			}
		}
		if version < 16 {
			if err := run("v16: tag delegate sessions", backfillV16SQL); err != nil {
				return nil, err
			}
		}
		if version < 18 && env.hermesHome != "" {
			path := filepath.Join(env.hermesHome, "sessions", "sessions.json")
			n, err := backfillGatewayMetadata(ctx, conn, path, env.log)
			if err != nil {
				return nil, err
			}
			if n > 0 {
				noun := "sessions"
				if n == 1 {
					noun = "session"
				}
				done = append(done, fmt.Sprintf("v18: copy gateway metadata from sessions.json into %d %s", n, noun))
			}
		}
		if version < 20 {
			if err := run("v20: seed per-model usage", backfillV20SQL); err != nil {
				return nil, err
			}
		}
		if _, err := conn.ExecContext(ctx, sqlUpdateVersion, Latest); err != nil {
			return nil, err
		}
		done = append(done, fmt.Sprintf("set schema version %d", Latest))
	}
	if live, err = takeSnapshot(ctx, conn); err != nil {
		return nil, err
	}
	// 4. The title index.
	if _, ok := live.objects[titleIndex]; !ok {
		if err := run("create index "+titleIndex, titleIndexSQL); err != nil {
			return nil, err
		}
	}
	// 5. The FTS probes.
	for _, name := range d.fts {
		if !missingAny(live, append([]string{name}, ftsTriggers(d.full, name)...)) {
			continue
		}
		what := "create full-text index " + name
		if _, ok := live.objects[name]; ok {
			what = "rebuild full-text index " + name
		}
		if err := run(what, append(ftsDrop(d.full, name), ftsCreate(d.full, name)...)...); err != nil {
			return nil, err
		}
	}
	return done, nil
}

// titleIndex is the one index SCHEMA_SQL does not create.
const titleIndex = "idx_sessions_title_unique"

// pending reports whether upgrade would change a file already at Latest:
// whether anything declared is missing from live, or a message has a NULL
// active (the heal would set it; the partial index idx_messages_active_null
// answers without reading the table).
func pending(ctx context.Context, q querier, d *declaredSchema, live snapshot) (bool, error) {
	if len(missingObjects(d.base, live)) > 0 ||
		len(missingColumns(d.base, live)) > 0 ||
		missingAny(live, d.full.order) {
		return true, nil
	}
	var heal bool
	err := eachRow(ctx, q, sqlNeedsHeal, nil, func(r *sql.Rows) error { return r.Scan(&heal) })
	return heal, err
}

// missingObjects returns the objects of want that live lacks, in want's
// order.
func missingObjects(want, live snapshot) []string {
	var out []string
	for _, name := range want.order {
		if _, ok := live.objects[name]; !ok {
			out = append(out, name)
		}
	}
	return out
}

// missingColumns returns the columns of want's tables that live's tables
// lack and SQLite can add, table by table and column by column in want's
// order: the original's _reconcile_columns.
func missingColumns(want, live snapshot) []tableColumn {
	var out []tableColumn
	for _, table := range want.tables {
		if _, ok := live.columns[table]; !ok {
			continue
		}
		for _, c := range want.columns[table] {
			if _, ok := live.column(table, c.Name); !ok && c.addable() {
				out = append(out, tableColumn{table: table, col: c})
			}
		}
	}
	return out
}

func missingAny(live snapshot, names []string) bool {
	return slices.ContainsFunc(names, func(n string) bool {
		_, ok := live.objects[n]
		return !ok
	})
}

// v11Step is the v11 data step, for a file below 11: every FTS trigger,
// then both FTS tables, dropped; then each index created inline as declared
// and filled from messages, in upstream's order.
func v11Step(ctx context.Context, conn dbConn, d *declaredSchema, run func(string, ...string) error) error {
	var triggers, tables []string
	for _, name := range d.fts {
		for _, t := range ftsTriggers(d.full, name) {
			triggers = append(triggers, "DROP TRIGGER IF EXISTS "+quoteIdent(t))
		}
		tables = append(tables, "DROP TABLE IF EXISTS "+quoteIdent(name))
	}
	for _, stmt := range append(triggers, tables...) {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("drop the old full-text indexes: %w", err)
		}
	}
	for _, name := range d.fts {
		if err := run("rebuild full-text index "+name, ftsCreate(d.full, name)...); err != nil {
			return err
		}
	}
	return nil
}

// healActive is upstream's heal, UPDATE messages SET active = 1 WHERE
// active IS NULL, sent only when a row needs it (the partial index answers).
// Upstream ignores the heal's failure: a file whose FTS table is gone while
// its triggers remain cannot update a message ("no such table:
// messages_fts") until the FTS repair at the end of the same open has run;
// such rows are healed at the next open. Here too a plain SQLite error
// (SQLITE_ERROR) is rolled back to a savepoint and ignored; any other
// failure (I/O, full disk) fails the upgrade. It returns the change made,
// or "".
func healActive(ctx context.Context, conn dbConn) (string, error) {
	var need bool
	if err := eachRow(ctx, conn, sqlNeedsHeal, nil, func(r *sql.Rows) error { return r.Scan(&need) }); err != nil || !need {
		return "", err
	}
	if err := execAll(ctx, conn, "SAVEPOINT heal_active"); err != nil {
		return "", err
	}
	n, err := execCount(ctx, conn, sqlHealActive)
	if err != nil {
		if primary, _, ok := sqlite.Code(err); !ok || primary != sqlite3.ErrError {
			return "", fmt.Errorf("heal messages.active: %w", err)
		}
		if err := execAll(ctx, conn, "ROLLBACK TO heal_active", "RELEASE heal_active"); err != nil {
			return "", err
		}
		return "", nil
	}
	if err := execAll(ctx, conn, "RELEASE heal_active"); err != nil {
		return "", err
	}
	return fmt.Sprintf("set active = 1 on %d messages", n), nil
}

// execCount runs stmt and returns the rows it changed.
func execCount(ctx context.Context, conn dbConn, stmt string) (int64, error) {
	res, err := conn.ExecContext(ctx, stmt)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

const (
	// platformIndex is the index upstream creates on its own after the
	// reconcile.
	platformIndex = "idx_messages_platform_msg_id"
	// sqlHealActive is upstream's heal of rows an older reconcile left with
	// a NULL active (it sends this text on every open); the partial index
	// idx_messages_active_null makes it cheap when there are none.
	sqlHealActive = "UPDATE messages SET active = 1 WHERE active IS NULL"
	// sqlNeedsHeal asks whether the heal has anything to do, through the
	// same partial index.
	sqlNeedsHeal = "SELECT EXISTS (SELECT 1 FROM messages WHERE active IS NULL)"
)

// deferredIndexes names DEFERRED_INDEX_SQL's indexes.
var deferredIndexes = []string{
	"idx_messages_session_active", "idx_messages_active_null", "idx_sessions_session_key",
	"idx_sessions_gateway_peer", "idx_sessions_handoff_state",
}
