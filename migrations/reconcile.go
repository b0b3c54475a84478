package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/schema"
)

// sqlFTSBackfill indexes every existing message into a newly created FTS
// table, with the text the v11 triggers index (see 00011): content, tool name
// and tool-call JSON joined by spaces, NULLs as empty text. %s is the FTS table's name
// from our own schema, quoted.
const sqlFTSBackfill = `INSERT INTO %s(rowid, content) SELECT id, COALESCE(content, '') || ' ' || COALESCE(tool_name, '') || ' ' || COALESCE(tool_calls, '') FROM messages`

var loadDeclared = sync.OnceValues(func() (snapshot, error) {
	db, err := openMemory()
	if err != nil {
		return snapshot{}, err
	}
	defer db.Close()
	if _, err := db.Exec(schema.SQL); err != nil {
		return snapshot{}, fmt.Errorf("load schema/schema.sql: %w", err)
	}
	return takeSnapshot(context.Background(), db)
})

// Reconcile compares a database at version Latest or above with the declared
// schema (schema/schema.sql) and adds what is missing, never changing or
// dropping anything, the way the original's _reconcile_columns and its
// existence probes do on every open:
//
//   - missing tables and indexes are created;
//   - missing columns are added with their declared type, NOT NULL and
//     DEFAULT; columns SQLite cannot add to a table (a primary key, NOT NULL
//     without a default) are skipped, as the original ignores that error;
//   - an FTS index that is missing, or one of whose triggers is missing, is
//     recreated with its triggers and filled from every message row. The
//     original recreated missing FTS tables empty, leaving search blind to
//     every older message; this is the fix.
//
// It returns a description of each change made. When nothing is missing it
// writes nothing and takes no lock; otherwise it works in one write
// transaction, re-checked under the lock, so concurrent openers add each thing
// once. A database below Latest is left alone (its migrations add the rest).
func Reconcile(ctx context.Context, db *sql.DB, r sqlite.Retry, log *slog.Logger) ([]string, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if v, err := readVersion(ctx, db); err != nil || v < Latest {
		return nil, err
	}
	declared, err := loadDeclared()
	if err != nil {
		return nil, err
	}
	live, err := takeSnapshot(ctx, db)
	if err != nil {
		return nil, err
	}
	if len(plan(declared, live)) == 0 {
		return nil, nil
	}
	var done []string
	err = sqlite.WriteTx(ctx, db, r, func(ctx context.Context, tx *sql.Tx) error {
		done = done[:0]
		live, err := takeSnapshot(ctx, tx)
		if err != nil {
			return err
		}
		for _, c := range plan(declared, live) {
			for _, stmt := range c.stmts {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return fmt.Errorf("reconcile: %s: %w", c.what, err)
				}
			}
			done = append(done, c.what)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, d := range done {
		log.InfoContext(ctx, "reconciled schema", slog.String("change", d))
	}
	return done, nil
}

// change is one reconcile step: what it does, in words and in SQL.
type change struct {
	what  string
	stmts []string
}

// plan lists the changes that bring live up to declared, in an order that
// creates everything before what depends on it.
func plan(declared, live snapshot) []change {
	var out []change
	for _, name := range sortedNames(declared.columns) {
		if _, ok := live.columns[name]; !ok {
			out = append(out, change{"create table " + name, []string{declared.objects[name].SQL}})
			continue
		}
		for _, c := range declared.columns[name] {
			if _, ok := live.column(name, c.Name); ok || !c.addable() {
				continue
			}
			out = append(out, change{"add column " + name + "." + c.Name, []string{addColumnSQL(name, c)}})
		}
	}
	for _, name := range sortedNames(declared.objects) {
		o := declared.objects[name]
		if o.Type != "virtual" {
			continue
		}
		if missingAny(live, append([]string{name}, ftsTriggers(declared, name)...)) {
			out = append(out, ftsRebuild(declared, name))
		}
	}
	for _, kind := range []string{"index", "trigger"} {
		for _, name := range sortedNames(declared.objects) {
			o := declared.objects[name]
			if o.Type != kind || isFTSTrigger(declared, o) {
				continue
			}
			if _, ok := live.objects[name]; !ok {
				out = append(out, change{"create " + kind + " " + name, []string{o.SQL}})
			}
		}
	}
	return out
}

// ftsRebuild drops FTS table name and its triggers, creates them as
// declared and fills the table from every message row. Dropping rather than
// clearing works whatever state the shadow tables are in: FTS5 drops them
// by name without reading them.
func ftsRebuild(declared snapshot, name string) change {
	triggers := ftsTriggers(declared, name)
	c := change{what: "rebuild full-text index " + name}
	for _, t := range triggers {
		c.stmts = append(c.stmts, "DROP TRIGGER IF EXISTS "+quoteIdent(t))
	}
	c.stmts = append(c.stmts, "DROP TABLE IF EXISTS "+quoteIdent(name), declared.objects[name].SQL)
	for _, t := range triggers {
		c.stmts = append(c.stmts, declared.objects[t].SQL)
	}
	c.stmts = append(c.stmts, fmt.Sprintf(sqlFTSBackfill, quoteIdent(name)))
	return c
}

// RebuildFTS recreates every full-text index the schema declares
// (messages_fts, messages_fts_trigram), with its triggers, and fills it from
// the messages table, inside tx: the repair for an index whose shadow tables
// are damaged or that has lost or gained rows. It returns what it did, one
// entry per index. The caller commits tx; until then nothing is visible.
func RebuildFTS(ctx context.Context, tx *sql.Tx) ([]string, error) {
	declared, err := loadDeclared()
	if err != nil {
		return nil, err
	}
	var done []string
	for _, name := range sortedNames(declared.objects) {
		if declared.objects[name].Type != "virtual" {
			continue
		}
		c := ftsRebuild(declared, name)
		for _, stmt := range c.stmts {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return nil, fmt.Errorf("%s: %w", c.what, err)
			}
		}
		done = append(done, c.what)
	}
	return done, nil
}

// ftsTriggers returns the declared triggers that keep FTS table fts in sync,
// named <fts>_insert, <fts>_delete and <fts>_update.
func ftsTriggers(declared snapshot, fts string) []string {
	var out []string
	for _, op := range []string{"insert", "delete", "update"} {
		if o, ok := declared.objects[fts+"_"+op]; ok && o.Type == "trigger" {
			out = append(out, o.Name)
		}
	}
	return out
}

func isFTSTrigger(declared snapshot, o object) bool {
	if o.Type != "trigger" {
		return false
	}
	for _, op := range []string{"_insert", "_delete", "_update"} {
		if base, ok := strings.CutSuffix(o.Name, op); ok && declared.objects[base].Type == "virtual" {
			return true
		}
	}
	return false
}

func missingAny(live snapshot, names []string) bool {
	for _, n := range names {
		if _, ok := live.objects[n]; !ok {
			return true
		}
	}
	return false
}
