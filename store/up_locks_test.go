package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// Ports of tests/test_hermes_state_compression_locks.py and the lock test
// of tests/test_hermes_state.py (upstream c2a3b9ce5), plus the boundaries
// and decisions of upstream-v21.md §4.1, §5 trap 15 and §8 defect 7.
// Upstream's tests lock ids that name no session; ours create the
// sessions first (defect 7: a lock needs its session here).

// lockStore opens a store at clock c with sessions ids (source "cli").
func lockStore(t *testing.T, c *setClock, ids ...string) *Store {
	t.Helper()
	s := setClockStore(t, c)
	for _, id := range ids {
		newSession(t, s, id, "cli")
	}
	return s
}

// acquire is TryAcquireCompressionLock that fails the test on error.
func acquire(t *testing.T, s *Store, id, holder string, ttl time.Duration) bool {
	t.Helper()
	ok, err := s.TryAcquireCompressionLock(t.Context(), id, holder, ttl)
	if err != nil {
		t.Fatalf("TryAcquireCompressionLock(%q, %q, %v): %v", id, holder, ttl, err)
	}
	return ok
}

// wantHolder fails the test unless session id's unexpired holder is want
// ("" for none).
func wantHolder(t *testing.T, s *Store, id, want string) {
	t.Helper()
	h, ok, err := s.CompressionLockHolder(t.Context(), id)
	if err != nil {
		t.Fatalf("CompressionLockHolder(%q): %v", id, err)
	}
	if h != want || ok != (want != "") {
		t.Errorf("CompressionLockHolder(%q) = %q, %v; want %q, %v", id, h, ok, want, want != "")
	}
}

// release is ReleaseCompressionLock that fails the test on error.
func release(t *testing.T, s *Store, id, holder string) {
	t.Helper()
	if err := s.ReleaseCompressionLock(t.Context(), id, holder); err != nil {
		t.Fatalf("ReleaseCompressionLock(%q, %q): %v", id, holder, err)
	}
}

// lockTable is the whole compression_locks table, by session.
const lockTable = "SELECT session_id, holder, acquired_at, expires_at FROM compression_locks ORDER BY session_id"

// upstream: test_acquire_succeeds_when_unlocked
func TestUpLockAcquireWhenUnlocked(t *testing.T) {
	t.Parallel()
	s := lockStore(t, newSetClock(1000), "sess1")
	if !acquire(t, s, "sess1", "holder1", 0) {
		t.Fatal("acquire of a free lock = false")
	}
	wantHolder(t, s, "sess1", "holder1")
	// Times are REAL epoch seconds from the store clock; 0 is the 300 s default.
	wantRows(t, s, [][]any{{"sess1", "holder1", 1000.0, 1300.0}}, lockTable)
}

// upstream: test_acquire_blocks_second_holder
func TestUpLockBlocksSecondHolder(t *testing.T) {
	t.Parallel()
	s := lockStore(t, newSetClock(1000), "sess1")
	if !acquire(t, s, "sess1", "holder1", 0) {
		t.Fatal("first acquire = false")
	}
	if acquire(t, s, "sess1", "holder2", 0) {
		t.Error("second holder's acquire = true")
	}
	wantHolder(t, s, "sess1", "holder1")
	wantRows(t, s, [][]any{{"sess1", "holder1", 1000.0, 1300.0}}, lockTable)
}

// upstream: test_release_allows_reacquire
func TestUpLockReleaseAllowsReacquire(t *testing.T) {
	t.Parallel()
	s := lockStore(t, newSetClock(1000), "sess1")
	acquire(t, s, "sess1", "holder1", 0)
	release(t, s, "sess1", "holder1")
	wantHolder(t, s, "sess1", "")
	wantRows(t, s, [][]any{}, lockTable)
	if !acquire(t, s, "sess1", "holder2", 0) {
		t.Error("acquire after release = false")
	}
	wantHolder(t, s, "sess1", "holder2")
}

// upstream: test_release_with_wrong_holder_is_noop
func TestUpLockReleaseWrongHolder(t *testing.T) {
	t.Parallel()
	s := lockStore(t, newSetClock(1000), "sess1")
	acquire(t, s, "sess1", "holder1", 0)
	release(t, s, "sess1", "holder_other")
	wantHolder(t, s, "sess1", "holder1")
	wantRows(t, s, [][]any{{"sess1", "holder1", 1000.0, 1300.0}}, lockTable)
}

// upstream: test_release_when_unlocked_is_noop, test_release_empty_session_id_is_noop,
// test_holder_empty_session_id_returns_none
func TestUpLockReleaseWhenUnlocked(t *testing.T) {
	t.Parallel()
	s := lockStore(t, newSetClock(1000))
	for _, id := range []string{"never_locked", ""} {
		release(t, s, id, "holder1")
		wantHolder(t, s, id, "")
	}
	wantRows(t, s, [][]any{}, lockTable)
}

// upstream: test_locks_are_per_session
func TestUpLockPerSession(t *testing.T) {
	t.Parallel()
	s := lockStore(t, newSetClock(1000), "sess1", "sess2")
	if !acquire(t, s, "sess1", "holder1", 0) || !acquire(t, s, "sess2", "holder2", 0) {
		t.Fatal("acquire of two sessions' locks: one was false")
	}
	wantHolder(t, s, "sess1", "holder1")
	wantHolder(t, s, "sess2", "holder2")
}

// upstream: test_expired_lock_is_reclaimable (the 0.1 s sleep is a clock step)
func TestUpLockExpiredIsReclaimable(t *testing.T) {
	t.Parallel()
	c := newSetClock(1000)
	s := lockStore(t, c, "sess1")
	acquire(t, s, "sess1", "crashed_holder", 50*time.Millisecond)
	c.Set(1000.1)
	wantHolder(t, s, "sess1", "")
	// Hidden, not deleted: only an acquire reclaims.
	wantRows(t, s, [][]any{{"sess1", "crashed_holder", 1000.0, 1000.05}}, lockTable)
	if !acquire(t, s, "sess1", "fresh_holder", 0) {
		t.Fatal("acquire of an expired lock = false")
	}
	wantHolder(t, s, "sess1", "fresh_holder")
	wantRows(t, s, [][]any{{"sess1", "fresh_holder", 1000.1, 1300.1}}, lockTable)
}

// upstream: test_non_expired_lock_is_held
func TestUpLockNonExpiredIsHeld(t *testing.T) {
	t.Parallel()
	c := newSetClock(1000)
	s := lockStore(t, c, "sess1")
	acquire(t, s, "sess1", "holder1", 60*time.Second)
	c.Set(1059.999)
	if acquire(t, s, "sess1", "holder2", 0) {
		t.Error("acquire of an unexpired lock = true")
	}
}

// TestUpLockBoundaries: expired means expires_at < now, so at exactly
// expires_at the lock is held, reported and refreshable; a moment later it
// is none of those and the next acquire takes it (trap 15).
func TestUpLockBoundaries(t *testing.T) {
	t.Parallel()
	c := newSetClock(1000)
	s := lockStore(t, c, "s1")
	acquire(t, s, "s1", "a", 10*time.Second)
	c.Set(1010)
	wantHolder(t, s, "s1", "a")
	if acquire(t, s, "s1", "b", 0) {
		t.Error("acquire at expires_at = true; the lock is still held then")
	}
	if ok, err := s.RefreshCompressionLock(t.Context(), "s1", "a", 10*time.Second); !ok || err != nil {
		t.Errorf("refresh at expires_at = %v, %v; want true", ok, err)
	}
	wantRows(t, s, [][]any{{"s1", "a", 1000.0, 1020.0}}, lockTable)
	c.Set(1020.000001)
	wantHolder(t, s, "s1", "")
	if ok, err := s.RefreshCompressionLock(t.Context(), "s1", "a", 10*time.Second); ok || err != nil {
		t.Errorf("refresh after expiry = %v, %v; want false", ok, err)
	}
	if !acquire(t, s, "s1", "b", 0) {
		t.Error("acquire just after expiry = false")
	}
}

// TestUpLockReacquireDoesNotExtend: the holder acquiring again gets true and
// keeps its old lease (trap 15); only a refresh extends it.
func TestUpLockReacquireDoesNotExtend(t *testing.T) {
	t.Parallel()
	c := newSetClock(1000)
	s := lockStore(t, c, "s1")
	acquire(t, s, "s1", "a", 10*time.Second)
	c.Set(1005)
	if !acquire(t, s, "s1", "a", 100*time.Second) {
		t.Error("the holder's second acquire = false")
	}
	wantRows(t, s, [][]any{{"s1", "a", 1000.0, 1010.0}}, lockTable)
}

// upstream: test_refresh_compression_lock_requires_holder_and_preserves_reclaimability
func TestUpLockRefresh(t *testing.T) {
	t.Parallel()
	c := newSetClock(1000)
	s := lockStore(t, c, "s1")
	if !acquire(t, s, "s1", "holder-a", 10*time.Second) {
		t.Fatal("acquire = false")
	}
	wantRows(t, s, [][]any{{"s1", "holder-a", 1000.0, 1010.0}}, lockTable)

	c.Set(1005)
	if ok, err := s.RefreshCompressionLock(t.Context(), "s1", "holder-a", 10*time.Second); !ok || err != nil {
		t.Fatalf("holder's refresh = %v, %v; want true", ok, err)
	}
	wantRows(t, s, [][]any{{"s1", "holder-a", 1000.0, 1015.0}}, lockTable)

	if ok, err := s.RefreshCompressionLock(t.Context(), "s1", "holder-b", 10*time.Second); ok || err != nil {
		t.Errorf("another holder's refresh = %v, %v; want false", ok, err)
	}
	wantRows(t, s, [][]any{{"s1", "holder-a", 1000.0, 1015.0}}, lockTable)

	c.Set(1016)
	if !acquire(t, s, "s1", "holder-b", 10*time.Second) {
		t.Error("acquire after the refreshed lease ran out = false")
	}
	wantRows(t, s, [][]any{{"s1", "holder-b", 1016.0, 1026.0}}, lockTable)
}

// upstream: test_acquire_empty_session_id_returns_false. Decision (defect 7):
// a lock needs an existing session, so an empty id, like any id naming no
// session, is ErrSessionNotFound and writes nothing, where upstream returns
// False for "" and locks any other string.
func TestUpLockNeedsSession(t *testing.T) {
	t.Parallel()
	s := lockStore(t, newSetClock(1000))
	for _, id := range []string{"", "no-such-session"} {
		ok, err := s.TryAcquireCompressionLock(t.Context(), id, "holder1", 0)
		if ok || !errors.Is(err, ErrSessionNotFound) || !errors.Is(err, ErrNotFound) {
			t.Errorf("TryAcquireCompressionLock(%q) = %v, %v; want false, ErrSessionNotFound", id, ok, err)
		}
	}
	wantRows(t, s, [][]any{}, lockTable)
}

// TestUpLockBadArguments: decisions on the other bad inputs (defect 7): a
// negative TTL is ErrInvalidTTL (upstream writes an expired lock and says
// it acquired it), an empty holder ErrEmptyArgument, text that is not UTF-8
// ErrInvalidText; none writes anything, and the messages name the call.
func TestUpLockBadArguments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := lockStore(t, newSetClock(1000), "s1")
	acquire(t, s, "s1", "a", 0)
	before := tableRows(t, s, lockTable)
	for _, tt := range []struct {
		name string
		call func() error
		want error
		msg  string
	}{
		{"acquire negative ttl", func() error {
			_, err := s.TryAcquireCompressionLock(ctx, "s1", "a", -time.Second)
			return err
		}, ErrInvalidTTL, `store: acquire compression lock "s1": -1s: negative lock TTL`},
		{"refresh negative ttl", func() error {
			_, err := s.RefreshCompressionLock(ctx, "s1", "a", -time.Nanosecond)
			return err
		}, ErrInvalidTTL, `store: refresh compression lock "s1": -1ns: negative lock TTL`},
		{"acquire empty holder", func() error {
			_, err := s.TryAcquireCompressionLock(ctx, "s1", "", 0)
			return err
		}, ErrEmptyArgument, `store: acquire compression lock "s1": holder: must not be empty`},
		{"refresh empty holder", func() error {
			_, err := s.RefreshCompressionLock(ctx, "s1", "", 0)
			return err
		}, ErrEmptyArgument, `store: refresh compression lock "s1": holder: must not be empty`},
		{"release empty holder", func() error { return s.ReleaseCompressionLock(ctx, "s1", "") },
			ErrEmptyArgument, `store: release compression lock "s1": holder: must not be empty`},
		{"acquire bad holder text", func() error {
			_, err := s.TryAcquireCompressionLock(ctx, "s1", "b\xff", 0)
			return err
		}, ErrInvalidText, ""},
	} {
		err := tt.call()
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
		if tt.msg != "" && (err == nil || err.Error() != tt.msg) {
			t.Errorf("%s: message %q, want %q", tt.name, err, tt.msg)
		}
	}
	wantRows(t, s, before, lockTable)
}

// TestUpLockSurvivesSessionDelete: decision (defect 7, deleted sessions):
// follow upstream, the lock row survives the delete (DeleteSession is not
// this area's, and upstream leaves it too). It is harmless: it still
// expires, a new acquire for the id is ErrSessionNotFound, and release
// removes it.
func TestUpLockSurvivesSessionDelete(t *testing.T) {
	t.Parallel()
	s := lockStore(t, newSetClock(1000), "s1")
	acquire(t, s, "s1", "a", 0)
	if err := s.DeleteSession(t.Context(), "s1", ""); err != nil {
		t.Fatal(err)
	}
	wantRows(t, s, [][]any{{"s1", "a", 1000.0, 1300.0}}, lockTable)
	wantHolder(t, s, "s1", "a")
	if ok, err := s.TryAcquireCompressionLock(t.Context(), "s1", "b", 0); ok || !errors.Is(err, ErrSessionNotFound) {
		t.Errorf("acquire for the deleted session = %v, %v; want false, ErrSessionNotFound", ok, err)
	}
	release(t, s, "s1", "a")
	wantRows(t, s, [][]any{}, lockTable)
}

// TestUpLockUpstreamFixture: locks upstream wrote (testdata/upstream/state-v21.db:
// a live lock and an expired one) exclude and are reclaimed by ours.
func TestUpLockUpstreamFixture(t *testing.T) {
	t.Parallel()
	c := newSetClock(1796284000)
	s := openAt(t, copyUpstreamFixture(t), &Options{Now: c.Now})
	wantHolder(t, s, "fx21-locked", "4242:140001:live-nonce")
	wantHolder(t, s, "fx21-model-switch", "")
	if acquire(t, s, "fx21-locked", "go", 0) {
		t.Error("acquire of upstream's live lock = true")
	}
	if !acquire(t, s, "fx21-model-switch", "go", 0) {
		t.Error("acquire of upstream's expired lock = false")
	}
	wantRows(t, s, [][]any{
		{"fx21-locked", "4242:140001:live-nonce", 1796283998.53375, 2111643998.53375},
		{"fx21-model-switch", "go", 1796284000.0, 1796284300.0},
	}, "SELECT session_id, holder, round(acquired_at, 5), round(expires_at, 5) FROM compression_locks ORDER BY session_id")
}

// copyUpstreamFixture copies upstream's fresh v21 fixture into the test's
// directory and returns its path.
func copyUpstreamFixture(t *testing.T) string {
	t.Helper()
	return dbtest.CopyFile(t, dbtest.Testdata("upstream", "state-v21.db"), filepath.Join(t.TempDir(), "state.db"))
}

// upstream: test_concurrent_acquire_only_one_winner (threads on one
// SessionDB: goroutines on one Store)
func TestUpLockConcurrentOneWinner(t *testing.T) {
	t.Parallel()
	s := lockStore(t, newSetClock(1000), "contended_session")
	const n = 8
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		results = make([]bool, n)
		errs    = make([]error, n)
	)
	for i := range n {
		wg.Go(func() {
			<-start
			results[i], errs[i] = s.TryAcquireCompressionLock(context.Background(), "contended_session", fmt.Sprintf("thread_%d", i), 0)
		})
	}
	close(start)
	wg.Wait()
	winner := ""
	for i, ok := range results {
		if errs[i] != nil {
			t.Fatalf("goroutine %d: %v", i, errs[i])
		}
		if ok {
			if winner != "" {
				t.Fatalf("two winners: %s and thread_%d", winner, i)
			}
			winner = fmt.Sprintf("thread_%d", i)
		}
	}
	if winner == "" {
		t.Fatal("no winner")
	}
	wantHolder(t, s, "contended_session", winner)
}

// TestUpLockProcessesOneWinner: the same race between separate OS
// processes, each with its own Store on the file, released at once: exactly
// one acquires, and it is the one the table names.
func TestUpLockProcessesOneWinner(t *testing.T) {
	t.Parallel()
	s, path := openStore(t, nil)
	newSession(t, s, "contended", "cli")
	const n = 6
	helpers := make([]*helperProcess, n)
	for i := range helpers {
		helpers[i] = startHelper(t, "tables", "HERMESSTATE_DB="+path, fmt.Sprintf("HERMESSTATE_HOLDER=proc_%d", i))
		if got := helpers[i].next(t); got != "ready" {
			t.Fatalf("helper %d: %q, want ready", i, got)
		}
	}
	for _, h := range helpers {
		h.send(t, "acquire contended")
	}
	var winners []string
	for i, h := range helpers {
		switch got := h.next(t); got {
		case "true":
			winners = append(winners, fmt.Sprintf("proc_%d", i))
		case "false":
		default:
			t.Fatalf("helper %d: %q", i, got)
		}
	}
	for _, h := range helpers {
		h.finish(t)
	}
	if len(winners) != 1 {
		t.Fatalf("winners %v, want exactly one", winners)
	}
	wantHolder(t, s, "contended", winners[0])
}
