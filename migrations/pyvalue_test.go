package migrations

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// pythonRoundTrip prints, for each text, json.dumps(json.loads(text)), or
// "error" when json.loads refuses it.
const pythonRoundTrip = `import json, sys
def one(t):
    try:
        return json.dumps(json.loads(t))
    except (ValueError, RecursionError):
        return "error"
print(json.dumps([one(t) for t in json.load(sys.stdin)]), end="")`

// TestPyValueMatchesPython: parsePy then pyDumps gives what Python's
// json.loads then json.dumps gives, and refuses what it refuses: the v18
// step reads sessions.json and writes origin_json through them.
func TestPyValueMatchesPython(t *testing.T) {
	t.Parallel()
	texts := []string{
		`{"a": 1, "b": [true, false, null], "c": {"d": "e"}}`,
		`{"b": 1, "a": 2, "b": 3}`,
		`[1, -1, 0, -0, 1.0, -0.0, 1.50, 1e5, 1E5, 1e-5, 2.5e+10, 1e16, 1e15, 123456789012345678901234567890]`,
		`[1e400, -1e400, 1e-400, NaN, Infinity, -Infinity]`,
		`["Zoë", "🚀", "\u00e9", "\ud83d\ude80", "\"\\/\b\f\n\r\t", "\u0000\u001f\u007f\u0080", "<&>"]`,
		" \t\r\n[ 1 , 2 ]\n ",
		`[]`, `{}`, `""`, `0`, `null`, `true`,
		`[[[[[]]]]]`,
		// Refused by both.
		``, ` `, `[1,]`, `{"a":1,}`, `01`, `1.`, `.5`, `-`, `+1`, `1e`, `0x10`, `[1 2]`, `{"a" 1}`, `{'a': 1}`,
		`"a` + "\t" + `b"`, `"\x"`, `"\u12"`, `"\u12G4"`, `nul`, `True`, `nan`, `{"a": 1} x`, "\ufeff[]",
		`[1] [2]`, `{1: 2}`,
	}
	var want []string
	dbtest.Python(t, pythonRoundTrip, texts, &want)
	if len(want) != len(texts) {
		t.Fatalf("python3 returned %d results for %d texts", len(want), len(texts))
	}
	for i, text := range texts {
		got := "error"
		if v, err := parsePy(text); err == nil {
			if got, err = pyDumps(v); err != nil {
				t.Errorf("pyDumps(%q): %v", text, err)
			}
		}
		if diff := cmp.Diff(want[i], got); diff != "" {
			t.Errorf("%q (-python +ours):\n%s", text, diff)
		}
	}
}

// TestPyScalars: Python's truthiness, str() and sqlite3 binding of the
// values a sessions.json entry holds.
func TestPyScalars(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text   string
		truthy bool
		str    string // "" for a list or dict
		bind   any    // errUnbindable for what sqlite3 refuses
	}{
		{`null`, false, "None", nil},
		{`true`, true, "True", int64(1)},
		{`false`, false, "False", int64(0)},
		{`0`, false, "0", int64(0)},
		{`-0`, false, "0", int64(0)},
		{`7`, true, "7", int64(7)},
		{`9223372036854775807`, true, "9223372036854775807", int64(9223372036854775807)},
		{`9223372036854775808`, true, "9223372036854775808", errUnbindable},
		{`0.0`, false, "0.0", 0.0},
		{`1.5`, true, "1.5", 1.5},
		{`1e16`, true, "1e+16", 1e16},
		{`Infinity`, true, "inf", nil}, // bound below
		{`""`, false, "", ""},
		{`"x"`, true, "x", "x"},
		{`[]`, false, "", errUnbindable},
		{`[0]`, true, "", errUnbindable},
		{`{}`, false, "", errUnbindable},
		{`{"a": 1}`, true, "", errUnbindable},
	} {
		v, err := parsePy(c.text)
		if err != nil {
			t.Fatalf("parsePy(%s): %v", c.text, err)
		}
		if got := pyTruthy(v); got != c.truthy {
			t.Errorf("pyTruthy(%s) = %v, want %v", c.text, got, c.truthy)
		}
		s, ok := pyStr(v)
		if ok != (c.str != "" || c.text == `""`) || s != c.str {
			t.Errorf("pyStr(%s) = %q, %v; want %q", c.text, s, ok, c.str)
		}
		if c.text == `Infinity` {
			continue
		}
		b, err := pyBind(v)
		if want, isErr := c.bind.(error); isErr {
			if !errors.Is(err, want) {
				t.Errorf("pyBind(%s) = %v, %v; want %v", c.text, b, err, want)
			}
			continue
		}
		if err != nil || !cmp.Equal(b, c.bind) {
			t.Errorf("pyBind(%s) = %#v, %v; want %#v", c.text, b, err, c.bind)
		}
	}
}
