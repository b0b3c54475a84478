package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermesstate/hermesstate/internal/backend"
)

// DeleteSession is upstream's delete_session: in one transaction it
// deletes session id, its messages and its delegate children, the
// subagent runs tagged with _delegate_from in their model_config: every
// session whose marker names id or another deleted delegate, or whose
// parent is one of them and that carries any marker, recursively. Other
// children (branches, compression continuations, untagged children)
// become roots (their parent is cleared; grandchildren keep theirs), as do
// untagged children of a deleted delegate. The session_model_usage rows of
// every deleted session go with it (the schema's one cascade); its
// compression lock, gateway routing and async delegation rows are left, as
// upstream leaves them (they name no session by foreign key). A
// model_config that is not JSON marks nothing (upstream's delete fails on
// it). When sessionsDir is not "" the transcript files of every deleted
// session there are removed after the commit: <id>.json, <id>.jsonl and
// request_dump_<id>_*.json (failures ignored).
//
// It returns ErrSessionNotFound (upstream's False), ErrBusy or ErrClosed.
func (s *Store) DeleteSession(ctx context.Context, id, sessionsDir string) (err error) {
	defer wrapOn(&err, "delete session", id)
	var deleted []string
	err = s.writeAll(ctx, func(ctx context.Context, tx backend.Tx) error {
		if err := s.mustExist(ctx, tx, id); err != nil {
			return err
		}
		var err error
		deleted, err = s.deleteWithDelegates(ctx, tx, []string{id})
		return err
	})
	if err != nil {
		return err
	}
	removeFilesOf(sessionsDir, deleted)
	return nil
}

// DeleteSessions deletes the sessions ids (each an exact id; repeats count
// once), their messages and their delegate children in one transaction,
// as DeleteSession deletes one. Either every session is deleted or, when
// one does not exist, none is: the command line deletes exactly what it
// showed. (Upstream's delete_sessions skips unknown ids instead: that is
// DeleteExistingSessions.)
//
// It returns ErrSessionNotFound (naming the first missing id), ErrBusy or
// ErrClosed.
func (s *Store) DeleteSessions(ctx context.Context, ids []string, sessionsDir string) (err error) {
	defer wrap(&err, "delete sessions")
	ids = unique(ids)
	var deleted []string
	err = s.writeAll(ctx, func(ctx context.Context, tx backend.Tx) error {
		for _, id := range ids {
			if err := s.mustExist(ctx, tx, id); err != nil {
				return fmt.Errorf("session %s: %w", quote(id), err)
			}
		}
		var err error
		deleted, err = s.deleteWithDelegates(ctx, tx, ids)
		return err
	})
	if err != nil {
		return err
	}
	removeFilesOf(sessionsDir, deleted)
	return nil
}

// DeleteExistingSessions is upstream's delete_sessions, the bulk delete of
// a selection: of ids (repeats and "" ignored), the sessions that exist
// are deleted with their messages and delegate children, as DeleteSession
// deletes one, all in one transaction; unknown ids are skipped. Archived
// and live sessions are deleted too: the caller picked them. It returns
// how many of ids it deleted (delegate children not counted) and removes
// the transcript files of everything deleted from sessionsDir (when not
// "") after the commit. A list with no id returns 0 without touching the
// database, as upstream's.
//
// It returns ErrBusy or ErrClosed.
func (s *Store) DeleteExistingSessions(ctx context.Context, ids []string, sessionsDir string) (_ int, err error) {
	defer wrap(&err, "delete sessions")
	ids = slices.DeleteFunc(unique(ids), func(id string) bool { return id == "" })
	if len(ids) == 0 {
		return 0, nil // upstream's early return: no write at all
	}
	var deleted []string
	var n int
	err = s.writeAll(ctx, func(ctx context.Context, tx backend.Tx) error {
		var existing []string
		for _, id := range ids {
			ok, err := s.q.SessionExists(ctx, tx, id)
			if err != nil {
				return err
			}
			if ok {
				existing = append(existing, id)
			}
		}
		var err error
		n = len(existing)
		deleted, err = s.deleteWithDelegates(ctx, tx, existing)
		return err
	})
	if err != nil {
		return 0, err
	}
	removeFilesOf(sessionsDir, deleted)
	return n, nil
}

// DeleteSessionIfEmpty is upstream's delete_session_if_empty: it deletes
// session id only when it never gained content, no title, no message
// (rewound and compacted ones count) and no child session, checked and
// deleted in one statement so a message written meanwhile is never lost.
// It reports whether it deleted the session, and then removes its
// transcript files from sessionsDir (when not "").
//
// It returns ErrSessionNotFound (upstream's False), ErrBusy or ErrClosed.
func (s *Store) DeleteSessionIfEmpty(ctx context.Context, id, sessionsDir string) (_ bool, err error) {
	defer wrapOn(&err, "delete session if empty", id)
	var n int64
	err = s.writeAll(ctx, func(ctx context.Context, tx backend.Tx) error {
		if err := s.mustExist(ctx, tx, id); err != nil {
			return err
		}
		var err error
		n, err = s.q.SessionDeleteIfEmpty(ctx, tx, id)
		return err
	})
	if err != nil || n == 0 {
		return false, err
	}
	removeSessionFiles(sessionsDir, id)
	return true, nil
}

// CountEmptySessions is upstream's count_empty_sessions: the sessions
// DeleteEmptySessions would delete now, ended, not archived, with a
// message count of 0.
//
// It returns ErrClosed.
func (s *Store) CountEmptySessions(ctx context.Context) (_ int64, err error) {
	defer wrap(&err, "count empty sessions")
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) (int64, error) {
		return s.q.SessionCountEmpty(ctx, q)
	})
}

// DeleteEmptySessions is upstream's delete_empty_sessions: in one
// transaction it deletes every ended, not archived session whose message
// count is 0 (a live session is never swept; an archived one was kept on
// purpose), with any message rows it still has. Their children become
// roots; delegate children are not deleted with them (upstream's sweep
// does not cascade). It returns how many it deleted and removes their
// transcript files from sessionsDir (when not "") after the commit.
//
// It returns ErrBusy or ErrClosed.
func (s *Store) DeleteEmptySessions(ctx context.Context, sessionsDir string) (_ int, err error) {
	defer wrap(&err, "delete empty sessions")
	return s.deleteSelected(ctx, sessionsDir, s.q.SessionEmptyIDs)
}

// deleteSelected deletes the sessions selectIDs returns, in one write
// transaction (deleteIDs), and removes their transcript files from
// sessionsDir (when not "") after the commit. It returns how many it
// deleted.
func (s *Store) deleteSelected(ctx context.Context, sessionsDir string, selectIDs func(context.Context, backend.Tx) ([]string, error)) (int, error) {
	var ids []string
	err := s.writeAll(ctx, func(ctx context.Context, tx backend.Tx) error {
		var err error
		if ids, err = selectIDs(ctx, tx); err != nil {
			return err
		}
		return s.deleteIDs(ctx, tx, ids)
	})
	if err != nil {
		return 0, err
	}
	removeFilesOf(sessionsDir, ids)
	return len(ids), nil
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

// deleteWithDelegates deletes the sessions ids (which exist) and their
// delegate children (see DeleteSession) in tx, and returns every id it
// deleted: the children first, then ids.
func (s *Store) deleteWithDelegates(ctx context.Context, tx backend.Tx, ids []string) ([]string, error) {
	children, err := s.delegateChildren(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	all := append(children, ids...)
	return all, s.deleteIDs(ctx, tx, all)
}

// delegateChildren is upstream's _collect_delegate_child_ids: the tagged
// sessions to delete with parents, found from the tagged rows as upstream
// finds them, frontier by frontier: a row joins when its _delegate_from
// marker (a JSON string) names a member of the frontier, or when its
// parent is one and it carries any marker. parents are never among the
// children, even when markers loop back to them (#49148). The children
// come in the order found, each once.
func (s *Store) delegateChildren(ctx context.Context, tx backend.Tx, parents []string) ([]string, error) {
	if len(parents) == 0 {
		return nil, nil
	}
	tags, err := s.q.SessionDelegateTags(ctx, tx)
	if err != nil || len(tags) == 0 {
		return nil, err
	}
	found := make(map[string]bool, len(parents))
	for _, id := range parents {
		found[id] = true
	}
	var children []string
	frontier := parents
	for len(frontier) > 0 {
		in := make(map[string]bool, len(frontier))
		for _, id := range frontier {
			in[id] = true
		}
		var next []string
		for _, t := range tags {
			if found[t.ID] {
				continue
			}
			if t.DelegateFromIsText != 0 && in[t.DelegateFrom] || t.ParentSessionID != nil && in[*t.ParentSessionID] {
				found[t.ID] = true
				next = append(next, t.ID)
			}
		}
		children = append(children, next...)
		frontier = next
	}
	return children, nil
}

// deleteIDs deletes the sessions ids and their messages in tx. Every
// surviving session whose parent is deleted becomes a root (its parent is
// cleared), so the foreign key holds; session_model_usage rows go by the
// cascade. Deleting one at a time ends in the state upstream's IN-list
// statements leave.
func (s *Store) deleteIDs(ctx context.Context, tx backend.Tx, ids []string) error {
	for _, id := range ids {
		if _, err := s.q.SessionOrphanChildren(ctx, tx, &id); err != nil {
			return err
		}
		if _, err := s.q.MessageDeleteBySession(ctx, tx, id); err != nil {
			return err
		}
		if _, err := s.q.SessionDelete(ctx, tx, id); err != nil {
			return err
		}
	}
	return nil
}

// removeFilesOf removes the transcript files of every session of ids from
// dir (see removeSessionFiles).
func removeFilesOf(dir string, ids []string) {
	for _, id := range ids {
		removeSessionFiles(dir, id)
	}
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
