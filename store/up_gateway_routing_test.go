package store

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The gateway routing index (upstream-v21.md §4.5: save, replace, load,
// delete by scope). Upstream c2a3b9ce5 has no test of these methods; these
// check its SQL semantics, read from hermes_state.py and run against it.

// routingTable is the whole gateway_routing table.
const routingTable = "SELECT scope, session_key, entry_json, updated_at FROM gateway_routing ORDER BY scope, session_key"

// load is LoadGatewayRoutingEntries as plain strings.
func load(t *testing.T, s *Store, scope string) map[string]string {
	t.Helper()
	m, err := s.LoadGatewayRoutingEntries(t.Context(), scope)
	if err != nil {
		t.Fatalf("LoadGatewayRoutingEntries(%q): %v", scope, err)
	}
	out := map[string]string{}
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

// TestUpRoutingSaveUpserts: a save writes the entry text exactly as given
// and stamps it now; a second save of the key replaces both; scopes are
// separate indexes.
func TestUpRoutingSaveUpserts(t *testing.T) {
	t.Parallel()
	c := newSetClock(1000)
	s := setClockStore(t, c)
	ctx := t.Context()
	odd := `{"session_id":"s1",  "é": [1, 2.50]}` // not json.dumps's text: kept as is
	if err := s.SaveGatewayRoutingEntry(ctx, "", "k1", json.RawMessage(odd)); err != nil {
		t.Fatal(err)
	}
	c.Set(1001.5)
	if err := s.SaveGatewayRoutingEntry(ctx, "dir/a", "k1", json.RawMessage(`{"session_id": "a1"}`)); err != nil {
		t.Fatal(err)
	}
	wantRows(t, s, [][]any{{"", "k1", odd, 1000.0}, {"dir/a", "k1", `{"session_id": "a1"}`, 1001.5}}, routingTable)

	c.Set(1002)
	if err := s.SaveGatewayRoutingEntry(ctx, "", "k1", json.RawMessage(`{"session_id": "s2"}`)); err != nil {
		t.Fatal(err)
	}
	wantRows(t, s, [][]any{{"", "k1", `{"session_id": "s2"}`, 1002.0}, {"dir/a", "k1", `{"session_id": "a1"}`, 1001.5}}, routingTable)
	if diff := cmp.Diff(map[string]string{"k1": `{"session_id": "s2"}`}, load(t, s, "")); diff != "" {
		t.Errorf("default scope (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{}, load(t, s, "nowhere")); diff != "" {
		t.Errorf("empty scope (-want +got):\n%s", diff)
	}
}

// TestUpRoutingReplace: a replace empties its scope and writes every entry
// with one time, skipping empty keys and values; other scopes stay.
func TestUpRoutingReplace(t *testing.T) {
	t.Parallel()
	c := newSetClock(1000)
	s := setClockStore(t, c)
	ctx := t.Context()
	for _, e := range [][2]string{{"", "old"}, {"", "keep-me-not"}, {"other", "old"}} {
		if err := s.SaveGatewayRoutingEntry(ctx, e[0], e[1], json.RawMessage(`1`)); err != nil {
			t.Fatal(err)
		}
	}
	c.Set(2000)
	err := s.ReplaceGatewayRoutingEntries(ctx, "", map[string]json.RawMessage{
		"b": json.RawMessage(`{"x": "b"}`), "a": json.RawMessage(`"a"`), "": json.RawMessage(`{}`), "empty": nil, "null": json.RawMessage(`null`),
	})
	if err != nil {
		t.Fatal(err)
	}
	wantRows(t, s, [][]any{
		{"", "a", `"a"`, 2000.0}, {"", "b", `{"x": "b"}`, 2000.0}, {"", "null", "null", 2000.0},
		{"other", "old", "1", 1000.0},
	}, routingTable)

	if err := s.ReplaceGatewayRoutingEntries(ctx, "", nil); err != nil {
		t.Fatal(err)
	}
	wantRows(t, s, [][]any{{"other", "old", "1", 1000.0}}, routingTable)
}

// TestUpRoutingDelete: a delete removes the keys of its scope only; unknown
// keys and no keys are fine.
func TestUpRoutingDelete(t *testing.T) {
	t.Parallel()
	s := setClockStore(t, newSetClock(1000))
	ctx := t.Context()
	for _, e := range [][2]string{{"", "a"}, {"", "b"}, {"", "c"}, {"x", "a"}} {
		if err := s.SaveGatewayRoutingEntry(ctx, e[0], e[1], json.RawMessage(`0`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteGatewayRoutingEntries(ctx, "", []string{"a", "c", "zzz"}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteGatewayRoutingEntries(ctx, "", nil); err != nil {
		t.Fatal(err)
	}
	wantRows(t, s, [][]any{{"", "b", "0", 1000.0}, {"x", "a", "0", 1000.0}}, routingTable)
}

// TestUpRoutingBadInput: what upstream ignores (an empty key or entry) or
// could not read back (text that is not JSON) is a typed error, and nothing
// is written, not even the other entries of a replace.
func TestUpRoutingBadInput(t *testing.T) {
	t.Parallel()
	s := setClockStore(t, newSetClock(1000))
	ctx := t.Context()
	if err := s.SaveGatewayRoutingEntry(ctx, "", "k", json.RawMessage(`"v"`)); err != nil {
		t.Fatal(err)
	}
	before := tableRows(t, s, routingTable)
	for _, tt := range []struct {
		name string
		err  error
		want error
		msg  string
	}{
		{"save empty key", s.SaveGatewayRoutingEntry(ctx, "", "", json.RawMessage(`1`)), ErrEmptyArgument,
			`store: save gateway routing entry "": session key: must not be empty`},
		{"save empty entry", s.SaveGatewayRoutingEntry(ctx, "", "k", nil), ErrEmptyArgument,
			`store: save gateway routing entry "k": entry: must not be empty`},
		{"save bad json", s.SaveGatewayRoutingEntry(ctx, "", "k", json.RawMessage(`{"a"}`)), ErrInvalidJSON, ""},
		{"save bad text", s.SaveGatewayRoutingEntry(ctx, "\xff", "k", json.RawMessage(`1`)), ErrInvalidText, ""},
		{"replace bad json", s.ReplaceGatewayRoutingEntries(ctx, "", map[string]json.RawMessage{
			"good": json.RawMessage(`1`), "bad": json.RawMessage(`[1,]`)}), ErrInvalidJSON, ""},
		{"replace bad key", s.ReplaceGatewayRoutingEntries(ctx, "", map[string]json.RawMessage{"\xff": json.RawMessage(`1`)}), ErrInvalidText, ""},
		{"delete bad key", s.DeleteGatewayRoutingEntries(ctx, "", []string{"k", "\xfe"}), ErrInvalidText, ""},
	} {
		if !errors.Is(tt.err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, tt.err, tt.want)
		}
		if tt.msg != "" && (tt.err == nil || tt.err.Error() != tt.msg) {
			t.Errorf("%s: message %q, want %q", tt.name, tt.err, tt.msg)
		}
	}
	wantRows(t, s, before, routingTable)
}

// TestUpRoutingUpstreamFixture: the routing rows upstream wrote
// (testdata/upstream/state-v21.db: one in a named scope, one in the default
// scope) load as stored.
func TestUpRoutingUpstreamFixture(t *testing.T) {
	t.Parallel()
	s := openAt(t, copyUpstreamFixture(t), nil)
	if diff := cmp.Diff(map[string]string{"agent:main:telegram:group:-1001:7": `{"session_id": "fx21-gw", "platform": "telegram"}`},
		load(t, s, "profile-default/sessions")); diff != "" {
		t.Errorf("named scope (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"agent:main:discord:dm:55": `{"session_id": "fx21-gw-old"}`}, load(t, s, "")); diff != "" {
		t.Errorf("default scope (-want +got):\n%s", diff)
	}
}
