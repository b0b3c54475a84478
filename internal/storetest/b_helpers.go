package storetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/store"
)

// The helpers of the b_* groups. Their names start with b so that they
// never meet another part of the suite's helpers in the package.

// bCreate creates session id of source through CreateSession, with the
// fields opt sets, and fails the test on an error.
func bCreate(t *testing.T, s *store.Store, id, source string, opt ...func(*store.NewSession)) {
	t.Helper()
	n := store.NewSession{ID: id, Source: source}
	for _, o := range opt {
		o(&n)
	}
	if _, err := s.CreateSession(t.Context(), n); err != nil {
		t.Fatalf("CreateSession(%q): %v", id, err)
	}
}

// bSay appends a message of role with content at timestamp ts (0: the
// store's clock) to session id and returns its id.
func bSay(t *testing.T, s *store.Store, id, role, content string, ts float64) int64 {
	t.Helper()
	m := store.NewMessage{Role: role, Content: &content}
	if ts != 0 {
		m.Timestamp = new(store.Timestamp(ts))
	}
	msgID, err := s.AppendMessage(t.Context(), id, m)
	if err != nil {
		t.Fatalf("AppendMessage(%q, %q): %v", id, content, err)
	}
	return msgID
}

// bImport imports JSONL records (one per argument, each compacted onto one
// line), failing the test on an error or when not every record created a
// session.
func bImport(t *testing.T, s *store.Store, records ...string) {
	t.Helper()
	var b bytes.Buffer
	for _, r := range records {
		if err := json.Compact(&b, []byte(r)); err != nil {
			t.Fatalf("record %s: %v", r, err)
		}
		b.WriteByte('\n')
	}
	res, err := s.ImportJSONL(t.Context(), &b, store.ImportOptions{})
	if err != nil {
		t.Fatalf("ImportJSONL: %v", err)
	}
	if res.Created != len(records) {
		t.Fatalf("ImportJSONL created %d sessions, want %d (%+v)", res.Created, len(records), res)
	}
}

// bGet returns session id, failing the test when it cannot.
func bGet(t *testing.T, s *store.Store, id string) *store.Session {
	t.Helper()
	sess, err := s.GetSession(t.Context(), id)
	if err != nil {
		t.Fatalf("GetSession(%q): %v", id, err)
	}
	return sess
}

// bExists reports whether session id exists.
func bExists(t *testing.T, s *store.Store, id string) bool {
	t.Helper()
	_, err := s.GetSession(t.Context(), id)
	switch {
	case err == nil:
		return true
	case errors.Is(err, store.ErrNotFound):
		return false
	}
	t.Fatalf("GetSession(%q): %v", id, err)
	return false
}

// bExisting returns which of ids exist, in their order.
func bExisting(t *testing.T, s *store.Store, ids ...string) []string {
	t.Helper()
	out := []string{}
	for _, id := range ids {
		if bExists(t, s, id) {
			out = append(out, id)
		}
	}
	return out
}

// bErr fails the test unless err matches want (nil: no error).
func bErr(t *testing.T, what string, err, want error) {
	t.Helper()
	switch {
	case want == nil && err != nil:
		t.Fatalf("%s: unexpected error %v", what, err)
	case want != nil && !errors.Is(err, want):
		t.Fatalf("%s: error %v, want %v", what, err, want)
	}
}

// bEq fails the test when got differs from want.
func bEq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("%s (-want +got):\n%s", what, d)
	}
}

// bSorted returns a sorted copy of v.
func bSorted[T interface{ ~int64 | ~string }](v []T) []T {
	out := slices.Clone(v)
	slices.Sort(out)
	return out
}

// bSessionIDs returns the ids of sessions.
func bSessionIDs(sessions []store.Session) []string {
	out := make([]string, len(sessions))
	for i, sess := range sessions {
		out[i] = sess.ID
	}
	return out
}

// bRichIDs returns the ids of rich sessions.
func bRichIDs(sessions []store.RichSession) []string {
	out := make([]string, len(sessions))
	for i, sess := range sessions {
		out[i] = sess.ID
	}
	return out
}

// bNUL is text holding U+0000, which an engine stores or refuses with
// ErrInvalidText (Caps.NULInText).
const bNUL = "before\x00after"

// bNULWant is the error a write of bNUL gets on h's engine.
func bNULWant(h Harness) error {
	if h.Caps.NULInText {
		return nil
	}
	return store.ErrInvalidText
}

// bBadUTF8 is text that is not UTF-8, refused by every engine.
const bBadUTF8 = "bad\xff"
