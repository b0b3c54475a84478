package store

import (
	"math"

	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// A numeric column may hold a value of another storage class: the original
// writes whatever Python hands it, and SQLite turned an overflowing integer
// sum into a REAL. Python reads such a row as stored; the store reads it
// too (package sqlnum), gives the Go field CAST(value AS INTEGER) or
// CAST(value AS REAL), and keeps the stored value in the row's Stored map,
// so an export writes what the original's export writes and an import
// stores it again unchanged. An infinite REAL (Python's float('inf')) is
// kept the same way and reads as the largest finite float of its sign:
// JSON has no number for infinity, and every --json output must still
// work.

// storedValues collects the Stored map of one row while its numeric
// columns are converted: nil until a column needs an entry.
type storedValues map[string]any

// count converts a counter (NULL reads as 0, as before).
func (st *storedValues) count(key string, n sqlnum.Int) int64 {
	st.keep(key, n.Stored)
	return n.Int64
}

// optionalInt converts a nullable INTEGER column: nil for NULL.
func (st *storedValues) optionalInt(key string, n sqlnum.Int) *int64 {
	if !n.Valid {
		return nil
	}
	st.keep(key, n.Stored)
	return &n.Int64
}

// real converts a REAL column; NULL reads as 0.
func (st *storedValues) real(key string, r sqlnum.Real) float64 {
	st.keepReal(key, r)
	return finite(r.Float64)
}

// optionalReal converts a nullable REAL column: nil for NULL.
func (st *storedValues) optionalReal(key string, r sqlnum.Real) *float64 {
	if r.Valid {
		st.keepReal(key, r)
	}
	return optionalFloat(r)
}

// optionalFloat is a nullable REAL column's value: nil for NULL.
func optionalFloat(r sqlnum.Real) *float64 {
	if !r.Valid {
		return nil
	}
	return new(finite(r.Float64))
}

// finite is f, or for ±Inf the largest finite float64 of its sign.
func finite(f float64) float64 {
	switch {
	case math.IsInf(f, 1):
		return math.MaxFloat64
	case math.IsInf(f, -1):
		return -math.MaxFloat64
	}
	return f
}

// keepReal keeps a REAL column's stored value, and an infinite one, which
// JSON cannot carry as a number.
func (st *storedValues) keepReal(key string, r sqlnum.Real) {
	if r.Stored == nil && math.IsInf(r.Float64, 0) {
		st.keep(key, r.Float64)
		return
	}
	st.keep(key, r.Stored)
}

// keep records v under key unless it is nil.
func (st *storedValues) keep(key string, v any) {
	if v == nil {
		return
	}
	if *st == nil {
		*st = storedValues{}
	}
	(*st)[key] = v
}

// intColumn binds a counter: its stored value when the row carried one
// (an import writes back what the export read), else v.
func intColumn(v int64, stored map[string]any, key string) sqlnum.Int {
	if s, ok := stored[key]; ok {
		return sqlnum.Int{Int64: v, Valid: true, Stored: s}
	}
	return sqlnum.IntOf(v)
}

// optionalIntColumn is intColumn for a nullable column: NULL for nil.
func optionalIntColumn(v *int64, stored map[string]any, key string) sqlnum.Int {
	if v == nil {
		return sqlnum.Int{}
	}
	return intColumn(*v, stored, key)
}

// realColumn binds a REAL column like intColumn.
func realColumn(v float64, stored map[string]any, key string) sqlnum.Real {
	if s, ok := stored[key]; ok {
		if f, isFloat := s.(float64); isFloat {
			return sqlnum.RealOf(f) // ±Inf, kept for JSON's sake: a REAL
		}
		return sqlnum.Real{Float64: v, Valid: true, Stored: s}
	}
	return sqlnum.RealOf(v)
}

// optionalRealColumn is realColumn for a nullable column: NULL for nil.
func optionalRealColumn(v *float64, stored map[string]any, key string) sqlnum.Real {
	if v == nil {
		return sqlnum.Real{}
	}
	return realColumn(*v, stored, key)
}

// boolInt is b as SQLite stores a flag: 1 or 0.
func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
