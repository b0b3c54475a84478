package store

import (
	"context"

	"github.com/hermesstate/hermesstate/internal/backend"
)

// CompressionTip returns the newest session of id's compression chain, as
// upstream's get_compression_tip: from a session that ended with end reason
// "compression", one of its continuation children, and so on (at most 100
// steps, stopping before a session met again). A continuation child is any
// child of such a parent except a /branch child (the _branched_from
// marker), a delegate (the _delegate_from marker) and a "tool" session;
// of several, the one that itself ended by compression is followed, else a
// live one (not ended), else the one active last (newest message, else
// start), then the latest started, then the greatest id. A child may have
// started before its parent ended: continuations race their parent's end.
// A session that was not compressed, or an unknown id, is its own tip.
//
// It returns ErrClosed.
func (s *Store) CompressionTip(ctx context.Context, id string) (_ string, err error) {
	defer wrapOn(&err, "compression tip of", id)
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) (string, error) {
		return s.compressionTip(ctx, q, id)
	})
}

// compressionTip is CompressionTip inside q's transaction.
func (s *Store) compressionTip(ctx context.Context, q backend.Tx, id string) (string, error) {
	walk, err := s.q.SessionCompressionWalk(ctx, q, id)
	if err != nil {
		return "", err
	}
	return walkEnd(id, walk), nil
}

// walkEnd is the last session of a walk that starts at id before the first
// session met again (a parent cycle written by hand). Like upstream, an
// empty id does not count as met.
func walkEnd(id string, walk []string) string {
	seen := map[string]bool{}
	if id != "" {
		seen[id] = true
	}
	end := id
	for _, next := range walk[min(1, len(walk)):] {
		if seen[next] {
			break
		}
		seen[next] = true
		end = next
	}
	return end
}

// ResolveResumeSessionID returns the session a resume of id should open, as
// upstream's resolve_resume_session_id: first id's compression tip (see
// CompressionTip); then, from there, the deepest session holding messages
// (any, rewound and compacted ones included) along the path that steps to
// the most recently started child (ties: greatest id), 32 sessions at
// most, stopping before a session met again; the tip itself when none
// holds one. The path never enters a /branch child, a delegate
// (_delegate_from) or a "tool" session. A /branch child is one carrying the
// _branched_from marker or, unlike upstream (which recognises only the
// marker there), one whose parent ended "branched" before it started, as
// the session list tells branches: a branch made before the marker existed
// is not a continuation of its parent. An empty id is returned as it is.
//
// It returns ErrClosed, or the database's error (ErrCorrupt, say) where
// upstream answers the id it was given.
func (s *Store) ResolveResumeSessionID(ctx context.Context, id string) (_ string, err error) {
	defer wrapOn(&err, "resolve resume of", id)
	if id == "" {
		return id, nil
	}
	return read(s, ctx, func(ctx context.Context, q backend.Tx) (string, error) {
		tip, err := s.compressionTip(ctx, q, id)
		if err != nil {
			return "", err
		}
		steps, err := s.q.SessionResumeWalk(ctx, q, tip)
		if err != nil {
			return "", err
		}
		best := tip
		seen := make(map[string]bool, len(steps))
		for _, st := range steps {
			if seen[st.ID] {
				break
			}
			seen[st.ID] = true
			if st.HasMessages != 0 {
				best = st.ID
			}
		}
		return best, nil
	})
}

// CompressionLineage returns id's compression chain in order, root first:
// the sessions before id reached by walking up continuation edges (a
// parent that ended by compression, a child that is no /branch child,
// delegate or "tool" session: CompressionTip's edges), then the path
// CompressionTip follows from that root to the tip. When id is not on that
// path (a continuation the tip walk passed over) it is [id] alone. Each
// walk stops after 100 steps and before a session met again.
//
// Upstream's get_compression_lineage walks down to each parent's earliest
// started child that lacks only the _branched_from marker, so a delegate
// started before the compression takes the continuation's place (and a
// lineage through it ends there), and it answers [id] for any session
// carrying that marker; this follows CompressionTip instead, so a
// lineage ends at the tip the session list shows.
//
// It returns ErrNotFound for an unknown id, or ErrClosed.
func (s *Store) CompressionLineage(ctx context.Context, id string) (_ []string, err error) {
	defer wrapOn(&err, "compression lineage of", id)
	return read(s, ctx, func(ctx context.Context, q backend.Tx) ([]string, error) {
		return s.compressionLineage(ctx, q, id)
	})
}

// compressionLineage is CompressionLineage inside q's transaction, for the
// export of a lineage.
func (s *Store) compressionLineage(ctx context.Context, q backend.Tx, id string) ([]string, error) {
	up, err := s.q.SessionCompressionAncestors(ctx, q, id)
	if err != nil {
		return nil, err
	}
	if len(up) == 0 {
		return nil, ErrNotFound
	}
	root := walkEnd(id, up)
	down, err := s.q.SessionCompressionWalk(ctx, q, root)
	if err != nil {
		return nil, err
	}
	lineage := []string{}
	seen := map[string]bool{}
	for _, sid := range down {
		if seen[sid] {
			break
		}
		seen[sid] = true
		lineage = append(lineage, sid)
	}
	if !seen[id] {
		return []string{id}, nil
	}
	return lineage, nil
}

// Lineage returns the chain of sessions from the root ancestor down to id:
// [root, …, parent, id], following parent_session_id at most 100 hops and
// stopping at a cycle. An unknown id gives [id].
//
// It returns ErrClosed.
func (s *Store) Lineage(ctx context.Context, id string) (_ []string, err error) {
	defer wrapOn(&err, "lineage of", id)
	return read(s, ctx, func(ctx context.Context, q backend.Tx) ([]string, error) {
		nodes, err := s.ancestors(ctx, q, id)
		if err != nil {
			return nil, err
		}
		if len(nodes) == 0 {
			return []string{id}, nil
		}
		chain := make([]string, len(nodes))
		for i, n := range nodes {
			chain[len(nodes)-1-i] = n.ID
		}
		return chain, nil
	})
}

// LineageNode is one session of an ancestor or descendant walk.
type LineageNode struct {
	ID              string
	Title           *string
	StartedAt       Timestamp
	ParentSessionID *string
	// Depth is the distance from the session the walk started at: 0 for
	// itself, 1 for its parent (or children), and so on.
	Depth int
}

// Ancestors returns id and its ancestors, nearest first (depth 0 is id),
// at most 100 levels up; a cycle stops at the first repeated session. An
// unknown id gives none.
//
// It returns ErrClosed.
func (s *Store) Ancestors(ctx context.Context, id string) (_ []LineageNode, err error) {
	defer wrapOn(&err, "ancestors of", id)
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) ([]LineageNode, error) {
		return s.ancestors(ctx, q, id)
	})
}

// ancestors runs the recursive ancestor query and cuts it at the first
// repeated session (the query itself only bounds the depth).
func (s *Store) ancestors(ctx context.Context, q backend.Tx, id string) ([]LineageNode, error) {
	rows, err := s.q.SessionAncestors(ctx, q, id)
	if err != nil {
		return nil, err
	}
	out := []LineageNode{}
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r.ID] {
			break
		}
		seen[r.ID] = true
		out = append(out, LineageNode{ID: r.ID, Title: r.Title, StartedAt: Timestamp(r.StartedAt.Float64), ParentSessionID: r.ParentSessionID, Depth: int(r.Depth)})
	}
	return out, nil
}

// Descendants returns id and every session below it, level by level
// (depth 0 is id; within a level, oldest first), at most 100 levels down,
// each session once even where a hand-made cycle leads back to it. An
// unknown id gives none.
//
// It returns ErrClosed.
func (s *Store) Descendants(ctx context.Context, id string) (_ []LineageNode, err error) {
	defer wrapOn(&err, "descendants of", id)
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) ([]LineageNode, error) {
		rows, err := s.q.SessionDescendants(ctx, q, id)
		if err != nil {
			return nil, err
		}
		out := []LineageNode{}
		seen := map[string]bool{}
		for _, r := range rows {
			if !seen[r.ID] { // a hand-made cycle repeats sessions until the depth bound
				seen[r.ID] = true
				out = append(out, LineageNode{ID: r.ID, Title: r.Title, StartedAt: Timestamp(r.StartedAt.Float64), ParentSessionID: r.ParentSessionID, Depth: int(r.Depth)})
			}
		}
		return out, nil
	})
}
