package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// The hot reads (replay, the message list, the export's messages) return
// hundreds or thousands of rows of some twenty columns, and measured, more
// than half of their time went to database/sql, not SQLite: Rows.Next and
// Rows.Scan take locks per row, and sqlc's nullable columns (**string)
// go through convertAssign's reflection path, which allocates per column.
// rawQuery runs the very statement the generated method runs (text and
// arguments captured from it, so they cannot drift apart) straight on the
// driver connection and assigns each value with a type switch, keeping
// database/sql's conversion rules for every storage class.

// errCaptured is what captureDBTX returns in place of running a query.
var errCaptured = errors.New("statement captured, not run")

// captureDBTX is a backend.Tx that records the text and arguments of the one
// statement a generated :many or :exec method runs, and runs nothing.
type captureDBTX struct {
	query string
	args  []any
}

func (c *captureDBTX) QueryContext(_ context.Context, query string, args ...any) (*sql.Rows, error) {
	c.query, c.args = query, args
	return nil, errCaptured
}

func (c *captureDBTX) ExecContext(_ context.Context, query string, args ...any) (sql.Result, error) {
	c.query, c.args = query, args
	return nil, errCaptured
}

func (c *captureDBTX) PrepareContext(context.Context, string) (*sql.Stmt, error) {
	return nil, errCaptured
}

// QueryRowContext is never called: only :many methods are captured.
func (c *captureDBTX) QueryRowContext(context.Context, string, ...any) *sql.Row {
	panic("captureDBTX captures :many queries only")
}

// statementOf returns the text and arguments of the query run makes on
// the backend.Tx it is given.
func statementOf(run func(backend.Tx) error) (string, []any) {
	var c captureDBTX
	run(backend.SQLiteTx(&c)) // always errCaptured
	return c.query, c.args
}

// rawConner is what rawQuery can reach the driver connection through: the
// read pool (*sql.DB, one connection taken for the query) or a snapshot's
// connection (*sql.Conn).
type rawConner interface {
	Raw(func(driverConn any) error) error
}

// rawOf returns q's driver access, or false for a q rawQuery cannot use (a
// *sql.Tx, a write transaction): the caller then runs the generated method.
func rawOf(ctx context.Context, q backend.Tx) (rawConner, bool) {
	switch q := q.DBTX.(type) {
	case *sql.DB:
		return poolConner{q, ctx}, true
	case *sql.Conn:
		return q, true
	}
	return nil, false
}

// poolConner takes one connection of the pool under ctx for a Raw call.
type poolConner struct {
	db  *sql.DB
	ctx context.Context
}

func (p poolConner) Raw(fn func(driverConn any) error) error {
	c, err := p.db.Conn(p.ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Raw(fn)
}

// rawQuery runs query with args (bound as database/sql binds them) on rc's
// driver connection and, for each row, assigns its values to dests (one
// pointer per column, in the query's column order) with assign, then
// calls row. Every column is assigned on every row, so row may keep what
// the pointers point to but must copy the values it wants to keep before
// it returns. When ctx ends first it returns ctx's error, as database/sql
// does.
func rawQuery(ctx context.Context, rc rawConner, query string, args []any, dests []any, row func() error) error {
	named := make([]driver.NamedValue, len(args))
	for i, a := range args {
		v, err := driver.DefaultParameterConverter.ConvertValue(a)
		if err != nil {
			return fmt.Errorf("sql: converting argument $%d type: %w", i+1, err)
		}
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	err := rc.Raw(func(dc any) error {
		qc, ok := dc.(driver.QueryerContext)
		if !ok {
			return fmt.Errorf("driver connection %T cannot query", dc)
		}
		rows, err := qc.QueryContext(ctx, query, named)
		if err != nil {
			return err
		}
		defer rows.Close()
		cols := rows.Columns()
		if len(dests) != len(cols) {
			return fmt.Errorf("sql: expected %d destination arguments in Scan, not %d", len(cols), len(dests))
		}
		vals := make([]driver.Value, len(cols))
		for {
			if err := rows.Next(vals); err == io.EOF {
				break
			} else if err != nil {
				return err
			}
			for i, v := range vals {
				if err := assign(dests[i], v); err != nil {
					return fmt.Errorf("sql: Scan error on column index %d, name %q: %w", i, cols[i], err)
				}
			}
			if err := row(); err != nil {
				return err
			}
		}
		return rows.Close()
	})
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// assign stores the driver value v in dest as database/sql's Rows.Scan
// would: the common cases directly, the rare ones (a number in a text
// column, text in an integer one) through database/sql's own conversion
// (the Null types' Scan), so the result is the same for every storage
// class.
func assign(dest any, v driver.Value) error {
	switch d := dest.(type) {
	case *string:
		return assignString(d, v)
	case **string:
		if v == nil {
			*d = nil
			return nil
		}
		s := new(string)
		if err := assignString(s, v); err != nil {
			return err
		}
		*d = s
		return nil
	case *int64:
		if n, ok := v.(int64); ok {
			*d = n
			return nil
		}
		if v == nil {
			return errors.New("converting NULL to int64 is unsupported")
		}
		var n sql.NullInt64
		if err := n.Scan(v); err != nil {
			return err
		}
		*d = n.Int64
		return nil
	case *sqlnum.Int:
		return d.Scan(v)
	case *sqlnum.Real:
		return d.Scan(v)
	}
	return fmt.Errorf("rawQuery cannot assign to %T", dest)
}

// assignString is assign for a string destination.
func assignString(d *string, v driver.Value) error {
	switch x := v.(type) {
	case string:
		*d = x
		return nil
	case []byte:
		*d = string(x)
		return nil
	case nil:
		return errors.New("converting NULL to string is unsupported")
	}
	var s sql.NullString
	if err := s.Scan(v); err != nil {
		return err
	}
	*d = s.String
	return nil
}
