package storetest

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	groups = append(groups,
		group{"DelegationDispatchComplete", bDelegationDispatchComplete},
		group{"DelegationBadInput", bDelegationBadInput},
		group{"DelegationListsAndDelete", bDelegationListsAndDelete},
		group{"DelegationDelivery", bDelegationDelivery},
		group{"DelegationRecover", bDelegationRecover},
		group{"DelegationPrune", bDelegationPrune},
	)
}

// bNow is the wall clock as the store stamps rows.
func bNow() store.Timestamp { return store.TimestampOf(time.Now()) }

// bBetween fails the test unless lo <= got <= hi (a time the store
// stamped from its clock between two readings of the wall clock).
func bBetween(t *testing.T, what string, got, lo, hi store.Timestamp) {
	t.Helper()
	if got < lo || got > hi {
		t.Fatalf("%s = %v, not within [%v, %v]", what, got, lo, hi)
	}
}

// bDelegation returns delegation id, failing the test on an error.
func bDelegation(t *testing.T, s *store.Store, id string) store.Delegation {
	t.Helper()
	d, err := s.GetDelegation(t.Context(), id)
	if err != nil {
		t.Fatalf("GetDelegation(%q): %v", id, err)
	}
	return *d
}

// bDispatch dispatches d, failing the test on an error.
func bDispatch(t *testing.T, s *store.Store, d store.DelegationDispatch) {
	t.Helper()
	if err := s.DispatchDelegation(t.Context(), d); err != nil {
		t.Fatalf("DispatchDelegation(%q): %v", d.ID, err)
	}
}

// bCompleteDelegation completes delegation id with an event naming it,
// failing the test on an error.
func bCompleteDelegation(t *testing.T, s *store.Store, id string, at store.Timestamp) {
	t.Helper()
	if err := s.CompleteDelegation(t.Context(), id, store.DelegationCompletion{
		CompletedAt: at, Event: json.RawMessage(fmt.Sprintf(`{"delegation_id":%q}`, id)),
	}); err != nil {
		t.Fatalf("CompleteDelegation(%q): %v", id, err)
	}
}

// bDelegationIDs returns the ids of ds.
func bDelegationIDs(ds []store.Delegation, err error) []string {
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	out := []string{}
	for _, d := range ds {
		out = append(out, d.ID)
	}
	return out
}

// bDelegationDispatchComplete checks every column a dispatch and a
// completion write, the JSON re-encoded as Python's json.dumps, and that a
// dispatch of an existing id replaces the row whole.
func bDelegationDispatchComplete(t *testing.T, h Harness) {
	s := h.Open(t)
	started := int64(777)
	lo := bNow()
	bDispatch(t, s, store.DelegationDispatch{
		ID: "deleg_a", OriginSession: "agent:main:telegram:dm:1", OriginUISessionID: "tab-1", ParentSessionID: "p1",
		DispatchedAt: 1750000000.5, OwnerPID: 4242, OwnerStartedAt: &started,
		Task: json.RawMessage(`{"goal":"g é","toolsets":["web"],"is_batch":false}`),
	})
	bDispatch(t, s, store.DelegationDispatch{ID: "deleg_b"})
	hi := bNow()
	a := bDelegation(t, s, "deleg_a")
	bBetween(t, "updated_at", a.UpdatedAt, lo, hi)
	pid, p1 := int64(4242), "p1"
	bEq(t, "dispatched row", a, store.Delegation{
		ID: "deleg_a", OriginSession: "agent:main:telegram:dm:1", OriginUISessionID: "tab-1", ParentSessionID: &p1,
		State: store.DelegationRunning, DispatchedAt: 1750000000.5, UpdatedAt: a.UpdatedAt,
		DeliveryState: store.DeliveryPending, OwnerPID: &pid, OwnerStartedAt: &started,
		Task: store.JSONText(`{"goal": "g \u00e9", "toolsets": ["web"], "is_batch": false}`),
	})
	b := bDelegation(t, s, "deleg_b")
	bBetween(t, "updated_at", b.UpdatedAt, lo, hi)
	bEq(t, "dispatched bare row", b, store.Delegation{
		ID: "deleg_b", State: store.DelegationRunning, DispatchedAt: b.UpdatedAt, UpdatedAt: b.UpdatedAt,
		DeliveryState: store.DeliveryPending, Task: store.JSONText(`{}`),
	})

	// Completion: Status "" is completed, Event and Result re-encoded.
	lo = bNow()
	err := s.CompleteDelegation(t.Context(), "deleg_a", store.DelegationCompletion{
		CompletedAt: 1750000100.25,
		Event:       json.RawMessage(`{"delegation_id":"deleg_a","summary":"ünï ☃","n":1.5}`),
		Result:      json.RawMessage(`{"status":"completed","api_calls":3}`),
	})
	bErr(t, "CompleteDelegation", err, nil)
	err = s.CompleteDelegation(t.Context(), "deleg_b", store.DelegationCompletion{Status: "error", Event: json.RawMessage(`[1, 2]`)})
	bErr(t, "CompleteDelegation(error)", err, nil)
	hi = bNow()
	a = bDelegation(t, s, "deleg_a")
	bBetween(t, "updated_at", a.UpdatedAt, lo, hi)
	bEq(t, "completed row", a, store.Delegation{
		ID: "deleg_a", OriginSession: "agent:main:telegram:dm:1", OriginUISessionID: "tab-1", ParentSessionID: &p1,
		State: store.DelegationCompleted, DispatchedAt: 1750000000.5, CompletedAt: new(store.Timestamp(1750000100.25)), UpdatedAt: a.UpdatedAt,
		Event:         store.JSONText(`{"delegation_id": "deleg_a", "summary": "\u00fcn\u00ef \u2603", "n": 1.5}`),
		Result:        store.JSONText(`{"status": "completed", "api_calls": 3}`),
		DeliveryState: store.DeliveryPending, OwnerPID: &pid, OwnerStartedAt: &started,
		Task: store.JSONText(`{"goal": "g \u00e9", "toolsets": ["web"], "is_batch": false}`),
	})
	b = bDelegation(t, s, "deleg_b")
	bEq(t, "error state", b.State, "error")
	bEq(t, "error event", b.Event, store.JSONText(`[1, 2]`))
	bEq(t, "error completed_at is now", *b.CompletedAt, b.UpdatedAt)
	if b.Result != nil {
		t.Fatalf("result %s, want NULL", b.Result)
	}

	// A dispatch of the same id replaces the row whole.
	bDispatch(t, s, store.DelegationDispatch{ID: "deleg_a", DispatchedAt: 5})
	a = bDelegation(t, s, "deleg_a")
	bEq(t, "replaced row", a, store.Delegation{
		ID: "deleg_a", State: store.DelegationRunning, DispatchedAt: 5, UpdatedAt: a.UpdatedAt,
		DeliveryState: store.DeliveryPending, Task: store.JSONText(`{}`),
	})
}

// bDelegationBadInput checks every refused argument and that nothing was
// written then.
func bDelegationBadInput(t *testing.T, h Harness) {
	s := h.Open(t)
	bDispatch(t, s, store.DelegationDispatch{ID: "d1", DispatchedAt: 1})
	before := bDelegation(t, s, "d1")
	ev := json.RawMessage(`{}`)
	for _, tc := range []struct {
		name string
		call func() error
		want error
	}{
		{"DispatchEmptyID", func() error { return s.DispatchDelegation(t.Context(), store.DelegationDispatch{}) }, store.ErrEmptyArgument},
		{"DispatchBadTask", func() error {
			return s.DispatchDelegation(t.Context(), store.DelegationDispatch{ID: "d2", Task: json.RawMessage(`{"a":`)})
		}, store.ErrInvalidJSON},
		{"DispatchTwoValues", func() error {
			return s.DispatchDelegation(t.Context(), store.DelegationDispatch{ID: "d2", Task: json.RawMessage(`{} {}`)})
		}, store.ErrInvalidJSON},
		{"DispatchBadText", func() error {
			return s.DispatchDelegation(t.Context(), store.DelegationDispatch{ID: "d2", OriginSession: bBadUTF8})
		}, store.ErrInvalidText},
		{"DispatchBadID", func() error { return s.DispatchDelegation(t.Context(), store.DelegationDispatch{ID: bBadUTF8}) }, store.ErrInvalidText},
		{"CompleteUnknown", func() error {
			return s.CompleteDelegation(t.Context(), "nope", store.DelegationCompletion{Event: ev})
		}, store.ErrDelegationNotFound},
		{"CompleteUnknownIsNotFound", func() error {
			return s.CompleteDelegation(t.Context(), "nope", store.DelegationCompletion{Event: ev})
		}, store.ErrNotFound},
		{"CompleteNoEvent", func() error { return s.CompleteDelegation(t.Context(), "d1", store.DelegationCompletion{}) }, store.ErrEmptyArgument},
		{"CompleteBadEvent", func() error {
			return s.CompleteDelegation(t.Context(), "d1", store.DelegationCompletion{Event: json.RawMessage(`nope`)})
		}, store.ErrInvalidJSON},
		{"CompleteBadResult", func() error {
			return s.CompleteDelegation(t.Context(), "d1", store.DelegationCompletion{Event: ev, Result: json.RawMessage(`[`)})
		}, store.ErrInvalidJSON},
		{"CompleteBadStatus", func() error {
			return s.CompleteDelegation(t.Context(), "d1", store.DelegationCompletion{Status: bBadUTF8, Event: ev})
		}, store.ErrInvalidText},
		{"DeleteUnknown", func() error { return s.DeleteDelegation(t.Context(), "nope") }, store.ErrDelegationNotFound},
		{"GetUnknown", func() error { _, err := s.GetDelegation(t.Context(), "nope"); return err }, store.ErrDelegationNotFound},
		{"RecoverNilAlive", func() error { _, err := s.RecoverAbandonedDelegations(t.Context(), nil); return err }, store.ErrEmptyArgument},
		{"ClaimEmpty", func() error { _, err := s.ClaimDelegationDelivery(t.Context(), "d1", ""); return err }, store.ErrEmptyArgument},
		{"ClaimBadText", func() error { _, err := s.ClaimDelegationDelivery(t.Context(), "d1", bBadUTF8); return err }, store.ErrInvalidText},
		{"ReleaseEmpty", func() error { _, err := s.ReleaseDelegationDelivery(t.Context(), "d1", ""); return err }, store.ErrEmptyArgument},
		{"ReleaseBadText", func() error { _, err := s.ReleaseDelegationDelivery(t.Context(), "d1", bBadUTF8); return err }, store.ErrInvalidText},
		{"CompleteDeliveryEmpty", func() error { _, err := s.CompleteDelegationDelivery(t.Context(), "d1", ""); return err }, store.ErrEmptyArgument},
		{"CompleteDeliveryBadText", func() error {
			_, err := s.CompleteDelegationDelivery(t.Context(), "d1", bBadUTF8)
			return err
		}, store.ErrInvalidText},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bErr(t, tc.name, tc.call(), tc.want)
		})
	}
	ds, err := s.ListDelegations(t.Context())
	bEq(t, "delegations after the refused calls", bDelegationIDs(ds, err), []string{"d1"})
	bEq(t, "d1 after the refused calls", bDelegation(t, s, "d1"), before)
}

// bDelegationListsAndDelete checks ListDelegations' and
// UndeliveredDelegations' selections and orders, and DeleteDelegation.
func bDelegationListsAndDelete(t *testing.T, h Harness) {
	s := h.Open(t)
	for _, d := range []struct {
		id string
		at store.Timestamp
	}{{"d_late", 30}, {"d_b", 10}, {"d_a", 10}, {"d_run", 20}, {"d_deliv", 5}, {"d_c", 40}} {
		bDispatch(t, s, store.DelegationDispatch{ID: d.id, DispatchedAt: d.at})
	}
	bCompleteDelegation(t, s, "d_late", 300)
	bCompleteDelegation(t, s, "d_b", 100)
	bCompleteDelegation(t, s, "d_a", 100)
	bCompleteDelegation(t, s, "d_deliv", 50)
	bCompleteDelegation(t, s, "d_c", 200)
	if ok, err := s.MarkDelegationDelivered(t.Context(), "d_deliv"); !ok || err != nil {
		t.Fatalf("MarkDelegationDelivered = %v, %v", ok, err)
	}
	bEq(t, "ListDelegations", bDelegationIDs(s.ListDelegations(t.Context())), []string{"d_deliv", "d_a", "d_b", "d_run", "d_late", "d_c"})
	bEq(t, "UndeliveredDelegations", bDelegationIDs(s.UndeliveredDelegations(t.Context())), []string{"d_a", "d_b", "d_c", "d_late"})

	bErr(t, "DeleteDelegation", s.DeleteDelegation(t.Context(), "d_b"), nil)
	_, err := s.GetDelegation(t.Context(), "d_b")
	bErr(t, "GetDelegation of the deleted row", err, store.ErrDelegationNotFound)
	bErr(t, "DeleteDelegation again", s.DeleteDelegation(t.Context(), "d_b"), store.ErrDelegationNotFound)
	bEq(t, "ListDelegations after the delete", bDelegationIDs(s.ListDelegations(t.Context())), []string{"d_deliv", "d_a", "d_run", "d_late", "d_c"})

	empty := h.Open(t)
	bEq(t, "ListDelegations of an empty store", bDelegationIDs(empty.ListDelegations(t.Context())), []string{})
	bEq(t, "UndeliveredDelegations of an empty store", bDelegationIDs(empty.UndeliveredDelegations(t.Context())), []string{})
}

// bDelegationDelivery checks the delivery protocol: a claim excludes
// other consumers while young, counts an attempt, can be released or
// completed only by its holder; a delivered completion is never claimed
// again; an unknown id may always be delivered.
func bDelegationDelivery(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	bDispatch(t, s, store.DelegationDispatch{ID: "d", DispatchedAt: 1})
	bCompleteDelegation(t, s, "d", 2)
	type step struct {
		name string
		call func() (bool, error)
		want bool
	}
	claim := func(c string) func() (bool, error) {
		return func() (bool, error) { return s.ClaimDelegationDelivery(ctx, "d", c) }
	}
	release := func(c string) func() (bool, error) {
		return func() (bool, error) { return s.ReleaseDelegationDelivery(ctx, "d", c) }
	}
	deliver := func(c string) func() (bool, error) {
		return func() (bool, error) { return s.CompleteDelegationDelivery(ctx, "d", c) }
	}
	check := func(name string, attempts int64, claim string, state string) {
		t.Helper()
		d := bDelegation(t, s, "d")
		bEq(t, name+": attempts", d.DeliveryAttempts, attempts)
		bEq(t, name+": delivery state", d.DeliveryState, state)
		if claim == "" {
			if d.DeliveryClaim != nil || d.DeliveryClaimedAt != nil {
				t.Fatalf("%s: claim %v at %v, want none", name, d.DeliveryClaim, d.DeliveryClaimedAt)
			}
			return
		}
		if d.DeliveryClaim == nil || *d.DeliveryClaim != claim || d.DeliveryClaimedAt == nil || *d.DeliveryClaimedAt != d.UpdatedAt {
			t.Fatalf("%s: claim %v at %v (updated %v), want %q at updated_at", name, d.DeliveryClaim, d.DeliveryClaimedAt, d.UpdatedAt, claim)
		}
	}
	for _, st := range []struct {
		step
		attempts int64
		claim    string
		state    string
	}{
		{step{"ClaimA", claim("a"), true}, 1, "a", store.DeliveryPending},
		{step{"ClaimBWhileAHolds", claim("b"), false}, 1, "a", store.DeliveryPending},
		{step{"ClaimAAgain", claim("a"), false}, 1, "a", store.DeliveryPending},
		{step{"ReleaseByB", release("b"), false}, 1, "a", store.DeliveryPending},
		{step{"DeliverByB", deliver("b"), false}, 1, "a", store.DeliveryPending},
		{step{"ReleaseByA", release("a"), true}, 1, "", store.DeliveryPending},
		{step{"ReleaseAgain", release("a"), false}, 1, "", store.DeliveryPending},
		{step{"ClaimB", claim("b"), true}, 2, "b", store.DeliveryPending},
		{step{"DeliverByB", deliver("b"), true}, 2, "", store.DeliveryDelivered},
		{step{"ClaimDelivered", claim("c"), false}, 2, "", store.DeliveryDelivered},
		{step{"DeliverAgain", deliver("b"), false}, 2, "", store.DeliveryDelivered},
		{step{"MarkDelivered", func() (bool, error) { return s.MarkDelegationDelivered(ctx, "d") }, false}, 2, "", store.DeliveryDelivered},
	} {
		got, err := st.call()
		bErr(t, st.name, err, nil)
		bEq(t, st.name, got, st.want)
		check(st.name, st.attempts, st.claim, st.state)
	}
	d := bDelegation(t, s, "d")
	if d.DeliveredAt == nil || *d.DeliveredAt < 2 {
		t.Fatalf("delivered_at %v", d.DeliveredAt)
	}
	if len(bDelegationIDs(s.UndeliveredDelegations(ctx))) != 0 {
		t.Fatal("a delivered completion is still undelivered")
	}

	// A completion makes the delegation due for delivery again.
	bCompleteDelegation(t, s, "d", 3)
	bEq(t, "delivery state after a new completion", bDelegation(t, s, "d").DeliveryState, store.DeliveryPending)

	// Marking delivered keeps a claim; an unknown id.
	bDispatch(t, s, store.DelegationDispatch{ID: "e", DispatchedAt: 1})
	bCompleteDelegation(t, s, "e", 2)
	if ok, err := s.ClaimDelegationDelivery(ctx, "e", "x"); !ok || err != nil {
		t.Fatalf("ClaimDelegationDelivery(e) = %v, %v", ok, err)
	}
	if ok, err := s.MarkDelegationDelivered(ctx, "e"); !ok || err != nil {
		t.Fatalf("MarkDelegationDelivered(e) = %v, %v", ok, err)
	}
	e := bDelegation(t, s, "e")
	if e.DeliveryState != store.DeliveryDelivered || e.DeliveryClaim == nil || *e.DeliveryClaim != "x" || e.DeliveredAt == nil || *e.DeliveredAt != e.UpdatedAt {
		t.Fatalf("marked row: %+v", e)
	}
	for _, tc := range []struct {
		name string
		call func() (bool, error)
		want bool
	}{
		{"ClaimUnknown", func() (bool, error) { return s.ClaimDelegationDelivery(ctx, "nope", "x") }, true},
		{"ReleaseUnknown", func() (bool, error) { return s.ReleaseDelegationDelivery(ctx, "nope", "x") }, false},
		{"DeliverUnknown", func() (bool, error) { return s.CompleteDelegationDelivery(ctx, "nope", "x") }, false},
		{"MarkUnknown", func() (bool, error) { return s.MarkDelegationDelivered(ctx, "nope") }, false},
	} {
		got, err := tc.call()
		bErr(t, tc.name, err, nil)
		bEq(t, tc.name, got, tc.want)
	}
	if _, err := s.GetDelegation(ctx, "nope"); err == nil {
		t.Fatal("claiming an unknown id created a row")
	}
}

// bDelegationRecover checks RecoverAbandonedDelegations: whom it asks, what
// it writes (upstream's event and result, key for key), what it leaves.
func bDelegationRecover(t *testing.T, h Harness) {
	s := h.Open(t)
	started := int64(777)
	bDispatch(t, s, store.DelegationDispatch{ID: "dead", OriginSession: "k", OriginUISessionID: "tab", DispatchedAt: 1, OwnerPID: 99,
		Task: json.RawMessage(`{"goal":"g é","context":null,"toolsets":["web"],"role":"leaf","model":"m"}`)})
	bDispatch(t, s, store.DelegationDispatch{ID: "alive", DispatchedAt: 2, OwnerPID: 4242, OwnerStartedAt: &started})
	bDispatch(t, s, store.DelegationDispatch{ID: "nopid", ParentSessionID: "p1", DispatchedAt: 3,
		Task: json.RawMessage(`{"goal":"two","goals":["a","b"],"is_batch":true}`)})
	bDispatch(t, s, store.DelegationDispatch{ID: "done", DispatchedAt: 4, OwnerPID: 5})
	bCompleteDelegation(t, s, "done", 10)
	var asked []string
	n, err := s.RecoverAbandonedDelegations(t.Context(), func(pid int64, startedAt *int64) bool {
		if startedAt == nil {
			asked = append(asked, fmt.Sprint(pid))
		} else {
			asked = append(asked, fmt.Sprintf("%d/%d", pid, *startedAt))
		}
		return pid == 4242
	})
	bErr(t, "RecoverAbandonedDelegations", err, nil)
	bEq(t, "recovered", n, 2)
	bEq(t, "owners asked", asked, []string{"99", "4242/777"})
	unknown := store.DelegationUnknownError
	for _, tc := range []struct{ id, event string }{
		{"dead", `{"type": "async_delegation", "delegation_id": "dead", "session_key": "k", "origin_ui_session_id": "tab", "parent_session_id": null, "goal": "g \u00e9", "goals": null, "context": null, "toolsets": ["web"], "role": "leaf", "model": "m", "is_batch": false, "status": "unknown", "summary": null, "error": "` + unknown + `", "dispatched_at": 1.0, "completed_at": %s}`},
		{"nopid", `{"type": "async_delegation", "delegation_id": "nopid", "session_key": "", "origin_ui_session_id": "", "parent_session_id": "p1", "goal": "two", "goals": ["a", "b"], "context": null, "toolsets": null, "role": null, "model": null, "is_batch": true, "status": "unknown", "summary": null, "error": "` + unknown + `", "dispatched_at": 3.0, "completed_at": %s}`},
	} {
		d := bDelegation(t, s, tc.id)
		if d.CompletedAt == nil || *d.CompletedAt != d.UpdatedAt {
			t.Fatalf("%s: completed_at %v, updated_at %v", tc.id, d.CompletedAt, d.UpdatedAt)
		}
		at, _ := json.Marshal(d.CompletedAt)
		bEq(t, tc.id+" event", string(d.Event), fmt.Sprintf(tc.event, at))
		bEq(t, tc.id+" result", string(d.Result), `{"status": "unknown", "summary": null, "error": "`+unknown+`"}`)
		bEq(t, tc.id+" state", d.State, store.DelegationUnknown)
		bEq(t, tc.id+" delivery", d.DeliveryState, store.DeliveryPending)
	}
	bEq(t, "alive stays running", bDelegation(t, s, "alive").State, store.DelegationRunning)
	bEq(t, "done stays completed", bDelegation(t, s, "done").State, store.DelegationCompleted)
	bEq(t, "undelivered after the recovery", bDelegationIDs(s.UndeliveredDelegations(t.Context())), []string{"done", "dead", "nopid"})
	n, err = s.RecoverAbandonedDelegations(t.Context(), func(int64, *int64) bool { return true })
	bErr(t, "second recovery", err, nil)
	bEq(t, "second recovery", n, 0)
}

// bDelegationPrune checks PruneDelegations' count caps: the oldest
// terminal rows beyond MaxTerminal go, delivered ones first; the oldest
// pending terminal rows beyond MaxPending go; rows in flight never go.
func bDelegationPrune(t *testing.T, h Harness) {
	s := h.Open(t)
	// Rows are changed in this order, so updated_at grows along it.
	for i, id := range []string{"t1", "t2", "t3", "t4", "t5"} {
		bDispatch(t, s, store.DelegationDispatch{ID: id, DispatchedAt: store.Timestamp(i + 1)})
	}
	bDispatch(t, s, store.DelegationDispatch{ID: "run", DispatchedAt: 9})
	for _, id := range []string{"t1", "t2", "t3", "t4", "t5"} {
		bCompleteDelegation(t, s, id, 10)
	}
	if ok, err := s.MarkDelegationDelivered(t.Context(), "t4"); !ok || err != nil {
		t.Fatalf("MarkDelegationDelivered(t4) = %v, %v", ok, err)
	}
	list := func() []string { return bSorted(bDelegationIDs(s.ListDelegations(t.Context()))) }
	for _, tc := range []struct {
		name string
		r    store.DelegationRetention
		n    int64
		want []string
	}{
		{"WithinDefaults", store.DelegationRetention{}, 0, []string{"run", "t1", "t2", "t3", "t4", "t5"}},
		{"MaxTerminalDeliveredFirst", store.DelegationRetention{MaxTerminal: 4}, 1, []string{"run", "t1", "t2", "t3", "t5"}},
		{"MaxTerminalOldest", store.DelegationRetention{MaxTerminal: 3}, 1, []string{"run", "t2", "t3", "t5"}},
		{"MaxPending", store.DelegationRetention{MaxPending: 1}, 2, []string{"run", "t5"}},
		{"InFlightKept", store.DelegationRetention{MaxTerminal: 1, MaxPending: 1}, 0, []string{"run", "t5"}},
	} {
		n, err := s.PruneDelegations(t.Context(), tc.r)
		bErr(t, tc.name, err, nil)
		bEq(t, tc.name+": removed", n, tc.n)
		bEq(t, tc.name+": left", list(), tc.want)
	}
}
