package pyjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEncode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"NestedObject", `{"a":1,"b":[1,2,{"c":null}]}`, `{"a": 1, "b": [1, 2, {"c": null}]}`},
		{"KeyOrderKept", `{"z":1,"a":2}`, `{"z": 1, "a": 2}`},
		{"DuplicateKeysKept", `{"a":1,"b":2,"a":3}`, `{"a": 1, "b": 2, "a": 3}`},
		{"CJK", `"通信"`, `"\u901a\u4fe1"`},
		{"Astral", `"🚀"`, `"\ud83d\ude80"`},
		{"NoHTMLEscaping", `"<a>&"`, `"<a>&"`},
		{"HTMLEscapesFromGoDecoded", `"\u003ca\u003e\u0026"`, `"<a>&"`},
		{"EscapedNUL", `"\u0000"`, `"\u0000"`},
		{"EscapedDEL", `"\u007f"`, `"\u007f"`},
		{"RawDEL", "\"\x7f\"", `"\u007f"`},
		{"Accent", `"é"`, `"\u00e9"`},
		{"EscapedAccentUppercaseHex", `"\u00E9"`, `"\u00e9"`},
		{"Tab", `"tab\t"`, `"tab\t"`},
		{"ShortEscapes", `"\b\f\n\r\t\"\\"`, `"\b\f\n\r\t\"\\"`},
		{"UnicodeEscapesOfShortEscapes", `"\u0008\u000C\u000a\u000D\u0009\u0022\u005C"`, `"\b\f\n\r\t\"\\"`},
		{"OtherControlEscapes", `"\u0001\u001B\u001f"`, `"\u0001\u001b\u001f"`},
		{"EscapedPrintableASCII", `"\u0041\u0020\u007e"`, `"A ~"`},
		{"Slash", `"/"`, `"/"`},
		{"EscapedSlash", `"\/"`, `"/"`},
		{"UppercaseSurrogatePair", `"\uD83D\uDE80"`, `"\ud83d\ude80"`},
		{"LoneHighSurrogate", `"\ud800x"`, `"\ud800x"`},
		{"LoneLowSurrogate", `"\uDC00"`, `"\udc00"`},
		{"LineSeparators", "\"\u2028\u2029\"", `"\u2028\u2029"`},
		{"NBSPAndBOM", "\"\u00a0\ufeff\"", `"\u00a0\ufeff"`},
		{"ReplacementCharValid", "\"\ufffd\"", `"\ufffd"`},
		{"MaxRune", "\"\U0010FFFF\"", `"\udbff\udfff"`},
		{"KeyEscaped", `{"é":"ü"}`, `{"\u00e9": "\u00fc"}`},
		{"ExponentKept", `1e5`, `1e5`},
		{"NegativeZeroFloatKept", `-0.0`, `-0.0`},
		{"TrailingZeroKept", `1.50`, `1.50`},
		{"BigIntKept", `123456789012345678901234567890`, `123456789012345678901234567890`},
		{"ExponentSigns", `[1E+5, 2e-3, -0]`, `[1E+5, 2e-3, -0]`},
		{"True", `true`, `true`},
		{"False", `false`, `false`},
		{"Null", `null`, `null`},
		{"EmptyArray", `[ ]`, `[]`},
		{"EmptyObject", "{\n}", `{}`},
		{"EmptyString", `""`, `""`},
		{"NestedEmpty", `[[],{},[{}]]`, `[[], {}, [{}]]`},
		{"WhitespaceNormalised", " \t\n{ \"a\" :\r\n[ 1 ,2 , true,false , null ] , \"b\" : { } }\n ", `{"a": [1, 2, true, false, null], "b": {}}`},
		{"WhitespaceInsideStringsKept", `{"a b":" x , y : z "}`, `{"a b": " x , y : z "}`},
		{"ToolCallsLike", `[{"id":"call_1","type":"function","function":{"name":"web_search","arguments":"{\"query\":\"通信\"}"}}]`,
			`[{"id": "call_1", "type": "function", "function": {"name": "web_search", "arguments": "{\"query\":\"\u901a\u4fe1\"}"}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Encode([]byte(tt.in))
			if err != nil {
				t.Fatalf("Encode(%q) error: %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Encode(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestEncodeInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
	}{
		{"Empty", ``},
		{"OnlyWhitespace", " \n\t"},
		{"UnclosedObject", `{`},
		{"UnclosedArray", `[1, 2`},
		{"TrailingCommaArray", `[1,]`},
		{"TrailingCommaObject", `{"a":1,}`},
		{"MissingColon", `{"a" 1}`},
		{"MissingValue", `{"a":}`},
		{"NonStringKey", `{1:2}`},
		{"SingleQuotes", `'a'`},
		{"LeadingZero", `01`},
		{"NegativeLeadingZero", `-01`},
		{"LeadingPlus", `+1`},
		{"LoneMinus", `-`},
		{"DotWithoutDigits", `1.`},
		{"LeadingDot", `.5`},
		{"ExponentWithoutDigits", `1e`},
		{"ExponentSignWithoutDigits", `1e+`},
		{"NaN", `NaN`},
		{"Infinity", `Infinity`},
		{"MinusInfinity", `-Infinity`},
		{"TrailingGarbage", `{} {}`},
		{"TrailingComma", `1,`},
		{"MismatchedClose", `[1}`},
		{"ExtraClose", `[1]]`},
		{"TruncatedLiteral", `tru`},
		{"WrongLiteral", `nul1`},
		{"UppercaseLiteral", `True`},
		{"InvalidUTF8InString", "\"a\xffb\""},
		{"TruncatedUTF8InString", "\"\xe4\xb8\""},
		{"EncodedSurrogateInString", "\"\xed\xa0\x80\""},
		{"InvalidUTF8OutsideString", "\xff"},
		{"RawControlInString", "\"a\nb\""},
		{"RawNULInString", "\"\x00\""},
		{"UnterminatedString", `"abc`},
		{"BadEscape", `"\x41"`},
		{"ShortUnicodeEscape", `"\u12"`},
		{"NonHexUnicodeEscape", `"\u12g4"`},
		{"BackslashAtEnd", `"\`},
		{"BOM", "\ufeff{}"},
		{"Comment", `[1 /* c */]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Encode([]byte(tt.in))
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Encode(%q) = %q, %v; want error wrapping ErrInvalid", tt.in, got, err)
			}
			if got != "" {
				t.Errorf("Encode(%q) returned %q with the error; want empty", tt.in, got)
			}
			if !strings.Contains(err.Error(), "at offset ") {
				t.Errorf("Encode(%q) error %q has no position", tt.in, err)
			}
		})
	}
}

func TestEncodeErrorOffset(t *testing.T) {
	t.Parallel()
	_, err := Encode([]byte(`{"a": [1, 2,]}`))
	want := `invalid JSON: invalid character ']' looking for the beginning of a value at offset 12`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v; want %q", err, want)
	}
}

// nested is depth levels of open (each closed by closer) around inner.
func nested(open, closer, inner string, depth int) string {
	return strings.Repeat(open, depth) + inner + strings.Repeat(closer, depth)
}

// TestEncodeDepthLimit: MaxDepth levels of arrays or objects encode, one
// more is refused with ErrInvalid naming the limit and where it was passed,
// and 100,000 levels are refused the same way without a deep stack.
func TestEncodeDepthLimit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		open, closer, inner, wantOpen string
		offset                        int // of the bracket one level too deep, behind one more "["
	}{
		{"[", "]", "", "[", 512},
		{"[", "]", "1", "[", 512},
		{`{"k":`, "}", "1", `{"k": `, 1 + 511*5},
		{`{"k":[`, "]}", "", `{"k": [`, 1 + 255*6 + 5},
	} {
		levels := 1
		if strings.Count(c.open, "[")+strings.Count(c.open, "{") == 2 {
			levels = 2
		}
		in := nested(c.open, c.closer, c.inner, MaxDepth/levels)
		got, err := Encode([]byte(in))
		if err != nil || got != nested(c.wantOpen, c.closer, c.inner, MaxDepth/levels) {
			t.Errorf("Encode(%d levels of %s) = %.40q..., %v; want it encoded", MaxDepth, c.open, got, err)
		}
		deeper := "[" + in + "]"
		_, err = Encode([]byte(deeper))
		want := fmt.Sprintf("invalid JSON: nested deeper than 512 levels (Python's json could not read it back) at offset %d", c.offset)
		if !errors.Is(err, ErrInvalid) || err.Error() != want {
			t.Errorf("Encode(%d levels of %s) error = %v; want %q", MaxDepth+1, c.open, err, want)
		}
	}
	if _, err := Encode([]byte(nested("[", "]", "", 100_000))); !errors.Is(err, ErrInvalid) {
		t.Errorf("Encode(100,000 levels) error = %v; want ErrInvalid", err)
	}
}

func TestEncodeLargeArray(t *testing.T) {
	t.Parallel()
	const n = 10000
	items := make([]string, n)
	for i := range items {
		items[i] = `{"i":` + strings.Repeat("7", i%5+1) + `,"s":"é"}`
	}
	got, err := Encode([]byte("[" + strings.Join(items, ",") + "]"))
	if err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(got, `, {"i": `); c != n-1 {
		t.Errorf("got %d element separators; want %d", c, n-1)
	}
	if c := strings.Count(got, `"s": "\u00e9"`); c != n {
		t.Errorf("got %d escaped strings; want %d", c, n)
	}
	if got := CountCalls([]byte("[" + strings.Join(items, ",") + "]")); got != n {
		t.Errorf("CountCalls = %d; want %d", got, n)
	}
}

func TestEncodeTenMegabytes(t *testing.T) {
	t.Parallel()
	in := []byte(largeValue(10 << 20))
	got, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < len(in) {
		t.Errorf("output %d bytes shorter than input %d bytes", len(got), len(in))
	}
}

func TestMarshal(t *testing.T) {
	t.Parallel()
	type fn struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type call struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"Nil", nil, `null`},
		{"StructFieldOrder", []call{{"c1", "function", fn{"grep", `{"q":"<通信>"}`}}},
			`[{"id": "c1", "type": "function", "function": {"name": "grep", "arguments": "{\"q\":\"<\u901a\u4fe1>\"}"}}]`},
		{"MapKeysSorted", map[string]any{"z": 1, "a": []int{}, "m": map[string]int{}}, `{"a": [], "m": {}, "z": 1}`},
		{"Float", 1.5, `1.5`},
		{"RawMessage", json.RawMessage(`{"b" : 1, "a" : "🚀"}`), `{"b": 1, "a": "\ud83d\ude80"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Marshal(tt.in)
			if err != nil {
				t.Fatalf("Marshal error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Marshal mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMarshalError(t *testing.T) {
	t.Parallel()
	if _, err := Marshal(make(chan int)); err == nil {
		t.Error("Marshal(chan) succeeded; want encoding/json error")
	}
}
