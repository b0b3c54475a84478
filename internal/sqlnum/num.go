package sqlnum

import (
	"bytes"
	"database/sql/driver"
	"fmt"
	"math"
)

// Int is a value of an INTEGER column: Int64 is CAST(value AS INTEGER)
// (0 for NULL), Valid is false for NULL, and Stored holds the value as
// SQLite stored it when that is not an integer: a float64, a string or a
// []byte (nil for an integer or NULL).
type Int struct {
	Int64  int64
	Valid  bool
	Stored any
}

// IntOf is the integer v as a column value.
func IntOf(v int64) Int { return Int{Int64: v, Valid: true} }

// Scan implements sql.Scanner. It accepts every storage class and never
// fails for one.
func (n *Int) Scan(src any) error {
	*n = Int{}
	switch v := src.(type) {
	case nil:
	case int64:
		n.Int64, n.Valid = v, true
	case float64:
		n.Int64, n.Valid, n.Stored = FloatToInt(v), true, v
	case string:
		n.Int64, n.Valid, n.Stored = TextToInt(v), true, v
	case []byte:
		b := bytes.Clone(v) // the driver may reuse its buffer
		n.Int64, n.Valid, n.Stored = TextToInt(string(b)), true, b
	default:
		return fmt.Errorf("sqlnum: cannot read a %T as a column value", src)
	}
	return nil
}

// Value implements driver.Valuer: the stored value when there is one, so
// a value read is written back exactly; else the integer, or NULL.
func (n Int) Value() (driver.Value, error) {
	switch {
	case n.Stored != nil:
		return storedValue(n.Stored)
	case !n.Valid:
		return nil, nil
	}
	return n.Int64, nil
}

// Real is a value of a REAL column: Float64 is CAST(value AS REAL) (0 for
// NULL), Valid is false for NULL, and Stored holds the value as SQLite
// stored it when that is not a number: a string or a []byte (nil
// otherwise; a REAL column turns an integer into a REAL).
type Real struct {
	Float64 float64
	Valid   bool
	Stored  any
}

// RealOf is the number v as a column value.
func RealOf(v float64) Real { return Real{Float64: v, Valid: true} }

// Scan implements sql.Scanner. It accepts every storage class and never
// fails for one.
func (r *Real) Scan(src any) error {
	*r = Real{}
	switch v := src.(type) {
	case nil:
	case float64:
		r.Float64, r.Valid = v, true
	case int64:
		r.Float64, r.Valid = float64(v), true
	case string:
		r.Float64, r.Valid, r.Stored = TextToReal(v), true, v
	case []byte:
		b := bytes.Clone(v)
		r.Float64, r.Valid, r.Stored = TextToReal(string(b)), true, b
	default:
		return fmt.Errorf("sqlnum: cannot read a %T as a column value", src)
	}
	return nil
}

// Value implements driver.Valuer like Int's.
func (r Real) Value() (driver.Value, error) {
	switch {
	case r.Stored != nil:
		return storedValue(r.Stored)
	case !r.Valid, math.IsNaN(r.Float64):
		// A NaN binds as NULL: what SQLite stores for one
		// (sqlite3_bind_double), and so what PostgreSQL, whose double
		// precision would keep it, is given too.
		return nil, nil
	}
	return r.Float64, nil
}

// storedValue binds a stored value of one of the classes Scan keeps.
func storedValue(v any) (driver.Value, error) {
	switch v.(type) {
	case float64, string, []byte:
		return v, nil
	}
	return nil, fmt.Errorf("sqlnum: cannot bind a stored %T", v)
}

// FloatToInt is CAST(f AS INTEGER): f truncated toward zero, and the
// nearest int64 bound when it lies outside them (±Inf included).
func FloatToInt(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= 0x1p63:
		return math.MaxInt64
	case f <= -0x1p63:
		return math.MinInt64
	}
	return int64(f)
}
