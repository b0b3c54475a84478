package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// history is the schema after each migration, learned by replaying the
// embedded migrations on an empty in-memory database. It tells which
// migrations only add columns and objects, and what they add, from the
// migrations themselves rather than from a hand-kept list.
type history struct {
	// after[v] is the schema at version v; after[0] is the empty database.
	after []snapshot
	// additive[v] is set when migration v only adds columns to existing
	// tables and creates new objects.
	additive map[int64]addition
	// names[v] is migration v's file name.
	names map[int64]string
}

// addition is what an additive migration adds.
type addition struct {
	columns []tableColumn // in the order the migration adds them
	objects []object      // new tables, virtual tables, indexes and triggers
}

type tableColumn struct {
	table string
	col   column
}

var history0 struct {
	once sync.Once
	h    *history
	err  error
}

// loadHistory replays the migrations once per process.
func loadHistory() (*history, error) {
	history0.once.Do(func() { history0.h, history0.err = replay(context.Background()) })
	return history0.h, history0.err
}

// openMemory returns a pool on one private in-memory database: one connection,
// never closed, because every new connection to ":memory:" is a new, empty
// database.
func openMemory() (*sql.DB, error) {
	db, err := sql.Open("sqlite3", "file::memory:?mode=memory")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	return db, nil
}

func replay(ctx context.Context) (*history, error) {
	db, err := openMemory()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := sqlite.CheckLibrary(ctx, db); err != nil {
		return nil, err
	}
	m, err := New(db, nil)
	if err != nil {
		return nil, err
	}
	// The replay starts from an empty database: there is nothing to adopt,
	// and adoption itself needs this history.
	m.adoptLegacy = false
	h := &history{additive: map[int64]addition{}, names: sourceNames(m)}
	empty, err := takeSnapshot(ctx, db)
	if err != nil {
		return nil, err
	}
	h.after = append(h.after, empty)
	for v := int64(1); v <= Latest; v++ {
		if _, err := m.gooseUpTo(ctx, v); err != nil {
			return nil, fmt.Errorf("replay migrations: %w", err)
		}
		s, err := takeSnapshot(ctx, db)
		if err != nil {
			return nil, err
		}
		h.after = append(h.after, s)
		if add, ok := diffAdditive(h.after[v-1], s); ok {
			h.additive[v] = add
		}
	}
	return h, nil
}

// diffAdditive reports what next adds to prev, and false when next also drops
// or changes something prev had.
func diffAdditive(prev, next snapshot) (addition, bool) {
	var add addition
	for name, o := range prev.objects {
		n, ok := next.objects[name]
		if !ok || n.Type != o.Type {
			return add, false
		}
		if o.Type != "table" && n.SQL != o.SQL {
			return add, false
		}
	}
	for table, cols := range prev.columns {
		ncols := next.columns[table]
		if len(ncols) < len(cols) {
			return add, false
		}
		for i, c := range cols {
			if ncols[i] != c {
				return add, false
			}
		}
		for _, c := range ncols[len(cols):] {
			add.columns = append(add.columns, tableColumn{table: table, col: c})
		}
	}
	for _, kind := range objectOrder {
		for _, name := range sortedNames(next.objects) {
			o := next.objects[name]
			if _, ok := prev.objects[name]; !ok && o.Type == kind {
				add.objects = append(add.objects, o)
			}
		}
	}
	return add, true
}

// objectOrder is an order in which schema objects can be created: tables
// before what refers to them.
var objectOrder = []string{"table", "virtual", "index", "trigger"}
