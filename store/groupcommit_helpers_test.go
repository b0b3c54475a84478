package store

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// holdWriter starts a write on s whose fn blocks until release is called,
// and returns once that fn runs: every write started meanwhile queues
// behind it. The held write writes nothing and commits (one write, one
// group). The test's cleanup releases it if the test did not.
func holdWriter(t *testing.T, s *Store) (release func()) {
	t.Helper()
	started, gate, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	var startOnce sync.Once
	go func() {
		done <- s.write(context.Background(), func(context.Context, backend.Tx) error {
			startOnce.Do(func() { close(started) })
			<-gate
			return nil
		})
	}()
	<-started
	var once sync.Once
	release = func() {
		once.Do(func() {
			close(gate)
			if err := <-done; err != nil {
				t.Errorf("held write: %v", err)
			}
		})
	}
	t.Cleanup(release)
	return release
}

// queuedWrites is the number of writes waiting in s's queue.
func queuedWrites(s *Store) int {
	s.group.mu.Lock()
	defer s.group.mu.Unlock()
	return len(s.group.waiting)
}

// waitQueued waits until n writes wait in s's queue.
func waitQueued(t *testing.T, s *Store, n int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		got := queuedWrites(s)
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writes queued, want %d", got, n)
		}
	}
}

// outcome is what one queued call returned, or the value it panicked with.
type outcome struct {
	err      error
	panicked any
}

// queueCalls starts each call on a goroutine of its own and waits until it
// is queued before starting the next, so that the calls arrive in their
// order; s must be held (holdWriter). Each call's outcome arrives on its
// channel.
func queueCalls(t *testing.T, s *Store, calls ...func() error) []chan outcome {
	t.Helper()
	base := queuedWrites(s)
	out := make([]chan outcome, len(calls))
	for i, call := range calls {
		out[i] = make(chan outcome, 1)
		go func() { out[i] <- callRecovering(call) }()
		waitQueued(t, s, base+i+1)
	}
	return out
}

// callRecovering runs call on this goroutine and returns what it returned
// or panicked with.
func callRecovering(call func() error) (o outcome) {
	defer func() {
		if r := recover(); r != nil {
			o.panicked = r
		}
	}()
	o.err = call()
	return o
}

// collect waits for every outcome.
func collect(out []chan outcome) []outcome {
	got := make([]outcome, len(out))
	for i, c := range out {
		got[i] = <-c
	}
	return got
}

// appendCall is a call of AppendMessage of a user message with content
// label to session id.
func appendCall(s *Store, id, label string) func() error {
	return func() error {
		_, err := s.AppendMessage(context.Background(), id, NewMessage{Role: "user", Content: &label})
		return err
	}
}

// insertLabel inserts a user message with content label into session id
// on tx, and counts it as AppendMessage does.
func insertLabel(ctx context.Context, s *Store, tx backend.Tx, id, label string) error {
	if _, err := s.q.MessageInsert(ctx, tx, db.MessageInsertParams{
		SessionID: id, Role: "user", Content: &label, Timestamp: sqlnum.RealOf(s.now()),
	}); err != nil {
		return err
	}
	_, err := s.q.SessionAddMessageCounts(ctx, tx, db.SessionAddMessageCountsParams{ID: id})
	return err
}

// sessionContents returns the contents of session id's messages in id
// order, read from the file.
func sessionContents(t *testing.T, s *Store, id string) []string {
	t.Helper()
	return dbtest.Values[string](t, s.r, "SELECT COALESCE(content, '') FROM messages WHERE session_id = ? ORDER BY id", id)
}

// messageCount returns session id's message_count.
func messageCount(t *testing.T, s *Store, id string) int64 {
	t.Helper()
	return dbtest.Value[int64](t, s.r, "SELECT COALESCE(message_count, -1) FROM sessions WHERE id = ?", id)
}

// statsDelta is the change of the counters the group tests assert.
type statsDelta struct{ Writes, Groups, BusyFailures uint64 }

// since returns how much s's Writes, Groups and BusyFailures grew since
// before.
func since(s *Store, before Stats) statsDelta {
	now := s.Stats()
	return statsDelta{now.Writes - before.Writes, now.Groups - before.Groups, now.BusyFailures - before.BusyFailures}
}

// checkHealthy fails the test unless Check finds nothing wrong: integrity,
// both full-text indexes exactly in step with the messages, counters.
func checkHealthy(t *testing.T, s *Store) {
	t.Helper()
	h, err := s.Check(context.Background())
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if !h.OK() {
		t.Errorf("Check found problems: %+v", h.Problems())
	}
}
