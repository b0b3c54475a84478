package store

import (
	"runtime"
	"time"
)

// Gathering: with several writers appending at once, the groups settle
// into two that alternate. While one commits, the writers of the other
// queue; when it is handed the lead, the writers just told of the first
// group's commit are still on their way back with their next write, so
// the second group starts without them, and each fsync serves half the
// writers.
//
// A leader therefore waits, before it takes its group, for the writers of
// the last group to queue again, when that group had company and ended a
// moment ago (gatherRecent): until as many writes wait as the last group
// held plus the ones queued behind it, or no write arrived for gatherGap,
// or gatherMax passed, whichever is first. A lone writer (its last group
// was itself alone) and the first write after a pause never wait; a writer
// that follows a burst of others waits at most gatherGap, once; no write
// waits longer than gatherMax. The wait yields the processor between looks
// (runtime.Gosched), so the writers it waits for run: the runtime's timers
// fire up to a millisecond late on an idle machine, far too coarse here.

const (
	// gatherMax bounds a leader's wait for the last group's writers.
	gatherMax = 100 * time.Microsecond
	// gatherGap ends the wait when no write queued for that long.
	gatherGap = 30 * time.Microsecond
	// gatherRecent is how soon after the last group ended a leader still
	// expects its writers back.
	gatherRecent = 2 * time.Millisecond
)

// lastGroup is what gather knows of the group that ended last.
type lastGroup struct {
	size  int // writes it held
	ended time.Time
}

// gather waits, when the last group had company, for its writers to
// queue again (see the comment at the top of this file); leader is the
// caller about to take the next group.
func (q *groupQueue) gather(leader *pendingWrite) {
	q.mu.Lock()
	last := q.last
	want := min(maxGroup, last.size+len(q.waiting))
	have := q.present(leader)
	q.mu.Unlock()
	start := time.Now()
	if leader.alone || last.size <= 1 || start.Sub(last.ended) > gatherRecent || have >= want {
		return
	}
	done := leader.ctx.Done()
	arrival := start
	for {
		runtime.Gosched()
		q.mu.Lock()
		n, alone := q.present(leader), q.waitingAlone()
		q.mu.Unlock()
		now := time.Now()
		if n > have {
			have, arrival = n, now
		}
		if have >= want || alone || now.Sub(arrival) >= gatherGap || now.Sub(start) >= gatherMax {
			return
		}
		select {
		case <-done:
			return
		default:
		}
	}
}

// present returns how many writes the next group could take now: the
// queued ones and the leader when it never queued. q.mu is held.
func (q *groupQueue) present(leader *pendingWrite) int {
	n := len(q.waiting)
	if !leader.queued {
		n++
	}
	return n
}

// waitingAlone reports whether a write that needs a transaction of its own
// queued: the group ends before it whatever else arrives. q.mu is held.
func (q *groupQueue) waitingAlone() bool {
	for _, m := range q.waiting {
		if m.alone {
			return true
		}
	}
	return false
}
