package store

// Ports of upstream c2a3b9ce5's tests/hermes_state/test_get_messages_around.py
// (12 tests) and tests/hermes_state/test_get_anchored_view.py (11 tests),
// one Go subtest per upstream test. See docs/upstream-tests/messages.md.

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seedAlternating creates session sid with n messages alternating user and
// assistant, content fmt.Sprintf(format, i), and returns their ids.
func seedAlternating(t *testing.T, s *Store, sid string, n int, format string) []int64 {
	t.Helper()
	mustCreate(t, s, NewSession{ID: sid, Source: "cli"})
	ids := make([]int64, n)
	for i := range n {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		ids[i] = mustAppend(t, s, sid, NewMessage{Role: role, Content: new(fmt.Sprintf(format, i))})
	}
	return ids
}

// windowIDs returns the ids of msgs.
func windowIDs(msgs []Message) []int64 {
	out := make([]int64, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID
	}
	return out
}

// around is MessagesAround, failing the test on error.
func around(t *testing.T, s *Store, sid string, anchor int64, window int) MessageWindow {
	t.Helper()
	w, err := s.MessagesAround(t.Context(), sid, anchor, window)
	if err != nil {
		t.Fatalf("MessagesAround(%q, %d, %d): %v", sid, anchor, window, err)
	}
	return w
}

// upstream: test_get_messages_around.py (every test, one subtest each)
func TestUpstreamGetMessagesAround(t *testing.T) {
	t.Parallel()
	seed := func(t *testing.T, n int) (*Store, []int64) {
		s, _ := openStore(t, quick(nil))
		return s, seedAlternating(t, s, "s1", n, "msg %d")
	}

	// upstream: TestBasicWindow::test_returns_window_around_anchor
	t.Run("ReturnsWindowAroundAnchor", func(t *testing.T) {
		t.Parallel()
		s, ids := seed(t, 10)
		w := around(t, s, "s1", ids[5], 2)
		if diff := cmp.Diff(ids[3:8], windowIDs(w.Messages)); diff != "" {
			t.Errorf("window ids (-want +got):\n%s", diff)
		}
		if w.Before != 2 || w.After != 2 {
			t.Errorf("before, after = %d, %d; want 2, 2", w.Before, w.After)
		}
	})

	// upstream: TestBasicWindow::test_window_zero_returns_only_anchor
	t.Run("WindowZeroReturnsOnlyAnchor", func(t *testing.T) {
		t.Parallel()
		s, ids := seed(t, 5)
		w := around(t, s, "s1", ids[2], 0)
		if diff := cmp.Diff(MessageWindow{Messages: w.Messages}, w); diff != "" || !cmp.Equal(windowIDs(w.Messages), ids[2:3]) {
			t.Errorf("window = %v, before %d, after %d; want only the anchor", windowIDs(w.Messages), w.Before, w.After)
		}
	})

	// upstream: TestBasicWindow::test_negative_window_clamps_to_zero
	t.Run("NegativeWindowClampsToZero", func(t *testing.T) {
		t.Parallel()
		s, ids := seed(t, 5)
		if got := windowIDs(around(t, s, "s1", ids[2], -3).Messages); !cmp.Equal(got, ids[2:3]) {
			t.Errorf("window ids = %v, want only the anchor %d", got, ids[2])
		}
	})

	// upstream: TestBoundaryDetection::test_at_session_start_messages_before_is_short
	t.Run("AtSessionStartMessagesBeforeIsShort", func(t *testing.T) {
		t.Parallel()
		s, ids := seed(t, 10)
		w := around(t, s, "s1", ids[0], 5)
		if w.Before != 0 || w.After != 5 || len(w.Messages) != 6 {
			t.Errorf("before, after, len = %d, %d, %d; want 0, 5, 6", w.Before, w.After, len(w.Messages))
		}
	})

	// upstream: TestBoundaryDetection::test_at_session_end_messages_after_is_short
	t.Run("AtSessionEndMessagesAfterIsShort", func(t *testing.T) {
		t.Parallel()
		s, ids := seed(t, 10)
		w := around(t, s, "s1", ids[9], 5)
		if w.Before != 5 || w.After != 0 || len(w.Messages) != 6 {
			t.Errorf("before, after, len = %d, %d, %d; want 5, 0, 6", w.Before, w.After, len(w.Messages))
		}
	})

	// upstream: TestBoundaryDetection::test_window_larger_than_session
	t.Run("WindowLargerThanSession", func(t *testing.T) {
		t.Parallel()
		s, ids := seed(t, 3)
		w := around(t, s, "s1", ids[1], 50)
		if !cmp.Equal(windowIDs(w.Messages), ids) || w.Before != 1 || w.After != 1 {
			t.Errorf("window %v, before %d, after %d; want all 3, 1, 1", windowIDs(w.Messages), w.Before, w.After)
		}
	})

	// upstream: TestAnchorValidation::test_missing_anchor_returns_empty
	t.Run("MissingAnchorReturnsEmpty", func(t *testing.T) {
		t.Parallel()
		s, _ := seed(t, 5)
		if diff := cmp.Diff(MessageWindow{Messages: []Message{}}, around(t, s, "s1", 99999, 5)); diff != "" {
			t.Errorf("window (-want +got):\n%s", diff)
		}
	})

	// upstream: TestAnchorValidation::test_anchor_in_different_session_returns_empty
	t.Run("AnchorInDifferentSessionReturnsEmpty", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, quick(nil))
		ids1 := seedAlternating(t, s, "s1", 5, "msg %d")
		seedAlternating(t, s, "s2", 5, "msg %d")
		if diff := cmp.Diff(MessageWindow{Messages: []Message{}}, around(t, s, "s2", ids1[2], 2)); diff != "" {
			t.Errorf("window (-want +got):\n%s", diff)
		}
	})

	// upstream: TestScrollPattern::test_scroll_forward_re_anchored_on_last_id
	t.Run("ScrollForwardReAnchoredOnLastID", func(t *testing.T) {
		t.Parallel()
		s, ids := seed(t, 20)
		v1 := windowIDs(around(t, s, "s1", ids[5], 3).Messages)
		last := v1[len(v1)-1]
		v2 := windowIDs(around(t, s, "s1", last, 3).Messages)
		if !cmp.Equal(v1, ids[2:9]) || !cmp.Equal(v2, ids[5:12]) {
			t.Errorf("windows %v then %v; want %v then %v (the boundary id in both)", v1, v2, ids[2:9], ids[5:12])
		}
	})

	// upstream: TestScrollPattern::test_scroll_backward_re_anchored_on_first_id
	t.Run("ScrollBackwardReAnchoredOnFirstID", func(t *testing.T) {
		t.Parallel()
		s, ids := seed(t, 20)
		v1 := windowIDs(around(t, s, "s1", ids[10], 3).Messages)
		v2 := windowIDs(around(t, s, "s1", v1[0], 3).Messages)
		if !cmp.Equal(v1, ids[7:14]) || !cmp.Equal(v2, ids[4:11]) {
			t.Errorf("windows %v then %v; want %v then %v (the boundary id in both)", v1, v2, ids[7:14], ids[4:11])
		}
	})

	// upstream: TestContentHydration::test_content_is_decoded
	t.Run("ContentIsDecoded", func(t *testing.T) {
		t.Parallel()
		s, ids := seed(t, 3)
		var got []string
		for _, m := range around(t, s, "s1", ids[1], 1).Messages {
			got = append(got, deref(m.Content))
		}
		if diff := cmp.Diff([]string{"msg 0", "msg 1", "msg 2"}, got); diff != "" {
			t.Errorf("contents (-want +got):\n%s", diff)
		}
		// Structured content is decoded too (upstream's _decode_content).
		mm := mustAppend(t, s, "s1", NewMessage{Role: "user", ContentJSON: json.RawMessage(`[{"type":"text","text":"pic"}]`)})
		w := around(t, s, "s1", mm, 0)
		if m := w.Messages[0]; m.Content != nil || string(m.ContentJSON) != `[{"type": "text", "text": "pic"}]` {
			t.Errorf("structured content = %v, %s; want the list", m.Content, m.ContentJSON)
		}
	})

	// upstream: TestContentHydration::test_tool_calls_deserialized
	t.Run("ToolCallsDeserialized", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, quick(nil))
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		calls := `[{"id": "t1", "function": {"name": "x", "arguments": "{}"}}]`
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new(""), ToolCalls: json.RawMessage(calls)})
		mid := mustAppend(t, s, "s1", NewMessage{Role: "tool", Content: new("result"), ToolName: "x"})
		w := around(t, s, "s1", mid, 2)
		if len(w.Messages) != 2 || w.Messages[0].Role != "assistant" || string(w.Messages[0].ToolCalls) != calls {
			t.Errorf("window = %+v, want the assistant's tool calls", w.Messages)
		}
		var decoded []map[string]any
		if err := json.Unmarshal(mustJSON(t, w.Messages[0]), &struct {
			ToolCalls *[]map[string]any `json:"tool_calls"`
		}{&decoded}); err != nil || len(decoded) != 1 {
			t.Errorf("tool_calls in the message's JSON = %v, %v; want a list", decoded, err)
		}
	})
}

// anchoredView is AnchoredView, failing the test on error.
func anchoredView(t *testing.T, s *Store, sid string, anchor int64, opts AnchoredViewOptions) AnchoredView {
	t.Helper()
	v, err := s.AnchoredView(t.Context(), sid, anchor, opts)
	if err != nil {
		t.Fatalf("AnchoredView(%q, %d): %v", sid, anchor, err)
	}
	return v
}

// viewOpts is DefaultAnchoredView with window and bookend.
func viewOpts(window, bookend int) AnchoredViewOptions {
	o := DefaultAnchoredView()
	o.Window, o.Bookend = window, bookend
	return o
}

// upstream: test_get_anchored_view.py (every test, one subtest each)
func TestUpstreamGetAnchoredView(t *testing.T) {
	t.Parallel()
	seed := func(t *testing.T, n int) (*Store, []int64) {
		s, _ := openStore(t, quick(nil))
		return s, seedAlternating(t, s, "s1", n, "prose msg %d")
	}

	// upstream: TestWindowAndBookendShape::test_returns_window_with_bookend_start_and_end
	t.Run("ReturnsWindowWithBookendStartAndEnd", func(t *testing.T) {
		t.Parallel()
		s, ids := seed(t, 30)
		v := anchoredView(t, s, "s1", ids[15], viewOpts(3, 3))
		got := [][]int64{windowIDs(v.Messages), windowIDs(v.BookendStart), windowIDs(v.BookendEnd)}
		if diff := cmp.Diff([][]int64{ids[12:19], ids[:3], ids[27:]}, got); diff != "" {
			t.Errorf("window, bookend start, bookend end (-want +got):\n%s", diff)
		}
	})

	// upstream: TestWindowAndBookendShape::test_window_anchor_marked_correctly
	t.Run("WindowAnchorMarkedCorrectly", func(t *testing.T) {
		t.Parallel()
		s, ids := seed(t, 20)
		n := 0
		for _, m := range anchoredView(t, s, "s1", ids[10], viewOpts(2, 3)).Messages {
			if m.ID == ids[10] {
				n++
			}
		}
		if n != 1 {
			t.Errorf("the anchor is %d times in the window, want once", n)
		}
	})

	// upstream: TestBookendOverlap::test_bookend_start_empty_when_window_covers_session_head
	t.Run("BookendStartEmptyWhenWindowCoversSessionHead", func(t *testing.T) {
		t.Parallel()
		s, ids := seed(t, 10)
		v := anchoredView(t, s, "s1", ids[1], viewOpts(3, 3))
		if len(v.BookendStart) != 0 || !cmp.Equal(windowIDs(v.BookendEnd), ids[7:]) {
			t.Errorf("bookends %v, %v; want none, %v", windowIDs(v.BookendStart), windowIDs(v.BookendEnd), ids[7:])
		}
	})

	// upstream: TestBookendOverlap::test_bookend_end_empty_when_window_covers_session_tail
	t.Run("BookendEndEmptyWhenWindowCoversSessionTail", func(t *testing.T) {
		t.Parallel()
		s, ids := seed(t, 10)
		v := anchoredView(t, s, "s1", ids[8], viewOpts(3, 3))
		if len(v.BookendEnd) != 0 || !cmp.Equal(windowIDs(v.BookendStart), ids[:3]) {
			t.Errorf("bookends %v, %v; want %v, none", windowIDs(v.BookendStart), windowIDs(v.BookendEnd), ids[:3])
		}
	})

	// upstream: TestBookendOverlap::test_short_session_both_bookends_empty
	t.Run("ShortSessionBothBookendsEmpty", func(t *testing.T) {
		t.Parallel()
		s, ids := seed(t, 5)
		v := anchoredView(t, s, "s1", ids[2], viewOpts(10, 3))
		if len(v.BookendStart) != 0 || len(v.BookendEnd) != 0 || !cmp.Equal(windowIDs(v.Messages), ids) {
			t.Errorf("window %v, bookends %v, %v; want all 5, none, none", windowIDs(v.Messages), windowIDs(v.BookendStart), windowIDs(v.BookendEnd))
		}
	})

	// userAndTools creates s1 with five user messages, each followed by a
	// tool message, and returns the user ids.
	userAndTools := func(t *testing.T, s *Store) []int64 {
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		var users []int64
		for i := range 5 {
			users = append(users, mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new(fmt.Sprintf("u%d", i))}))
			mustAppend(t, s, "s1", NewMessage{Role: "tool", Content: new(fmt.Sprintf("tool output %d", i)), ToolName: "x"})
		}
		return users
	}

	// upstream: TestRoleFiltering::test_tool_role_filtered_from_window
	t.Run("ToolRoleFilteredFromWindow", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, quick(nil))
		users := userAndTools(t, s)
		v := anchoredView(t, s, "s1", users[2], viewOpts(5, 0))
		// The window is ids 1…10 less the tools; the counts are the
		// window's before the role filter, as upstream returns them.
		if !cmp.Equal(windowIDs(v.Messages), users) || v.Before != 4 || v.After != 5 {
			t.Errorf("window %v, before %d, after %d; want the user messages %v, 4, 5", windowIDs(v.Messages), v.Before, v.After, users)
		}
	})

	// upstream: TestRoleFiltering::test_anchor_preserved_even_when_tool_role
	t.Run("AnchorPreservedEvenWhenToolRole", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, quick(nil))
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		ask := mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("ask")})
		tool := mustAppend(t, s, "s1", NewMessage{Role: "tool", Content: new("tool output"), ToolName: "x"})
		follow := mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("follow-up")})
		if got := windowIDs(anchoredView(t, s, "s1", tool, viewOpts(5, 0)).Messages); !cmp.Equal(got, []int64{ask, tool, follow}) {
			t.Errorf("window %v, want %v (the tool anchor kept)", got, []int64{ask, tool, follow})
		}
	})

	// upstream: TestRoleFiltering::test_keep_roles_none_disables_filter
	t.Run("KeepRolesNoneDisablesFilter", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, quick(nil))
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		ask := mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("ask")})
		out := mustAppend(t, s, "s1", NewMessage{Role: "tool", Content: new("output"), ToolName: "x"})
		opts := viewOpts(5, 0)
		opts.Roles = nil // every role
		if got := windowIDs(anchoredView(t, s, "s1", ask, opts).Messages); !cmp.Equal(got, []int64{ask, out}) {
			t.Errorf("window %v, want %v (the tool message kept)", got, []int64{ask, out})
		}
	})

	// upstream: TestEmptyContentFilter::test_empty_content_messages_excluded_from_bookends
	t.Run("EmptyContentMessagesExcludedFromBookends", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, quick(nil))
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		opener := mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("Let's start the work")})
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new(""), ToolCalls: json.RawMessage(`[{"id": "t1", "function": {"name": "x", "arguments": "{}"}}]`)})
		for i := range 20 {
			role := "user"
			if i%2 == 1 {
				role = "assistant"
			}
			mustAppend(t, s, "s1", NewMessage{Role: role, Content: new(fmt.Sprintf("prose %d", i))})
		}
		mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new(""), ToolCalls: json.RawMessage(`[{"id": "t2", "function": {"name": "y", "arguments": "{}"}}]`)})
		closer := mustAppend(t, s, "s1", NewMessage{Role: "assistant", Content: new("Final decision: ship it.")})
		v := anchoredView(t, s, "s1", opener+15, viewOpts(2, 3))
		// Ids: 1 opener, 2 empty, 3…22 prose, 23 empty, 24 closer.
		got := [][]int64{windowIDs(v.BookendStart), windowIDs(v.BookendEnd)}
		if diff := cmp.Diff([][]int64{{opener, 3, 4}, {21, 22, closer}}, got); diff != "" {
			t.Errorf("bookends (-want +got):\n%s", diff)
		}
	})

	// upstream: TestAnchorValidation::test_missing_anchor_returns_empty_view
	t.Run("MissingAnchorReturnsEmptyView", func(t *testing.T) {
		t.Parallel()
		s, _ := seed(t, 10)
		want := AnchoredView{MessageWindow: MessageWindow{Messages: []Message{}}, BookendStart: []Message{}, BookendEnd: []Message{}}
		if diff := cmp.Diff(want, anchoredView(t, s, "s1", 999999, viewOpts(5, 3))); diff != "" {
			t.Errorf("view (-want +got):\n%s", diff)
		}
	})

	// upstream: TestSessionIsolation::test_bookends_only_from_anchor_session
	t.Run("BookendsOnlyFromAnchorSession", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, quick(nil))
		ids1 := seedAlternating(t, s, "s1", 20, "prose msg %d")
		seedAlternating(t, s, "s2", 20, "prose msg %d")
		v := anchoredView(t, s, "s1", ids1[10], viewOpts(2, 3))
		if got := [][]int64{windowIDs(v.BookendStart), windowIDs(v.BookendEnd)}; !cmp.Equal(got, [][]int64{ids1[:3], ids1[17:]}) {
			t.Errorf("bookends %v, want %v", got, [][]int64{ids1[:3], ids1[17:]})
		}
	})
}

// TestAnchoredViewIsNotFilteredByActive: the window and the bookends read
// every active state (upstream's get_messages_around has no active
// filter): rewound and compaction-archived rows appear. Structured content
// is never a bookend (its stored text starts with a NUL, so SQLite's
// length() is 0), nor is a tool-call-only turn.
func TestAnchoredViewIsNotFilteredByActive(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(nil))
	ids := seedAlternating(t, s, "s1", 8, "m%d")
	if _, err := s.RewindToMessage(t.Context(), "s1", ids[6]); err != nil {
		t.Fatal(err)
	}
	mm := mustAppend(t, s, "s1", NewMessage{Role: "user", ContentJSON: json.RawMessage(`[{"type":"text","text":"late picture"}]`)})
	v := anchoredView(t, s, "s1", ids[3], viewOpts(1, 2))
	got := [][]int64{windowIDs(v.Messages), windowIDs(v.BookendStart), windowIDs(v.BookendEnd)}
	// ids[6], ids[7] are rewound but still read; mm is structured: no bookend.
	if diff := cmp.Diff([][]int64{ids[2:5], ids[:2], ids[6:8]}, got); diff != "" {
		t.Errorf("window, bookend start, bookend end (-want +got):\n%s", diff)
	}
	if w := around(t, s, "s1", mm, 1); !cmp.Equal(windowIDs(w.Messages), []int64{ids[7], mm}) || w.Messages[0].Active != 0 {
		t.Errorf("window around the structured message = %v (active %d), want %v with the rewound row", windowIDs(w.Messages), w.Messages[0].Active, []int64{ids[7], mm})
	}
}
