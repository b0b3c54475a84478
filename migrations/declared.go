package migrations

import (
	"context"
	"fmt"
	"sync"
)

// declaredSchema is upstream's v21 schema as SQLite reports it, learned
// by running the v21 DDL on an empty in-memory database: what a new file
// gets and what the reconcile holds an existing file to.
type declaredSchema struct {
	// base is the schema after SCHEMA_SQL alone: its tables with their
	// columns in declaration order, and its indexes. The original's
	// _parse_schema_columns reads the declared columns from exactly this.
	base snapshot
	// full is the whole new v21 file: base, then the platform and deferred
	// indexes, the title index, and both FTS indexes with their triggers.
	full snapshot
	// fts is the FTS tables in the order the original creates them.
	fts []string
}

var loadDeclared = sync.OnceValues(func() (*declaredSchema, error) {
	ctx := context.Background()
	db, err := openMemory()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	d := &declaredSchema{fts: []string{"messages_fts", "messages_fts_trigram"}}
	if _, err := db.ExecContext(ctx, schemaSQL); err != nil {
		return nil, fmt.Errorf("migrations: v21/schema.sql: %w", err)
	}
	if d.base, err = takeSnapshot(ctx, db); err != nil {
		return nil, err
	}
	for _, script := range []string{platformIndexSQL, deferredIndexSQL, titleIndexSQL, ftsSQL, ftsTrigramSQL} {
		if _, err := db.ExecContext(ctx, script); err != nil {
			return nil, fmt.Errorf("migrations: v21 DDL: %w", err)
		}
	}
	if d.full, err = takeSnapshot(ctx, db); err != nil {
		return nil, err
	}
	for _, name := range d.fts {
		if d.full.objects[name].Type != "virtual" || len(ftsTriggers(d.full, name)) != 3 {
			return nil, fmt.Errorf("migrations: v21 DDL lacks %s or one of its triggers", name)
		}
	}
	return d, nil
})
