package pyjson

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// pythonRoundTrip is the reference: for each JSON text in the input list, what Python stores
// for the value json.loads(text). One process handles every case (interpreter start-up is slow).
const pythonRoundTrip = `import json, sys
texts = json.loads(sys.stdin.read())
print(json.dumps([json.dumps(json.loads(t)) for t in texts]), end="")`

// TestEncodeMatchesPython compares Encode with CPython's json.dumps(json.loads(raw)) on values
// whose number literals Python re-emits unchanged and that have no duplicate keys (the two
// documented differences). Skipped when python3 is not on PATH.
func TestEncodeMatchesPython(t *testing.T) {
	t.Parallel()
	inputs := []string{
		`{"a":1,"b":[1,2,{"c":null}]}`,
		`{"z":1,"a":2,"m":{"y":[],"b":{}}}`,
		`"通信"`,
		`"🚀 launch"`,
		`"<script>alert('x')</script> & more"`,
		`"\u0000\u0001\u001f\u007f\u0080\u009f"`,
		"\"\x7f\"",
		`"é ü ß ñ"`,
		`"tab\t nl\n cr\r bs\b ff\f"`,
		`"quote \" backslash \\ slash \/ /"`,
		`"\u0041\u0042\u0043"`,
		`"\u0008\u000C\u000a\u000D\u0009\u0022\u005C\u002F"`,
		`"\uD83D\uDE80\ud83c\udf89"`,
		`"\ud800"`,
		`"\udc00\ud800"`,
		`"x\ud83dy"`,
		"\"\u2028\u2029\u00a0\u3000\ufeff\ufffd\"",
		"\"\U0010FFFF\U00010000\"",
		`"👩‍💻 ZWJ sequence"`,
		`"e\u0301 combining"`,
		`[1, -1, 0, 1.5, -2.25, 1e+300, 12345678901234567890]`,
		`[true, false, null]`,
		`[]`,
		`{}`,
		`[[], {}, [[]], {"a": {}}]`,
		" \n\t{ \"spaced\" :\r\n[ 1 ,2 ] }\n",
		`{"é": "ü", "🚀": "\ud83d\ude80"}`,
		`[{"id":"call_1","type":"function","function":{"name":"web_search","arguments":"{\"query\":\"通信 <b>&</b>\"}"}}]`,
		`{"nested": {"deeper": {"deepest": [1, [2, [3, [4, []]]]]}}}`,
		`""`,
		`"plain ascii with spaces   and ~!@#$%^&*()_+{}|:<>?"`,
		`{"":""}`,
	}
	want := runPython(t, pythonRoundTrip, inputs)
	for i, in := range inputs {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			got, err := Encode([]byte(in))
			if err != nil {
				t.Fatalf("Encode error: %v", err)
			}
			if diff := cmp.Diff(want[i], got); diff != "" {
				t.Errorf("Encode differs from Python (-python +go):\n%s", diff)
			}
		})
	}
}

// runPython runs script with the JSON list of inputs on stdin and decodes the JSON list of
// strings it prints, one per input.
func runPython(t *testing.T, script string, inputs []string) []string {
	t.Helper()
	var got []string
	dbtest.Python(t, script, inputs, &got)
	if len(got) != len(inputs) {
		t.Fatalf("python3 returned %d results for %d inputs", len(got), len(inputs))
	}
	return got
}

// pythonRejects prints, for each JSON text in the input list, "error" when json.loads rejects
// it and "ok" otherwise.
const pythonRejects = `import json, sys
def check(t):
    try:
        json.loads(t)
    except ValueError:
        return "error"
    return "ok"
print(json.dumps([check(t) for t in json.loads(sys.stdin.read())]), end="")`

// TestEncodeInvalidMatchesPython checks that Python's json.loads rejects the (valid UTF-8)
// texts Encode rejects, apart from NaN and ±Infinity, which Python alone accepts.
func TestEncodeInvalidMatchesPython(t *testing.T) {
	t.Parallel()
	inputs := []string{
		``, " \n", `{`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `'a'`, `01`, `-01`, `+1`, `-`,
		`1.`, `.5`, `1e`, `1e+`, `{} {}`, `1,`, `[1}`, `[1]]`, `tru`, `True`, "\"a\nb\"",
		"\"\x00\"", `"abc`, `"\x41"`, `"\u12"`, `"\u12g4"`, `"\`, "\ufeff{}", `[1 /* c */]`,
	}
	got := runPython(t, pythonRejects, inputs)
	for i, in := range inputs {
		if _, err := Encode([]byte(in)); err == nil {
			t.Errorf("Encode(%q) succeeded; want error", in)
		}
		if got[i] != "error" {
			t.Errorf("python json.loads(%q) = %s; want error", in, got[i])
		}
	}
}

// pythonDepth reads nesting the way the original's export does: json.loads
// of the stored tool_calls, then json.dumps of the export entry holding it
// (a list of sessions, the session, its messages, the message: four more
// levels), from inside frames nested calls, and prints whether that worked
// and the deepest nesting json.loads plus json.dumps accept at the top.
const pythonDepth = `import json, sys
depth, frames = json.loads(sys.stdin.read())
def export(text):
    return json.dumps([{"messages": [{"tool_calls": json.loads(text)}]}])
def down(k):
    return export("[" * depth + "]" * depth) if k == 0 else down(k - 1)
def works(n):
    try:
        json.dumps(json.loads("[" * n + "]" * n))
        return True
    except RecursionError:
        return False
lo, hi = 1, 5000
while lo < hi:
    mid = (lo + hi + 1) // 2
    lo, hi = (mid, hi) if works(mid) else (lo, mid - 1)
try:
    down(frames)
    ok = True
except RecursionError:
    ok = False
print(json.dumps([ok, lo]))`

// TestMaxDepthIsReadableByPython: JSON nested MaxDepth levels, which Encode
// accepts, is read back and exported by CPython's json from 400 frames
// down the caller's stack. The top-level limit it measures is logged.
func TestMaxDepthIsReadableByPython(t *testing.T) {
	t.Parallel()
	var got []any
	dbtest.Python(t, pythonDepth, []int{MaxDepth, 400}, &got)
	if got[0] != true {
		t.Errorf("Python could not read and export %d levels from 400 frames down (its top-level limit: %v)", MaxDepth, got[1])
	}
	t.Logf("Python's json reads at most %v levels at the top of a script; Encode accepts %d", got[1], MaxDepth)
}
