package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	register(
		group{"messages/append", testAppend},
		group{"messages/replace", testReplace},
		group{"messages/read", testReadMessages},
		group{"messages/ids", testMessageIDs},
	)
}

// counts returns session id's message_count and tool_call_count.
func counts(t *testing.T, s *store.Store, id string) [2]int64 {
	t.Helper()
	sess := get(t, s, id)
	return [2]int64{sess.MessageCount, sess.ToolCallCount}
}

func testAppend(t *testing.T, h Harness) {
	ctx := t.Context()
	s, c := openClocked(t, h)
	create(t, s, cli("s1"))
	t.Run("EveryField", func(t *testing.T) {
		id := appendMsg(t, s, "s1", store.NewMessage{
			Role: "assistant", Content: ptr("hello"), ToolCalls: json.RawMessage(`[{"id":"c1","type":"function"},{"id":"c2"}]`),
			TokenCount: ptr(int64(42)), FinishReason: "tool_calls", Reasoning: ptr("think"), ReasoningContent: ptr(""),
			ReasoningDetails: json.RawMessage(`[{"type":"summary","text":"é"}]`), CodexReasoningItems: json.RawMessage(`{"a":1}`),
			CodexMessageItems: json.RawMessage(`[1, 2.5]`), EffectDisposition: "applied", PlatformMessageID: "tg-1",
			Observed: true, Timestamp: ptr(at(5 * time.Second)),
		})
		equal(t, "id", id, int64(1))
		c.Advance(time.Second)
		id = appendMsg(t, s, "s1", store.NewMessage{Role: "tool", Content: ptr("out"), ToolCallID: "c1", ToolName: "shell"})
		equal(t, "id", id, int64(2))
		msgs, err := s.GetMessages(ctx, "s1")
		ok(t, err)
		equal(t, "messages", msgs, []store.Message{{
			ID: 1, SessionID: "s1", Role: "assistant", Content: ptr("hello"),
			ToolCalls:         json.RawMessage(`[{"id": "c1", "type": "function"}, {"id": "c2"}]`),
			EffectDisposition: ptr("applied"), Timestamp: at(5 * time.Second), TokenCount: ptr(int64(42)),
			FinishReason: ptr("tool_calls"), Reasoning: ptr("think"), ReasoningContent: ptr(""),
			ReasoningDetails: store.JSONText(`[{"type": "summary", "text": "\u00e9"}]`), CodexReasoningItems: store.JSONText(`{"a": 1}`),
			CodexMessageItems: store.JSONText(`[1, 2.5]`), PlatformMessageID: ptr("tg-1"), Observed: ptr(int64(1)), Active: 1,
		}, {
			ID: 2, SessionID: "s1", Role: "tool", Content: ptr("out"), ToolCallID: ptr("c1"), ToolName: ptr("shell"),
			Timestamp: at(time.Second), Observed: ptr(int64(0)), Active: 1,
		}})
		equal(t, "counters", counts(t, s, "s1"), [2]int64{2, 2})
	})
	t.Run("ToolCallCounting", func(t *testing.T) {
		for _, tc := range []struct {
			calls string
			want  [2]int64
		}{
			{`{"id":"x"}`, [2]int64{3, 3}}, // one call
			{`[]`, [2]int64{4, 3}},         // none, stored NULL
			{`null`, [2]int64{5, 3}},
			{`["a","b","c"]`, [2]int64{6, 6}},
		} {
			appendMsg(t, s, "s1", store.NewMessage{Role: "assistant", ToolCalls: json.RawMessage(tc.calls)})
			equal(t, "counters after "+tc.calls, counts(t, s, "s1"), tc.want)
		}
		msgs, err := s.GetMessagesWith(ctx, "s1", store.MessageOptions{Offset: 2})
		ok(t, err)
		var stored []string
		for _, m := range msgs {
			stored = append(stored, string(m.ToolCalls))
		}
		equal(t, "stored tool calls", stored, []string{`{"id": "x"}`, ``, ``, `["a", "b", "c"]`})
	})
	t.Run("StructuredContent", func(t *testing.T) {
		create(t, s, cli("sc"))
		for _, raw := range []string{`[{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":"data:x"}}]`, `{"k":"v"}`, `"plain"`, `null`} {
			appendMsg(t, s, "sc", store.NewMessage{Role: "user", ContentJSON: json.RawMessage(raw)})
		}
		msgs, err := s.GetMessages(ctx, "sc")
		ok(t, err)
		type content struct {
			Text *string
			JSON string
		}
		var got []content
		for _, m := range msgs {
			got = append(got, content{m.Content, string(m.ContentJSON)})
		}
		equal(t, "contents", got, []content{
			{nil, `[{"type": "text", "text": "hi"}, {"type": "image_url", "image_url": {"url": "data:x"}}]`},
			{nil, `{"k": "v"}`},
			{ptr("plain"), ""},
			{nil, ""},
		})
	})
	t.Run("Errors", func(t *testing.T) {
		before := state(t, s)
		for _, e := range []struct {
			name    string
			id      string
			m       store.NewMessage
			targets []error
		}{
			{"UnknownSession", "nope", store.NewMessage{Role: "user", Content: ptr("x")}, []error{store.ErrSessionNotFound, store.ErrNotFound}},
			{"BothContents", "s1", store.NewMessage{Role: "user", Content: ptr("x"), ContentJSON: json.RawMessage(`[]`)}, []error{store.ErrInvalidMessage}},
			{"NaNTimestamp", "s1", store.NewMessage{Role: "user", Timestamp: ptr(store.Timestamp(math.NaN()))}, []error{store.ErrInvalidMessage}},
			{"BadToolCalls", "s1", store.NewMessage{Role: "assistant", ToolCalls: json.RawMessage(`[{]`)}, []error{store.ErrInvalidJSON}},
			{"BadContentJSON", "s1", store.NewMessage{Role: "user", ContentJSON: json.RawMessage(`{"a":}`)}, []error{store.ErrInvalidJSON}},
			{"BadReasoningDetails", "s1", store.NewMessage{Role: "assistant", ReasoningDetails: json.RawMessage(`x`)}, []error{store.ErrInvalidJSON}},
			{"DeepJSON", "s1", store.NewMessage{Role: "assistant", ToolCalls: json.RawMessage(strings.Repeat("[", 5000) + strings.Repeat("]", 5000))}, []error{store.ErrInvalidJSON}},
			{"BadContent", "s1", store.NewMessage{Role: "user", Content: ptr("a\xffb")}, []error{store.ErrInvalidText}},
			{"BadRole", "s1", store.NewMessage{Role: "\xc3", Content: ptr("x")}, []error{store.ErrInvalidText}},
			{"BadSessionID", "s\xff", store.NewMessage{Role: "user"}, []error{store.ErrInvalidText}},
		} {
			_, err := s.AppendMessage(ctx, e.id, e.m)
			isErr(t, e.name, err, e.targets...)
		}
		unchanged(t, "refused appends", s, before)
	})
}

func testReplace(t *testing.T, h Harness) {
	ctx := t.Context()
	s, c := openClocked(t, h)
	create(t, s, cli("r"))
	say(t, s, "r", "user", "one")
	say(t, s, "r", "assistant", "two")
	u2 := say(t, s, "r", "user", "three")
	say(t, s, "r", "assistant", "four")
	_, err := s.RewindToMessage(ctx, "r", u2)
	ok(t, err)

	t.Run("Active", func(t *testing.T) {
		c.Set(epoch.Add(30 * time.Second))
		ok(t, s.ReplaceActiveMessages(ctx, "r", []store.NewMessage{{Role: "user", Content: ptr("new")}}))
		all, err := s.GetMessagesWith(ctx, "r", store.MessageOptions{IncludeInactive: true})
		ok(t, err)
		var got []string
		for _, m := range all {
			got = append(got, fmt.Sprintf("%s %s active=%d", m.Role, *m.Content, m.Active))
		}
		equal(t, "rows", got, []string{"user three active=0", "assistant four active=0", "user new active=1"})
		equal(t, "counters", counts(t, s, "r"), [2]int64{1, 0})
	})
	t.Run("All", func(t *testing.T) {
		c.Set(epoch.Add(50 * time.Second))
		ok(t, s.ReplaceMessages(ctx, "r", []store.NewMessage{
			{Role: "user", Content: ptr("q")},
			{Role: "assistant", Reasoning: ptr("why"), ReasoningContent: ptr(""), ToolCalls: json.RawMessage(`[{"id":"a"}]`)},
			{Role: "tool", Content: ptr("res"), Reasoning: ptr("dropped"), ReasoningDetails: json.RawMessage(`[1]`), ToolCallID: "a"},
			{Content: ptr("no role"), Timestamp: ptr(at(100 * time.Second))},
			{Role: "user", Content: ptr("last"), PlatformMessageID: "p9", Observed: true},
		}))
		all, err := s.GetMessagesWith(ctx, "r", store.MessageOptions{IncludeInactive: true})
		ok(t, err)
		t50 := float64(at(50 * time.Second))
		t100 := float64(at(100 * time.Second))
		wantTS := []store.Timestamp{
			store.Timestamp(t50), store.Timestamp(t50 + 1e-6), store.Timestamp(t50 + 1e-6 + 1e-6),
			store.Timestamp(t100), store.Timestamp(t100 + 1e-6),
		}
		first := int64(6) // after the four appended and the one ReplaceActiveMessages wrote, though all are deleted
		want := []store.Message{
			{Role: "user", Content: ptr("q")},
			{Role: "assistant", Reasoning: ptr("why"), ReasoningContent: ptr(""), ToolCalls: json.RawMessage(`[{"id": "a"}]`)},
			{Role: "tool", Content: ptr("res"), ToolCallID: ptr("a")},
			{Role: "unknown", Content: ptr("no role")},
			{Role: "user", Content: ptr("last"), PlatformMessageID: ptr("p9"), Observed: ptr(int64(1))},
		}
		for i := range want {
			want[i].ID, want[i].SessionID, want[i].Timestamp, want[i].Active = first+int64(i), "r", wantTS[i], 1
			if want[i].Observed == nil {
				want[i].Observed = ptr(int64(0))
			}
		}
		equal(t, "rows", all, want)
		equal(t, "counters", counts(t, s, "r"), [2]int64{5, 1})
	})
	t.Run("Errors", func(t *testing.T) {
		before := state(t, s)
		err := s.ReplaceMessages(ctx, "r", []store.NewMessage{
			{Role: "user", Content: ptr("fine")}, {Role: "assistant", ToolCalls: json.RawMessage(`{`)},
		})
		isErr(t, "bad second message", err, store.ErrInvalidJSON)
		if err != nil && !strings.Contains(err.Error(), "message 2: ") {
			t.Errorf("error %q does not name message 2", err)
		}
		isErr(t, "active, bad text", s.ReplaceActiveMessages(ctx, "r", []store.NewMessage{{Role: "user", Content: ptr("\xff")}}), store.ErrInvalidText)
		isErr(t, "both contents", s.ReplaceMessages(ctx, "r", []store.NewMessage{{Role: "user", Content: ptr("x"), ContentJSON: json.RawMessage(`[]`)}}), store.ErrInvalidMessage)
		isErr(t, "unknown", s.ReplaceMessages(ctx, "nope", nil), store.ErrSessionNotFound)
		isErr(t, "active unknown", s.ReplaceActiveMessages(ctx, "nope", nil), store.ErrSessionNotFound)
		isErr(t, "clear unknown", s.ClearMessages(ctx, "nope"), store.ErrSessionNotFound)
		unchanged(t, "refused replaces", s, before)
	})
	t.Run("Clear", func(t *testing.T) {
		create(t, s, cli("keep"))
		say(t, s, "keep", "user", "kept")
		u := say(t, s, "r", "user", "again")
		_, err := s.RewindToMessage(ctx, "r", u)
		ok(t, err)
		ok(t, s.ClearMessages(ctx, "r"))
		all, err := s.GetMessagesWith(ctx, "r", store.MessageOptions{IncludeInactive: true})
		ok(t, err)
		equal(t, "rows", all, []store.Message{})
		equal(t, "counters", counts(t, s, "r"), [2]int64{0, 0})
		n, err := s.MessageCount(ctx, "")
		ok(t, err)
		equal(t, "other sessions kept", n, int64(1))
		ok(t, s.ReplaceMessages(ctx, "r", nil))
		equal(t, "empty replace", counts(t, s, "r"), [2]int64{0, 0})
	})
}

func testReadMessages(t *testing.T, h Harness) {
	ctx := t.Context()
	s, _ := openClocked(t, h)
	create(t, s, cli("a"))
	create(t, s, cli("b"))
	var texts []string
	for i := range 5 {
		texts = append(texts, fmt.Sprintf("m%d", i))
		appendMsg(t, s, "a", store.NewMessage{Role: "user", Content: ptr(texts[i]), PlatformMessageID: fmt.Sprintf("p%d", i)})
	}
	say(t, s, "b", "user", "other")
	_, err := s.RewindToMessage(ctx, "a", 4) // m3 and m4
	ok(t, err)

	contents := func(opts store.MessageOptions) []string {
		t.Helper()
		msgs, err := s.GetMessagesWith(ctx, "a", opts)
		ok(t, err)
		out := []string{}
		for _, m := range msgs {
			out = append(out, *m.Content)
		}
		return out
	}
	for _, c := range []struct {
		name string
		opts store.MessageOptions
		want []string
	}{
		{"Live", store.MessageOptions{}, []string{"m0", "m1", "m2"}},
		{"Limit", store.MessageOptions{Limit: 2}, []string{"m0", "m1"}},
		{"Offset", store.MessageOptions{Offset: 1, Limit: 1}, []string{"m1"}},
		{"NegativeIsAll", store.MessageOptions{Offset: -1, Limit: -5}, []string{"m0", "m1", "m2"}},
		{"PastTheEnd", store.MessageOptions{Offset: 9}, []string{}},
		{"Inactive", store.MessageOptions{IncludeInactive: true}, []string{"m0", "m1", "m2", "m3", "m4"}},
		{"InactivePage", store.MessageOptions{IncludeInactive: true, Offset: 2, Limit: 2}, []string{"m2", "m3"}},
	} {
		equal(t, c.name, contents(c.opts), c.want)
	}
	live, err := s.GetMessages(ctx, "a")
	ok(t, err)
	equal(t, "GetMessages is GetMessagesWith's zero value", len(live), 3)
	none, err := s.GetMessages(ctx, "nope")
	ok(t, err)
	equal(t, "unknown session", none, []store.Message{})

	for _, c := range []struct {
		id   string
		want int64
	}{{"a", 5}, {"b", 1}, {"", 6}, {"nope", 0}} {
		n, err := s.MessageCount(ctx, c.id)
		ok(t, err)
		equal(t, "MessageCount("+c.id+")", n, c.want)
	}
	for _, c := range []struct {
		id, platform string
		want         bool
	}{{"a", "p0", true}, {"a", "p4", true}, {"a", "p5", false}, {"b", "p0", false}, {"nope", "p0", false}, {"a", "", false}} {
		got, err := s.HasPlatformMessageID(ctx, c.id, c.platform)
		ok(t, err)
		equal(t, "HasPlatformMessageID("+c.id+", "+c.platform+")", got, c.want)
	}

	t.Run("EachMessage", func(t *testing.T) {
		create(t, s, cli("long"))
		msgs := make([]store.NewMessage, 1201) // three pages of 500
		for i := range msgs {
			msgs[i] = store.NewMessage{Role: "user", Content: ptr(fmt.Sprint(i))}
		}
		ok(t, s.ReplaceMessages(ctx, "long", msgs))
		want, err := s.GetMessages(ctx, "long")
		ok(t, err)
		var got []store.Message
		ok(t, s.EachMessage(ctx, "long", func(m store.Message) error {
			got = append(got, m)
			return nil
		}))
		equal(t, "EachMessage", got, want)
		equal(t, "count", len(got), 1201)

		stop := errors.New("stop")
		calls := 0
		err = s.EachMessage(ctx, "long", func(store.Message) error {
			calls++
			if calls == 3 {
				return stop
			}
			return nil
		})
		isErr(t, "fn's error", err, stop)
		equal(t, "calls", calls, 3)
		ok(t, s.EachMessage(ctx, "nope", func(store.Message) error { return errors.New("called") }))
	})
}

func testMessageIDs(t *testing.T, h Harness) {
	ctx := t.Context()
	s, _ := openClocked(t, h)
	create(t, s, cli("a"))
	for i := range 3 {
		equal(t, "id", say(t, s, "a", "user", "x"), int64(i+1))
	}
	ok(t, s.ClearMessages(ctx, "a"))
	equal(t, "id after the rows were deleted", say(t, s, "a", "user", "y"), int64(4))
	// The first message is inserted before the second fails the write.
	err := s.ReplaceMessages(ctx, "a", []store.NewMessage{{Role: "user"}, {Role: "user", ToolCalls: json.RawMessage("{")}})
	isErr(t, "bad replace", err, store.ErrInvalidJSON)
	want := int64(5) // the id the rolled-back message took, given again
	if !h.Caps.RollbackReturnsIDs {
		want = 6
	}
	equal(t, "id after a rolled-back insert", say(t, s, "a", "user", "z"), want)
}
