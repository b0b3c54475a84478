package store

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Ports of tests/hermes_cli/test_session_handoff.py::TestHandoffStateDB
// (upstream c2a3b9ce5), plus upstream-v21.md §4.5 (handoff).

// handoffStore opens a store with sessions ids (source "cli").
func handoffStore(t *testing.T, ids ...string) *Store {
	t.Helper()
	s := gwStore(t)
	for _, id := range ids {
		newSession(t, s, id, "cli")
	}
	return s
}

// wantHandoff fails the test unless session id's handoff is want.
func wantHandoff(t *testing.T, s *Store, id string, want Handoff) {
	t.Helper()
	got, err := s.HandoffState(t.Context(), id)
	if err != nil {
		t.Fatalf("HandoffState(%q): %v", id, err)
	}
	if got != want {
		t.Errorf("HandoffState(%q) = %+v, want %+v", id, got, want)
	}
}

// step runs a handoff transition that reports whether it happened and
// fails the test unless it is want.
func step(t *testing.T, name string, want bool, ok bool, err error) {
	t.Helper()
	if err != nil || ok != want {
		t.Errorf("%s = %v, %v; want %v", name, ok, err, want)
	}
}

// upstream: TestHandoffStateDB::test_columns_exist, test_request_handoff_marks_pending
func TestUpHandoffRequestMarksPending(t *testing.T) {
	t.Parallel()
	s := handoffStore(t, "sess-1")
	wantHandoff(t, s, "sess-1", Handoff{})
	ok, err := s.RequestHandoff(t.Context(), "sess-1", "telegram")
	step(t, "RequestHandoff", true, ok, err)
	wantHandoff(t, s, "sess-1", Handoff{State: HandoffPending, Platform: "telegram"})
	wantRows(t, s, [][]any{{"pending", "telegram", nil}}, "SELECT handoff_state, handoff_platform, handoff_error FROM sessions WHERE id = 'sess-1'")
}

// upstream: TestHandoffStateDB::test_request_handoff_rejects_in_flight
func TestUpHandoffRejectsInFlight(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := handoffStore(t, "sess-2")
	ok, err := s.RequestHandoff(ctx, "sess-2", "telegram")
	step(t, "request", true, ok, err)
	ok, err = s.RequestHandoff(ctx, "sess-2", "discord")
	step(t, "request while pending", false, ok, err)
	ok, err = s.ClaimHandoff(ctx, "sess-2")
	step(t, "claim", true, ok, err)
	ok, err = s.RequestHandoff(ctx, "sess-2", "discord")
	step(t, "request while running", false, ok, err)
	wantHandoff(t, s, "sess-2", Handoff{State: HandoffRunning, Platform: "telegram"})
}

// upstream: TestHandoffStateDB::test_request_handoff_after_terminal_state_resets_error
func TestUpHandoffRequestAfterFailure(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := handoffStore(t, "sess-3")
	s.RequestHandoff(ctx, "sess-3", "telegram")
	s.ClaimHandoff(ctx, "sess-3")
	if err := s.FailHandoff(ctx, "sess-3", "earlier failure"); err != nil {
		t.Fatal(err)
	}
	wantHandoff(t, s, "sess-3", Handoff{State: HandoffFailed, Platform: "telegram", Error: "earlier failure"})
	ok, err := s.RequestHandoff(ctx, "sess-3", "discord")
	step(t, "request after failure", true, ok, err)
	wantHandoff(t, s, "sess-3", Handoff{State: HandoffPending, Platform: "discord"})
}

// upstream: TestHandoffStateDB::test_list_pending_handoffs_excludes_running_and_terminal
// (the order, oldest start first, is exact here)
func TestUpHandoffListPending(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := handoffStore(t, "sess-a", "sess-b", "sess-c", "sess-d")
	s.RequestHandoff(ctx, "sess-b", "discord")
	s.RequestHandoff(ctx, "sess-a", "telegram")
	s.RequestHandoff(ctx, "sess-c", "telegram")
	s.ClaimHandoff(ctx, "sess-c")
	s.RequestHandoff(ctx, "sess-d", "slack")
	s.ClaimHandoff(ctx, "sess-d")
	if err := s.CompleteHandoff(ctx, "sess-d"); err != nil {
		t.Fatal(err)
	}
	pending, err := s.ListPendingHandoffs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, p := range pending {
		ids = append(ids, p.ID)
	}
	if diff := cmp.Diff([]string{"sess-a", "sess-b"}, ids); diff != "" {
		t.Errorf("pending (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(*mustSession(t, s, "sess-b"), pending[1]); diff != "" {
		t.Errorf("a pending row differs from GetSession's (-get +listed):\n%s", diff)
	}
}

// upstream: TestHandoffStateDB::test_claim_handoff_is_atomic (also with
// eight claimants racing: exactly one wins)
func TestUpHandoffClaimIsAtomic(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := handoffStore(t, "sess-claim", "raced")
	s.RequestHandoff(ctx, "sess-claim", "telegram")
	ok, err := s.ClaimHandoff(ctx, "sess-claim")
	step(t, "first claim", true, ok, err)
	ok, err = s.ClaimHandoff(ctx, "sess-claim")
	step(t, "second claim", false, ok, err)
	wantHandoff(t, s, "sess-claim", Handoff{State: HandoffRunning, Platform: "telegram"})

	s.RequestHandoff(ctx, "raced", "telegram")
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		wins int
	)
	for range 8 {
		wg.Go(func() {
			ok, err := s.ClaimHandoff(ctx, "raced")
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Errorf("%d claimants won, want 1", wins)
	}
}

// upstream: TestHandoffStateDB::test_complete_handoff_clears_error
func TestUpHandoffCompleteClearsError(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := handoffStore(t, "sess-complete")
	s.RequestHandoff(ctx, "sess-complete", "telegram")
	s.ClaimHandoff(ctx, "sess-complete")
	s.FailHandoff(ctx, "sess-complete", "transient")
	s.RequestHandoff(ctx, "sess-complete", "telegram")
	s.ClaimHandoff(ctx, "sess-complete")
	if err := s.CompleteHandoff(ctx, "sess-complete"); err != nil {
		t.Fatal(err)
	}
	wantHandoff(t, s, "sess-complete", Handoff{State: HandoffCompleted, Platform: "telegram"})
}

// upstream: TestHandoffStateDB::test_fail_handoff_records_reason,
// test_fail_handoff_truncates_long_reasons (cut at 500 code points, as
// Python's error[:500])
func TestUpHandoffFail(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := handoffStore(t, "sess-fail")
	s.RequestHandoff(ctx, "sess-fail", "telegram")
	s.ClaimHandoff(ctx, "sess-fail")
	if err := s.FailHandoff(ctx, "sess-fail", "no home channel for telegram"); err != nil {
		t.Fatal(err)
	}
	wantHandoff(t, s, "sess-fail", Handoff{State: HandoffFailed, Platform: "telegram", Error: "no home channel for telegram"})

	long := strings.Repeat("é", 499) + "xyz"
	if err := s.FailHandoff(ctx, "sess-fail", long); err != nil {
		t.Fatal(err)
	}
	wantHandoff(t, s, "sess-fail", Handoff{State: HandoffFailed, Platform: "telegram", Error: strings.Repeat("é", 499) + "x"})
}

// upstream: TestHandoffStateDB::test_get_handoff_state_for_unknown_session.
// Upstream returns None (and ignores writes to unknown sessions); here
// every call is ErrSessionNotFound. Other bad input is a typed error too,
// and nothing is written.
func TestUpHandoffBadInput(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := handoffStore(t, "s1")
	before := tableRows(t, s, "SELECT * FROM sessions")
	if _, err := s.HandoffState(ctx, "does-not-exist"); !errors.Is(err, ErrSessionNotFound) {
		t.Errorf("HandoffState of no session: %v, want ErrSessionNotFound", err)
	}
	for name, err := range map[string]error{
		"request":  second(s.RequestHandoff(ctx, "nope", "telegram")),
		"claim":    second(s.ClaimHandoff(ctx, "nope")),
		"complete": s.CompleteHandoff(ctx, "nope"),
		"fail":     s.FailHandoff(ctx, "nope", "x"),
	} {
		if !errors.Is(err, ErrSessionNotFound) {
			t.Errorf("%s of no session: %v, want ErrSessionNotFound", name, err)
		}
	}
	if ok, err := s.RequestHandoff(ctx, "s1", ""); ok || !errors.Is(err, ErrEmptyArgument) || err.Error() != `store: request handoff "s1": platform: must not be empty` {
		t.Errorf("request without a platform = %v, %v", ok, err)
	}
	if err := s.FailHandoff(ctx, "s1", "bad \xff"); !errors.Is(err, ErrInvalidText) {
		t.Errorf("fail with a non-UTF-8 reason: %v, want ErrInvalidText", err)
	}
	wantRows(t, s, before, "SELECT * FROM sessions")
}

// second returns the error of a (value, error) pair.
func second[T any](_ T, err error) error { return err }

// upstream: TestHandoffStateDB::test_full_pending_to_completed_flow
func TestUpHandoffFullFlow(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := handoffStore(t, "sess-flow")
	say(t, s, "sess-flow", "Hello")
	hi := "Hi there!"
	mustAppend(t, s, "sess-flow", NewMessage{Role: "assistant", Content: &hi})

	ok, err := s.RequestHandoff(ctx, "sess-flow", "telegram")
	step(t, "request", true, ok, err)
	pending, err := s.ListPendingHandoffs(ctx)
	if err != nil || len(pending) != 1 || pending[0].ID != "sess-flow" {
		t.Fatalf("pending = %v, %v", pending, err)
	}
	ok, err = s.ClaimHandoff(ctx, "sess-flow")
	step(t, "claim", true, ok, err)
	wantHandoff(t, s, "sess-flow", Handoff{State: HandoffRunning, Platform: "telegram"})
	msgs, err := s.GetMessages(ctx, "sess-flow")
	if err != nil || len(msgs) != 2 || msgs[0].Role != "user" || msgs[1].Role != "assistant" {
		t.Fatalf("messages = %v, %v", msgs, err)
	}
	if err := s.CompleteHandoff(ctx, "sess-flow"); err != nil {
		t.Fatal(err)
	}
	wantHandoff(t, s, "sess-flow", Handoff{State: HandoffCompleted, Platform: "telegram"})
	if pending, err := s.ListPendingHandoffs(ctx); err != nil || len(pending) != 0 {
		t.Errorf("pending after completion = %v, %v", pending, err)
	}
}

// TestUpHandoffUpstreamFixture: the pending handoff upstream wrote
// (testdata/upstream/state-v21.db, fx21-gw) is listed and claimed.
func TestUpHandoffUpstreamFixture(t *testing.T) {
	t.Parallel()
	s := openAt(t, copyUpstreamFixture(t), nil)
	wantHandoff(t, s, "fx21-gw", Handoff{State: HandoffPending, Platform: "discord"})
	pending, err := s.ListPendingHandoffs(t.Context())
	if err != nil || len(pending) != 1 || pending[0].ID != "fx21-gw" {
		t.Fatalf("pending = %v, %v", pending, err)
	}
	ok, err := s.ClaimHandoff(t.Context(), "fx21-gw")
	step(t, "claim", true, ok, err)
	wantHandoff(t, s, "fx21-gw", Handoff{State: HandoffRunning, Platform: "discord"})
}
