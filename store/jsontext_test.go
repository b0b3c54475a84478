package store

// Tests of JSONText's JSON form.

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJSONTextMarshal checks that a JSONText marshals as a JSON string of
// its text (null for nil), with HTML characters and non-ASCII as they are:
// MarshalJSON's own output, and an Encoder's with SetEscapeHTML(false), as
// the export writes it. (json.Marshal escapes <, > and & in any
// Marshaler's output as \u003c…; the value read back is the same.)
func TestJSONTextMarshal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   JSONText
		want string
	}{
		{"Nil", nil, `null`},
		{"Empty", JSONText{}, `""`},
		{"Object", JSONText(`{"a": 1}`), `"{\"a\": 1}"`},
		{"HTMLCharacters", JSONText(`["<b>", "&", ">"]`), `"[\"<b>\", \"&\", \">\"]"`},
		{"PythonEscapes", JSONText(`{"k": "\u65e5\n"}`), `"{\"k\": \"\\u65e5\\n\"}"`},
		{"NonASCII", JSONText(`"日本 ✓"`), `"\"日本 ✓\""`},
		{"NotJSON", JSONText(`not json {`), `"not json {"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.in.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("MarshalJSON(%q) = %s, want %s", tc.in, got, tc.want)
			}
			var encoded bytes.Buffer
			enc := json.NewEncoder(&encoded)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(tc.in); err != nil {
				t.Fatal(err)
			}
			if encoded.String() != tc.want+"\n" {
				t.Errorf("Encoder without HTML escaping wrote %s, want %s", encoded.String(), tc.want)
			}
			var back JSONText
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.in, back); diff != "" {
				t.Errorf("read back (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJSONTextUnmarshal checks the reverse: null is nil, a string is its
// text, and any other JSON value is kept as its own text.
func TestJSONTextUnmarshal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		want     JSONText
	}{
		{"Null", `null`, nil},
		{"EmptyString", `""`, JSONText{}},
		{"StringOfObject", `"{\"a\": 1}"`, JSONText(`{"a": 1}`)},
		{"StringNotJSON", `"not json {"`, JSONText(`not json {`)},
		{"StringWithEscapes", `"\u003cb\u003e \u65e5 \\u65e5"`, JSONText(`<b> 日 \u65e5`)},
		{"RawObject", `{"a": [1, 2]}`, JSONText(`{"a": [1, 2]}`)},
		{"RawArray", `[{"type":"summary"}]`, JSONText(`[{"type":"summary"}]`)},
		{"RawNumber", `3.5`, JSONText(`3.5`)},
		{"RawTrue", `true`, JSONText(`true`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got JSONText
			if err := json.Unmarshal([]byte(tc.in), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("json.Unmarshal(%s) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

// TestJSONTextRoundTrip marshals a message's JSONText fields with
// json.Marshal and reads them back: each comes back as it was, nil
// included, whether the text is JSON or not.
func TestJSONTextRoundTrip(t *testing.T) {
	t.Parallel()
	type fields struct{ ReasoningDetails, CodexReasoningItems, CodexMessageItems JSONText }
	want := fields{JSONText(`[{"text": "<a> & b", "n": 1.0}]`), JSONText(`not json`), nil}
	b, err := json.Marshal(Message{
		ID: 1, SessionID: "s", Role: "assistant", Timestamp: 1.5,
		ReasoningDetails: want.ReasoningDetails, CodexReasoningItems: want.CodexReasoningItems, CodexMessageItems: want.CodexMessageItems,
	})
	if err != nil {
		t.Fatal(err)
	}
	var m Message
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	got := fields{m.ReasoningDetails, m.CodexReasoningItems, m.CodexMessageItems}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip through %s (-want +got):\n%s", b, diff)
	}
}
