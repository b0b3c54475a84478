package sqlnum

import (
	"database/sql"
	"math"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// textCases are text values with CAST(x AS INTEGER) and CAST(x AS REAL) as
// SQLite 3.54 computes them; TestAgreesWithSQLite checks the table against
// the linked library.
var textCases = []struct {
	in   string
	i    int64
	real float64
}{
	{"12abc", 12, 12},
	{"abc", 0, 0},
	{"", 0, 0},
	{" 12 ", 12, 12},
	{"\t\n\v\f\r12", 12, 12},
	{"+12", 12, 12},
	{"-12", -12, -12},
	{"0012", 12, 12},
	{"1e3", 1, 1000},
	{"1.9", 1, 1.9},
	{"-1.9", -1, -1.9},
	{"1.5e-3x", 1, 0.0015},
	{".5", 0, 0.5},
	{"5.", 5, 5},
	{"1e", 1, 1},
	{"1e+", 1, 1},
	{"1e400", 1, math.Inf(1)},
	{"-1e400", -1, math.Inf(-1)},
	{"1e-400", 1, 0},
	{"9223372036854775807", math.MaxInt64, 9.223372036854776e18},
	{"9223372036854775808", math.MaxInt64, 9.223372036854776e18},
	{"-9223372036854775808", math.MinInt64, -9.223372036854776e18},
	{"-9223372036854775809", math.MinInt64, -9.223372036854776e18},
	{"99999999999999999999", math.MaxInt64, 1e20},
	{"0x10", 0, 0},
	{"inf", 0, 0},
	{"NaN", 0, 0},
	{"  -  5", 0, 0},
	{"+-1", 0, 0},
	{"12 34", 12, 12},
	{"1_000", 1, 1},
	{"\u00a012", 0, 0},   // NO-BREAK SPACE is not SQLite's white space
	{"١٢", 0, 0},         // Arabic-Indic digits are not digits to SQLite
	{"0.000001e6", 0, 1}, // the integer prefix stops at the "."
}

// floatCases are REAL values with CAST(x AS INTEGER).
var floatCases = []struct {
	in float64
	i  int64
}{
	{1.5, 1},
	{-1.5, -1},
	{0.9999, 0},
	{-0.5, 0},
	{1e20, math.MaxInt64},
	{-1e20, math.MinInt64},
	{0x1p63, math.MaxInt64},
	{-0x1p63, math.MinInt64},
	{9.223372036854775e18, 9223372036854774784},
	{math.Inf(1), math.MaxInt64},
	{math.Inf(-1), math.MinInt64},
}

func TestConversions(t *testing.T) {
	for _, c := range textCases {
		if got := TextToInt(c.in); got != c.i {
			t.Errorf("TextToInt(%q) = %d, want %d", c.in, got, c.i)
		}
		if got := TextToReal(c.in); got != c.real {
			t.Errorf("TextToReal(%q) = %v, want %v", c.in, got, c.real)
		}
	}
	for _, c := range floatCases {
		if got := FloatToInt(c.in); got != c.i {
			t.Errorf("FloatToInt(%v) = %d, want %d", c.in, got, c.i)
		}
	}
}

// TestAgreesWithSQLite runs every case through SQLite's own CAST, as text
// and as a BLOB of the same bytes, so the tables above are SQLite's
// answers and not ours.
func TestAgreesWithSQLite(t *testing.T) {
	d, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, c := range textCases {
		for _, v := range []any{c.in, []byte(c.in)} {
			var i int64
			var r float64
			if err := d.QueryRow("SELECT CAST(?1 AS INTEGER), CAST(?1 AS REAL)", v).Scan(&i, &r); err != nil {
				t.Fatal(err)
			}
			if i != c.i || r != c.real {
				t.Errorf("SQLite: CAST(%#v AS INTEGER), CAST(... AS REAL) = %d, %v; the table says %d, %v", v, i, r, c.i, c.real)
			}
		}
	}
	for _, c := range floatCases {
		var i int64
		if err := d.QueryRow("SELECT CAST(? AS INTEGER)", c.in).Scan(&i); err != nil {
			t.Fatal(err)
		}
		if i != c.i {
			t.Errorf("SQLite: CAST(%v AS INTEGER) = %d; the table says %d", c.in, i, c.i)
		}
	}
}

// TestScanEveryStorageClass scans each storage class out of an INTEGER and
// a REAL column of a real table, and binds what it read back into a copy
// of the row: the copy holds the same values with the same types.
func TestScanEveryStorageClass(t *testing.T) {
	d, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.SetMaxOpenConns(1)
	for _, stmt := range []string{
		"CREATE TABLE t (k INTEGER PRIMARY KEY, i INTEGER, r REAL)",
		"CREATE TABLE copy (k INTEGER PRIMARY KEY, i INTEGER, r REAL)",
		`INSERT INTO t VALUES (1, 7, 2.5), (2, 1.5, 'abc'), (3, 'x12', x'3132'), (4, x'3334', NULL), (5, NULL, 1e999), (6, 1e20, -0.0)`,
	} {
		if _, err := d.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	want := map[int64]struct {
		i Int
		r Real
	}{
		1: {Int{7, true, nil}, Real{2.5, true, nil}},
		2: {Int{1, true, 1.5}, Real{0, true, "abc"}},
		3: {Int{0, true, "x12"}, Real{12, true, []byte("12")}},
		4: {Int{34, true, []byte("34")}, Real{}},
		5: {Int{}, Real{math.Inf(1), true, nil}},
		6: {Int{math.MaxInt64, true, 1e20}, Real{0, true, nil}},
	}
	type row struct {
		k int64
		i Int
		r Real
	}
	var read []row
	rows, err := d.Query("SELECT k, i, r FROM t ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.k, &r.i, &r.r); err != nil {
			t.Fatalf("row %d: %v", r.k, err)
		}
		read = append(read, r)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if len(read) != len(want) {
		t.Fatalf("read %d rows, want %d", len(read), len(want))
	}
	for _, r := range read {
		w := want[r.k]
		if !sameInt(r.i, w.i) || !sameReal(r.r, w.r) {
			t.Errorf("row %d: scanned %#v, %#v; want %#v, %#v", r.k, r.i, r.r, w.i, w.r)
		}
		if _, err := d.Exec("INSERT INTO copy VALUES (?, ?, ?)", r.k, r.i, r.r); err != nil {
			t.Fatalf("row %d: binding back: %v", r.k, err)
		}
	}
	var diff int
	err = d.QueryRow(`SELECT COUNT(*) FROM t JOIN copy USING (k)
		WHERE t.i IS NOT copy.i OR typeof(t.i) <> typeof(copy.i) OR t.r IS NOT copy.r OR typeof(t.r) <> typeof(copy.r)`).Scan(&diff)
	if err != nil || diff != 0 {
		t.Errorf("bound back: %d rows differ in value or type (%v)", diff, err)
	}
}

func sameInt(a, b Int) bool {
	return a.Int64 == b.Int64 && a.Valid == b.Valid && sameStored(a.Stored, b.Stored)
}

func sameReal(a, b Real) bool {
	return a.Float64 == b.Float64 && math.Signbit(a.Float64) == math.Signbit(b.Float64) && a.Valid == b.Valid && sameStored(a.Stored, b.Stored)
}

func sameStored(a, b any) bool {
	if ab, ok := a.([]byte); ok {
		bb, ok := b.([]byte)
		return ok && string(ab) == string(bb)
	}
	return a == b
}
