package storetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/store"
)

// epoch is the clock's start in every test that sets the clock: a whole
// second, so timestamps compare exactly as float64.
var epoch = time.Unix(1_750_000_000, 0)

// at is the Timestamp d after epoch.
func at(d time.Duration) store.Timestamp { return store.TimestampOf(epoch.Add(d)) }

// openClocked opens a fresh store of h whose clock reads epoch until moved.
func openClocked(t *testing.T, h Harness) (*store.Store, *Clock) {
	t.Helper()
	c := NewClock(epoch)
	return h.OpenAt(t, c.Now), c
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// equal fails t when got differs from want, showing the difference.
func equal[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s: (-want +got)\n%s", what, d)
	}
}

// isErr fails t unless err matches every target.
func isErr(t *testing.T, what string, err error, targets ...error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want %v", what, targets)
		return
	}
	for _, target := range targets {
		if !errors.Is(err, target) {
			t.Errorf("%s: error %q does not match %q", what, err, target)
		}
	}
}

// notErr fails t when err matches target.
func notErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if errors.Is(err, target) {
		t.Errorf("%s: error %q matches %q, want it not to", what, err, target)
	}
}

// ok fails t now for a non-nil err.
func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// create creates session n, failing t on error.
func create(t *testing.T, s *store.Store, n store.NewSession) {
	t.Helper()
	if _, err := s.CreateSession(t.Context(), n); err != nil {
		t.Fatal(err)
	}
}

// appendMsg appends m to session id and returns its id, failing t on error.
func appendMsg(t *testing.T, s *store.Store, id string, m store.NewMessage) int64 {
	t.Helper()
	mid, err := s.AppendMessage(t.Context(), id, m)
	if err != nil {
		t.Fatal(err)
	}
	return mid
}

// say appends a message of role with text content to session id.
func say(t *testing.T, s *store.Store, id, role, text string) int64 {
	t.Helper()
	return appendMsg(t, s, id, store.NewMessage{Role: role, Content: &text})
}

// get returns session id, failing t when it cannot be read.
func get(t *testing.T, s *store.Store, id string) store.Session {
	t.Helper()
	sess, err := s.GetSession(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return *sess
}

// end ends session id for reason, failing t on error.
func end(t *testing.T, s *store.Store, id, reason string) {
	t.Helper()
	ok(t, s.EndSession(t.Context(), id, reason))
}

// exportAll is s's whole ExportJSONL output.
func exportAll(t *testing.T, s *store.Store) string {
	t.Helper()
	var b bytes.Buffer
	if _, err := s.ExportJSONL(t.Context(), &b, store.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// state is everything the public API shows of s: the export, every message
// (inactive ones too), the per-model usage rows of each session and the
// message count. Two stores in the same state answer every read alike;
// a failed write must leave it as it was.
func state(t *testing.T, s *store.Store) string {
	t.Helper()
	ctx := t.Context()
	var b bytes.Buffer
	b.WriteString(exportAll(t, s))
	all, err := s.ExportAll(ctx, "")
	ok(t, err)
	for _, e := range all {
		msgs, err := s.GetMessagesWith(ctx, e.ID, store.MessageOptions{IncludeInactive: true})
		ok(t, err)
		usage, err := s.ModelUsage(ctx, e.ID)
		ok(t, err)
		line, err := json.Marshal(struct {
			ID       string
			Messages []store.Message
			Usage    []store.ModelUsage
		}{e.ID, msgs, usage})
		ok(t, err)
		b.Write(line)
		b.WriteByte('\n')
	}
	n, err := s.MessageCount(ctx, "")
	ok(t, err)
	fmt.Fprintf(&b, "messages %d\n", n)
	return b.String()
}

// unchanged fails t when s's state differs from before.
func unchanged(t *testing.T, what string, s *store.Store, before string) {
	t.Helper()
	if d := cmp.Diff(before, state(t, s)); d != "" {
		t.Errorf("%s changed the store: (-before +after)\n%s", what, d)
	}
}

// ids returns the ids of sessions.
func ids[T any](vs []T, id func(T) string) []string {
	out := []string{}
	for _, v := range vs {
		out = append(out, id(v))
	}
	return out
}

// row is the row a session created with only an id and a source gets,
// started at started: what every other test's expected row starts from.
func row(id, source string, started store.Timestamp) store.Session {
	return store.Session{ID: id, Source: source, StartedAt: started, ExpiryFinalized: ptr(int64(0))}
}

// cli is a session of source "cli" with nothing else set.
func cli(id string) store.NewSession { return store.NewSession{ID: id, Source: "cli"} }
