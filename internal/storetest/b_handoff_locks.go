package storetest

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	groups = append(groups,
		group{"Handoff", bHandoff},
		group{"CompressionLocks", bCompressionLocks},
		group{"CompressionLockExpiry", bCompressionLockExpiry},
		group{"CompressionState", bCompressionState},
	)
}

// bHandoff checks the handoff state machine step by step, the pending
// list's order, the cut of a failure reason (code points) and the
// refusals.
func bHandoff(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	bImport(t, s,
		`{"id": "h1", "source": "cli", "started_at": 300}`,
		`{"id": "h2", "source": "cli", "started_at": 100}`,
		`{"id": "h0", "source": "cli", "started_at": 300}`,
	)
	state := func() store.Handoff {
		t.Helper()
		got, err := s.HandoffState(ctx, "h1")
		bErr(t, "HandoffState", err, nil)
		return got
	}
	bEq(t, "initial state", state(), store.Handoff{})
	type step struct {
		name string
		call func() (bool, error)
		ok   bool
		want store.Handoff
	}
	req := func(p string) func() (bool, error) {
		return func() (bool, error) { return s.RequestHandoff(ctx, "h1", p) }
	}
	claim := func() (bool, error) { return s.ClaimHandoff(ctx, "h1") }
	fail := func(r string) func() (bool, error) {
		return func() (bool, error) { return true, s.FailHandoff(ctx, "h1", r) }
	}
	done := func() (bool, error) { return true, s.CompleteHandoff(ctx, "h1") }
	for _, st := range []step{
		{"ClaimNothing", claim, false, store.Handoff{}},
		{"Request", req("telegram"), true, store.Handoff{State: store.HandoffPending, Platform: "telegram"}},
		{"RequestWhilePending", req("discord"), false, store.Handoff{State: store.HandoffPending, Platform: "telegram"}},
		{"Claim", claim, true, store.Handoff{State: store.HandoffRunning, Platform: "telegram"}},
		{"ClaimAgain", claim, false, store.Handoff{State: store.HandoffRunning, Platform: "telegram"}},
		{"RequestWhileRunning", req("discord"), false, store.Handoff{State: store.HandoffRunning, Platform: "telegram"}},
		{"Fail", fail("no route"), true, store.Handoff{State: store.HandoffFailed, Platform: "telegram", Error: "no route"}},
		{"RequestAfterFailure", req("discord"), true, store.Handoff{State: store.HandoffPending, Platform: "discord"}},
		{"CompleteFromPending", done, true, store.Handoff{State: store.HandoffCompleted, Platform: "discord"}},
		{"FailFromCompleted", fail("late"), true, store.Handoff{State: store.HandoffFailed, Platform: "discord", Error: "late"}},
		{"CompleteClearsError", done, true, store.Handoff{State: store.HandoffCompleted, Platform: "discord"}},
		{"RequestAfterCompletion", req("slack"), true, store.Handoff{State: store.HandoffPending, Platform: "slack"}},
	} {
		ok, err := st.call()
		bErr(t, st.name, err, nil)
		bEq(t, st.name, ok, st.ok)
		bEq(t, st.name+": state", state(), st.want)
	}

	// Pending handoffs: oldest start first, ties by id.
	for _, id := range []string{"h2", "h0"} {
		if ok, err := s.RequestHandoff(ctx, id, "telegram"); !ok || err != nil {
			t.Fatalf("RequestHandoff(%s) = %v, %v", id, ok, err)
		}
	}
	pending, err := s.ListPendingHandoffs(ctx)
	bErr(t, "ListPendingHandoffs", err, nil)
	bEq(t, "pending handoffs", bSessionIDs(pending), []string{"h2", "h0", "h1"})
	if ok, err := s.ClaimHandoff(ctx, "h2"); !ok || err != nil {
		t.Fatalf("ClaimHandoff(h2) = %v, %v", ok, err)
	}
	pending, err = s.ListPendingHandoffs(ctx)
	bErr(t, "ListPendingHandoffs", err, nil)
	bEq(t, "pending handoffs after a claim", bSessionIDs(pending), []string{"h0", "h1"})

	// A reason is cut to MaxHandoffErrorLength code points.
	long := strings.Repeat("é", store.MaxHandoffErrorLength+10)
	bErr(t, "FailHandoff(long)", s.FailHandoff(ctx, "h0", long), nil)
	got, err := s.HandoffState(ctx, "h0")
	bErr(t, "HandoffState(h0)", err, nil)
	bEq(t, "cut reason", got.Error, strings.Repeat("é", store.MaxHandoffErrorLength))

	before := state()
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"RequestUnknown", func() error { _, err := s.RequestHandoff(ctx, "nope", "x"); return err }(), store.ErrSessionNotFound},
		{"RequestEmptyPlatform", func() error { _, err := s.RequestHandoff(ctx, "h1", ""); return err }(), store.ErrEmptyArgument},
		{"RequestBadPlatform", func() error { _, err := s.RequestHandoff(ctx, "h1", bBadUTF8); return err }(), store.ErrInvalidText},
		{"ClaimUnknown", func() error { _, err := s.ClaimHandoff(ctx, "nope"); return err }(), store.ErrSessionNotFound},
		{"CompleteUnknown", s.CompleteHandoff(ctx, "nope"), store.ErrSessionNotFound},
		{"FailUnknown", s.FailHandoff(ctx, "nope", "x"), store.ErrSessionNotFound},
		{"FailBadReason", s.FailHandoff(ctx, "h1", bBadUTF8), store.ErrInvalidText},
		{"StateUnknown", func() error { _, err := s.HandoffState(ctx, "nope"); return err }(), store.ErrSessionNotFound},
	} {
		bErr(t, tc.name, tc.err, tc.want)
	}
	bEq(t, "state after the refused calls", state(), before)

	// U+0000 in a reason: stored or refused, by the engine.
	err = s.FailHandoff(ctx, "h1", bNUL)
	bErr(t, "FailHandoff(NUL)", err, bNULWant(h))
	if err == nil {
		bEq(t, "NUL reason", state().Error, bNUL)
	} else {
		bEq(t, "state after the refused NUL", state(), before)
	}
}

// bCompressionLocks checks the lock protocol without waiting for an
// expiry: one holder at a time, re-acquire without extension, refresh,
// release only by the holder, and the refusals.
func bCompressionLocks(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	bCreate(t, s, "s1", "cli")
	bCreate(t, s, "s2", "cli")
	holder := func(id string) string {
		t.Helper()
		who, ok, err := s.CompressionLockHolder(ctx, id)
		bErr(t, "CompressionLockHolder", err, nil)
		if ok != (who != "") {
			t.Fatalf("CompressionLockHolder(%s) = %q, %v", id, who, ok)
		}
		return who
	}
	acquire := func(id, who string) func() (bool, error) {
		return func() (bool, error) { return s.TryAcquireCompressionLock(ctx, id, who, time.Hour) }
	}
	refresh := func(id, who string) func() (bool, error) {
		return func() (bool, error) { return s.RefreshCompressionLock(ctx, id, who, 0) }
	}
	release := func(id, who string) func() (bool, error) {
		return func() (bool, error) { return true, s.ReleaseCompressionLock(ctx, id, who) }
	}
	for _, st := range []struct {
		name         string
		call         func() (bool, error)
		want         bool
		held1, held2 string
	}{
		{"None", func() (bool, error) { return true, nil }, true, "", ""},
		{"RefreshUnheld", refresh("s1", "a"), false, "", ""},
		{"AcquireA", acquire("s1", "a"), true, "a", ""},
		{"AcquireB", acquire("s1", "b"), false, "a", ""},
		{"AcquireAAgain", acquire("s1", "a"), true, "a", ""},
		{"OtherSession", acquire("s2", "b"), true, "a", "b"},
		{"RefreshByB", refresh("s1", "b"), false, "a", "b"},
		{"RefreshByA", refresh("s1", "a"), true, "a", "b"},
		{"ReleaseByB", release("s1", "b"), true, "a", "b"},
		{"ReleaseByA", release("s1", "a"), true, "", "b"},
		{"ReleaseAgain", release("s1", "a"), true, "", "b"},
		{"RefreshReleased", refresh("s1", "a"), false, "", "b"},
		{"AcquireBAfterRelease", acquire("s1", "b"), true, "b", "b"},
	} {
		got, err := st.call()
		bErr(t, st.name, err, nil)
		bEq(t, st.name, got, st.want)
		bEq(t, st.name+": holder of s1", holder("s1"), st.held1)
		bEq(t, st.name+": holder of s2", holder("s2"), st.held2)
	}
	bEq(t, "holder of an unknown session", holder("nope"), "")

	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"AcquireUnknown", func() error { _, err := s.TryAcquireCompressionLock(ctx, "nope", "a", 0); return err }(), store.ErrSessionNotFound},
		{"AcquireEmptyHolder", func() error { _, err := s.TryAcquireCompressionLock(ctx, "s1", "", 0); return err }(), store.ErrEmptyArgument},
		{"AcquireNegativeTTL", func() error { _, err := s.TryAcquireCompressionLock(ctx, "s1", "b", -time.Second); return err }(), store.ErrInvalidTTL},
		{"AcquireBadHolder", func() error { _, err := s.TryAcquireCompressionLock(ctx, "s1", bBadUTF8, 0); return err }(), store.ErrInvalidText},
		{"AcquireBadSession", func() error { _, err := s.TryAcquireCompressionLock(ctx, bBadUTF8, "a", 0); return err }(), store.ErrInvalidText},
		{"RefreshEmptyHolder", func() error { _, err := s.RefreshCompressionLock(ctx, "s1", "", 0); return err }(), store.ErrEmptyArgument},
		{"RefreshNegativeTTL", func() error { _, err := s.RefreshCompressionLock(ctx, "s1", "b", -1); return err }(), store.ErrInvalidTTL},
		{"RefreshBadHolder", func() error { _, err := s.RefreshCompressionLock(ctx, "s1", bBadUTF8, 0); return err }(), store.ErrInvalidText},
		{"ReleaseEmptyHolder", s.ReleaseCompressionLock(ctx, "s1", ""), store.ErrEmptyArgument},
		{"ReleaseBadHolder", s.ReleaseCompressionLock(ctx, "s1", bBadUTF8), store.ErrInvalidText},
	} {
		bErr(t, tc.name, tc.err, tc.want)
	}
	bEq(t, "holder after the refused calls", holder("s1"), "b")

	// Deleting the session leaves its lock: it is still reported, and
	// the holder can still release it; a new acquire finds no session.
	bErr(t, "DeleteSession", s.DeleteSession(ctx, "s2", ""), nil)
	bEq(t, "lock of a deleted session", holder("s2"), "b")
	_, err := s.TryAcquireCompressionLock(ctx, "s2", "c", 0)
	bErr(t, "acquire for a deleted session", err, store.ErrSessionNotFound)
	bErr(t, "release for a deleted session", s.ReleaseCompressionLock(ctx, "s2", "b"), nil)
	bEq(t, "lock of a deleted session after its release", holder("s2"), "")
}

// bCompressionLockExpiry checks what an expired lock means, with a lease
// of a millisecond: it is no longer reported, cannot be refreshed, is
// taken over by another holder, and its old holder's release then changes
// nothing. (The store's clock is the wall clock here: the harness gives no
// other.)
func bCompressionLockExpiry(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	bCreate(t, s, "s", "cli")
	ok, err := s.TryAcquireCompressionLock(ctx, "s", "a", time.Millisecond)
	if !ok || err != nil {
		t.Fatalf("acquire = %v, %v", ok, err)
	}
	time.Sleep(50 * time.Millisecond)
	if who, held, err := s.CompressionLockHolder(ctx, "s"); who != "" || held || err != nil {
		t.Fatalf("holder of an expired lock = %q, %v, %v", who, held, err)
	}
	if ok, err := s.RefreshCompressionLock(ctx, "s", "a", time.Hour); ok || err != nil {
		t.Fatalf("refresh of an expired lock = %v, %v", ok, err)
	}
	if ok, err := s.TryAcquireCompressionLock(ctx, "s", "b", time.Hour); !ok || err != nil {
		t.Fatalf("takeover of an expired lock = %v, %v", ok, err)
	}
	bErr(t, "late release", s.ReleaseCompressionLock(ctx, "s", "a"), nil)
	if who, held, err := s.CompressionLockHolder(ctx, "s"); who != "b" || !held || err != nil {
		t.Fatalf("holder after a late release = %q, %v, %v", who, held, err)
	}
	// An expired lock its holder releases is gone; re-acquiring an
	// expired own lock renews it.
	ok, err = s.RefreshCompressionLock(ctx, "s", "b", time.Millisecond)
	if !ok || err != nil {
		t.Fatalf("refresh to a millisecond = %v, %v", ok, err)
	}
	time.Sleep(50 * time.Millisecond)
	if ok, err := s.TryAcquireCompressionLock(ctx, "s", "b", time.Hour); !ok || err != nil {
		t.Fatalf("re-acquire of an expired own lock = %v, %v", ok, err)
	}
	if ok, err := s.TryAcquireCompressionLock(ctx, "s", "c", time.Hour); ok || err != nil {
		t.Fatalf("acquire of the renewed lock = %v, %v", ok, err)
	}
}

// bCompressionState checks the compression cooldown and fallback streak
// of a session.
func bCompressionState(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	bCreate(t, s, "s", "cli")
	cooldown := func() *store.CompressionCooldown {
		t.Helper()
		c, err := s.CompressionFailureCooldown(ctx, "s")
		bErr(t, "CompressionFailureCooldown", err, nil)
		return c
	}
	if c := cooldown(); c != nil {
		t.Fatalf("initial cooldown %+v", c)
	}
	until := store.Timestamp(float64(bNow()) + 3600.5)
	bErr(t, "record", s.RecordCompressionFailureCooldown(ctx, "s", until, "rate limited"), nil)
	c := cooldown()
	if c == nil || c.Until != until || c.Error != "rate limited" || c.Remaining <= 3500*time.Second || c.Remaining > 3601*time.Second {
		t.Fatalf("cooldown %+v, want until %v, error rate limited, about an hour left", c, until)
	}
	bErr(t, "record without error", s.RecordCompressionFailureCooldown(ctx, "s", until+1, ""), nil)
	if c := cooldown(); c == nil || c.Until != until+1 || c.Error != "" {
		t.Fatalf("cooldown %+v", c)
	}
	bEq(t, "session column", *bGet(t, s, "s").CompressionFailureCooldownUntil, until+1)
	if e := bGet(t, s, "s").CompressionFailureError; e != nil {
		t.Fatalf("error column %q, want NULL", *e)
	}
	bErr(t, "record past", s.RecordCompressionFailureCooldown(ctx, "s", 1000, "old"), nil)
	if c := cooldown(); c != nil {
		t.Fatalf("ended cooldown %+v", c)
	}
	bErr(t, "record infinite", s.RecordCompressionFailureCooldown(ctx, "s", store.Timestamp(math.Inf(1)), "forever"), nil)
	if c := cooldown(); c == nil || c.Remaining != time.Duration(math.MaxInt64) || c.Error != "forever" {
		t.Fatalf("infinite cooldown %+v", c)
	}
	bErr(t, "record NaN", s.RecordCompressionFailureCooldown(ctx, "s", store.Timestamp(math.NaN()), "nan"), nil)
	if c := cooldown(); c != nil {
		t.Fatalf("NaN cooldown %+v", c)
	}
	bErr(t, "record", s.RecordCompressionFailureCooldown(ctx, "s", until, "x"), nil)
	bErr(t, "clear", s.ClearCompressionFailureCooldown(ctx, "s"), nil)
	if c := cooldown(); c != nil {
		t.Fatalf("cleared cooldown %+v", c)
	}
	if sess := bGet(t, s, "s"); sess.CompressionFailureCooldownUntil != nil || sess.CompressionFailureError != nil {
		t.Fatalf("cleared columns %v, %v", sess.CompressionFailureCooldownUntil, sess.CompressionFailureError)
	}

	streak := func() int64 {
		t.Helper()
		n, err := s.CompressionFallbackStreak(ctx, "s")
		bErr(t, "CompressionFallbackStreak", err, nil)
		return n
	}
	bEq(t, "initial streak", streak(), int64(0))
	for _, tc := range []struct{ set, want int64 }{{3, 3}, {math.MaxInt64, math.MaxInt64}, {-5, 0}, {1, 1}} {
		bErr(t, "SetCompressionFallbackStreak", s.SetCompressionFallbackStreak(ctx, "s", tc.set), nil)
		bEq(t, "streak", streak(), tc.want)
		bEq(t, "streak column", bGet(t, s, "s").CompressionFallbackStreak, tc.want)
	}

	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"RecordUnknown", s.RecordCompressionFailureCooldown(ctx, "nope", until, ""), store.ErrSessionNotFound},
		{"RecordBadText", s.RecordCompressionFailureCooldown(ctx, "s", until, bBadUTF8), store.ErrInvalidText},
		{"ClearUnknown", s.ClearCompressionFailureCooldown(ctx, "nope"), store.ErrSessionNotFound},
		{"ReadUnknown", func() error { _, err := s.CompressionFailureCooldown(ctx, "nope"); return err }(), store.ErrSessionNotFound},
		{"StreakUnknown", func() error { _, err := s.CompressionFallbackStreak(ctx, "nope"); return err }(), store.ErrSessionNotFound},
		{"SetStreakUnknown", s.SetCompressionFallbackStreak(ctx, "nope", 1), store.ErrSessionNotFound},
	} {
		bErr(t, tc.name, tc.err, tc.want)
	}
	if c := cooldown(); c != nil {
		t.Fatalf("cooldown after the refused calls %+v", c)
	}
	bEq(t, "streak after the refused calls", streak(), int64(1))
}
