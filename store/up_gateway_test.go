package store

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Ports of the gateway tests of tests/test_hermes_state.py (upstream
// c2a3b9ce5, module level), plus upstream-v21.md §4.5 and §8 defect 8.
// Upstream creates gateway sessions with create_session(…, session_key=…);
// ours create a plain session and record the peer with
// RecordGatewaySessionPeer, the API under test.

// gwSession creates session id and records peer p on it.
func gwSession(t *testing.T, s *Store, id string, p GatewayPeer) {
	t.Helper()
	newSession(t, s, id, p.Source)
	if err := s.RecordGatewaySessionPeer(t.Context(), id, p); err != nil {
		t.Fatalf("RecordGatewaySessionPeer(%q): %v", id, err)
	}
}

// say appends one user message to session id.
func say(t *testing.T, s *Store, id, text string) {
	t.Helper()
	mustAppend(t, s, id, NewMessage{Role: "user", Content: &text})
}

// peerColumns are the gateway columns of session id, as stored.
const peerColumns = "SELECT session_key, source, user_id, chat_id, chat_type, thread_id, display_name, origin_json, expiry_finalized FROM sessions WHERE id = ?"

// gwStore opens a store whose clock steps 1 s per reading from 1000.
func gwStore(t *testing.T) *Store {
	t.Helper()
	s, _ := openStore(t, &Options{Now: stepClock(time.Unix(1000, 0), time.Second)})
	return s
}

// dmPeer is the telegram DM peer of upstream's recovery tests.
var dmPeer = GatewayPeer{Source: "telegram", UserID: "user-1", SessionKey: "agent:main:telegram:dm:chat-1", ChatID: "chat-1", ChatType: "dm"}

// findPeer is FindLatestGatewaySessionForPeer's id, "" for ErrNotFound.
func findPeer(t *testing.T, s *Store, p GatewayPeer) string {
	t.Helper()
	sess, err := s.FindLatestGatewaySessionForPeer(t.Context(), p)
	if errors.Is(err, ErrNotFound) && sess == nil {
		return ""
	}
	if err != nil {
		t.Fatalf("FindLatestGatewaySessionForPeer(%+v): %v", p, err)
	}
	return sess.ID
}

// findByKey is findPeer by the key alone: without a chat type there is no
// peer-tuple fallback.
func findByKey(t *testing.T, s *Store, p GatewayPeer) string {
	t.Helper()
	p.ChatType = ""
	return findPeer(t, s, p)
}

// upstream: test_gateway_session_peer_round_trip_and_recovery
func TestUpGatewayPeerRoundTripAndRecovery(t *testing.T) {
	t.Parallel()
	s := gwStore(t)
	gwSession(t, s, "gw-session", dmPeer)
	say(t, s, "gw-session", "hello")
	wantRows(t, s, [][]any{{"agent:main:telegram:dm:chat-1", "telegram", "user-1", "chat-1", "dm", nil, nil, nil, int64(0)}}, peerColumns, "gw-session")
	sess := mustSession(t, s, "gw-session")
	if deref(sess.SessionKey) != dmPeer.SessionKey || deref(sess.ChatID) != "chat-1" || deref(sess.ChatType) != "dm" {
		t.Errorf("session's peer: key %v, chat %v, type %v", sess.SessionKey, sess.ChatID, sess.ChatType)
	}
	got, err := s.FindLatestGatewaySessionForPeer(t.Context(), dmPeer)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sess, got); diff != "" {
		t.Errorf("recovered session differs from GetSession's (-get +found):\n%s", diff)
	}
}

// upstream: test_gateway_session_recovery_reopens_ws_orphan_reap_rows
func TestUpGatewayRecoveryWSOrphanReap(t *testing.T) {
	t.Parallel()
	s := gwStore(t)
	gwSession(t, s, "reaped-gw-session", dmPeer)
	say(t, s, "reaped-gw-session", "hello")
	mustEnd(t, s, "reaped-gw-session", "ws_orphan_reap")
	if got, byKey := findPeer(t, s, dmPeer), findByKey(t, s, dmPeer); got != "reaped-gw-session" || byKey != got {
		t.Fatalf("recovered %q (by key alone %q), want reaped-gw-session", got, byKey)
	}
	if err := s.ReopenSession(t.Context(), "reaped-gw-session"); err != nil {
		t.Fatal(err)
	}
	if sess := mustSession(t, s, "reaped-gw-session"); sess.EndedAt != nil || sess.EndReason != nil {
		t.Errorf("reopened session: ended %v, reason %v", sess.EndedAt, sess.EndReason)
	}
}

// upstream: test_gateway_session_recovery_reopens_legacy_agent_close_rows
func TestUpGatewayRecoveryAgentClose(t *testing.T) {
	t.Parallel()
	s := gwStore(t)
	gwSession(t, s, "closed-gw-session", dmPeer)
	say(t, s, "closed-gw-session", "hello")
	mustEnd(t, s, "closed-gw-session", "agent_close")
	if got, byKey := findPeer(t, s, dmPeer), findByKey(t, s, dmPeer); got != "closed-gw-session" || byKey != got {
		t.Fatalf("recovered %q (by key alone %q), want closed-gw-session", got, byKey)
	}
	mustEnd(t, s, "closed-gw-session", "session_reset") // the first end wins: still agent_close
	if got := findPeer(t, s, dmPeer); got != "closed-gw-session" {
		t.Fatalf("after a second end: recovered %q, want closed-gw-session", got)
	}
	execSQL(t, s, "UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ?", 5000.0, "session_reset", "closed-gw-session")
	if got, byKey := findPeer(t, s, dmPeer), findByKey(t, s, dmPeer); got != "" || byKey != "" {
		t.Errorf("a session ended by a reset was recovered: %q (by key alone %q)", got, byKey)
	}
}

// TestUpGatewayRecoveryRules: only sessions with messages (rows, or a
// message_count) are recoverable, the newest first; the peer-tuple fallback
// applies only when the key finds nothing and both chat id and chat type
// are given, and then every peer field must match (” matching NULL).
func TestUpGatewayRecoveryRules(t *testing.T) {
	t.Parallel()
	s := gwStore(t)
	gwSession(t, s, "empty", dmPeer)
	if got := findPeer(t, s, dmPeer); got != "" {
		t.Errorf("a session without messages was recovered: %q", got)
	}
	execSQL(t, s, "UPDATE sessions SET message_count = 1 WHERE id = 'empty'")
	if got := findPeer(t, s, dmPeer); got != "empty" {
		t.Errorf("a session with message_count 1 was not recovered: %q", got)
	}
	gwSession(t, s, "newer", dmPeer)
	say(t, s, "newer", "hi")
	if got := findPeer(t, s, dmPeer); got != "newer" {
		t.Errorf("recovered %q, want the newer session", got)
	}
	other := dmPeer
	other.Source = "discord"
	if got := findPeer(t, s, other); got != "" {
		t.Errorf("another source's session was recovered: %q", got)
	}

	// The fallback: a new key, the same peer.
	moved := dmPeer
	moved.SessionKey = "agent:main:telegram:dm:chat-1:v2"
	if got := findPeer(t, s, moved); got != "newer" {
		t.Errorf("fallback recovered %q, want newer", got)
	}
	for name, p := range map[string]GatewayPeer{
		"no chat type":   {Source: moved.Source, SessionKey: moved.SessionKey, UserID: moved.UserID, ChatID: moved.ChatID},
		"no chat id":     {Source: moved.Source, SessionKey: moved.SessionKey, UserID: moved.UserID, ChatType: moved.ChatType},
		"another user":   {Source: moved.Source, SessionKey: moved.SessionKey, UserID: "user-2", ChatID: moved.ChatID, ChatType: moved.ChatType},
		"no user":        {Source: moved.Source, SessionKey: moved.SessionKey, ChatID: moved.ChatID, ChatType: moved.ChatType},
		"another thread": {Source: moved.Source, SessionKey: moved.SessionKey, UserID: moved.UserID, ChatID: moved.ChatID, ChatType: moved.ChatType, ThreadID: "t1"},
	} {
		if got := findPeer(t, s, p); got != "" {
			t.Errorf("fallback with %s recovered %q", name, got)
		}
	}
}

// upstream: test_gateway_metadata_display_name_origin_round_trip. The
// origin is stored byte for byte as given (here with odd spacing and a raw
// non-ASCII character, which json.dumps would not write).
func TestUpGatewayMetadataRoundTrip(t *testing.T) {
	t.Parallel()
	s := gwStore(t)
	mustCreate(t, s, NewSession{ID: "gw-meta", Source: "telegram", UserID: "u1"})
	origin := `{"platform": "telegram", "chat_id": "c1",  "chat_name":"Alicé", "chat_type": "dm"}`
	p := GatewayPeer{Source: "telegram", UserID: "u1", SessionKey: "agent:main:telegram:dm:c1", ChatID: "c1", ChatType: "dm",
		DisplayName: "Alice", OriginJSON: json.RawMessage(origin)}
	if err := s.RecordGatewaySessionPeer(t.Context(), "gw-meta", p); err != nil {
		t.Fatal(err)
	}
	sess := mustSession(t, s, "gw-meta")
	if deref(sess.DisplayName) != "Alice" || string(sess.OriginJSON) != origin {
		t.Errorf("display name %v, origin %s", sess.DisplayName, sess.OriginJSON)
	}
	var decoded map[string]any
	if err := json.Unmarshal(sess.OriginJSON, &decoded); err != nil || decoded["chat_name"] != "Alicé" {
		t.Errorf("origin decodes to %v, %v", decoded, err)
	}

	// No display name and no origin keep the stored ones.
	p.DisplayName, p.OriginJSON = "", nil
	if err := s.RecordGatewaySessionPeer(t.Context(), "gw-meta", p); err != nil {
		t.Fatal(err)
	}
	wantRows(t, s, [][]any{{"agent:main:telegram:dm:c1", "telegram", "u1", "c1", "dm", nil, "Alice", origin, int64(0)}}, peerColumns, "gw-meta")
}

// TestUpGatewayPeerOverwrites: the key, source and peer are overwritten,
// NULLs included; the metadata only when given.
func TestUpGatewayPeerOverwrites(t *testing.T) {
	t.Parallel()
	s := gwStore(t)
	gwSession(t, s, "g", GatewayPeer{Source: "discord", UserID: "u9", SessionKey: "k1", ChatID: "ch7", ChatType: "thread",
		ThreadID: "t7", DisplayName: "Room", OriginJSON: json.RawMessage(`{"a": 1}`)})
	if err := s.RecordGatewaySessionPeer(t.Context(), "g", GatewayPeer{Source: "Discord", SessionKey: "k2", DisplayName: "Room 2"}); err != nil {
		t.Fatal(err)
	}
	wantRows(t, s, [][]any{{"k2", "Discord", nil, nil, nil, nil, "Room 2", `{"a": 1}`, int64(0)}}, peerColumns, "g")
}

// TestUpGatewayPeerBadInput: what upstream ignores (no key) or cannot read
// back is a typed error here, and nothing is written.
func TestUpGatewayPeerBadInput(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := gwStore(t)
	newSession(t, s, "g", "telegram")
	before := tableRows(t, s, "SELECT * FROM sessions")
	ok := GatewayPeer{Source: "telegram", SessionKey: "k"}
	for _, tt := range []struct {
		name string
		id   string
		p    GatewayPeer
		want error
		msg  string
	}{
		{"no key", "g", GatewayPeer{Source: "telegram"}, ErrEmptyArgument, `store: record gateway peer "g": session key: must not be empty`},
		{"no source", "g", GatewayPeer{SessionKey: "k"}, ErrEmptyArgument, `store: record gateway peer "g": source: must not be empty`},
		{"bad origin", "g", GatewayPeer{Source: "telegram", SessionKey: "k", OriginJSON: json.RawMessage(`{"a": }`)}, ErrInvalidJSON, ""},
		{"bad text", "g", GatewayPeer{Source: "telegram", SessionKey: "k", ChatID: "\xff"}, ErrInvalidText, ""},
		{"no session", "nope", ok, ErrSessionNotFound, `store: record gateway peer "nope": no such session`},
	} {
		err := s.RecordGatewaySessionPeer(ctx, tt.id, tt.p)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
		if tt.msg != "" && (err == nil || err.Error() != tt.msg) {
			t.Errorf("%s: message %q, want %q", tt.name, err, tt.msg)
		}
	}
	if _, err := s.FindLatestGatewaySessionForPeer(ctx, GatewayPeer{Source: "telegram"}); !errors.Is(err, ErrEmptyArgument) {
		t.Errorf("find without a key: %v, want ErrEmptyArgument", err)
	}
	if err := s.SetExpiryFinalized(ctx, "nope", true); !errors.Is(err, ErrSessionNotFound) {
		t.Errorf("SetExpiryFinalized of no session: %v, want ErrSessionNotFound", err)
	}
	wantRows(t, s, before, "SELECT * FROM sessions")
}

// upstream: test_set_expiry_finalized_round_trip
func TestUpGatewayExpiryFinalized(t *testing.T) {
	t.Parallel()
	s := gwStore(t)
	gwSession(t, s, "gw-exp", GatewayPeer{Source: "telegram", SessionKey: "agent:main:telegram:dm:x"})
	flag := func() any {
		t.Helper()
		return tableRows(t, s, "SELECT expiry_finalized FROM sessions WHERE id = 'gw-exp'")[0][0]
	}
	if got := flag(); got != int64(0) {
		t.Fatalf("new session's flag = %v, want 0", got)
	}
	for _, finalized := range []bool{true, false, true} {
		if err := s.SetExpiryFinalized(t.Context(), "gw-exp", finalized); err != nil {
			t.Fatal(err)
		}
		want := int64(0)
		if finalized {
			want = 1
		}
		if got := flag(); got != want {
			t.Errorf("after SetExpiryFinalized(%v): %v, want %d", finalized, got, want)
		}
		if got := mustSession(t, s, "gw-exp").ExpiryFinalized; got == nil || *got != want {
			t.Errorf("Session.ExpiryFinalized = %v, want %d", got, want)
		}
	}
}

// listIDs is ListGatewaySessions's ids in order, checking each row's
// LastActive.
func listIDs(t *testing.T, s *Store, opts GatewayListOptions) []string {
	t.Helper()
	rows, err := s.ListGatewaySessions(t.Context(), opts)
	if err != nil {
		t.Fatalf("ListGatewaySessions(%+v): %v", opts, err)
	}
	ids := []string{}
	for _, r := range rows {
		ids = append(ids, r.ID)
		msgs, err := s.GetMessages(t.Context(), r.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := r.StartedAt
		for _, m := range msgs {
			want = max(want, m.Timestamp)
		}
		if r.LastActive != want {
			t.Errorf("%s: LastActive %v, want %v", r.ID, r.LastActive, want)
		}
	}
	return ids
}

// upstream: test_list_gateway_sessions_filters_and_dedupes (orders exact)
func TestUpGatewayListSessions(t *testing.T) {
	t.Parallel()
	s := gwStore(t)
	gwSession(t, s, "gw-old", GatewayPeer{Source: "telegram", SessionKey: "agent:main:telegram:dm:c1", ChatID: "c1", ChatType: "dm"})
	execSQL(t, s, "UPDATE sessions SET started_at = started_at - 100 WHERE id = 'gw-old'")
	gwSession(t, s, "gw-new", GatewayPeer{Source: "telegram", SessionKey: "agent:main:telegram:dm:c1", ChatID: "c1", ChatType: "dm"})
	gwSession(t, s, "gw-discord", GatewayPeer{Source: "discord", SessionKey: "agent:main:discord:group:g1:u1", ChatID: "g1", ChatType: "group"})
	newSession(t, s, "cli-session", "cli")
	gwSession(t, s, "gw-ended", GatewayPeer{Source: "slack", SessionKey: "agent:main:slack:dm:s1", ChatID: "s1", ChatType: "dm"})
	mustEnd(t, s, "gw-ended", "session_reset")

	for _, tt := range []struct {
		opts GatewayListOptions
		want []string
	}{
		{GatewayListOptions{}, []string{"gw-discord", "gw-new"}},
		{GatewayListOptions{Platform: "telegram"}, []string{"gw-new"}},
		{GatewayListOptions{Platform: "TeleGram"}, []string{"gw-new"}},
		{GatewayListOptions{Platform: "slack"}, []string{}},
		{GatewayListOptions{IncludeEnded: true}, []string{"gw-ended", "gw-discord", "gw-new"}},
		{GatewayListOptions{Platform: "slack", IncludeEnded: true}, []string{"gw-ended"}},
	} {
		if diff := cmp.Diff(tt.want, listIDs(t, s, tt.opts)); diff != "" {
			t.Errorf("ListGatewaySessions(%+v) (-want +got):\n%s", tt.opts, diff)
		}
	}
	// A message makes a session the most recently active.
	say(t, s, "gw-new", "hi")
	if diff := cmp.Diff([]string{"gw-new", "gw-discord"}, listIDs(t, s, GatewayListOptions{})); diff != "" {
		t.Errorf("after a message (-want +got):\n%s", diff)
	}
	// Two sessions of one key started at the same time both appear.
	execSQL(t, s, "UPDATE sessions SET started_at = (SELECT started_at FROM sessions WHERE id = 'gw-new') WHERE id = 'gw-old'")
	if diff := cmp.Diff([]string{"gw-new", "gw-discord", "gw-old"}, listIDs(t, s, GatewayListOptions{})); diff != "" {
		t.Errorf("with a tie on the newest start (-want +got):\n%s", diff)
	}
}

// findOrigin is FindSessionByOrigin's id, "" for ErrNotFound.
func findOrigin(t *testing.T, s *Store, o Origin) string {
	t.Helper()
	id, err := s.FindSessionByOrigin(t.Context(), o)
	if errors.Is(err, ErrNotFound) {
		return ""
	}
	if err != nil {
		t.Fatalf("FindSessionByOrigin(%+v): %v", o, err)
	}
	return id
}

// upstream: test_find_session_by_origin_matching_rules. Decision (defect
// 8): follow upstream, whose test asserts it and whose mirror relies on it
// (the sessions.json scan it replaces did the same): a user who matches no
// session still gets the chat's only live session. Origin.ExactUser opts
// out of that fallback.
func TestUpGatewayFindSessionByOrigin(t *testing.T) {
	t.Parallel()
	s := gwStore(t)
	gwSession(t, s, "gw-o1", GatewayPeer{Source: "telegram", UserID: "u1", SessionKey: "agent:main:telegram:group:c9:u1", ChatID: "c9", ChatType: "group"})
	gwSession(t, s, "gw-o2", GatewayPeer{Source: "telegram", UserID: "u2", SessionKey: "agent:main:telegram:group:c9:u2", ChatID: "c9", ChatType: "group"})

	check := func(o Origin, want string) {
		t.Helper()
		if got := findOrigin(t, s, o); got != want {
			t.Errorf("FindSessionByOrigin(%+v) = %q, want %q", o, got, want)
		}
	}
	check(Origin{Platform: "telegram", ChatID: "c9", UserID: "u2"}, "gw-o2") // exact user wins
	check(Origin{Platform: "Telegram", ChatID: "c9", UserID: "u1"}, "gw-o1") // platform ignores case
	check(Origin{Platform: "telegram", ChatID: "c9", UserID: "u3"}, "")      // several users, none matches
	check(Origin{Platform: "telegram", ChatID: "c9"}, "")                    // several distinct users
	mustEnd(t, s, "gw-o2", "session_reset")                                  // ended sessions are ignored
	check(Origin{Platform: "telegram", ChatID: "c9", UserID: "u2"}, "gw-o1") // defect 8: the only one is returned
	check(Origin{Platform: "telegram", ChatID: "c9", UserID: "u2", ExactUser: true}, "")
	check(Origin{Platform: "telegram", ChatID: "c9", UserID: "u1", ExactUser: true}, "gw-o1")
	check(Origin{Platform: "telegram", ChatID: "c9"}, "gw-o1")

	gwSession(t, s, "gw-th", GatewayPeer{Source: "discord", UserID: "u9", SessionKey: "agent:main:discord:thread:t7", ChatID: "ch7", ChatType: "thread", ThreadID: "t7"})
	t7, other, none := "t7", "other", ""
	check(Origin{Platform: "discord", ChatID: "ch7", ThreadID: &t7}, "gw-th")
	check(Origin{Platform: "discord", ChatID: "ch7", ThreadID: &other}, "")
	check(Origin{Platform: "discord", ChatID: "ch7", ThreadID: &none}, "") // "" is "no thread"
	check(Origin{Platform: "discord", ChatID: "ch7"}, "gw-th")             // nil is any thread

	// Blank user ids do not count as distinct users; the newest session wins.
	gwSession(t, s, "gw-blank", GatewayPeer{Source: "discord", UserID: " ", SessionKey: "agent:main:discord:thread:t7:b", ChatID: "ch7", ChatType: "thread", ThreadID: "t7"})
	check(Origin{Platform: "discord", ChatID: "ch7"}, "gw-blank")

	for name, o := range map[string]Origin{"no platform": {ChatID: "c9"}, "no chat": {Platform: "telegram"}} {
		if _, err := s.FindSessionByOrigin(t.Context(), o); !errors.Is(err, ErrEmptyArgument) {
			t.Errorf("%s: %v, want ErrEmptyArgument", name, err)
		}
	}
}

// TestUpGatewayUpstreamFixture: the gateway session upstream wrote
// (testdata/upstream/state-v21.db, fx21-gw) lists, finds and recovers.
func TestUpGatewayUpstreamFixture(t *testing.T) {
	t.Parallel()
	s := openAt(t, copyUpstreamFixture(t), nil)
	if diff := cmp.Diff([]string{"fx21-gw"}, listIDs(t, s, GatewayListOptions{IncludeEnded: true})); diff != "" {
		t.Errorf("gateway sessions (-want +got):\n%s", diff)
	}
	thread := "7"
	if got := findOrigin(t, s, Origin{Platform: "telegram", ChatID: "-1001", ThreadID: &thread, UserID: "u-77"}); got != "fx21-gw" {
		t.Errorf("FindSessionByOrigin = %q, want fx21-gw", got)
	}
	p := GatewayPeer{Source: "telegram", UserID: "u-77", SessionKey: "agent:main:telegram:group:-1001:7", ChatID: "-1001", ChatType: "group", ThreadID: "7"}
	sess, err := s.FindLatestGatewaySessionForPeer(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if sess.ID != "fx21-gw" || deref(sess.DisplayName) != "Team chat / topic 7" ||
		string(sess.OriginJSON) != `{"platform": "telegram", "chat_id": "-1001", "thread_id": "7"}` || deref(sess.ExpiryFinalized) != 1 {
		t.Errorf("recovered %s: display %v, origin %s, finalized %v", sess.ID, sess.DisplayName, sess.OriginJSON, sess.ExpiryFinalized)
	}
}
