package storetest

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	groups = append(groups, group{"ExclusiveUnderConcurrency", bExclusive})
}

// bRace runs n calls of fn at once (fn gets its index) and returns how
// many returned true; an error fails the test.
func bRace(t *testing.T, n int, fn func(i int) (bool, error)) int {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, errs := 0, []error{}
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			ok, err := fn(i)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
			if ok {
				won++
			}
		})
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		t.Errorf("concurrent call: %v", err)
	}
	return won
}

// bExclusive checks that the store's compare-and-set writes hand exactly
// one of many concurrent callers the prize: a compression lock, a
// handoff request and its claim, a delegation's delivery claim. On an
// engine with more than one writer these are what its row or advisory
// locks must get right.
func bExclusive(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	const n = 8
	for round := range 3 {
		id := fmt.Sprintf("s%d", round)
		bCreate(t, s, id, "cli")
		bDispatch(t, s, store.DelegationDispatch{ID: "d" + id, DispatchedAt: 1})
		bCompleteDelegation(t, s, "d"+id, 2)
		for _, tc := range []struct {
			name string
			fn   func(i int) (bool, error)
		}{
			{"CompressionLock", func(i int) (bool, error) {
				return s.TryAcquireCompressionLock(ctx, id, fmt.Sprintf("holder-%d", i), time.Hour)
			}},
			{"RequestHandoff", func(i int) (bool, error) { return s.RequestHandoff(ctx, id, fmt.Sprintf("p%d", i)) }},
			{"ClaimHandoff", func(int) (bool, error) { return s.ClaimHandoff(ctx, id) }},
			{"ClaimDelegationDelivery", func(i int) (bool, error) {
				return s.ClaimDelegationDelivery(ctx, "d"+id, fmt.Sprintf("consumer-%d", i))
			}},
		} {
			if won := bRace(t, n, tc.fn); won != 1 {
				t.Fatalf("round %d, %s: %d of %d callers won, want 1", round, tc.name, won, n)
			}
		}
		// The winners' states are consistent: one holder, a running
		// handoff, one claim and one counted attempt.
		if who, ok, err := s.CompressionLockHolder(ctx, id); !ok || err != nil || who == "" {
			t.Fatalf("holder = %q, %v, %v", who, ok, err)
		}
		hs, err := s.HandoffState(ctx, id)
		bErr(t, "HandoffState", err, nil)
		bEq(t, "handoff state", hs.State, store.HandoffRunning)
		d := bDelegation(t, s, "d"+id)
		if d.DeliveryClaim == nil || d.DeliveryAttempts != 1 {
			t.Fatalf("delegation after the race: claim %v, attempts %d", d.DeliveryClaim, d.DeliveryAttempts)
		}
		// Many deliverers of one claim: only the holder's completion
		// counts, once.
		claim := *d.DeliveryClaim
		if won := bRace(t, n, func(int) (bool, error) { return s.CompleteDelegationDelivery(ctx, "d"+id, claim) }); won != 1 {
			t.Fatalf("round %d: %d completions of one claim won, want 1", round, won)
		}
	}
	// Concurrent dispatches of distinct ids all land (the retention a
	// dispatch applies must not lose a row in flight).
	if won := bRace(t, n, func(i int) (bool, error) {
		err := s.DispatchDelegation(ctx, store.DelegationDispatch{ID: fmt.Sprintf("par-%d", i), Task: json.RawMessage(`{}`)})
		return err == nil, err
	}); won != n {
		t.Fatalf("%d of %d concurrent dispatches landed", won, n)
	}
	ds, err := s.ListDelegations(ctx)
	bErr(t, "ListDelegations", err, nil)
	bEq(t, "delegations", len(ds), 3+n)
}
