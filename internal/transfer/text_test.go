package transfer

import (
	"errors"
	"testing"
)

// TestCheckText: the first string holding a byte that is not UTF-8 or the
// escape of half a UTF-16 surrogate pair is named by its path; a whole
// pair, an escaped backslash before "u", and a lone surrogate inside
// tool_calls are text.
func TestCheckText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`{"id": "s", "title": "ok \ud83d\ude00"}`, ""},
		{`{"id": "s", "title": "\\ud800 is text"}`, ""},
		{`{"messages": [{"tool_calls": [{"id": "\ud800"}]}]}`, ""},
		{"{\"id\": \"s\", \"title\": \"a\xffb\"}", `title: text is not valid UTF-8: byte 0xff`},
		{`{"title": "\udc00"}`, `title: text is not valid UTF-8: \udc00 is half a UTF-16 surrogate pair`},
		{`{"title": "\ud800\ud800"}`, `title: text is not valid UTF-8: \ud800 is half a UTF-16 surrogate pair`},
		{`{"messages": [{"content": "ok"}, {"content": "\uDBFF"}]}`, `messages[1].content: text is not valid UTF-8: \uDBFF is half a UTF-16 surrogate pair`},
		{"{\"messages\": [{\"tool_calls\": [{\"function\": {\"name\": \"\xc3\"}}]}]}", `messages[0].tool_calls[0].function.name: text is not valid UTF-8: byte 0xc3`},
		{"{\"messages\": [{\"\xfekey\": 1}]}", `a key of messages[0]: text is not valid UTF-8: byte 0xfe`},
		{"{\"\xfekey\": 1}", `a key of the record: text is not valid UTF-8: byte 0xfe`},
		{"{\"id\": \xff", ""}, // not JSON: Decode reports it
	} {
		err := checkText([]byte(tc.in))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("checkText(%q) = %v, want nil", tc.in, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want || !errors.Is(err, ErrInvalidText)):
			t.Errorf("checkText(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}
