package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
func (s *Store) DeleteSession(ctx context.Context, id, sessionsDir string) error {
	err := s.write(ctx, func(ctx context.Context, tx db.DBTX) error {
		if err := s.mustExist(ctx, tx, id); err != nil {
			return err
		}
		return s.deleteSession(ctx, tx, id)
	})
	if err != nil {
		return fmt.Errorf("store: delete session %q: %w", id, err)
	}
	removeSessionFiles(sessionsDir, id)
	return nil
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
	// Source limits pruning to one source; "" prunes every source.
	Source string
	// SessionsDir, when not "", is where the pruned sessions' transcript
	// files are removed (as DeleteSession does).
	SessionsDir string
	// DryRun counts the sessions that would be pruned and deletes nothing
	// (no write lock is taken).
	DryRun bool
}

// PruneSessions deletes, in one transaction, every ended session that
// started more than opts.OlderThan ago, with its messages, and returns how
// many it deleted. Active (not ended) sessions are never pruned. Surviving
// children of a pruned session become roots, so a chain A→B→C→D with A and B
// old loses A and B, and C's parent is cleared while D keeps C.
//
// With opts.DryRun it returns how many sessions would be deleted, read in
// one snapshot, and changes nothing.
//
// It returns ErrBusy or ErrClosed.
func (s *Store) PruneSessions(ctx context.Context, opts PruneOptions) (int, error) {
	age := opts.OlderThan
	if age == 0 {
		age = 90 * 24 * time.Hour
	}
	candidates := db.SessionPruneCandidatesParams{Cutoff: sqlnum.RealOf(s.now() - age.Seconds()), Source: nullable(opts.Source)}
	if opts.DryRun {
		ids, err := read(s, ctx, func(ctx context.Context, q db.DBTX) ([]string, error) {
			return s.q.SessionPruneCandidates(ctx, q, candidates)
		})
		if err != nil {
			return 0, fmt.Errorf("store: prune sessions (dry run): %w", err)
		}
		return len(ids), nil
	}
	var ids []string
	err := s.write(ctx, func(ctx context.Context, tx db.DBTX) error {
		var err error
		ids, err = s.q.SessionPruneCandidates(ctx, tx, candidates)
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
		return 0, fmt.Errorf("store: prune sessions: %w", err)
	}
	for _, id := range ids {
		removeSessionFiles(opts.SessionsDir, id)
	}
	return len(ids), nil
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
