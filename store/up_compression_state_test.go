package store

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// Ports of the compression cooldown and fallback streak tests of
// tests/test_hermes_state.py (upstream c2a3b9ce5, module level), plus the
// boundaries of upstream-v21.md §4.1.

// cooldownColumns are session id's two cooldown columns as stored.
const cooldownColumns = "SELECT compression_failure_cooldown_until, compression_failure_error FROM sessions WHERE id = ?"

// wantCooldown fails the test unless session id's running cooldown is want
// (nil for none).
func wantCooldown(t *testing.T, s *Store, id string, want *CompressionCooldown) {
	t.Helper()
	got, err := s.CompressionFailureCooldown(t.Context(), id)
	if err != nil {
		t.Fatalf("CompressionFailureCooldown(%q): %v", id, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CompressionFailureCooldown(%q) (-want +got):\n%s", id, diff)
	}
}

// upstream: test_compression_failure_cooldown_round_trips_and_clears
func TestUpCooldownRoundTripAndClear(t *testing.T) {
	t.Parallel()
	c := newSetClock(1000)
	s := setClockStore(t, c)
	newSession(t, s, "s1", "cli")
	if err := s.RecordCompressionFailureCooldown(t.Context(), "s1", 1060.25, "timeout"); err != nil {
		t.Fatal(err)
	}
	wantRows(t, s, [][]any{{1060.25, "timeout"}}, cooldownColumns, "s1")
	wantCooldown(t, s, "s1", &CompressionCooldown{Until: 1060.25, Remaining: 60250 * time.Millisecond, Error: "timeout"})

	if err := s.ClearCompressionFailureCooldown(t.Context(), "s1"); err != nil {
		t.Fatal(err)
	}
	wantCooldown(t, s, "s1", nil)
	wantRows(t, s, [][]any{{nil, nil}}, cooldownColumns, "s1")
	sess := mustSession(t, s, "s1")
	if sess.CompressionFailureCooldownUntil != nil || sess.CompressionFailureError != nil {
		t.Errorf("session after clear: until %v, error %v; want nil, nil", sess.CompressionFailureCooldownUntil, sess.CompressionFailureError)
	}
}

// upstream: test_expired_compression_failure_cooldown_is_ignored. The
// boundary is upstream's: a cooldown ending exactly now has ended.
func TestUpCooldownExpiredIsIgnored(t *testing.T) {
	t.Parallel()
	c := newSetClock(1000)
	s := setClockStore(t, c)
	newSession(t, s, "s1", "cli")
	if err := s.RecordCompressionFailureCooldown(t.Context(), "s1", 940, "stale"); err != nil {
		t.Fatal(err)
	}
	wantCooldown(t, s, "s1", nil)
	// Ignored, not cleared.
	wantRows(t, s, [][]any{{940.0, "stale"}}, cooldownColumns, "s1")

	if err := s.RecordCompressionFailureCooldown(t.Context(), "s1", 1010, ""); err != nil {
		t.Fatal(err)
	}
	wantRows(t, s, [][]any{{1010.0, nil}}, cooldownColumns, "s1") // "" is NULL
	c.Set(1009.5)
	wantCooldown(t, s, "s1", &CompressionCooldown{Until: 1010, Remaining: 500 * time.Millisecond})
	c.Set(1010)
	wantCooldown(t, s, "s1", nil)
}

// upstream: test_compression_fallback_streak_round_trips; the clamp is
// upstream's max(0, int(streak)) on both sides.
func TestUpFallbackStreak(t *testing.T) {
	t.Parallel()
	s := setClockStore(t, newSetClock(1000))
	newSession(t, s, "s1", "cli")
	wantStreak := func(want int64) {
		t.Helper()
		got, err := s.CompressionFallbackStreak(t.Context(), "s1")
		if err != nil || got != want {
			t.Errorf("CompressionFallbackStreak = %d, %v; want %d", got, err, want)
		}
	}
	wantStreak(0)
	if err := s.SetCompressionFallbackStreak(t.Context(), "s1", 2); err != nil {
		t.Fatal(err)
	}
	wantStreak(2)
	if err := s.SetCompressionFallbackStreak(t.Context(), "s1", -3); err != nil {
		t.Fatal(err)
	}
	wantRows(t, s, [][]any{{int64(0)}}, "SELECT compression_fallback_streak FROM sessions WHERE id = 's1'")
	execSQL(t, s, "UPDATE sessions SET compression_fallback_streak = -5 WHERE id = 's1'")
	wantStreak(0)
}

// TestUpCompressionStateNoSession: upstream ignores these calls for an
// unknown session (None, 0, no-op); here they are ErrSessionNotFound and
// write nothing.
func TestUpCompressionStateNoSession(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := setClockStore(t, newSetClock(1000))
	newSession(t, s, "s1", "cli")
	before := tableRows(t, s, "SELECT * FROM sessions")
	calls := map[string]func() error{
		"record": func() error { return s.RecordCompressionFailureCooldown(ctx, "nope", 2000, "x") },
		"clear":  func() error { return s.ClearCompressionFailureCooldown(ctx, "nope") },
		"get": func() error {
			c, err := s.CompressionFailureCooldown(ctx, "nope")
			if c != nil {
				t.Errorf("cooldown of no session = %+v", c)
			}
			return err
		},
		"set streak": func() error { return s.SetCompressionFallbackStreak(ctx, "nope", 1) },
		"get streak": func() error {
			_, err := s.CompressionFallbackStreak(ctx, "nope")
			return err
		},
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, ErrSessionNotFound) {
			t.Errorf("%s: %v, want ErrSessionNotFound", name, err)
		}
	}
	if err := s.RecordCompressionFailureCooldown(ctx, "s1", 2000, "bad \xff"); !errors.Is(err, ErrInvalidText) {
		t.Errorf("record with a non-UTF-8 error: %v, want ErrInvalidText", err)
	}
	wantRows(t, s, before, "SELECT * FROM sessions")
}

// TestUpCompressionStateUpstreamFixture: the cooldown and streak upstream
// wrote (testdata/upstream/state-v21.db, session fx21-locked) read back.
func TestUpCompressionStateUpstreamFixture(t *testing.T) {
	t.Parallel()
	c := newSetClock(1796284000)
	s := openAt(t, copyUpstreamFixture(t), &Options{Now: c.Now})
	until := Timestamp(dbtest.Value[float64](t, s.w, "SELECT compression_failure_cooldown_until FROM sessions WHERE id = 'fx21-locked'"))
	if float64(until) < 1796287598.54 || float64(until) > 1796287598.55 {
		t.Fatalf("fixture's cooldown until = %v", until)
	}
	wantCooldown(t, s, "fx21-locked", &CompressionCooldown{
		Until: until, Remaining: secondsDuration(float64(until) - 1796284000), Error: "summary model timed out",
	})
	if n, err := s.CompressionFallbackStreak(t.Context(), "fx21-locked"); n != 2 || err != nil {
		t.Errorf("fixture's streak = %d, %v; want 2", n, err)
	}
}
