package store

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/hermesstate/hermesstate/internal/backend"
)

// Group commit: at synchronous=FULL every commit waits for an fsync of the
// WAL, which costs milliseconds while the statements of a write cost
// microseconds. Writes that arrive while a transaction is committing
// therefore queue, and the next transaction runs all of them, each in a
// SAVEPOINT of its own, and commits them with one fsync.
//
// The caller that finds no transaction in flight leads at once (a lone
// writer never waits for company: there is no timer); writers arriving
// while it commits queue behind it, and when its commit returned it hands
// the lead to the first of them, which takes the whole queue (up to
// maxGroup writes) as the next group. Every caller returns only after the
// COMMIT holding its write returned, so an acknowledged write is as durable
// as before; the fns of a group run one after the other in arrival order,
// so the transaction is the same as running them serially in that order
// (each sees the writes before it, and ids and default timestamps follow
// arrival). Readers see a group's writes all at once, at its commit.

// writeFn is what the write helper runs: every statement of one write, on
// the write transaction.
type writeFn = func(ctx context.Context, tx backend.Tx) error

// maxGroup bounds the writes one transaction gathers, so that a long queue
// does not make one transaction (and the rerun of all of it after a busy
// commit) arbitrarily large.
const maxGroup = 64

// The savepoint each write of a group of two or more runs in. Hand-written:
// savepoint statements are not queries sqlc compiles. One name serves every
// write because each savepoint is released before the next one opens; no
// write of the store opens savepoints of its own.
const (
	savepointSQL  = "SAVEPOINT hermesstate_write"
	releaseSQL    = "RELEASE hermesstate_write"
	rollbackToSQL = "ROLLBACK TO hermesstate_write"
)

// groupQueue is the Store's queue of writes waiting for a transaction.
type groupQueue struct {
	mu      sync.Mutex
	waiting []*pendingWrite // arrival order
	// leading is true while a caller leads a group, from the moment the
	// first caller found none in flight until a leader finds the queue
	// empty after its commit.
	leading bool

	// What gather knows of the last group (groupcommit_gather.go).
	last lastGroup
}

// pendingWrite is one caller's write on its way through the queue.
type pendingWrite struct {
	ctx context.Context
	fn  writeFn
	// alone is set for a write that must have a transaction of its own
	// (writeAlone): it never shares a group.
	alone bool
	// stages is set for an append (writeStaged): in a group its message
	// is staged, not inserted (groupcommit_stage.go).
	stages bool
	// wake receives one signal: the write is done (done is set), or the
	// caller was chosen to lead the next group (lead is set).
	wake chan struct{}

	// Set under groupQueue.mu.
	queued bool // in waiting, not taken by a leader yet
	lead   bool // chosen to lead the next group

	// Set by the leader before wake is signalled (or by the caller itself).
	done     bool
	err      error
	panicked *fnPanic
}

// fnPanic is a panic recovered from a write's fn on the leader's goroutine,
// raised again on the caller's.
type fnPanic struct{ value any }

// errPanicked makes a transaction roll back after a write's fn panicked;
// the caller gets the panic, not this error.
var errPanicked = errors.New("write function panicked")

// call runs m's fn on the write transaction tx with ctx: callWith without
// a stager.
func (m *pendingWrite) call(ctx context.Context, tx *sql.Tx) (err error) {
	return m.callWith(ctx, tx, nil)
}

// callWith runs m's fn on the write transaction tx with ctx, recovering a
// panic (recorded in m.panicked; the error is then errPanicked), with the
// group's stager st, which m's fn stages its message in when m stages (st
// may be nil: the message is inserted). A failed or panicking fn leaves
// nothing staged. It is the one place where a write's fn is handed the
// write transaction.
func (m *pendingWrite) callWith(ctx context.Context, tx *sql.Tx, st *stager) (err error) {
	if st != nil && m.stages {
		ctx = context.WithValue(ctx, stagerKey{}, st)
		mark := len(st.rows)
		defer func() {
			if err != nil {
				st.rows = st.rows[:mark]
			}
		}()
	}
	defer func() {
		if r := recover(); r != nil {
			m.panicked = &fnPanic{r}
			err = errPanicked
		}
	}()
	return m.fn(ctx, backend.SQLiteTx(tx))
}

// result returns the write's outcome to its caller, raising again a panic
// of its fn.
func (m *pendingWrite) result() error {
	if m.panicked != nil {
		panic(m.panicked.value)
	}
	return m.err
}

// groupWrite runs fn through the queue (see the comment at the top of this
// file) and returns its outcome once it is known: after the commit that
// holds it, or at once when its ctx ended before its fn started.
func (s *Store) groupWrite(ctx context.Context, w *sql.DB, fn writeFn, mode writeMode) error {
	m := &pendingWrite{ctx: ctx, fn: fn, alone: mode == writeOwnTx, stages: mode == writeStages, wake: make(chan struct{}, 1)}
	q := &s.group
	q.mu.Lock()
	if q.leading {
		m.queued = true
		q.waiting = append(q.waiting, m)
		q.mu.Unlock()
		if !s.await(m) {
			return m.result()
		}
	} else {
		q.leading = true
		q.mu.Unlock()
	}
	// m leads: the group is m and whatever queued behind the last one.
	s.lead(ctx, w, m)
	return m.result()
}

// await waits for m's outcome or for m to be chosen to lead, which it
// reports. When m's ctx ends while m is still queued, m leaves the queue
// with ctx's error and nothing written; once a leader took it, m waits for
// the group's outcome.
func (s *Store) await(m *pendingWrite) (lead bool) {
	done := m.ctx.Done()
	for {
		select {
		case <-m.wake:
			return !m.done
		case <-done:
			q := &s.group
			q.mu.Lock()
			if m.queued && !m.lead {
				i := slices.Index(q.waiting, m)
				q.waiting = slices.Delete(q.waiting, i, i+1)
				m.queued = false
				q.mu.Unlock()
				m.done, m.err = true, m.ctx.Err()
				return false
			}
			q.mu.Unlock()
			done = nil // taken by a leader, or leading next: wait for wake
		}
	}
}

// take removes the next group from the queue: leader first when it is
// queued, then the writes behind it in arrival order, up to maxGroup, none
// of them alone unless it is the only one.
func (q *groupQueue) take(leader *pendingWrite) []*pendingWrite {
	q.mu.Lock()
	defer q.mu.Unlock()
	var group []*pendingWrite
	if !leader.queued {
		group = append(group, leader) // the first caller: never queued
	}
	for len(q.waiting) > 0 && len(group) < maxGroup {
		next := q.waiting[0]
		if len(group) > 0 && (next.alone || group[0].alone) {
			break
		}
		q.waiting = q.waiting[1:]
		next.queued = false
		group = append(group, next)
	}
	return group
}

// handOff records the group that ended (its size) for gather, and passes
// the lead to the first queued write, or ends leading when none is
// queued.
func (q *groupQueue) handOff(size int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.last = lastGroup{size: size, ended: time.Now()}
	if len(q.waiting) == 0 {
		q.leading = false
		q.waiting = nil
		return
	}
	next := q.waiting[0]
	next.lead = true
	next.wake <- struct{}{}
}

// lead runs one group with self, the caller, as its leader: it takes the
// group from the queue, runs it (runGroup), hands the lead on and then
// runs the periodic checkpoint and index merge the group's writes were due
// (self's ctx, as the write that was due ran them before). Whatever
// happens, even a panic outside any fn, every member gets its outcome and
// the queue a leader.
func (s *Store) lead(ctx context.Context, w *sql.DB, self *pendingWrite) {
	s.group.gather(self)
	group := s.group.take(self)
	committed, total := 0, uint64(0)
	func() {
		defer func() {
			r := recover()
			for _, m := range group {
				if !m.done {
					s.finish(self, m, errGroupAborted)
				}
			}
			s.group.handOff(len(group))
			if r != nil {
				panic(r)
			}
		}()
		committed, total = s.runGroup(w, self, group)
	}()
	if committed > 0 {
		s.periodic(ctx, total)
	}
}

// errGroupAborted is the outcome of a write whose group's leader failed
// outside any fn (a bug: it is never expected).
var errGroupAborted = errors.New("write group aborted")

// finish sets m's outcome and wakes its caller (the leader, self, is
// running and needs no signal).
func (s *Store) finish(self, m *pendingWrite, err error) {
	m.done, m.err = true, err
	if m != self {
		m.wake <- struct{}{}
	}
}
