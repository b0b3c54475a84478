package transfer

import "testing"

// TestPythonCompactSize: the sizes Python gives for the same text,
// len(json.dumps(json.loads(raw), ensure_ascii=False,
// separators=(",", ":")).encode("utf-8")), computed with CPython 3.11.
func TestPythonCompactSize(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		raw  string
		want int64
	}{
		{`{"id": "s1", "messages": []}`, 25},
		{`{"a":"caf\u00e9 \u8bb0\n\t\"\\ \u0001 \ud83d\ude00 😀"}`, 42},
		{`[1, -0, 1.5, 1e2, 1E-7, 1e999, 12345678901234567890, true, false, null]`, 67},
		{`{"x": {"y": [ ]}, "z" : ""}`, 21},
		{`"\/"`, 3},
		{"{\"t\": \"\x7f é\"}", 12},
	} {
		if got := PythonCompactSize([]byte(c.raw)); got != c.want {
			t.Errorf("PythonCompactSize(%s) = %d, want %d", c.raw, got, c.want)
		}
	}
}
