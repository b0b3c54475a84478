package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// DeleteSession deletes session id and its messages in one transaction. Its
// direct children become roots (their parent is cleared; grandchildren keep
// theirs), since the schema has no cascades. When sessionsDir is not "" the
// session's transcript files there are removed after the commit:
// <id>.json, <id>.jsonl and request_dump_<id>_*.json (failures ignored).
//
// It returns ErrSessionNotFound, ErrBusy or ErrClosed.
func (s *Store) DeleteSession(ctx context.Context, id, sessionsDir string) (err error) {
	defer wrapOn(&err, "delete session", id)
	err = s.write(ctx, func(ctx context.Context, tx db.DBTX) error {
		if err := s.mustExist(ctx, tx, id); err != nil {
			return err
		}
		return s.deleteSession(ctx, tx, id)
	})
	if err != nil {
		return err
	}
	removeSessionFiles(sessionsDir, id)
	return nil
}

// DeleteSessions deletes the sessions ids (each an exact id; repeats count
// once) and their messages in one transaction, as DeleteSession deletes
// one: their direct children become roots, and their transcript files in
// sessionsDir (when not "") are removed after the commit. Either every
// session is deleted or, when one does not exist, none is.
//
// It returns ErrSessionNotFound (naming the first missing id), ErrBusy or
// ErrClosed.
func (s *Store) DeleteSessions(ctx context.Context, ids []string, sessionsDir string) (err error) {
	defer wrap(&err, "delete sessions")
	ids = unique(ids)
	err = s.write(ctx, func(ctx context.Context, tx db.DBTX) error {
		for _, id := range ids {
			if err := s.mustExist(ctx, tx, id); err != nil {
				return fmt.Errorf("session %s: %w", quote(id), err)
			}
			if err := s.deleteSession(ctx, tx, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		removeSessionFiles(sessionsDir, id)
	}
	return nil
}

// unique returns ids without repeats, in their first order.
func unique(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// deleteSession orphans the children of id and deletes its messages and row.
func (s *Store) deleteSession(ctx context.Context, tx db.DBTX, id string) error {
	if _, err := s.q.SessionOrphanChildren(ctx, tx, &id); err != nil {
		return err
	}
	if _, err := s.q.MessageDeleteBySession(ctx, tx, id); err != nil {
		return err
	}
	_, err := s.q.SessionDelete(ctx, tx, id)
	return err
}

// PruneOptions select the sessions PruneSessions deletes.
type PruneOptions struct {
	// OlderThan is the age, by start time, a session must exceed; zero
	// means 90 days, the original's default.
	OlderThan time.Duration
	// Before, when not zero, is the time a session must have started
	// before, in place of OlderThan.
	Before time.Time
	// Source limits pruning to one source; "" prunes every source.
	Source string
	// IDs, when not nil, limits pruning to these sessions: of the sessions
	// the other options select, only those listed are deleted. A prune a
	// person confirmed from PruneCandidates' list passes that list here,
	// so that no session is deleted that was not shown, even one that
	// became old enough while they read it.
	IDs []string
	// SessionsDir, when not "", is where the pruned sessions' transcript
	// files are removed (as DeleteSession does).
	SessionsDir string
	// DryRun counts the sessions that would be pruned and deletes nothing
	// (no write lock is taken).
	DryRun bool
}

// cutoff is the start time, in epoch seconds, before which sessions are
// pruned.
func (o PruneOptions) cutoff(now float64) float64 {
	if !o.Before.IsZero() {
		return float64(TimestampOf(o.Before))
	}
	age := o.OlderThan
	if age == 0 {
		age = 90 * 24 * time.Hour
	}
	return now - age.Seconds()
}

// PruneSessions deletes, in one transaction, every ended session that
// started more than opts.OlderThan ago (or before opts.Before), with its
// messages, and returns how many it deleted. Active (not ended) sessions
// are never pruned. Surviving children of a pruned session become roots,
// so a chain A→B→C→D with A and B old loses A and B, and C's parent is
// cleared while D keeps C.
//
// With opts.DryRun it returns how many sessions would be deleted, read in
// one snapshot, and changes nothing.
//
// It returns ErrBusy or ErrClosed.
func (s *Store) PruneSessions(ctx context.Context, opts PruneOptions) (_ int, err error) {
	defer wrap(&err, opts.op())
	return s.pruneSessions(ctx, opts)
}

// op names the prune opts describe in an error.
func (o PruneOptions) op() string {
	if o.DryRun {
		return "prune sessions (dry run)"
	}
	return "prune sessions"
}

// pruneSessions is PruneSessions.
func (s *Store) pruneSessions(ctx context.Context, opts PruneOptions) (int, error) {
	if opts.DryRun {
		ids, err := read(s, ctx, func(ctx context.Context, q db.DBTX) ([]string, error) {
			return s.pruneCandidates(ctx, q, opts)
		})
		return len(ids), err
	}
	var ids []string
	err := s.write(ctx, func(ctx context.Context, tx db.DBTX) error {
		var err error
		ids, err = s.pruneCandidates(ctx, tx, opts)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := s.deleteSession(ctx, tx, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, id := range ids {
		removeSessionFiles(opts.SessionsDir, id)
	}
	return len(ids), nil
}

// PruneCandidates returns the sessions PruneSessions(ctx, opts) would
// delete now, oldest first, read in one snapshot; it changes nothing.
//
// It returns ErrClosed.
func (s *Store) PruneCandidates(ctx context.Context, opts PruneOptions) (_ []Session, err error) {
	defer wrap(&err, "list prune candidates")
	return read(s, ctx, func(ctx context.Context, q db.DBTX) ([]Session, error) {
		ids, err := s.pruneCandidates(ctx, q, opts)
		if err != nil {
			return nil, err
		}
		out := make([]Session, 0, len(ids))
		for _, id := range ids {
			sess, err := foundSession(s.q.SessionGet(ctx, q, id))
			if err != nil {
				return nil, err
			}
			out = append(out, *sess)
		}
		return out, nil
	})
}

// pruneCandidates lists the ids of the sessions opts selects, oldest
// first.
func (s *Store) pruneCandidates(ctx context.Context, q db.DBTX, opts PruneOptions) ([]string, error) {
	ids, err := s.q.SessionPruneCandidates(ctx, q, db.SessionPruneCandidatesParams{
		Cutoff: sqlnum.RealOf(opts.cutoff(s.now())), Source: nullable(opts.Source)})
	if err != nil || opts.IDs == nil {
		return ids, err
	}
	listed := make(map[string]bool, len(opts.IDs))
	for _, id := range opts.IDs {
		listed[id] = true
	}
	return slices.DeleteFunc(ids, func(id string) bool { return !listed[id] }), nil
}

// removeSessionFiles removes a session's transcript files from dir, when
// dir is not "". Missing files and removal errors are ignored, as in the
// original: the database row is already gone.
//
// Unlike the original, an id that is not a plain file name (one holding a
// path separator, or "." / "..") removes nothing, and glob characters in an
// id are matched literally: a session id must never reach files outside its
// own transcripts.
func removeSessionFiles(dir, id string) {
	if dir == "" || id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) {
		return
	}
	paths := []string{filepath.Join(dir, id+".json"), filepath.Join(dir, id+".jsonl")}
	dumps, _ := filepath.Glob(filepath.Join(dir, "request_dump_"+globEscape(id)+"_*.json"))
	for _, p := range append(paths, dumps...) {
		_ = os.Remove(p) // best effort, see above
	}
}

// globEscape quotes the glob metacharacters of a session id so
// filepath.Glob matches it literally.
func globEscape(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		switch r {
		case '*', '?', '[', '\\':
			out = append(out, '\\')
		}
		out = append(out, r)
	}
	return string(out)
}
