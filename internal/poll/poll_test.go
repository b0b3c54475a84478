package poll

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestEvery: fn runs periodically, never two at once, and once more at
// stop; nothing runs after stop returns.
func TestEvery(t *testing.T) {
	t.Parallel()
	var calls, running, overlaps atomic.Int64
	stop := Every(time.Millisecond, func() {
		if running.Add(1) > 1 {
			overlaps.Add(1)
		}
		time.Sleep(2 * time.Millisecond)
		calls.Add(1)
		running.Add(-1)
	})
	for calls.Load() < 3 {
		time.Sleep(time.Millisecond)
	}
	stop()
	after := calls.Load()
	time.Sleep(20 * time.Millisecond)
	if calls.Load() != after || overlaps.Load() != 0 || running.Load() != 0 {
		t.Errorf("after stop: %d calls then %d, %d overlapping, %d running", after, calls.Load(), overlaps.Load(), running.Load())
	}

	// A stop right away still calls fn once.
	var once atomic.Int64
	Every(time.Hour, func() { once.Add(1) })()
	if once.Load() != 1 {
		t.Errorf("an immediate stop called fn %d times, want 1", once.Load())
	}
}
