package store

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// importTextFields are the text fields of an export line: the session's,
// and its message's, which the record below holds one of.
var (
	importSessionTextFields = []string{"id", "source", "user_id", "model", "model_config", "system_prompt",
		"parent_session_id", "end_reason", "title", "billing_provider", "billing_base_url", "billing_mode",
		"cost_status", "cost_source", "pricing_version"}
	importMessageTextFields = []string{"session_id", "role", "content", "tool_call_id", "tool_name", "finish_reason",
		"reasoning", "reasoning_content", "reasoning_details", "codex_reasoning_items", "codex_message_items"}
)

// importRecordWith is a one-session import line with one message whose
// key field (of the session, or of the message with inMessage) holds the
// raw JSON value.
func importRecordWith(field, value string, inMessage bool) string {
	msg := `{"id":1,"role":"user","content":"hi","timestamp":2`
	head := `{"id":"s","source":"cli","started_at":1`
	if inMessage {
		msg += `,"` + field + `":` + value
	} else if field == "id" {
		head = `{"id":` + value + `,"source":"cli","started_at":1`
	} else {
		head += `,"` + field + `":` + value
	}
	return head + `,"messages":[` + msg + "}]}\n"
}

// TestImportRefusesInvalidText: a record whose text holds a byte that is
// not UTF-8, or the JSON escape of half a UTF-16 surrogate pair (both of
// which encoding/json would silently turn into U+FFFD), in any text field
// of the session or of a message, fails with an *ImportError naming the
// line and the field and matching ErrInvalidText, as the API refuses such
// text; nothing of its batch is written. A whole surrogate pair is text,
// and a lone surrogate inside tool_calls is kept as its escape, as the
// original's json.dumps writes it.
func TestImportRefusesInvalidText(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(nil))
	importText(t, s, jsonLines(t, sess("first", "", "", 1)), ImportOptions{})
	before := dumpTables(t, s)
	good := jsonLines(t, sess("second", "", "", 2))
	check := func(field, value string, inMessage bool, want string) {
		t.Helper()
		ie, res := importFailure(t, s, good+importRecordWith(field, value, inMessage), ImportOptions{})
		if ie.Line != 2 || !errors.Is(ie, ErrInvalidText) || ie.Error() != want || res != (ImportResult{}) {
			t.Errorf("%s = %q: error %v (line %d), result %+v; want %q", field, value, ie, ie.Line, res, want)
		}
	}
	for _, f := range importSessionTextFields {
		check(f, "\"bad \xff text\"", false, "line 2: "+f+": text is not valid UTF-8: byte 0xff")
		check(f, `"bad \ud800 text"`, false, `line 2: `+f+`: text is not valid UTF-8: \ud800 is half a UTF-16 surrogate pair`)
	}
	for _, f := range importMessageTextFields {
		check(f, "\"bad \xfe text\"", true, "line 2: messages[0]."+f+": text is not valid UTF-8: byte 0xfe")
		check(f, `"a \udc00\ud800 reversed pair"`, true, `line 2: messages[0].`+f+`: text is not valid UTF-8: \udc00 is half a UTF-16 surrogate pair`)
	}
	check("tool_calls", "[{\"id\": \"c\xff\"}]", true, "line 2: messages[0].tool_calls[0].id: text is not valid UTF-8: byte 0xff")
	check("\xffkey", `"x"`, true, "line 2: a key of messages[0]: text is not valid UTF-8: byte 0xff")
	check("\xffkey", `"x"`, false, "line 2: a key of the record: text is not valid UTF-8: byte 0xff")
	if diff := cmp.Diff(before, dumpTables(t, s)); diff != "" {
		t.Errorf("the refused imports changed the database (-before +after):\n%s", diff)
	}

	res := importText(t, s, importRecordWith("tool_calls", `[{"id": "\ud800", "arguments": "\ud83d\ude00"}]`, true)+
		strings.Replace(importRecordWith("content", `"pair \ud83d\ude00 ok"`, true), `"id":"s"`, `"id":"s2"`, 1)+
		strings.Replace(importRecordWith("content", `"\\ud800 is text"`, true), `"id":"s"`, `"id":"s3"`, 1), ImportOptions{})
	if res.Created != 3 {
		t.Fatalf("imported %+v, want 3 sessions", res)
	}
	got := dbtest.Values[string](t, s.r, "SELECT COALESCE(tool_calls, content) FROM messages WHERE session_id IN ('s', 's2', 's3') ORDER BY session_id")
	want := []string{`[{"id": "\ud800", "arguments": "\ud83d\ude00"}]`, "pair 😀 ok", `\ud800 is text`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stored (-want +got):\n%s", diff)
	}
}

// TestImportRefusesDeepJSON: a JSON column nested deeper than Python's
// json reads (pyjson.MaxDepth, 512 levels) fails the record with
// ErrInvalidJSON, in tool_calls (decoded in the export) and in the columns
// an export carries as JSON text; 512 levels import.
func TestImportRefusesDeepJSON(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(nil))
	before := dumpTables(t, s)
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, c := range []struct {
		field     string
		value     string
		inMessage bool
	}{
		{"tool_calls", deep(513), true},
		{"model_config", `"` + deep(513) + `"`, false},
		{"reasoning_details", `"` + deep(513) + `"`, true},
		{"codex_reasoning_items", `"` + deep(513) + `"`, true},
		{"codex_message_items", `"` + deep(513) + `"`, true},
	} {
		ie, _ := importFailure(t, s, importRecordWith(c.field, c.value, c.inMessage), ImportOptions{})
		if ie.Line != 1 || !errors.Is(ie, ErrInvalidJSON) || !strings.Contains(ie.Error(), "nested deeper than 512 levels") {
			t.Errorf("%s nested 513 levels: %v; want ErrInvalidJSON", c.field, ie)
		}
	}
	if diff := cmp.Diff(before, dumpTables(t, s)); diff != "" {
		t.Errorf("the refused imports changed the database (-before +after):\n%s", diff)
	}
	importText(t, s, importRecordWith("tool_calls", deep(512), true), ImportOptions{})
	if got := dbtest.Value[int64](t, s.r, "SELECT length(tool_calls) FROM messages"); got != 1024 {
		t.Errorf("512 levels of tool_calls stored as %d bytes, want 1024", got)
	}
}
