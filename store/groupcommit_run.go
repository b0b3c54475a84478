package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// runGroup runs the writes of group and sets every member's outcome:
// in a group of several, a member whose ctx has ended gets ctx's error with
// nothing written; a single write runs as it always did, in one transaction bound to its
// caller's ctx (runOwn); two or more share one (groupRun). It returns how
// many writes committed and countCommit's count after them.
func (s *Store) runGroup(w *sql.DB, self *pendingWrite, group []*pendingWrite) (int, uint64) {
	if len(group) == 1 {
		// Exactly the direct path, errors included (an ended ctx fails
		// its BEGIN).
		return s.runOwn(w, self, group[0])
	}
	live := make([]*pendingWrite, 0, len(group))
	for _, m := range group {
		if err := m.ctx.Err(); err != nil {
			s.finish(self, m, err)
			continue
		}
		live = append(live, m)
	}
	switch len(live) {
	case 0:
		return 0, 0
	case 1:
		return s.runOwn(w, self, live[0])
	}
	// The transaction belongs to no caller: database/sql rolls a Tx back
	// when the ctx it began with ends, which would undo the others' writes.
	// Each fn's statements run with its caller's ctx.
	r := &groupRun{s: s, w: w, self: self, ctx: context.WithoutCancel(live[0].ctx), live: live}
	return r.run()
}

// runOwn runs m alone in one BEGIN IMMEDIATE … COMMIT with m's ctx,
// retried while the file is locked: the direct path, what every write did
// before group commit. It returns 1 and countCommit's count when m
// committed, else 0, 0.
func (s *Store) runOwn(w *sql.DB, self, m *pendingWrite) (int, uint64) {
	if err := sqlite.WriteTx(m.ctx, w, s.retry, m.call); err != nil {
		s.fail(self, m, err)
		return 0, 0
	}
	n := s.countCommit(1)
	s.finish(self, m, nil)
	return 1, n
}

// fail is finish with an error, counted in BusyFailures when it is ErrBusy.
func (s *Store) fail(self, m *pendingWrite, err error) {
	if errors.Is(err, sqlite.ErrBusy) {
		s.stats.busy.Add(1)
	}
	s.finish(self, m, err)
}

// countCommit counts one committed transaction holding k writes and
// returns the count of committed transactions with it, which the periodic
// maintenance follows (see periodic). It runs before any of their callers
// is told, so Stats after a write returned counts it.
func (s *Store) countCommit(k int) uint64 {
	s.stats.writes.Add(uint64(k))
	return s.stats.groups.Add(1)
}

// groupRun is one group of two or more writes sharing a transaction.
type groupRun struct {
	s    *Store
	w    *sql.DB
	self *pendingWrite   // the leader
	ctx  context.Context // the transaction's: without any caller's cancellation
	// live are the members whose outcome is not known yet, in arrival
	// order.
	live []*pendingWrite
	// committed and total are set when a commit succeeded: how many
	// writes it held, and countCommit's count after them.
	committed int
	total     uint64
	// unstaged is set once inserting the staged messages failed: the
	// group's attempts from then on insert each message itself.
	unstaged bool
}

// run runs the group's attempts under the store's retry policy: a busy
// BEGIN, fn or COMMIT rolls the whole group back and, after the usual
// random sleep, runs every fn of it again (minus the callers whose ctx
// ended meanwhile, who get ctx's error with nothing written), up to
// Options.WriteAttempts times. When the attempts run out every member
// gets ErrBusy; any other failure of BEGIN or COMMIT fails every member,
// leaving the database as it was.
func (r *groupRun) run() (int, uint64) {
	var last error
	err := r.s.retry.Do(r.ctx, func(context.Context) error {
		if last != nil {
			r.dropEnded(last)
		}
		for len(r.live) > 0 {
			err, restart := r.attempt()
			if !restart {
				last = err
				return err
			}
		}
		return nil
	})
	if err != nil {
		err = sqlite.Classify(err)
		for _, m := range r.live {
			r.s.fail(r.self, m, err)
		}
	}
	return r.committed, r.total
}

// dropEnded gives every live member whose ctx ended while the group waited
// to retry ctx's error, wrapping the last attempt's (as a lone write's
// retry reports it), and removes it from the group: nothing of it is
// written.
func (r *groupRun) dropEnded(last error) {
	keep := r.live[:0]
	for _, m := range r.live {
		if err := m.ctx.Err(); err != nil {
			r.s.finish(r.self, m, fmt.Errorf("%w (last attempt: %w)", err, sqlite.Classify(last)))
			continue
		}
		keep = append(keep, m)
	}
	r.live = keep
}

// attempt runs the live members' fns in one transaction, each in its own
// savepoint, and commits the ones that succeeded. It returns the error that
// ends the attempt for every member (a busy one is retried by run), or
// restart when one member's failure took the transaction with it (SQLite
// rolls a whole transaction back after some errors, e.g. an interrupted
// statement or a full disk): that member gets its error and the others run
// again at once in a new transaction, which uses no attempt.
func (r *groupRun) attempt() (err error, restart bool) {
	if r.s.beforeGroupBegin != nil {
		r.s.beforeGroupBegin()
	}
	tx, err := r.w.BeginTx(r.ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err), false
	}
	kept := make([]*pendingWrite, 0, len(r.live))
	errs := make([]error, 0, len(r.live))
	var st *stager
	if !r.unstaged && !r.s.stageRefused.Load() {
		st = &stager{}
	}
	ok := 0
	for i, m := range r.live {
		if err := m.ctx.Err(); err != nil {
			// Its caller gave up before its fn started: nothing of it is
			// in the transaction.
			r.s.finish(r.self, m, err)
			continue
		}
		if st != nil && !m.stages {
			// A write that is not an append sees the messages staged
			// before it, as in serial order.
			if err, restart := r.flushStaged(tx, st); err != nil || restart {
				r.live = append(kept, r.live[i:]...)
				return err, restart
			}
		}
		ferr, txErr := r.runOne(tx, m, st)
		switch {
		case txErr != nil:
			_ = tx.Rollback()
			if ferr == nil {
				ferr = txErr
			}
			r.s.fail(r.self, m, sqlite.Classify(ferr))
			r.live = append(kept, r.live[i+1:]...)
			return nil, true
		case sqlite.IsBusy(ferr):
			_ = tx.Rollback()
			r.live = append(kept, r.live[i:]...)
			return ferr, false
		case m.panicked != nil:
			// Rolled back to its savepoint; its caller panics again.
			r.s.finish(r.self, m, ferr)
			continue
		}
		kept = append(kept, m)
		errs = append(errs, ferr)
		if ferr == nil {
			ok++
		}
	}
	r.live = kept
	if st != nil {
		if err, restart := r.flushStaged(tx, st); err != nil || restart {
			return err, restart
		}
	}
	if ok == 0 {
		_ = tx.Rollback()
	} else if err := tx.Commit(); err != nil {
		// The driver rolls back a failed COMMIT: nothing of the group is
		// written. A busy one is retried, any other fails every member.
		return fmt.Errorf("commit: %w", err), false
	} else {
		r.committed, r.total = ok, r.s.countCommit(ok)
	}
	for j, m := range kept {
		if errs[j] != nil {
			r.s.fail(r.self, m, sqlite.Classify(errs[j]))
		} else {
			r.s.finish(r.self, m, nil)
		}
	}
	r.live = nil
	return nil, false
}

// runOne runs m's fn inside a savepoint of tx, released when the fn
// succeeded and rolled back to when it failed, so a failed write leaves
// nothing while the others' stay. It returns the fn's error, and txErr when
// a savepoint statement failed: then the transaction cannot be trusted
// (SQLite rolled it back, and a later statement would run outside it), and
// the caller discards it. A busy fn is not rolled back to: the whole
// transaction is.
func (r *groupRun) runOne(tx *sql.Tx, m *pendingWrite, st *stager) (ferr, txErr error) {
	if _, err := tx.ExecContext(r.ctx, savepointSQL); err != nil {
		return nil, fmt.Errorf("savepoint: %w", err)
	}
	ferr = m.callWith(m.ctx, tx, st)
	switch {
	case ferr == nil:
		if _, err := tx.ExecContext(r.ctx, releaseSQL); err != nil {
			return nil, fmt.Errorf("release savepoint: %w", err)
		}
		return nil, nil
	case sqlite.IsBusy(ferr):
		return ferr, nil
	}
	if _, err := tx.ExecContext(r.ctx, rollbackToSQL); err != nil {
		return ferr, fmt.Errorf("rollback to savepoint: %w", err)
	}
	if _, err := tx.ExecContext(r.ctx, releaseSQL); err != nil {
		return ferr, fmt.Errorf("release savepoint: %w", err)
	}
	return ferr, nil
}

// flushStaged inserts the messages staged so far (groupcommit_stage.go).
// When that fails, the transaction is rolled back: a busy INSERT is
// returned, to retry the group as any busy statement; any other failure
// restarts the group at once with staging off, so that each append runs
// its own INSERT and gets its own outcome (the caller puts the members
// back in r.live).
func (r *groupRun) flushStaged(tx *sql.Tx, st *stager) (err error, restart bool) {
	ferr := st.flush(r.ctx, r.s, tx)
	if ferr == nil {
		return nil, false
	}
	_ = tx.Rollback()
	if sqlite.IsBusy(ferr) {
		return ferr, false
	}
	r.unstaged = true
	return nil, true
}
