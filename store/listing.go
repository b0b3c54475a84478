package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/pytext"
)

// ListOptions select, order and page the sessions ListSessionsRich returns:
// upstream's list_sessions_rich keyword arguments, each zero value being
// upstream's default.
type ListOptions struct {
	// Source keeps one source only; "" keeps all.
	Source string
	// ExcludeSources leaves these sources out.
	ExcludeSources []string
	// CwdPrefix keeps the sessions whose cwd is the prefix or lies below it
	// (after "/" or "\"); trailing slashes and backslashes of the prefix
	// are ignored, unless it is nothing else. As upstream, the prefix is a
	// LIKE pattern: its % and _ are wildcards and ASCII letters match either
	// case. "" keeps all.
	CwdPrefix string
	// Limit is the page size; 0 means 20, the original's default, and a
	// negative limit lists every session.
	Limit int
	// Offset skips that many sessions (before projection).
	Offset int
	// IncludeChildren lists every session, delegate (subagent), compression
	// and tool children included, and turns off the projection. Otherwise
	// only roots and /branch children are listed (a child carrying the
	// _branched_from marker, or whose parent ended "branched" before it
	// started), and never a session whose model_config carries the
	// _delegate_from marker, even one whose parent is gone. One marker
	// value is not taken for a delegate, unlike upstream: "__orphaned__",
	// the v16 migration's guess on every untitled, childless root of at
	// most 25 messages holding a tool message, which hides real
	// conversations; such a session is listed as before the migration. A
	// model_config that is not JSON carries no marker (upstream's listing
	// fails on it).
	IncludeChildren bool
	// MinMessageCount keeps the sessions with at least that many messages
	// (message_count); 0 or less keeps all.
	MinMessageCount int
	// RawCompressionRoots turns off the compression-tip projection (the
	// original's project_compression_tips=False).
	RawCompressionRoots bool
	// OrderByLastActive orders by the newest activity along each row's
	// compression chain (its own and its continuations' newest message,
	// else start), then by start, instead of by start.
	OrderByLastActive bool
	// IncludeArchived lists archived sessions too; ArchivedOnly lists only
	// them. By default archived sessions are left out.
	IncludeArchived bool
	ArchivedOnly    bool
	// IDQuery keeps a row when its id, or the id of any session of its
	// compression chain, contains the query (trimmed, case-insensitive as
	// upstream: Python's lowercasing of the query against SQLite's ASCII
	// lowercasing of the ids). "" keeps all.
	IDQuery string
	// SearchQuery is IDQuery over the ids and titles of the chain, and
	// also matches a title with "-", "_", "." and " " taken out against
	// the query's letters and digits (so "an94" finds "AN-94"). "" keeps
	// all.
	//
	// Upstream honours IDQuery and SearchQuery only together with
	// OrderByLastActive and silently ignores them otherwise; the store
	// honours them in either order.
	SearchQuery string
	// CompactRows leaves SystemPrompt nil, the original's compact_rows
	// (every column but system_prompt).
	CompactRows bool
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

// ListSessionsRich lists sessions newest first (by start, or by activity
// with opts.OrderByLastActive), with preview and last activity, as the
// original's list_sessions_rich. Previews and activity count every
// message, rewound and compacted ones included, as upstream.
//
// Unless opts.IncludeChildren or opts.RawCompressionRoots is set, a session
// that ended by compression is shown as its compression tip (see
// CompressionTip): the row keeps the root's place in the order, start,
// source, parent, token counters and the rest, and takes the tip's id, end,
// message and tool-call counts, title, last activity, preview, model,
// system prompt and workspace (cwd, git branch and repository root), with
// LineageRootID naming the root. Limit and Offset apply before that
// projection.
//
// It returns ErrClosed, or ctx's error (at once, with a query or a cwd
// prefix, even inside a long match) when ctx ends first.
func (s *Store) ListSessionsRich(ctx context.Context, opts ListOptions) (_ []RichSession, err error) {
	defer wrap(&err, "list sessions")
	return s.listSessionsRich(ctx, opts)
}

// listSessionsRich is ListSessionsRich.
func (s *Store) listSessionsRich(ctx context.Context, opts ListOptions) ([]RichSession, error) {
	f := newListFilter(!opts.IncludeChildren, opts.Source, opts.ExcludeSources, opts.CwdPrefix,
		opts.MinMessageCount, opts.IncludeArchived, opts.ArchivedOnly)
	limit := int64(opts.Limit)
	if limit == 0 {
		limit = 20
	}
	idNeedle, searchNeedle := listNeedle(opts.IDQuery), listNeedle(opts.SearchQuery)
	chain := opts.OrderByLastActive || idNeedle != nil || searchNeedle != nil
	project := !opts.IncludeChildren && !opts.RawCompressionRoots
	// A query or a cwd prefix is matched with instr() or LIKE, quadratic
	// over a huge stored id, title or cwd and not interruptible inside one
	// call: such a listing answers ctx's end at once (see readUntilDone).
	reader := read[[]RichSession]
	if idNeedle != nil || searchNeedle != nil || f.cwdPrefix != nil {
		reader = readUntilDone[[]RichSession]
	}
	// Without the chain query (two statements) and the tip projection (two
	// more per compression root) the listing is one statement, its own
	// snapshot: no transaction.
	if !chain && !project {
		reader = readOne[[]RichSession]
		if f.cwdPrefix != nil {
			reader = readOneUntilDone[[]RichSession]
		}
	}
	return reader(s, ctx, func(ctx context.Context, q backend.Tx) ([]RichSession, error) {
		var rows []db.SessionListRichRow
		var err error
		if chain {
			rows, err = s.listByChain(ctx, q, f, idNeedle, searchNeedle, opts.OrderByLastActive, limit, int64(opts.Offset))
		} else {
			rows, err = s.q.SessionListRich(ctx, q, db.SessionListRichParams{
				IncludeChildren: f.includeChildren, Source: f.source, ExcludeSources: f.excludeSources,
				CwdPrefix: f.cwdPrefix, CwdLikeSlash: f.cwdLikeSlash, CwdLikeBackslash: f.cwdLikeBackslash,
				MinMessageCount: f.minMessageCount, Archived: f.archived,
				Limit: limit, Offset: int64(opts.Offset),
			})
		}
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
			if opts.CompactRows {
				out[i].SystemPrompt = nil
			}
		}
		return out, nil
	})
}

// listByChain is the order_by_last_active listing: the page's rowids from
// the chain query, then their rows, in q's one snapshot.
func (s *Store) listByChain(ctx context.Context, q backend.Tx, f listFilter, idNeedle, searchNeedle *string, byLastActive bool, limit, offset int64) ([]db.SessionListRichRow, error) {
	p := db.SessionListRichChainParams{
		IncludeChildren: f.includeChildren, Source: f.source, ExcludeSources: f.excludeSources,
		CwdPrefix: f.cwdPrefix, CwdLikeSlash: f.cwdLikeSlash, CwdLikeBackslash: f.cwdLikeBackslash,
		MinMessageCount: f.minMessageCount, Archived: f.archived,
		IDNeedle: idNeedle, SearchNeedle: searchNeedle, ByLastActive: boolInt(byLastActive),
		Limit: limit, Offset: offset,
	}
	if searchNeedle != nil {
		p.CompactNeedle = nullable(pytext.Alnum(*searchNeedle))
	}
	rowIDs, err := s.q.SessionListRichChain(ctx, q, p)
	if err != nil || len(rowIDs) == 0 {
		return nil, err
	}
	ids, _ := json.Marshal(rowIDs) // []int64 always marshals
	rows, err := s.q.SessionRichRowsByRowID(ctx, q, string(ids))
	out := make([]db.SessionListRichRow, len(rows))
	for i, r := range rows {
		out[i] = db.SessionListRichRow(r)
	}
	return out, err
}

// listNeedle is an id or search query as upstream matches it: stripped
// and lowercased as Python does; nil when nothing is left.
func listNeedle(query string) *string {
	return nullable(pytext.Lower(pytext.Strip(query)))
}

// listFilter holds the parameters of the listing filter the list and count
// queries share (see queries/sqlite/listing.sql).
type listFilter struct {
	includeChildren                           int64
	source, excludeSources                    *string
	cwdPrefix, cwdLikeSlash, cwdLikeBackslash *string
	minMessageCount                           int64
	archived                                  *int64
}

// newListFilter binds the filter. listable keeps roots and /branch
// children only (and no tagged delegate); archived rows are left out
// unless includeArchived, and only they are kept with archivedOnly.
func newListFilter(listable bool, source string, exclude []string, cwdPrefix string, minMessages int, includeArchived, archivedOnly bool) listFilter {
	f := listFilter{source: nullable(source), minMessageCount: int64(max(minMessages, 0))}
	if !listable {
		f.includeChildren = 1
	}
	if len(exclude) > 0 {
		f.excludeSources = jsonArray(exclude)
	}
	if cwdPrefix != "" {
		prefix := cwdPrefixBase(cwdPrefix)
		f.cwdPrefix = &prefix
		f.cwdLikeSlash = likePattern(prefix + "/%")
		f.cwdLikeBackslash = likePattern(prefix + `\%`)
	}
	switch {
	case archivedOnly:
		f.archived = new(int64(1))
	case !includeArchived:
		f.archived = new(int64(0))
	}
	return f
}

// likePattern is pattern, or nil (matching nothing) when it is longer than
// SQLite accepts (maxLikePattern): a cwd that long under the prefix is not
// listed.
func likePattern(pattern string) *string {
	if len(pattern) > maxLikePattern {
		return nil
	}
	return &pattern
}

// projectTip overwrites a compression root's row with its tip's values.
func (s *Store) projectTip(ctx context.Context, q backend.Tx, row *RichSession) error {
	tipID, err := s.compressionTip(ctx, q, row.ID)
	if err != nil || tipID == row.ID {
		return err
	}
	r, err := s.q.SessionRichRow(ctx, q, tipID)
	if err != nil {
		return ignoreNoRows(err)
	}
	tip := richSession(r.Session, r.PreviewRaw, r.LastActive)
	row.LineageRootID = row.ID
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
	row.Cwd = tip.Cwd
	row.GitBranch = tip.GitBranch
	row.GitRepoRoot = tip.GitRepoRoot
	row.Stored = mergeStored(row.Stored, tip.Stored, "ended_at", "message_count", "tool_call_count")
	return nil
}

// mergeStored is base's Stored map with the entries of keys taken from
// over instead; nil when it has none.
func mergeStored(base, over map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
		if v, ok := over[k]; ok {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
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
// search_sessions. Unlike ListSessionsRich it filters nothing else: archived
// sessions and delegate children are listed too, as upstream still does.
// source "" means all sources; limit 0 means 20.
//
// It returns ErrClosed.
func (s *Store) SearchSessions(ctx context.Context, source string, limit, offset int) (_ []ActiveSession, err error) {
	defer wrap(&err, "search sessions")
	if limit == 0 {
		limit = 20
	}
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) ([]ActiveSession, error) {
		rows, err := s.q.SessionBrowse(ctx, q, db.SessionBrowseParams{Source: nullable(source), Limit: int64(limit), Offset: int64(offset)})
		return convertRows(rows, err, func(r db.SessionBrowseRow) ActiveSession {
			return ActiveSession{Session: sessionFromDB(r.Session), LastActive: Timestamp(r.LastActive)}
		})
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
