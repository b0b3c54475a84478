package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/pytext"
)

// ListOptions select and page the sessions ListSessionsRich returns.
type ListOptions struct {
	// Source keeps one source only; "" keeps all.
	Source string
	// ExcludeSources leaves these sources out.
	ExcludeSources []string
	// Limit is the page size; 0 means 20, the original's default.
	Limit int
	// Offset skips that many sessions (before projection).
	Offset int
	// IncludeChildren lists every session. Otherwise only roots and /branch
	// children are listed; subagent and compression children are hidden.
	IncludeChildren bool
	// RawCompressionRoots turns off the compression-tip projection (the
	// original's project_compression_tips=False).
	RawCompressionRoots bool
}

// RichSession is a session as the session list shows it.
type RichSession struct {
	Session
	// LastActive is the newest message's timestamp, else StartedAt.
	LastActive Timestamp `json:"last_active"`
	// Preview is the first user message, newlines as spaces, trimmed, cut
	// to 60 code points with "..." when longer; "" without one.
	Preview string `json:"preview"`
	// LineageRootID is set on a row projected onto its compression tip: the
	// id of the compressed root whose place in the list the tip takes.
	LineageRootID string `json:"_lineage_root_id,omitempty"`
}

// ListSessionsRich lists sessions newest first (by start), with preview and
// last activity, as the original's list_sessions_rich.
//
// Unless opts.IncludeChildren or opts.RawCompressionRoots is set, a session
// that ended by compression is shown as its compression tip (see
// CompressionTip): the row keeps the root's start, source, parent and token
// counters and its place in the order, and takes the tip's id, end, counts,
// title, last activity, preview, model and system prompt, with
// LineageRootID naming the root. Limit and Offset apply before that
// projection.
//
// It returns ErrClosed.
func (s *Store) ListSessionsRich(ctx context.Context, opts ListOptions) (_ []RichSession, err error) {
	defer wrap(&err, "list sessions")
	p := db.SessionListRichParams{
		Source: nullable(opts.Source),
		Limit:  int64(opts.Limit),
		Offset: int64(opts.Offset),
	}
	if p.Limit == 0 {
		p.Limit = 20
	}
	if opts.IncludeChildren {
		p.IncludeChildren = 1
	}
	if len(opts.ExcludeSources) > 0 {
		p.ExcludeSources = jsonArray(opts.ExcludeSources)
	}
	project := !opts.IncludeChildren && !opts.RawCompressionRoots
	return read(s, ctx, func(ctx context.Context, q db.DBTX) ([]RichSession, error) {
		rows, err := s.q.SessionListRich(ctx, q, p)
		if err != nil {
			return nil, err
		}
		out := make([]RichSession, len(rows))
		for i, r := range rows {
			out[i] = richSession(r.Session, r.PreviewRaw, r.LastActive)
			if project && deref(r.Session.EndReason) == "compression" {
				if err := s.projectTip(ctx, q, &out[i]); err != nil {
					return nil, err
				}
			}
		}
		return out, nil
	})
}

// projectTip overwrites a compression root's row with its tip's values.
func (s *Store) projectTip(ctx context.Context, q db.DBTX, row *RichSession) error {
	tipID, err := s.q.SessionCompressionTip(ctx, q, row.ID)
	if err != nil || tipID == row.ID {
		return err
	}
	r, err := s.q.SessionRichRow(ctx, q, tipID)
	if err != nil {
		return ignoreNoRows(err)
	}
	tip := richSession(r.Session, r.PreviewRaw, r.LastActive)
	root := row.ID
	row.ID = tip.ID
	row.EndedAt = tip.EndedAt
	row.EndReason = tip.EndReason
	row.MessageCount = tip.MessageCount
	row.ToolCallCount = tip.ToolCallCount
	row.Title = tip.Title
	row.LastActive = tip.LastActive
	row.Preview = tip.Preview
	row.Model = tip.Model
	row.SystemPrompt = tip.SystemPrompt
	row.LineageRootID = root
	return nil
}

// richSession shapes a listing row: the preview rule is the original's
// (strip the 63-character SUBSTR, then 60 code points plus "...").
func richSession(r db.Session, previewRaw string, lastActive float64) RichSession {
	raw := pytext.Strip(previewRaw)
	preview := pytext.Truncate(raw, 60)
	if len(preview) < len(raw) {
		preview += "..."
	}
	return RichSession{Session: sessionFromDB(r), LastActive: Timestamp(lastActive), Preview: preview}
}

// ActiveSession is a session with the time of its last activity.
type ActiveSession struct {
	Session
	// LastActive is the newest message's timestamp, else StartedAt.
	LastActive Timestamp `json:"last_active"`
}

// SearchSessions browses every session, children included, most recently
// active first (ties: newer start, then greater id), as the original's
// search_sessions. source "" means all sources; limit 0 means 20.
//
// It returns ErrClosed.
func (s *Store) SearchSessions(ctx context.Context, source string, limit, offset int) (_ []ActiveSession, err error) {
	defer wrap(&err, "search sessions")
	if limit == 0 {
		limit = 20
	}
	return read(s, ctx, func(ctx context.Context, q db.DBTX) ([]ActiveSession, error) {
		rows, err := s.q.SessionBrowse(ctx, q, db.SessionBrowseParams{Source: nullable(source), Limit: int64(limit), Offset: int64(offset)})
		if err != nil {
			return nil, err
		}
		out := make([]ActiveSession, len(rows))
		for i, r := range rows {
			out[i] = ActiveSession{Session: sessionFromDB(r.Session), LastActive: Timestamp(r.LastActive)}
		}
		return out, nil
	})
}

// jsonArray encodes a list of strings as a JSON array for the queries that
// take a list through json_each (one statement whatever the list's length).
func jsonArray(items []string) *string {
	b, _ := json.Marshal(items) // []string always marshals
	s := string(b)
	return &s
}

// ignoreNoRows maps "no row" to nil: the caller treats absence as nothing
// to do.
func ignoreNoRows(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	return err
}
