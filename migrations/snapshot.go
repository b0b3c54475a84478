package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// column is one row of PRAGMA table_info.
type column struct {
	Name    string
	Type    string
	NotNull bool
	Default sql.NullString
	PK      int
}

// definition returns the column's declaration as the original's
// _parse_schema_columns builds it: type, NOT NULL (unless primary key) and
// DEFAULT, space-separated.
func (c column) definition() string {
	parts := []string{}
	if c.Type != "" {
		parts = append(parts, c.Type)
	}
	if c.NotNull && c.PK == 0 {
		parts = append(parts, "NOT NULL")
	}
	if c.Default.Valid {
		parts = append(parts, "DEFAULT "+c.Default.String)
	}
	return strings.Join(parts, " ")
}

// addable reports whether ALTER TABLE ADD COLUMN can add c to a table that has
// rows: SQLite refuses primary keys and NOT NULL columns without a default.
func (c column) addable() bool {
	return c.PK == 0 && (!c.NotNull || c.Default.Valid)
}

// object is one schema object with its CREATE statement.
type object struct {
	Type  string // table, virtual, index, trigger
	Name  string
	Table string
	SQL   string
}

// snapshot is the schema of one database, as SQLite reports it.
type snapshot struct {
	// columns of every ordinary table (not virtual, not shadow, not sqlite_*).
	columns map[string][]column
	// objects by name: ordinary and virtual tables, indexes with SQL, triggers.
	objects map[string]object
	// order is the names of objects in sqlite_master order (rowid), the
	// order they were created in.
	order []string
	// tables is the names of the ordinary tables, in the same order.
	tables []string
}

func (s snapshot) column(table, name string) (column, bool) {
	for _, c := range s.columns[table] {
		if c.Name == name {
			return c, true
		}
	}
	return column{}, false
}

// Hand-written catalogue reads; the table-valued pragma functions take the
// table name as a bound parameter, so no identifier is spliced into SQL.
const (
	// PRAGMA table_list (SQLite ≥ 3.37) tells ordinary, virtual and FTS5
	// shadow tables apart, which sqlite_master cannot.
	sqlTableList = `SELECT name, type FROM pragma_table_list WHERE schema = 'main' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`
	sqlTableInfo = `SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?) ORDER BY cid`
	// ORDER BY rowid: creation order, which is what a dump and the
	// reconcile follow.
	sqlObjects = `SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('table', 'index', 'trigger') AND sql IS NOT NULL AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY rowid`
)

// querier is what a snapshot reads through: *sql.DB, *sql.Conn or *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// takeSnapshot reads the schema of the database behind q.
func takeSnapshot(ctx context.Context, q querier) (snapshot, error) {
	s := snapshot{columns: map[string][]column{}, objects: map[string]object{}}
	kinds := map[string]string{}
	if err := eachRow(ctx, q, sqlTableList, nil, func(r *sql.Rows) error {
		var name, kind string
		if err := r.Scan(&name, &kind); err != nil {
			return err
		}
		kinds[name] = kind
		return nil
	}); err != nil {
		return s, fmt.Errorf("list tables: %w", err)
	}
	for name, kind := range kinds {
		if kind != "table" {
			continue
		}
		var cols []column
		if err := eachRow(ctx, q, sqlTableInfo, []any{name}, func(r *sql.Rows) error {
			var c column
			if err := r.Scan(&c.Name, &c.Type, &c.NotNull, &c.Default, &c.PK); err != nil {
				return err
			}
			cols = append(cols, c)
			return nil
		}); err != nil {
			return s, fmt.Errorf("columns of %s: %w", name, err)
		}
		s.columns[name] = cols
	}
	err := eachRow(ctx, q, sqlObjects, nil, func(r *sql.Rows) error {
		var o object
		if err := r.Scan(&o.Type, &o.Name, &o.Table, &o.SQL); err != nil {
			return err
		}
		if o.Type == "table" {
			switch kinds[o.Name] {
			case "table":
				s.tables = append(s.tables, o.Name)
			case "virtual":
				o.Type = "virtual"
			default: // shadow tables belong to their virtual table
				return nil
			}
		}
		s.objects[o.Name] = o
		s.order = append(s.order, o.Name)
		return nil
	})
	if err != nil {
		return s, fmt.Errorf("list schema objects: %w", err)
	}
	return s, nil
}

func eachRow(ctx context.Context, q querier, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return sqlite.Classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return sqlite.Classify(rows.Err())
}

// quoteIdent quotes a schema identifier (taken from our own schema, never
// from user input) for use in DDL.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
