package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Ports of the table semantics of tests/tools/test_async_delegation.py
// (upstream c2a3b9ce5) and of tools/async_delegation.py's protocol
// (upstream-v21.md §4.6). The expected JSON texts are the bytes upstream's
// tool wrote for the same inputs (its _persist_dispatch,
// _persist_completion and recover_abandoned_delegations run with time.time
// fixed, on a Python 3.11.7 copy of c2a3b9ce5).

// delegationTable is the whole async_delegations table, every column.
const delegationTable = `SELECT delegation_id, origin_session, origin_ui_session_id, parent_session_id, state,
	dispatched_at, completed_at, updated_at, event_json, result_json, delivery_state, delivery_attempts,
	delivered_at, owner_pid, owner_started_at, task_json, delivery_claim, delivery_claimed_at
	FROM async_delegations ORDER BY delegation_id`

// dispatch is DispatchDelegation that fails the test on error.
func dispatch(t *testing.T, s *Store, d DelegationDispatch) {
	t.Helper()
	if err := s.DispatchDelegation(t.Context(), d); err != nil {
		t.Fatalf("DispatchDelegation(%q): %v", d.ID, err)
	}
}

// complete is CompleteDelegation that fails the test on error.
func complete(t *testing.T, s *Store, id string, c DelegationCompletion) {
	t.Helper()
	if err := s.CompleteDelegation(t.Context(), id, c); err != nil {
		t.Fatalf("CompleteDelegation(%q): %v", id, err)
	}
}

// getDelegation is GetDelegation that fails the test on error.
func getDelegation(t *testing.T, s *Store, id string) *Delegation {
	t.Helper()
	d, err := s.GetDelegation(t.Context(), id)
	if err != nil {
		t.Fatalf("GetDelegation(%q): %v", id, err)
	}
	return d
}

// undelivered is the ids of UndeliveredDelegations, in order.
func undelivered(t *testing.T, s *Store) []string {
	t.Helper()
	ds, err := s.UndeliveredDelegations(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, d := range ds {
		ids = append(ids, d.ID)
	}
	return ids
}

// simpleDelegation is dispatched and completed like upstream's
// _persist_dispatch and _persist_completion with minimal records.
func simpleDelegation(t *testing.T, s *Store, id string, at Timestamp, summary string) {
	t.Helper()
	dispatch(t, s, DelegationDispatch{ID: id, OriginSession: "owner", DispatchedAt: at})
	complete(t, s, id, DelegationCompletion{CompletedAt: at,
		Event:  json.RawMessage(fmt.Sprintf(`{"delegation_id":%q,"status":"completed","completed_at":%v}`, id, float64(at))),
		Result: json.RawMessage(fmt.Sprintf(`{"status":"completed","summary":%q}`, summary)),
	})
}

// TestUpDelegationRowsAsUpstreamWrites: dispatch, completion and the
// recovery of an abandoned delegation write the rows upstream's tool writes
// for the same inputs, JSON byte for byte (Python separators, non-ASCII
// escaped, floats in repr form); a live owner is left alone.
func TestUpDelegationRowsAsUpstreamWrites(t *testing.T) {
	t.Parallel()
	c := newSetClock(1000)
	s := setClockStore(t, c)
	started := int64(777)
	dispatch(t, s, DelegationDispatch{ID: "deleg_a", OriginSession: "owner", OriginUISessionID: "tab-1", DispatchedAt: 1, OwnerPID: 99,
		Task: json.RawMessage(`{"goal":"g é","context":null,"toolsets":["web"],"role":"leaf","model":"m"}`)})
	c.Set(1001.5)
	dispatch(t, s, DelegationDispatch{ID: "deleg_b", ParentSessionID: "p1", DispatchedAt: 1750000000.123456, OwnerPID: 4242, OwnerStartedAt: &started,
		Task: json.RawMessage(`{"goal": "2 parallel subagents: a; b", "goals": ["a", "b"], "context": "ctx", "toolsets": null, "role": "leaf", "model": null, "is_batch": true}`)})
	c.Set(1002)
	dispatch(t, s, DelegationDispatch{ID: "deleg_c", OriginSession: "k", DispatchedAt: 3, OwnerPID: 5})
	c.Set(1003)
	complete(t, s, "deleg_c", DelegationCompletion{Status: "completed", CompletedAt: 1002.75,
		Event:  json.RawMessage(`{"delegation_id": "deleg_c", "status": "completed", "completed_at": 1002.75, "summary": "ünïcode ☃ 😀", "n": 1.5}`),
		Result: json.RawMessage(`{"status":"completed","summary":"done","api_calls":3}`)})
	c.Set(2000.25)
	var asked []string
	n, err := s.RecoverAbandonedDelegations(t.Context(), func(pid int64, startedAt *int64) bool {
		asked = append(asked, fmt.Sprintf("%d/%v", pid, deref(startedAt)))
		return pid == 4242 && startedAt != nil && *startedAt == 777
	})
	if err != nil || n != 1 {
		t.Fatalf("RecoverAbandonedDelegations = %d, %v; want 1", n, err)
	}
	if diff := cmp.Diff([]string{"99/0", "4242/777"}, asked); diff != "" {
		t.Errorf("owners asked about (-want +got):\n%s", diff)
	}
	unknownErr := "Delegation owner exited before recording a terminal result; outcome unknown."
	wantRows(t, s, [][]any{
		{"deleg_a", "owner", "tab-1", nil, "unknown", 1.0, 2000.25, 2000.25,
			`{"type": "async_delegation", "delegation_id": "deleg_a", "session_key": "owner", "origin_ui_session_id": "tab-1", "parent_session_id": null, "goal": "g \u00e9", "goals": null, "context": null, "toolsets": ["web"], "role": "leaf", "model": "m", "is_batch": false, "status": "unknown", "summary": null, "error": "` + unknownErr + `", "dispatched_at": 1.0, "completed_at": 2000.25}`,
			`{"status": "unknown", "summary": null, "error": "` + unknownErr + `"}`,
			"pending", int64(0), nil, int64(99), nil, `{"goal": "g \u00e9", "context": null, "toolsets": ["web"], "role": "leaf", "model": "m"}`, nil, nil},
		{"deleg_b", "", "", "p1", "running", 1750000000.123456, nil, 1001.5, nil, nil, "pending", int64(0), nil, int64(4242), int64(777),
			`{"goal": "2 parallel subagents: a; b", "goals": ["a", "b"], "context": "ctx", "toolsets": null, "role": "leaf", "model": null, "is_batch": true}`, nil, nil},
		{"deleg_c", "k", "", nil, "completed", 3.0, 1002.75, 1003.0,
			`{"delegation_id": "deleg_c", "status": "completed", "completed_at": 1002.75, "summary": "\u00fcn\u00efcode \u2603 \ud83d\ude00", "n": 1.5}`,
			`{"status": "completed", "summary": "done", "api_calls": 3}`, "pending", int64(0), nil, int64(5), nil, "{}", nil, nil},
	}, delegationTable)

	// The batch delegation's owner turns out to be another process (its
	// start time differs): its event carries the task's batch fields.
	c.Set(3000)
	if n, err := s.RecoverAbandonedDelegations(t.Context(), func(int64, *int64) bool { return false }); err != nil || n != 1 {
		t.Fatalf("second recovery = %d, %v; want 1", n, err)
	}
	d := getDelegation(t, s, "deleg_b")
	if want := `{"type": "async_delegation", "delegation_id": "deleg_b", "session_key": "", "origin_ui_session_id": "", "parent_session_id": "p1", "goal": "2 parallel subagents: a; b", "goals": ["a", "b"], "context": "ctx", "toolsets": null, "role": "leaf", "model": null, "is_batch": true, "status": "unknown", "summary": null, "error": "` + unknownErr + `", "dispatched_at": 1750000000.123456, "completed_at": 3000.0}`; string(d.Event) != want {
		t.Errorf("batch event:\n got %s\nwant %s", d.Event, want)
	}
}

// upstream: test_completion_is_persisted_and_delivery_can_be_acknowledged
func TestUpDelegationPersistedAndAcknowledged(t *testing.T) {
	t.Parallel()
	s := setClockStore(t, newSetClock(1000))
	dispatch(t, s, DelegationDispatch{ID: "deleg_1", OriginSession: "owner", ParentSessionID: "parent", OwnerPID: int64(os.Getpid()),
		Task: json.RawMessage(`{"goal": "durable", "context": "ctx", "toolsets": ["terminal"], "role": "leaf", "model": "m"}`)})
	complete(t, s, "deleg_1", DelegationCompletion{
		Event:  json.RawMessage(`{"type": "async_delegation", "delegation_id": "deleg_1", "status": "completed", "summary": "survived"}`),
		Result: json.RawMessage(`{"status": "completed", "summary": "survived"}`),
	})
	if diff := cmp.Diff([]string{"deleg_1"}, undelivered(t, s)); diff != "" {
		t.Fatalf("undelivered (-want +got):\n%s", diff)
	}
	d := getDelegation(t, s, "deleg_1")
	var result map[string]any
	if err := json.Unmarshal(d.Result, &result); err != nil {
		t.Fatal(err)
	}
	if d.OriginSession != "owner" || d.State != DelegationCompleted || result["summary"] != "survived" ||
		d.DeliveryState != DeliveryPending || d.DeliveryAttempts != 0 {
		t.Errorf("durable row: %+v, result %v", d, result)
	}
	ok, err := s.MarkDelegationDelivered(t.Context(), "deleg_1")
	if !ok || err != nil {
		t.Fatalf("MarkDelegationDelivered = %v, %v", ok, err)
	}
	if got := undelivered(t, s); len(got) != 0 {
		t.Errorf("undelivered after delivery: %v", got)
	}
	if d := getDelegation(t, s, "deleg_1"); d.DeliveryState != DeliveryDelivered || d.DeliveredAt == nil || *d.DeliveredAt != 1000 {
		t.Errorf("after delivery: state %q, delivered at %v", d.DeliveryState, d.DeliveredAt)
	}
	if ok, err := s.MarkDelegationDelivered(t.Context(), "deleg_1"); ok || err != nil {
		t.Errorf("second MarkDelegationDelivered = %v, %v; want false", ok, err)
	}
}

// upstream: test_real_process_restart_restores_owned_completion_once: one
// process dispatches and completes, a fresh one restores the completion,
// another acknowledges it, and a last one finds nothing left.
func TestUpDelegationProcessRestart(t *testing.T) {
	t.Parallel()
	_, path := openStore(t, nil)
	run := func(command string) string {
		t.Helper()
		h := startHelper(t, "tables", "HERMESSTATE_DB="+path)
		if got := h.next(t); got != "ready" {
			t.Fatalf("helper: %q, want ready", got)
		}
		answer := h.ask(t, command)
		h.finish(t)
		return answer
	}
	if got := run("dispatch deleg_restart"); got != "ok" {
		t.Fatalf("producer: %q", got)
	}
	var events []map[string]any
	if err := json.Unmarshal([]byte(run("undelivered")), &events); err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0]["delegation_id"] != "deleg_restart" || events[0]["session_key"] != "owner-session" ||
		events[0]["parent_session_id"] != "durable-parent" || events[0]["summary"] != "after restart" {
		t.Fatalf("restored events: %v", events)
	}
	if got := run("deliver deleg_restart"); got != "true" {
		t.Fatalf("acker: %q", got)
	}
	if got := run("undelivered"); got != "[]" {
		t.Errorf("after the ack: %s", got)
	}
}

// upstream: test_submit_failure_removes_durable_running_record
func TestUpDelegationDelete(t *testing.T) {
	t.Parallel()
	s := setClockStore(t, newSetClock(1000))
	dispatch(t, s, DelegationDispatch{ID: "deleg_x", OriginSession: "owner"})
	if err := s.DeleteDelegation(t.Context(), "deleg_x"); err != nil {
		t.Fatal(err)
	}
	wantRows(t, s, [][]any{{int64(0)}}, "SELECT COUNT(*) FROM async_delegations")
	if err := s.DeleteDelegation(t.Context(), "deleg_x"); !errors.Is(err, ErrDelegationNotFound) || !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v, want ErrDelegationNotFound", err)
	}
}

// upstream: test_pending_retention_prunes_delivered_before_undelivered
// (the monkeypatched cap of 2 is DelegationRetention.MaxTerminal)
func TestUpDelegationRetentionPrefersDelivered(t *testing.T) {
	t.Parallel()
	c := newSetClock(1000)
	s := setClockStore(t, c)
	for i, state := range []string{DeliveryPending, DeliveryDelivered, DeliveryPending} {
		id := fmt.Sprintf("deleg_%d", i)
		c.Set(1000 + float64(i))
		simpleDelegation(t, s, id, Timestamp(i+1), id)
		if state == DeliveryDelivered {
			if ok, err := s.MarkDelegationDelivered(t.Context(), id); !ok || err != nil {
				t.Fatal(ok, err)
			}
		}
	}
	n, err := s.PruneDelegations(t.Context(), DelegationRetention{MaxTerminal: 2})
	if err != nil || n != 1 {
		t.Fatalf("PruneDelegations = %d, %v; want 1", n, err)
	}
	wantRows(t, s, [][]any{{"deleg_0"}, {"deleg_2"}}, "SELECT delegation_id FROM async_delegations ORDER BY delegation_id")
	if _, err := s.GetDelegation(t.Context(), "deleg_1"); !errors.Is(err, ErrDelegationNotFound) {
		t.Errorf("GetDelegation of the pruned row: %v, want ErrDelegationNotFound", err)
	}
}

// TestUpDelegationRetention: delivered rows go after 7 days (by their last
// change), the oldest pending terminal rows beyond the cap go, rows in
// flight never go, and a dispatch applies the default retention.
func TestUpDelegationRetention(t *testing.T) {
	t.Parallel()
	c := newSetClock(1000)
	s := setClockStore(t, c)
	simpleDelegation(t, s, "old-delivered", 1, "x")
	s.MarkDelegationDelivered(t.Context(), "old-delivered")
	c.Set(1001)
	simpleDelegation(t, s, "pending-1", 1, "x")
	c.Set(1002)
	simpleDelegation(t, s, "pending-2", 1, "x")
	c.Set(1003)
	dispatch(t, s, DelegationDispatch{ID: "running", OriginSession: "o"})

	week := 7 * 24 * time.Hour
	c.Set(1000 + week.Seconds()) // updated_at 1000 is not older than the cutoff yet
	if n, err := s.PruneDelegations(t.Context(), DelegationRetention{MaxTerminal: 100, MaxPending: 1}); err != nil || n != 1 {
		t.Fatalf("PruneDelegations = %d, %v; want 1 (pending-1)", n, err)
	}
	wantRows(t, s, [][]any{{"old-delivered"}, {"pending-2"}, {"running"}}, "SELECT delegation_id FROM async_delegations ORDER BY delegation_id")

	c.Set(1000 + week.Seconds() + 0.5)
	dispatch(t, s, DelegationDispatch{ID: "new", OriginSession: "o"}) // prunes the week-old delivered row
	wantRows(t, s, [][]any{{"new"}, {"pending-2"}, {"running"}}, "SELECT delegation_id FROM async_delegations ORDER BY delegation_id")
	if n, err := s.PruneDelegations(t.Context(), DelegationRetention{MaxTerminal: 1, MaxPending: 1}); err != nil || n != 0 {
		t.Errorf("PruneDelegations within the caps = %d, %v; want 0", n, err)
	}
}

// upstream: test_recover_marks_abandoned_running_record_unknown
func TestUpDelegationRecoverUnknown(t *testing.T) {
	t.Parallel()
	s := setClockStore(t, newSetClock(1000))
	dispatch(t, s, DelegationDispatch{ID: "deleg_abandoned", OriginSession: "owner", DispatchedAt: 1, OwnerPID: 99999999})
	dispatch(t, s, DelegationDispatch{ID: "deleg_no_pid", OriginSession: "owner", DispatchedAt: 2})
	dispatch(t, s, DelegationDispatch{ID: "deleg_bad_task", OriginSession: "owner", DispatchedAt: 3})
	execSQL(t, s, `UPDATE async_delegations SET task_json = '["not", "an object"]' WHERE delegation_id = 'deleg_bad_task'`)
	n, err := s.RecoverAbandonedDelegations(t.Context(), func(pid int64, _ *int64) bool {
		if pid != 99999999 {
			t.Errorf("asked about pid %d", pid)
		}
		return false
	})
	if err != nil || n != 3 {
		t.Fatalf("RecoverAbandonedDelegations = %d, %v; want 3", n, err)
	}
	d := getDelegation(t, s, "deleg_abandoned")
	if d.State != DelegationUnknown || d.DeliveryState != DeliveryPending {
		t.Errorf("recovered row: state %q, delivery %q", d.State, d.DeliveryState)
	}
	ds, err := s.UndeliveredDelegations(t.Context())
	if err != nil || len(ds) != 3 {
		t.Fatalf("undelivered = %v, %v", ds, err)
	}
	var evt map[string]any
	if err := json.Unmarshal(ds[0].Event, &evt); err != nil || evt["status"] != "unknown" || evt["delegation_id"] != "deleg_abandoned" {
		t.Errorf("restored event %s: %v", ds[0].Event, err)
	}
	// A task that is not an object reads as {}.
	if bad := getDelegation(t, s, "deleg_bad_task"); !json.Valid(bad.Event) || decodeJSON(t, json.RawMessage(bad.Event)).(map[string]any)["goal"] != "" {
		t.Errorf("event of the bad task: %s", bad.Event)
	}
	if _, err := s.RecoverAbandonedDelegations(t.Context(), nil); !errors.Is(err, ErrEmptyArgument) {
		t.Errorf("nil alive: %v, want ErrEmptyArgument", err)
	}
}

// upstream: test_durable_delivery_claim_is_exclusive_and_retryable
func TestUpDelegationClaimExclusiveAndRetryable(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := setClockStore(t, newSetClock(1000))
	simpleDelegation(t, s, "deleg_claim", 1, "done")
	claim := func(who string, want bool) {
		t.Helper()
		if ok, err := s.ClaimDelegationDelivery(ctx, "deleg_claim", who); ok != want || err != nil {
			t.Errorf("claim by %s = %v, %v; want %v", who, ok, err, want)
		}
	}
	claim("consumer-a", true)
	claim("consumer-b", false)
	if ok, err := s.ReleaseDelegationDelivery(ctx, "deleg_claim", "consumer-b"); ok || err != nil {
		t.Errorf("release by a non-holder = %v, %v; want false", ok, err)
	}
	if ok, err := s.ReleaseDelegationDelivery(ctx, "deleg_claim", "consumer-a"); !ok || err != nil {
		t.Errorf("release by the holder = %v, %v; want true", ok, err)
	}
	claim("consumer-b", true)
	if ok, err := s.CompleteDelegationDelivery(ctx, "deleg_claim", "consumer-a"); ok || err != nil {
		t.Errorf("completion by a non-holder = %v, %v; want false", ok, err)
	}
	if ok, err := s.CompleteDelegationDelivery(ctx, "deleg_claim", "consumer-b"); !ok || err != nil {
		t.Errorf("completion by the holder = %v, %v; want true", ok, err)
	}
	claim("consumer-c", false)
	d := getDelegation(t, s, "deleg_claim")
	if d.DeliveryState != DeliveryDelivered || d.DeliveryClaim != nil || d.DeliveryClaimedAt != nil || d.DeliveryAttempts != 2 {
		t.Errorf("after delivery: %+v", d)
	}
}

// TestUpDelegationClaimTTL: a claim excludes others for exactly
// DelegationClaimTTL (taken over only when claimed_at < now - 300 s); every
// claim counts an attempt; an unknown id may be delivered without a claim;
// an empty claim is an error.
func TestUpDelegationClaimTTL(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c := newSetClock(1000)
	s := setClockStore(t, c)
	simpleDelegation(t, s, "d", 1, "x")
	if ok, err := s.ClaimDelegationDelivery(ctx, "d", "a"); !ok || err != nil {
		t.Fatal(ok, err)
	}
	c.Set(1300)
	if ok, err := s.ClaimDelegationDelivery(ctx, "d", "b"); ok || err != nil {
		t.Errorf("claim at the TTL = %v, %v; want false", ok, err)
	}
	c.Set(1300.001)
	if ok, err := s.ClaimDelegationDelivery(ctx, "d", "b"); !ok || err != nil {
		t.Errorf("claim past the TTL = %v, %v; want true", ok, err)
	}
	wantRows(t, s, [][]any{{"b", 1300.001, int64(2), 1300.001}},
		"SELECT delivery_claim, delivery_claimed_at, delivery_attempts, updated_at FROM async_delegations WHERE delegation_id = 'd'")

	before := tableRows(t, s, delegationTable)
	if ok, err := s.ClaimDelegationDelivery(ctx, "legacy-event", "a"); !ok || err != nil {
		t.Errorf("claim of an unknown id = %v, %v; want true", ok, err)
	}
	for name, err := range map[string]error{
		"claim":    second(s.ClaimDelegationDelivery(ctx, "d", "")),
		"release":  second(s.ReleaseDelegationDelivery(ctx, "d", "")),
		"complete": second(s.CompleteDelegationDelivery(ctx, "d", "")),
	} {
		if !errors.Is(err, ErrEmptyArgument) {
			t.Errorf("%s with an empty claim: %v, want ErrEmptyArgument", name, err)
		}
	}
	wantRows(t, s, before, delegationTable)
}

// TestUpDelegationDispatchReplaces: a second dispatch of an id starts the
// row over (OR REPLACE), as upstream.
func TestUpDelegationDispatchReplaces(t *testing.T) {
	t.Parallel()
	c := newSetClock(1000)
	s := setClockStore(t, c)
	simpleDelegation(t, s, "d", 5, "x")
	s.ClaimDelegationDelivery(t.Context(), "d", "a")
	c.Set(2000)
	dispatch(t, s, DelegationDispatch{ID: "d", OriginSession: "o2"})
	wantRows(t, s, [][]any{{"d", "o2", "", nil, "running", 2000.0, nil, 2000.0, nil, nil, "pending", int64(0), nil, nil, nil, "{}", nil, nil}}, delegationTable)
}

// TestUpDelegationBadInput: bad arguments are typed errors and write
// nothing.
func TestUpDelegationBadInput(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := setClockStore(t, newSetClock(1000))
	dispatch(t, s, DelegationDispatch{ID: "d", OriginSession: "o"})
	before := tableRows(t, s, delegationTable)
	for _, tt := range []struct {
		name string
		err  error
		want error
		msg  string
	}{
		{"dispatch no id", s.DispatchDelegation(ctx, DelegationDispatch{OriginSession: "o"}), ErrEmptyArgument,
			`store: dispatch delegation "": delegation id: must not be empty`},
		{"dispatch bad task", s.DispatchDelegation(ctx, DelegationDispatch{ID: "e", Task: json.RawMessage(`{goal}`)}), ErrInvalidJSON, ""},
		{"dispatch bad text", s.DispatchDelegation(ctx, DelegationDispatch{ID: "e", OriginSession: "\xff"}), ErrInvalidText, ""},
		{"complete no event", s.CompleteDelegation(ctx, "d", DelegationCompletion{Result: json.RawMessage(`{}`)}), ErrEmptyArgument,
			`store: complete delegation "d": event: must not be empty`},
		{"complete bad result", s.CompleteDelegation(ctx, "d", DelegationCompletion{Event: json.RawMessage(`{}`), Result: json.RawMessage(`[`)}), ErrInvalidJSON, ""},
		{"complete unknown", s.CompleteDelegation(ctx, "nope", DelegationCompletion{Event: json.RawMessage(`{}`)}), ErrDelegationNotFound,
			`store: complete delegation "nope": no such delegation`},
	} {
		if !errors.Is(tt.err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, tt.err, tt.want)
		}
		if tt.msg != "" && (tt.err == nil || tt.err.Error() != tt.msg) {
			t.Errorf("%s: message %q, want %q", tt.name, tt.err, tt.msg)
		}
	}
	wantRows(t, s, before, delegationTable)
}

// TestUpDelegationUpstreamFixture: the delegations upstream wrote
// (testdata/upstream/state-v21.db: one completed and claimed, one running)
// read back, and upstream's claim excludes ours until it is 300 s old.
func TestUpDelegationUpstreamFixture(t *testing.T) {
	t.Parallel()
	c := newSetClock(1796284100)
	s := openAt(t, copyUpstreamFixture(t), &Options{Now: c.Now})
	all, err := s.ListDelegations(t.Context())
	if err != nil || len(all) != 2 || all[0].ID != "deleg-fx21-1" || all[1].ID != "deleg-fx21-2" {
		t.Fatalf("ListDelegations = %v, %v", all, err)
	}
	d := all[0]
	if d.State != "completed" || d.OriginSession != "agent:main:cli:local" || deref(d.ParentSessionID) != "fx21-parent" ||
		d.DeliveryAttempts != 1 || deref(d.DeliveryClaim) != "cli:4242:0f0f" || deref(d.OwnerPID) != 4242 ||
		string(d.Task) != `{"goal": "collect benchmark numbers", "toolsets": ["web"], "model": "alpha-1"}` ||
		string(d.Result) != `{"status": "completed", "summary": "3 numbers found"}` {
		t.Errorf("deleg-fx21-1: %+v", d)
	}
	if diff := cmp.Diff([]string{"deleg-fx21-1"}, undelivered(t, s)); diff != "" {
		t.Errorf("undelivered (-want +got):\n%s", diff)
	}
	if ok, err := s.ClaimDelegationDelivery(t.Context(), "deleg-fx21-1", "go"); ok || err != nil {
		t.Errorf("claim within upstream's claim's TTL = %v, %v; want false", ok, err)
	}
	c.Set(float64(*d.DeliveryClaimedAt) + 300.001)
	if ok, err := s.ClaimDelegationDelivery(t.Context(), "deleg-fx21-1", "go"); !ok || err != nil {
		t.Errorf("claim past upstream's claim's TTL = %v, %v; want true", ok, err)
	}
}
