package storetest

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	groups = append(groups,
		group{"RewindAndRestore", bRewindAndRestore},
		group{"ListRecentUserMessages", bRecentUserMessages},
		group{"ArchiveAndCompact", bArchiveAndCompact},
		group{"MessagesAround", bMessagesAround},
		group{"AnchoredView", bAnchoredView},
	)
}

// bMsgIDs returns the ids of msgs.
func bMsgIDs(msgs []store.Message) []int64 {
	out := make([]int64, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID
	}
	return out
}

// bLive returns the ids of session id's live messages, or with inactive
// all of them.
func bLive(t *testing.T, s *store.Store, id string, inactive bool) []int64 {
	t.Helper()
	msgs, err := s.GetMessagesWith(t.Context(), id, store.MessageOptions{IncludeInactive: inactive})
	bErr(t, "GetMessagesWith", err, nil)
	return bMsgIDs(msgs)
}

// bRewindAndRestore checks RewindToMessage (what it takes back, its
// result, the rewind count, the untouched message count, the refusals)
// and RestoreRewound.
func bRewindAndRestore(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	bCreate(t, s, "r", "cli")
	bCreate(t, s, "other", "cli")
	ids := make([]int64, 6) // u1 a1 u2 a2 u3 a3
	for i, c := range []string{"first", "reply 1", "second", "reply 2", "third", "reply 3"} {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		ids[i] = bSay(t, s, "r", role, c, float64(100+i))
	}
	foreign := bSay(t, s, "other", "user", "elsewhere", 200)
	u1, a1, u2, a2, u3, a3 := ids[0], ids[1], ids[2], ids[3], ids[4], ids[5]

	res, err := s.RewindToMessage(ctx, "r", u2)
	bErr(t, "RewindToMessage(u2)", err, nil)
	bEq(t, "rewound", res.Rewound, 4)
	bEq(t, "new head", res.NewHead, &a1)
	second := "second"
	bEq(t, "target", res.Target, store.Message{ID: u2, SessionID: "r", Role: "user", Content: &second, Timestamp: 102,
		Observed: new(int64(0)), Active: 1})
	bEq(t, "live", bLive(t, s, "r", false), []int64{u1, a1})
	sess := bGet(t, s, "r")
	bEq(t, "counts", []int64{sess.RewindCount, sess.MessageCount}, []int64{1, 6})

	// Rewinding to a message already taken back takes nothing more, and
	// still counts.
	res, err = s.RewindToMessage(ctx, "r", u3)
	bErr(t, "RewindToMessage(u3)", err, nil)
	bEq(t, "rewound again", res.Rewound, 0)
	bEq(t, "target again", []int64{res.Target.ID, res.Target.Active}, []int64{u3, 0})
	bEq(t, "new head again", res.NewHead, &a1)
	bEq(t, "rewind count", bGet(t, s, "r").RewindCount, int64(2))

	for _, tc := range []struct {
		name   string
		id     string
		target int64
		want   error
	}{
		{"NotUser", "r", a1, store.ErrNotUserMessage},
		{"Unknown", "r", a3 + 100, store.ErrMessageNotFound},
		{"OtherSession", "r", foreign, store.ErrMessageNotFound},
		{"UnknownSession", "nope", u1, store.ErrMessageNotFound},
		{"UnknownIsNotFound", "r", a3 + 100, store.ErrNotFound},
	} {
		_, err := s.RewindToMessage(ctx, tc.id, tc.target)
		bErr(t, tc.name, err, tc.want)
	}
	bEq(t, "rewind count after the refusals", bGet(t, s, "r").RewindCount, int64(2))
	bEq(t, "live after the refusals", bLive(t, s, "r", false), []int64{u1, a1})

	for _, tc := range []struct {
		name  string
		id    string
		since int64
		n     int
		live  []int64
	}{
		{"FromU3", "r", u3, 2, []int64{u1, a1, u3, a3}},
		{"FromU3Again", "r", u3, 0, []int64{u1, a1, u3, a3}},
		{"FromU1", "r", u1, 2, []int64{u1, a1, u2, a2, u3, a3}},
		{"UnknownSession", "nope", u1, 0, []int64{u1, a1, u2, a2, u3, a3}},
	} {
		n, err := s.RestoreRewound(ctx, tc.id, tc.since)
		bErr(t, tc.name, err, nil)
		bEq(t, tc.name+": restored", n, tc.n)
		bEq(t, tc.name+": live", bLive(t, s, "r", false), tc.live)
	}
	bEq(t, "counts after the restores", []int64{bGet(t, s, "r").RewindCount, bGet(t, s, "r").MessageCount}, []int64{2, 6})

	res, err = s.RewindToMessage(ctx, "r", u1)
	bErr(t, "RewindToMessage(u1)", err, nil)
	bEq(t, "rewound all", res.Rewound, 6)
	if res.NewHead != nil {
		t.Fatalf("new head %d, want none", *res.NewHead)
	}
	bEq(t, "live after rewinding all", bLive(t, s, "r", false), []int64{})
	bEq(t, "all rows kept", bLive(t, s, "r", true), ids)
	bEq(t, "the other session untouched", bLive(t, s, "other", false), []int64{foreign})
}

// bRecentUserMessages checks ListRecentUserMessages: user messages only,
// newest first, the preview (white space folded, cut at 80 code points,
// structured content's text), the limit and inactive rows.
func bRecentUserMessages(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	bCreate(t, s, "r", "cli")
	long := strings.Repeat("ü", 81)
	exact := strings.Repeat("ü", 80)
	m1 := bSay(t, s, "r", "user", "  hello \n\t world  ", 100)
	bSay(t, s, "r", "assistant", "not listed", 101)
	m2 := bSay(t, s, "r", "user", long, 102)
	m3 := bSay(t, s, "r", "user", exact, 103)
	add := func(content json.RawMessage, ts float64) int64 {
		t.Helper()
		id, err := s.AppendMessage(ctx, "r", store.NewMessage{Role: "user", ContentJSON: content, Timestamp: new(store.Timestamp(ts))})
		bErr(t, "AppendMessage(structured)", err, nil)
		return id
	}
	m4 := add(json.RawMessage(`[{"type": "text", "text": " look "}, {"type": "image_url", "image_url": {"url": "u"}}, {"type": "text", "text": "here"}]`), 104)
	m5 := add(json.RawMessage(`[{"type": "image_url", "image_url": {"url": "u"}}]`), 105)
	m6 := add(json.RawMessage(`{"a": 1}`), 106)
	m7, err := s.AppendMessage(ctx, "r", store.NewMessage{Role: "user", Timestamp: new(store.Timestamp(107))})
	bErr(t, "AppendMessage(no content)", err, nil)
	m8 := bSay(t, s, "r", "user", "rewound one", 108)
	if _, err := s.RewindToMessage(ctx, "r", m8); err != nil {
		t.Fatal(err)
	}
	all := []store.UserMessagePreview{
		{ID: m7, Timestamp: 107, Preview: ""},
		{ID: m6, Timestamp: 106, Preview: ""},
		{ID: m5, Timestamp: 105, Preview: "[multimodal content]"},
		{ID: m4, Timestamp: 104, Preview: "look here"},
		{ID: m3, Timestamp: 103, Preview: exact},
		{ID: m2, Timestamp: 102, Preview: strings.Repeat("ü", 77) + "..."},
		{ID: m1, Timestamp: 100, Preview: "hello world"},
	}
	for _, tc := range []struct {
		name string
		id   string
		opts store.RecentUserMessagesOptions
		want []store.UserMessagePreview
	}{
		{"Default", "r", store.RecentUserMessagesOptions{}, all},
		{"Limit", "r", store.RecentUserMessagesOptions{Limit: 2}, all[:2]},
		{"NegativeLimit", "r", store.RecentUserMessagesOptions{Limit: -1}, all},
		{"IncludeInactive", "r", store.RecentUserMessagesOptions{IncludeInactive: true, Limit: 2},
			[]store.UserMessagePreview{{ID: m8, Timestamp: 108, Preview: "rewound one"}, all[0]}},
		{"Unknown", "nope", store.RecentUserMessagesOptions{}, []store.UserMessagePreview{}},
	} {
		got, err := s.ListRecentUserMessages(ctx, tc.id, tc.opts)
		bErr(t, tc.name, err, nil)
		bEq(t, tc.name, got, tc.want)
	}
	// The default limit is 20.
	for i := range 25 {
		bSay(t, s, "r", "user", "more", float64(200+i))
	}
	got, err := s.ListRecentUserMessages(ctx, "r", store.RecentUserMessagesOptions{})
	bErr(t, "default limit", err, nil)
	bEq(t, "default limit", len(got), 20)
}

// bArchiveAndCompact checks in-place compaction: the live rows become
// compacted and inactive, the new ones are live and counted, the rewound
// rows stay as they were; refusals write nothing.
func bArchiveAndCompact(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	bCreate(t, s, "c", "cli")
	u1 := bSay(t, s, "c", "user", "q1", 100)
	calls := json.RawMessage(`[{"id": "x"}]`)
	a1, err := s.AppendMessage(ctx, "c", store.NewMessage{Role: "assistant", ToolCalls: calls, Timestamp: new(store.Timestamp(101))})
	bErr(t, "AppendMessage", err, nil)
	u2 := bSay(t, s, "c", "user", "q2", 102)
	if _, err := s.RewindToMessage(ctx, "c", u2); err != nil {
		t.Fatal(err)
	}
	before, err := s.GetMessagesWith(ctx, "c", store.MessageOptions{IncludeInactive: true})
	bErr(t, "GetMessagesWith", err, nil)

	summary := "summary"
	for _, tc := range []struct {
		name string
		id   string
		msgs []store.NewMessage
		want error
	}{
		{"Unknown", "nope", nil, store.ErrSessionNotFound},
		{"BothContents", "c", []store.NewMessage{{Role: "user", Content: &summary, ContentJSON: json.RawMessage(`[1]`)}}, store.ErrInvalidMessage},
		{"BadToolCalls", "c", []store.NewMessage{{Role: "assistant", ToolCalls: json.RawMessage(`[`)}}, store.ErrInvalidJSON},
		{"BadText", "c", []store.NewMessage{{Role: "user", Content: new(bBadUTF8)}}, store.ErrInvalidText},
	} {
		_, err := s.ArchiveAndCompact(ctx, tc.id, tc.msgs)
		bErr(t, tc.name, err, tc.want)
	}
	after, err := s.GetMessagesWith(ctx, "c", store.MessageOptions{IncludeInactive: true})
	bErr(t, "GetMessagesWith", err, nil)
	bEq(t, "rows after the refusals", after, before)

	n, err := s.ArchiveAndCompact(ctx, "c", []store.NewMessage{
		{Role: "user", Content: &summary},
		{Role: "assistant", ToolCalls: json.RawMessage(`[{"id": "y"}, {"id": "z"}]`)},
	})
	bErr(t, "ArchiveAndCompact", err, nil)
	bEq(t, "inserted", n, 2)
	rows, err := s.GetMessagesWith(ctx, "c", store.MessageOptions{IncludeInactive: true})
	bErr(t, "GetMessagesWith", err, nil)
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	type state struct {
		ID                int64
		Active, Compacted int64
	}
	got := []state{}
	for _, m := range rows {
		got = append(got, state{m.ID, m.Active, m.Compacted})
	}
	bEq(t, "row states", got, []state{{u1, 0, 1}, {a1, 0, 1}, {u2, 0, 0}, {rows[3].ID, 1, 0}, {rows[4].ID, 1, 0}})
	if !(rows[3].Timestamp > 102 && rows[4].Timestamp > rows[3].Timestamp) {
		t.Fatalf("new timestamps %v, %v: want strictly after 102 and increasing", rows[3].Timestamp, rows[4].Timestamp)
	}
	bEq(t, "live", bLive(t, s, "c", false), []int64{rows[3].ID, rows[4].ID})
	sess := bGet(t, s, "c")
	bEq(t, "counters", []int64{sess.MessageCount, sess.ToolCallCount}, []int64{2, 2})
	has, err := s.HasArchivedMessages(ctx, "c")
	bErr(t, "HasArchivedMessages", err, nil)
	bEq(t, "HasArchivedMessages", has, true)
}

// bAnchorSession builds session v for the anchored views and returns its
// message ids m[1]..m[12] (m[0] is a structured message before them).
func bAnchorSession(t *testing.T, s *store.Store) []int64 {
	t.Helper()
	bCreate(t, s, "v", "cli")
	m := make([]int64, 13)
	var err error
	m[0], err = s.AppendMessage(t.Context(), "v", store.NewMessage{Role: "user",
		ContentJSON: json.RawMessage(`[{"type": "text", "text": "image"}]`), Timestamp: new(store.Timestamp(99))})
	bErr(t, "AppendMessage(structured)", err, nil)
	for i, r := range []struct{ role, content string }{
		{"user", "goal"}, {"assistant", "plan"}, {"tool", "tool out"}, {"user", "u4"}, {"assistant", ""}, {"user", "u6"},
		{"assistant", "a7"}, {"user", "u8"}, {"tool", "t9"}, {"assistant", "a10"}, {"user", "u11"}, {"assistant", "final"},
	} {
		m[i+1] = bSay(t, s, "v", r.role, r.content, float64(100+i))
	}
	// m[11] and m[12] are rewound (active 0), and still part of every
	// window and bookend.
	if _, err := s.RewindToMessage(t.Context(), "v", m[11]); err != nil {
		t.Fatal(err)
	}
	return m
}

// bMessagesAround checks MessagesAround: by id, every active state, the
// window's counts at the session's ends, an anchor of no message.
func bMessagesAround(t *testing.T, h Harness) {
	s := h.Open(t)
	m := bAnchorSession(t, s)
	bCreate(t, s, "w", "cli")
	foreign := bSay(t, s, "w", "user", "x", 1)
	for _, tc := range []struct {
		name          string
		id            string
		anchor        int64
		window        int
		want          []int64
		before, after int
	}{
		{"Middle", "v", m[7], 2, []int64{m[5], m[6], m[7], m[8], m[9]}, 2, 2},
		{"Start", "v", m[1], 3, []int64{m[0], m[1], m[2], m[3], m[4]}, 1, 3},
		{"End", "v", m[12], 2, []int64{m[10], m[11], m[12]}, 2, 0},
		{"ZeroWindow", "v", m[7], 0, []int64{m[7]}, 0, 0},
		{"NegativeWindow", "v", m[7], -3, []int64{m[7]}, 0, 0},
		{"WholeSession", "v", m[6], 100, m, 6, 6},
		{"HugeWindow", "v", m[6], math.MaxInt, m, 6, 6},
		{"ForeignAnchor", "v", foreign, 2, []int64{}, 0, 0},
		{"UnknownAnchor", "v", m[12] + 100, 2, []int64{}, 0, 0},
		{"UnknownSession", "nope", m[7], 2, []int64{}, 0, 0},
	} {
		w, err := s.MessagesAround(t.Context(), tc.id, tc.anchor, tc.window)
		bErr(t, tc.name, err, nil)
		bEq(t, tc.name, bMsgIDs(w.Messages), tc.want)
		bEq(t, tc.name+": counts", []int{w.Before, w.After}, []int{tc.before, tc.after})
	}
	w, err := s.MessagesAround(t.Context(), "v", m[11], 0)
	bErr(t, "MessagesAround(rewound)", err, nil)
	bEq(t, "a rewound anchor", []int64{w.Messages[0].ID, w.Messages[0].Active}, []int64{m[11], 0})
	bEq(t, "structured content reads decoded", string(func() json.RawMessage {
		w, _ := s.MessagesAround(t.Context(), "v", m[0], 0)
		return w.Messages[0].ContentJSON
	}()), `[{"type": "text", "text": "image"}]`)
}

// bAnchoredView checks AnchoredView: the window filtered to the roles
// (the anchor always kept), the bookends (messages with content of the
// kept roles, never overlapping the window, structured content never one).
func bAnchoredView(t *testing.T, h Harness) {
	s := h.Open(t)
	m := bAnchorSession(t, s)
	ua := []string{"user", "assistant"}
	for _, tc := range []struct {
		name          string
		anchor        int64
		opts          store.AnchoredViewOptions
		window        []int64
		before, after int
		start, end    []int64
	}{
		{"Roles", m[7], store.AnchoredViewOptions{Window: 2, Bookend: 3, Roles: ua},
			[]int64{m[5], m[6], m[7], m[8]}, 2, 2, []int64{m[1], m[2], m[4]}, []int64{m[10], m[11], m[12]}},
		{"ShortBookends", m[7], store.AnchoredViewOptions{Window: 2, Bookend: 1, Roles: ua},
			[]int64{m[5], m[6], m[7], m[8]}, 2, 2, []int64{m[1]}, []int64{m[12]}},
		{"NoBookends", m[7], store.AnchoredViewOptions{Window: 1, Bookend: -1, Roles: ua},
			[]int64{m[6], m[7], m[8]}, 1, 1, []int64{}, []int64{}},
		{"AllRoles", m[7], store.AnchoredViewOptions{Window: 1, Bookend: 3},
			[]int64{m[6], m[7], m[8]}, 1, 1, []int64{m[1], m[2], m[3]}, []int64{m[10], m[11], m[12]}},
		{"AnchorOfAnotherRole", m[9], store.AnchoredViewOptions{Window: 1, Bookend: 2, Roles: ua},
			[]int64{m[8], m[9], m[10]}, 1, 1, []int64{m[1], m[2]}, []int64{m[11], m[12]}},
		{"Default", m[7], store.DefaultAnchoredView(),
			[]int64{m[2], m[4], m[5], m[6], m[7], m[8], m[10], m[11], m[12]}, 5, 5, []int64{m[1]}, []int64{}},
		{"NearTheStart", m[1], store.AnchoredViewOptions{Window: 1, Bookend: 3, Roles: ua},
			[]int64{m[0], m[1], m[2]}, 1, 1, []int64{}, []int64{m[10], m[11], m[12]}},
		{"HugeWindowAndBookend", m[7], store.AnchoredViewOptions{Window: math.MaxInt, Bookend: math.MaxInt}, m, 7, 5, []int64{}, []int64{}},
		{"UnknownAnchor", m[12] + 100, store.DefaultAnchoredView(), []int64{}, 0, 0, []int64{}, []int64{}},
	} {
		v, err := s.AnchoredView(t.Context(), "v", tc.anchor, tc.opts)
		bErr(t, tc.name, err, nil)
		bEq(t, tc.name+": window", bMsgIDs(v.Messages), tc.window)
		bEq(t, tc.name+": counts", []int{v.Before, v.After}, []int{tc.before, tc.after})
		bEq(t, tc.name+": start", bMsgIDs(v.BookendStart), tc.start)
		bEq(t, tc.name+": end", bMsgIDs(v.BookendEnd), tc.end)
	}
}
