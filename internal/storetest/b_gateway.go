package storetest

import (
	"encoding/json"
	"testing"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	groups = append(groups,
		group{"GatewayPeer", bGatewayPeer},
		group{"GatewayList", bGatewayList},
		group{"GatewayFindByOrigin", bGatewayFindByOrigin},
		group{"GatewayLatestForPeer", bGatewayLatestForPeer},
		group{"GatewayRouting", bGatewayRouting},
	)
}

// bGatewayPeer checks RecordGatewaySessionPeer (overwritten peer fields,
// kept presentation, origin JSON stored as given) and SetExpiryFinalized,
// and their refusals.
func bGatewayPeer(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	bCreate(t, s, "p", "cli", func(n *store.NewSession) { n.UserID = "old-user" })
	peer := store.GatewayPeer{Source: "telegram", SessionKey: "agent:main:telegram:dm:1", UserID: "u1", ChatID: "c1",
		ChatType: "dm", ThreadID: "t1", DisplayName: "Alice", OriginJSON: json.RawMessage(`{ "platform" : "telegram" }`)}
	bErr(t, "RecordGatewaySessionPeer", s.RecordGatewaySessionPeer(ctx, "p", peer), nil)
	str := func(v string) *string { return &v }
	type fields struct {
		Source                                                      string
		SessionKey, UserID, ChatID, ChatType, ThreadID, DisplayName *string
		OriginJSON                                                  store.JSONText
		ExpiryFinalized                                             *int64
	}
	of := func(sess *store.Session) fields {
		return fields{sess.Source, sess.SessionKey, sess.UserID, sess.ChatID, sess.ChatType, sess.ThreadID, sess.DisplayName, sess.OriginJSON, sess.ExpiryFinalized}
	}
	bEq(t, "recorded peer", of(bGet(t, s, "p")), fields{"telegram", str("agent:main:telegram:dm:1"), str("u1"), str("c1"), str("dm"), str("t1"), str("Alice"),
		store.JSONText(`{ "platform" : "telegram" }`), new(int64(0))})

	// Peer fields left empty become NULL; presentation left empty is kept.
	bErr(t, "RecordGatewaySessionPeer again", s.RecordGatewaySessionPeer(ctx, "p", store.GatewayPeer{Source: "discord", SessionKey: "k2", ChatID: "c2"}), nil)
	bEq(t, "re-recorded peer", of(bGet(t, s, "p")), fields{"discord", str("k2"), nil, str("c2"), nil, nil, str("Alice"),
		store.JSONText(`{ "platform" : "telegram" }`), new(int64(0))})

	for _, tc := range []struct {
		id   string
		fin  bool
		want int64
	}{{"p", true, 1}, {"p", false, 0}} {
		bErr(t, "SetExpiryFinalized", s.SetExpiryFinalized(ctx, tc.id, tc.fin), nil)
		bEq(t, "expiry_finalized", *bGet(t, s, "p").ExpiryFinalized, tc.want)
	}

	before := of(bGet(t, s, "p"))
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"UnknownSession", s.RecordGatewaySessionPeer(ctx, "nope", peer), store.ErrSessionNotFound},
		{"EmptySource", s.RecordGatewaySessionPeer(ctx, "p", store.GatewayPeer{SessionKey: "k"}), store.ErrEmptyArgument},
		{"EmptyKey", s.RecordGatewaySessionPeer(ctx, "p", store.GatewayPeer{Source: "telegram"}), store.ErrEmptyArgument},
		{"BadOrigin", s.RecordGatewaySessionPeer(ctx, "p", store.GatewayPeer{Source: "x", SessionKey: "k", OriginJSON: json.RawMessage(`{"a"`)}), store.ErrInvalidJSON},
		{"BadText", s.RecordGatewaySessionPeer(ctx, "p", store.GatewayPeer{Source: "x", SessionKey: "k", ChatID: bBadUTF8}), store.ErrInvalidText},
		{"BadDisplayName", s.RecordGatewaySessionPeer(ctx, "p", store.GatewayPeer{Source: "x", SessionKey: "k", DisplayName: bBadUTF8}), store.ErrInvalidText},
		{"ExpiryUnknown", s.SetExpiryFinalized(ctx, "nope", true), store.ErrSessionNotFound},
	} {
		bErr(t, tc.name, tc.err, tc.want)
	}
	bEq(t, "peer after the refused calls", of(bGet(t, s, "p")), before)

	// U+0000 in a peer field: stored or refused, by the engine.
	err := s.RecordGatewaySessionPeer(ctx, "p", store.GatewayPeer{Source: "x", SessionKey: "k", DisplayName: bNUL})
	bErr(t, "NUL display name", err, bNULWant(h))
	if err == nil {
		bEq(t, "NUL display name", *bGet(t, s, "p").DisplayName, bNUL)
	} else {
		bEq(t, "peer after the refused NUL", of(bGet(t, s, "p")), before)
	}
}

// bGatewayList checks ListGatewaySessions: the latest start per key
// (shared starts all listed), most recently active first, the platform
// filter (any case) and ended sessions.
func bGatewayList(t *testing.T, h Harness) {
	s := h.Open(t)
	bImport(t, s,
		`{"id": "g1", "source": "telegram", "session_key": "k1", "started_at": 100, "messages": [{"role": "user", "content": "x", "timestamp": 150}]}`,
		`{"id": "g2", "source": "telegram", "session_key": "k1", "started_at": 200}`,
		`{"id": "g3", "source": "Discord", "session_key": "k2", "started_at": 300, "ended_at": 310, "end_reason": "x", "messages": [{"role": "user", "content": "x", "timestamp": 305}]}`,
		`{"id": "g4", "source": "telegram", "session_key": "k3", "started_at": 50, "messages": [{"role": "user", "content": "x", "timestamp": 400}]}`,
		`{"id": "g5", "source": "telegram", "session_key": "k3", "started_at": 50}`,
		`{"id": "plain", "source": "telegram", "started_at": 500}`,
		`{"id": "g7", "source": "ÉCOLE", "session_key": "k7", "started_at": 60}`,
	)
	type row struct {
		ID         string
		LastActive store.Timestamp
	}
	for _, tc := range []struct {
		name string
		opts store.GatewayListOptions
		want []row
	}{
		{"Live", store.GatewayListOptions{}, []row{{"g4", 400}, {"g2", 200}, {"g7", 60}, {"g5", 50}}},
		{"IncludeEnded", store.GatewayListOptions{IncludeEnded: true}, []row{{"g4", 400}, {"g3", 305}, {"g2", 200}, {"g7", 60}, {"g5", 50}}},
		{"PlatformAnyCase", store.GatewayListOptions{Platform: "DISCORD", IncludeEnded: true}, []row{{"g3", 305}}},
		{"PlatformLiveOnly", store.GatewayListOptions{Platform: "discord"}, []row{}},
		{"Platform", store.GatewayListOptions{Platform: "Telegram"}, []row{{"g4", 400}, {"g2", 200}, {"g5", 50}}},
		{"UnknownPlatform", store.GatewayListOptions{Platform: "slack"}, []row{}},
		// Case is folded for ASCII letters only, as SQLite's LOWER().
		{"PlatformNonASCII", store.GatewayListOptions{Platform: "ÉCOLE"}, []row{{"g7", 60}}},
		{"PlatformNonASCIICase", store.GatewayListOptions{Platform: "école"}, []row{}},
	} {
		got, err := s.ListGatewaySessions(t.Context(), tc.opts)
		bErr(t, tc.name, err, nil)
		rows := []row{}
		for _, g := range got {
			rows = append(rows, row{g.ID, g.LastActive})
		}
		bEq(t, tc.name, rows, tc.want)
	}
}

// bGatewayFindByOrigin checks FindSessionByOrigin's rules: live keyed
// sessions of the chat, the sender's own first, the only one as a fallback
// (unless ExactUser), none when ambiguous, the thread filter.
func bGatewayFindByOrigin(t *testing.T, h Harness) {
	s := h.Open(t)
	bImport(t, s,
		`{"id": "o1", "source": "telegram", "session_key": "ka", "chat_id": "C", "user_id": "U1", "started_at": 100}`,
		`{"id": "o2", "source": "telegram", "session_key": "kb", "chat_id": "C", "user_id": "U2", "thread_id": "t1", "started_at": 200}`,
		`{"id": "o3", "source": "telegram", "session_key": "kc", "chat_id": "C", "user_id": "U1", "started_at": 300, "ended_at": 310}`,
		`{"id": "o4", "source": "telegram", "chat_id": "C", "user_id": "U1", "started_at": 400}`,
		`{"id": "o5", "source": "telegram", "session_key": "kd", "chat_id": "D", "user_id": "U1", "started_at": 100}`,
		`{"id": "o6", "source": "telegram", "session_key": "ke", "chat_id": "D", "user_id": "  ", "started_at": 150}`,
		`{"id": "o7", "source": "discord", "session_key": "kf", "chat_id": "C", "started_at": 900}`,
		`{"id": "o8", "source": "ÉCOLE", "session_key": "kg", "chat_id": "C", "started_at": 900}`,
	)
	t1, none := "t1", ""
	for _, tc := range []struct {
		name string
		o    store.Origin
		want string // "" for ErrNotFound
		err  error
	}{
		{"SeveralUsers", store.Origin{Platform: "telegram", ChatID: "C"}, "", store.ErrNotFound},
		{"OwnSession", store.Origin{Platform: "TELEGRAM", ChatID: "C", UserID: "U1"}, "o1", nil},
		{"OtherOwnSession", store.Origin{Platform: "telegram", ChatID: "C", UserID: "U2"}, "o2", nil},
		{"StrangerOfSeveral", store.Origin{Platform: "telegram", ChatID: "C", UserID: "U3"}, "", store.ErrNotFound},
		{"BlankUsersDoNotCount", store.Origin{Platform: "telegram", ChatID: "D"}, "o6", nil},
		{"OwnSessionOfTwo", store.Origin{Platform: "telegram", ChatID: "D", UserID: "U1"}, "o5", nil},
		{"ThreadNone", store.Origin{Platform: "telegram", ChatID: "C", ThreadID: &none}, "o1", nil},
		{"Thread", store.Origin{Platform: "telegram", ChatID: "C", ThreadID: &t1}, "o2", nil},
		{"ThreadStrangerFallback", store.Origin{Platform: "telegram", ChatID: "C", ThreadID: &t1, UserID: "U9"}, "o2", nil},
		{"ThreadStrangerExact", store.Origin{Platform: "telegram", ChatID: "C", ThreadID: &t1, UserID: "U9", ExactUser: true}, "", store.ErrNotFound},
		{"OtherPlatform", store.Origin{Platform: "discord", ChatID: "C"}, "o7", nil},
		{"PlatformNonASCII", store.Origin{Platform: "ÉCOLE", ChatID: "C"}, "o8", nil},
		{"PlatformNonASCIICase", store.Origin{Platform: "école", ChatID: "C"}, "", store.ErrNotFound},
		{"PlatformASCIICase", store.Origin{Platform: "éCOLE", ChatID: "C"}, "", store.ErrNotFound},
		{"PlatformASCIIFolded", store.Origin{Platform: "ÉcolE", ChatID: "C"}, "o8", nil},
		{"UnknownChat", store.Origin{Platform: "telegram", ChatID: "E"}, "", store.ErrNotFound},
		{"EmptyPlatform", store.Origin{ChatID: "C"}, "", store.ErrEmptyArgument},
		{"EmptyChat", store.Origin{Platform: "telegram"}, "", store.ErrEmptyArgument},
		{"BadText", store.Origin{Platform: "telegram", ChatID: "C", UserID: bBadUTF8}, "", store.ErrInvalidText},
	} {
		got, err := s.FindSessionByOrigin(t.Context(), tc.o)
		bErr(t, tc.name, err, tc.err)
		bEq(t, tc.name, got, tc.want)
	}
}

// bGatewayLatestForPeer checks FindLatestGatewaySessionForPeer: by key
// and source, recoverable (live, or ended by agent_close or
// ws_orphan_reap) and holding messages; the whole-peer fallback.
func bGatewayLatestForPeer(t *testing.T, h Harness) {
	s := h.Open(t)
	msg := `"messages": [{"role": "user", "content": "x", "timestamp": 1000}]`
	bImport(t, s,
		`{"id": "f1", "source": "telegram", "session_key": "kf", "user_id": "u", "chat_id": "c", "chat_type": "dm", "started_at": 100, `+msg+`}`,
		`{"id": "f2", "source": "telegram", "session_key": "kf", "started_at": 200, "ended_at": 250, "end_reason": "agent_close", `+msg+`}`,
		`{"id": "f3", "source": "telegram", "session_key": "kf", "started_at": 300}`,
		`{"id": "f4", "source": "telegram", "session_key": "kf", "started_at": 400, "ended_at": 450, "end_reason": "user_exit", `+msg+`}`,
		`{"id": "f5", "source": "discord", "session_key": "kf", "started_at": 500, "ended_at": 550, "end_reason": "ws_orphan_reap", `+msg+`}`,
		`{"id": "f6", "source": "telegram", "user_id": "u", "chat_id": "c", "chat_type": "dm", "thread_id": "th", "started_at": 600, `+msg+`}`,
	)
	for _, tc := range []struct {
		name string
		p    store.GatewayPeer
		want string
		err  error
	}{
		{"ByKey", store.GatewayPeer{Source: "telegram", SessionKey: "kf"}, "f2", nil},
		{"ByKeyOtherSource", store.GatewayPeer{Source: "discord", SessionKey: "kf"}, "f5", nil},
		{"SourceIsExact", store.GatewayPeer{Source: "Telegram", SessionKey: "kf"}, "", store.ErrNotFound},
		{"NoKeyNoPeer", store.GatewayPeer{Source: "telegram", SessionKey: "kx"}, "", store.ErrNotFound},
		{"NoKeyOnlyChat", store.GatewayPeer{Source: "telegram", SessionKey: "kx", ChatID: "c", UserID: "u"}, "", store.ErrNotFound},
		{"PeerFallback", store.GatewayPeer{Source: "telegram", SessionKey: "kx", UserID: "u", ChatID: "c", ChatType: "dm"}, "f1", nil},
		{"PeerFallbackThread", store.GatewayPeer{Source: "telegram", SessionKey: "kx", UserID: "u", ChatID: "c", ChatType: "dm", ThreadID: "th"}, "f6", nil},
		{"PeerFallbackOtherUser", store.GatewayPeer{Source: "telegram", SessionKey: "kx", UserID: "v", ChatID: "c", ChatType: "dm"}, "", store.ErrNotFound},
		{"EmptySource", store.GatewayPeer{SessionKey: "kf"}, "", store.ErrEmptyArgument},
		{"EmptyKey", store.GatewayPeer{Source: "telegram"}, "", store.ErrEmptyArgument},
		{"BadText", store.GatewayPeer{Source: "telegram", SessionKey: bBadUTF8}, "", store.ErrInvalidText},
	} {
		got, err := s.FindLatestGatewaySessionForPeer(t.Context(), tc.p)
		bErr(t, tc.name, err, tc.err)
		id := ""
		if got != nil {
			id = got.ID
		}
		bEq(t, tc.name, id, tc.want)
	}
}

// bGatewayRouting checks the routing index: entries stored exactly as
// given, per scope; save replaces one, replace makes a scope's whole
// index, delete removes keys; refusals write nothing.
func bGatewayRouting(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	load := func(scope string) map[string]string {
		t.Helper()
		m, err := s.LoadGatewayRoutingEntries(ctx, scope)
		bErr(t, "LoadGatewayRoutingEntries", err, nil)
		if m == nil {
			t.Fatal("LoadGatewayRoutingEntries returned a nil map")
		}
		out := map[string]string{}
		for k, v := range m {
			out[k] = string(v)
		}
		return out
	}
	bEq(t, "empty scope", load(""), map[string]string{})
	bErr(t, "save", s.SaveGatewayRoutingEntry(ctx, "", "k1", json.RawMessage(`{ "a" : 1 }`)), nil)
	bErr(t, "save", s.SaveGatewayRoutingEntry(ctx, "", "k2", json.RawMessage(`"é"`)), nil)
	bErr(t, "save", s.SaveGatewayRoutingEntry(ctx, "/dir", "k1", json.RawMessage(`[1,2]`)), nil)
	bEq(t, "default scope", load(""), map[string]string{"k1": `{ "a" : 1 }`, "k2": `"é"`})
	bEq(t, "other scope", load("/dir"), map[string]string{"k1": `[1,2]`})
	bErr(t, "save again", s.SaveGatewayRoutingEntry(ctx, "", "k1", json.RawMessage(`null`)), nil)
	bEq(t, "replaced entry", load(""), map[string]string{"k1": `null`, "k2": `"é"`})

	bErr(t, "replace", s.ReplaceGatewayRoutingEntries(ctx, "/dir", map[string]json.RawMessage{
		"k3": json.RawMessage(`{"x":true}`), "k4": json.RawMessage(`7`), "": json.RawMessage(`{}`), "k5": nil,
	}), nil)
	bEq(t, "replaced scope", load("/dir"), map[string]string{"k3": `{"x":true}`, "k4": `7`})
	bEq(t, "untouched scope", load(""), map[string]string{"k1": `null`, "k2": `"é"`})

	before := map[string]map[string]string{"": load(""), "/dir": load("/dir")}
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"SaveEmptyKey", s.SaveGatewayRoutingEntry(ctx, "", "", json.RawMessage(`{}`)), store.ErrEmptyArgument},
		{"SaveEmptyEntry", s.SaveGatewayRoutingEntry(ctx, "", "k9", nil), store.ErrEmptyArgument},
		{"SaveBadJSON", s.SaveGatewayRoutingEntry(ctx, "", "k9", json.RawMessage(`{"a":`)), store.ErrInvalidJSON},
		{"SaveTwoValues", s.SaveGatewayRoutingEntry(ctx, "", "k9", json.RawMessage(`1 2`)), store.ErrInvalidJSON},
		{"SaveBadScope", s.SaveGatewayRoutingEntry(ctx, bBadUTF8, "k9", json.RawMessage(`1`)), store.ErrInvalidText},
		{"SaveBadKey", s.SaveGatewayRoutingEntry(ctx, "", bBadUTF8, json.RawMessage(`1`)), store.ErrInvalidText},
		{"SaveBadEntryText", s.SaveGatewayRoutingEntry(ctx, "", "k9", json.RawMessage("\"\xff\"")), store.ErrInvalidText},
		{"ReplaceBadJSON", s.ReplaceGatewayRoutingEntries(ctx, "/dir", map[string]json.RawMessage{"k6": json.RawMessage(`1`), "k7": json.RawMessage(`[`)}), store.ErrInvalidJSON},
		{"ReplaceBadKey", s.ReplaceGatewayRoutingEntries(ctx, "/dir", map[string]json.RawMessage{bBadUTF8: json.RawMessage(`1`)}), store.ErrInvalidText},
		{"ReplaceBadScope", s.ReplaceGatewayRoutingEntries(ctx, bBadUTF8, nil), store.ErrInvalidText},
		{"DeleteBadKey", s.DeleteGatewayRoutingEntries(ctx, "/dir", []string{"k3", bBadUTF8}), store.ErrInvalidText},
		{"DeleteBadScope", s.DeleteGatewayRoutingEntries(ctx, bBadUTF8, []string{"k3"}), store.ErrInvalidText},
	} {
		bErr(t, tc.name, tc.err, tc.want)
	}
	bEq(t, "after the refused calls", map[string]map[string]string{"": load(""), "/dir": load("/dir")}, before)

	bErr(t, "delete", s.DeleteGatewayRoutingEntries(ctx, "", []string{"k1", "nope"}), nil)
	bErr(t, "delete nothing", s.DeleteGatewayRoutingEntries(ctx, "", nil), nil)
	bEq(t, "after the delete", load(""), map[string]string{"k2": `"é"`})
	bEq(t, "other scope after the delete", load("/dir"), map[string]string{"k3": `{"x":true}`, "k4": `7`})
	bErr(t, "replace with nothing", s.ReplaceGatewayRoutingEntries(ctx, "/dir", nil), nil)
	bEq(t, "emptied scope", load("/dir"), map[string]string{})
	bEq(t, "default scope after emptying another", load(""), map[string]string{"k2": `"é"`})

	// Deleting a session leaves the routing entries.
	bCreate(t, s, "k2", "telegram")
	bErr(t, "DeleteSession", s.DeleteSession(ctx, "k2", ""), nil)
	bEq(t, "entries after deleting a session", load(""), map[string]string{"k2": `"é"`})
}
