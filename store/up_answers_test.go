package store

// Our reads of the files upstream c2a3b9ce5 wrote give the answers upstream
// gives: testdata/upstream/answers/*.json holds upstream's results of its
// read calls over each fixture (recorded outside the repository). This test
// replays the message calls (get_messages, get_messages_as_conversation,
// export_session, export_all, list_recent_user_messages,
// has_archived_messages, message_count, get_messages_around,
// get_anchored_view) and compares our answers with upstream's as JSON: the
// same keys, the same values with the same JSON types (an int is not a
// float), and, where upstream's dict follows the file's column order (the
// exports), the same key order.

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// answerFile is one recorded answers file.
type answerFile struct {
	Fixture string       `json:"fixture"`
	Calls   []answerCall `json:"calls"`
}

// answerCall is one recorded call: its name, arguments and result.
type answerCall struct {
	Call   string          `json:"call"`
	Args   []any           `json:"args"`
	Kwargs map[string]any  `json:"kwargs"`
	Result json.RawMessage `json:"result"`
}

// member is one key and value of a JSON object, in document order.
type member struct {
	Key   string
	Value any
}

// orderedJSON decodes raw with objects as their members in order and
// numbers as their text, so that a comparison sees key order and tells 1
// from 1.0.
func orderedJSON(t testing.TB, raw []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var walk func() any
	walk = func() any {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("decoding %s: %v", raw, err)
		}
		switch tok {
		case json.Delim('{'):
			obj := []member{}
			for dec.More() {
				key, _ := dec.Token()
				obj = append(obj, member{key.(string), walk()})
			}
			dec.Token()
			return obj
		case json.Delim('['):
			arr := []any{}
			for dec.More() {
				arr = append(arr, walk())
			}
			dec.Token()
			return arr
		}
		return tok
	}
	return walk()
}

// unorderedJSON decodes raw with numbers as their text (objects as maps:
// key order does not count).
func unorderedJSON(t testing.TB, raw []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	return v
}

// mustJSON marshals v.
func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	return b
}

// flag returns call's keyword argument name as a bool (false when absent).
func (c answerCall) flag(name string) bool { v, _ := c.Kwargs[name].(bool); return v }

// num returns call's keyword argument name as an int (0 when absent).
func (c answerCall) num(name string) int {
	v, _ := c.Kwargs[name].(float64)
	return int(v)
}

// windowJSON is get_messages_around's and get_anchored_view's dict.
func windowJSON(w MessageWindow, bookends ...[]Message) map[string]any {
	out := map[string]any{"window": w.Messages, "messages_before": w.Before, "messages_after": w.After}
	if len(bookends) == 2 {
		out["bookend_start"], out["bookend_end"] = bookends[0], bookends[1]
	}
	return out
}

// TestUpstreamAnswersForMessages replays upstream's recorded message reads
// over each upstream fixture. state-v21.db and state-v21-from-v16.db (a v16
// file upstream migrated: its new columns come last) are read as they
// are, read-only; state-v16.db is migrated by this build first, as
// upstream migrated it before answering.
func TestUpstreamAnswersForMessages(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"state-v21", "state-v21-from-v16", "state-v16"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(dbtest.Testdata("upstream", "answers", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var answers answerFile
			if err := json.Unmarshal(raw, &answers); err != nil {
				t.Fatal(err)
			}
			s := openAt(t, upstreamFixture(t, answers.Fixture), &Options{ReadOnly: name != "state-v16"})
			checked := 0
			for i, c := range answers.Calls {
				ours, ordered, ok := replayMessageCall(t, s, c)
				if !ok {
					continue
				}
				checked++
				decode := unorderedJSON
				if ordered {
					decode = orderedJSON
				}
				if diff := cmp.Diff(decode(t, c.Result), decode(t, ours)); diff != "" {
					t.Errorf("call %d %s%v %v (-upstream +ours):\n%s", i, c.Call, c.Args, c.Kwargs, diff)
				}
			}
			t.Logf("%d calls replayed", checked)
			if checked < 50 {
				t.Errorf("%d calls replayed, want the message reads of the file (50 or more)", checked)
			}
		})
	}
}

// replayMessageCall makes call c with s and returns our answer as JSON,
// whether its key order counts, and false for a call of another area.
func replayMessageCall(t *testing.T, s *Store, c answerCall) ([]byte, bool, bool) {
	t.Helper()
	ctx := t.Context()
	id := ""
	if len(c.Args) > 0 {
		id, _ = c.Args[0].(string)
	}
	anchor := func() int64 { return int64(c.Args[1].(float64)) }
	must := func(v any, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatalf("%s%v: %v", c.Call, c.Args, err)
		}
		return mustJSON(t, v)
	}
	switch c.Call {
	case "get_messages":
		return must(s.GetMessagesWith(ctx, id, MessageOptions{IncludeInactive: c.flag("include_inactive")})), false, true
	case "get_messages_as_conversation":
		return must(s.ConversationWith(ctx, id, ConversationOptions{
			IncludeAncestors: c.flag("include_ancestors"), IncludeInactive: c.flag("include_inactive"),
		})), true, true
	case "export_session":
		return must(s.ExportSession(ctx, id)), true, true
	case "export_all":
		return must(s.ExportAll(ctx, "")), true, true
	case "list_recent_user_messages":
		return must(s.ListRecentUserMessages(ctx, id, RecentUserMessagesOptions{IncludeInactive: c.flag("include_inactive")})), true, true
	case "has_archived_messages":
		return must(s.HasArchivedMessages(ctx, id)), true, true
	case "message_count":
		return must(s.MessageCount(ctx, id)), true, true
	case "get_messages_around":
		w, err := s.MessagesAround(ctx, id, anchor(), c.num("window"))
		return must(windowJSON(w), err), false, true
	case "get_anchored_view":
		opts := DefaultAnchoredView()
		opts.Window, opts.Bookend = c.num("window"), c.num("bookend")
		v, err := s.AnchoredView(ctx, id, anchor(), opts)
		return must(windowJSON(v.MessageWindow, v.BookendStart, v.BookendEnd), err), false, true
	}
	return nil, false, false
}

// TestUpstreamAnswersKinds: the answers files hold every call this test
// replays, so a change of the recording cannot empty it silently.
func TestUpstreamAnswersKinds(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(dbtest.Testdata("upstream", "answers", "state-v21.json"))
	if err != nil {
		t.Fatal(err)
	}
	var answers answerFile
	if err := json.Unmarshal(raw, &answers); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, c := range answers.Calls {
		got[c.Call]++
	}
	want := map[string]int{"get_messages": 20, "get_messages_as_conversation": 30, "export_session": 10, "export_all": 1,
		"list_recent_user_messages": 20, "has_archived_messages": 10, "message_count": 10, "get_messages_around": 27, "get_anchored_view": 27}
	for call, n := range want {
		if got[call] != n {
			t.Errorf("%s: %d calls recorded, want %d", call, got[call], n)
		}
	}
}
