package pyjson

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// floatCases are floats with Python's json.dumps of each (CPython 3.11);
// TestAppendFloatMatchesPython checks the table against python3.
var floatCases = []struct {
	f    float64
	want string
}{
	{1.5, "1.5"},
	{-2.25, "-2.25"},
	{100, "100.0"},
	{0, "0.0"},
	{math.Copysign(0, -1), "-0.0"},
	{0.1, "0.1"},
	{0.0001, "0.0001"},
	{0.00012345, "0.00012345"},
	{1e-5, "1e-05"},
	{1.5e-7, "1.5e-07"},
	{1e15, "1000000000000000.0"},
	{1234567890123456, "1234567890123456.0"},
	{1e16, "1e+16"},
	{12345678901234567, "1.2345678901234568e+16"},
	{9.223372036854776e18, "9.223372036854776e+18"},
	{1e20, "1e+20"},
	{1e22, "1e+22"},
	{1.7976931348623157e308, "1.7976931348623157e+308"},
	{5e-324, "5e-324"},
	{1709280000.123456, "1709280000.123456"},
	{123.456, "123.456"},
	{math.Inf(1), "Infinity"},
	{math.Inf(-1), "-Infinity"},
	{math.NaN(), "NaN"},
}

func TestAppendFloat(t *testing.T) {
	for _, c := range floatCases {
		if got := string(AppendFloat([]byte("x"), c.f)); got != "x"+c.want {
			t.Errorf("AppendFloat(%v) = %q, want %q", c.f, got[1:], c.want)
		}
	}
}

// TestAppendFloatMatchesPython: the table is what CPython writes.
func TestAppendFloatMatchesPython(t *testing.T) {
	t.Parallel()
	var in []string // repr-free transport: the bits as text Go and Python both parse exactly
	for _, c := range floatCases {
		b, _ := json.Marshal(math.Float64bits(c.f))
		in = append(in, string(b))
	}
	var got []string
	dbtest.Python(t, `import json, struct, sys
bits = json.loads(sys.stdin.read())
print(json.dumps([json.dumps(struct.unpack("<d", struct.pack("<Q", int(b)))[0]) for b in bits]))`, in, &got)
	for i, c := range floatCases {
		if got[i] != c.want {
			t.Errorf("Python json.dumps(%v) = %q; the table says %q", c.f, got[i], c.want)
		}
	}
}
