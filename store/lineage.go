package store

import (
	"context"

	"github.com/hermesstate/hermesstate/db"
)

// CompressionTip returns the newest session of id's compression chain: from
// a session that ended with end reason "compression", the most recently
// started child that started at or after that end, and so on (at most 100
// hops). A child started before its parent ended is a delegate (subagent)
// and is never followed. A session that was not compressed, or an unknown
// id, is its own tip.
//
// It returns ErrClosed.
func (s *Store) CompressionTip(ctx context.Context, id string) (_ string, err error) {
	defer wrapOn(&err, "compression tip of", id)
	return read(s, ctx, func(ctx context.Context, q db.DBTX) (string, error) {
		return s.q.SessionCompressionTip(ctx, q, id)
	})
}

// ResolveResumeSessionID returns the session a resume of id should open:
// id itself when it has messages; otherwise the first session with messages
// found by stepping to the most recently started child (any end reason), at
// most 32 steps; otherwise id. An empty id is returned as it is.
//
// It returns ErrClosed; any other failure returns id, as the original does.
func (s *Store) ResolveResumeSessionID(ctx context.Context, id string) (_ string, err error) {
	defer wrapOn(&err, "resolve resume of", id)
	if id == "" {
		return id, nil
	}
	return read(s, ctx, func(ctx context.Context, q db.DBTX) (string, error) {
		steps, err := s.q.SessionResumeWalk(ctx, q, id)
		if err != nil {
			return id, nil // the original answers the input on any error
		}
		seen := make(map[string]bool, len(steps))
		for i, st := range steps {
			if seen[st.ID] || (i > 0 && st.ID == "") {
				break
			}
			seen[st.ID] = true
			if st.HasMessages != 0 {
				return st.ID, nil
			}
		}
		return id, nil
	})
}

// Lineage returns the chain of sessions from the root ancestor down to id:
// [root, …, parent, id], following parent_session_id at most 100 hops and
// stopping at a cycle. An unknown id gives [id].
//
// It returns ErrClosed.
func (s *Store) Lineage(ctx context.Context, id string) (_ []string, err error) {
	defer wrapOn(&err, "lineage of", id)
	return read(s, ctx, func(ctx context.Context, q db.DBTX) ([]string, error) {
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
	return read(s, ctx, func(ctx context.Context, q db.DBTX) ([]LineageNode, error) {
		return s.ancestors(ctx, q, id)
	})
}

// ancestors runs the recursive ancestor query and cuts it at the first
// repeated session (the query itself only bounds the depth).
func (s *Store) ancestors(ctx context.Context, q db.DBTX, id string) ([]LineageNode, error) {
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
	return read(s, ctx, func(ctx context.Context, q db.DBTX) ([]LineageNode, error) {
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
