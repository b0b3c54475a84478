package transfer

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// goString is s as an encoding/json Encoder without HTML escaping writes
// it: how the store's exports wrote text before this package.
func goString(t testing.TB, s string) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// TestAppendString pins the text encoding: exact bytes for each kind of
// character, and encoding/json's bytes for every ASCII byte and for the
// others around the edges of UTF-8.
func TestAppendString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`<b> & "q" \ /`, `"<b> & \"q\" \\ /"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x01\x1f\x7f", `"\u0000\u0001\u001f` + "\x7f" + `"`},
		{"日本 ✓ 🙂 é", `"日本 ✓ 🙂 é"`},
		{"\u2028\u2029\u2027\u202a", `"\u2028\u2029` + "\u2027\u202a" + `"`},
		{"a\xffb\xc3", `"a\ufffdb\ufffd"`},
		{"\xed\xa0\x80", `"\ufffd\ufffd\ufffd"`}, // an encoded surrogate is not UTF-8
	} {
		if got := string(AppendString(nil, tc.in)); got != tc.want {
			t.Errorf("AppendString(%q) = %s, want %s", tc.in, got, tc.want)
		}
		if got := goString(t, tc.in); got != tc.want {
			t.Errorf("encoding/json wrote %q as %s, not %s", tc.in, got, tc.want)
		}
	}
	var all strings.Builder
	for b := range 0x80 {
		all.WriteByte(byte(b))
	}
	for _, s := range []string{all.String(), "\u0080\u07ff\u0800\uffff\U00010000\U0010ffff", "\xc0\x80\xf4\x90\x80\x80\xf8"} {
		if got, want := string(AppendString([]byte("x"), s)), "x"+goString(t, s); got != want {
			t.Errorf("AppendString(%q) = %s, encoding/json %s", s, got, want)
		}
	}
}

// FuzzAppendString: AppendString writes what encoding/json writes.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\x00\x1f\u2028", "\xff\xfe", "日本\U0001f642", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(AppendString(nil, s)), goString(t, s); got != want {
			t.Errorf("AppendString(%q) = %s, encoding/json %s", s, got, want)
		}
	})
}

// TestAppendGoFloat: a float64 as encoding/json writes it, the form of a
// cost that is not a whole number.
func TestAppendGoFloat(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{0.25, 0.1, 1.5e-7, 5e-7, 1e-6, 9.99e-7, 1e20, 1e21, 1.5e21, 123456789.125, -0.3, math.SmallestNonzeroFloat64, 1e-100, -2.5e-9} {
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendGoFloat(nil, f); string(got) != string(want) {
			t.Errorf("appendGoFloat(%v) = %s, encoding/json %s", f, got, want)
		}
	}
}

// FuzzAppendGoFloat: appendGoFloat writes what encoding/json writes.
func FuzzAppendGoFloat(f *testing.F) {
	for _, v := range []float64{0, 0.25, 5e-7, 1e21, -1e-300} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		want, err := json.Marshal(v)
		if err != nil {
			return // NaN, ±Inf: no JSON form (AppendFloat's ±1e999 covers ±Inf)
		}
		if got := appendGoFloat(nil, v); string(got) != string(want) {
			t.Errorf("appendGoFloat(%v) = %s, encoding/json %s", v, got, want)
		}
	})
}

// TestAppendFloat: Python's repr, ±1e999 for the infinities (Python's
// json.loads reads them back as inf), and an error for NaN.
func TestAppendFloat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{1750000000, "1750000000.0"}, {1.5, "1.5"}, {1e16, "1e+16"}, {1e-5, "1e-05"}, {0.0001, "0.0001"},
		{math.Copysign(0, -1), "-0.0"}, {math.Inf(1), "1e999"}, {math.Inf(-1), "-1e999"},
		{9.223372036854776e18, "9.223372036854776e+18"},
	} {
		got, err := AppendFloat(nil, tc.in)
		if err != nil || string(got) != tc.want {
			t.Errorf("AppendFloat(%v) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	if _, err := AppendFloat(nil, math.NaN()); !errors.Is(err, errNaN) {
		t.Errorf("AppendFloat(NaN) error = %v, want errNaN", err)
	}
}
