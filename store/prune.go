package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/pytext"
)

// PruneOptions select the sessions PruneSessions deletes, ArchiveSessions
// archives and PruneCandidates lists: upstream's prune_sessions /
// archive_sessions / list_prune_candidates arguments (_prune_filter_where).
// Only ended sessions are ever selected. Every filter set is ANDed; a zero
// field is no filter.
type PruneOptions struct {
	// OlderThan is the age, by start time, a session must exceed. Zero
	// means the operation's default, as upstream's: 90 days for
	// PruneSessions and PruneCandidates (prune_sessions' default; the
	// candidates are what the prune would delete), no age limit for
	// ArchiveSessions (archive_sessions' default).
	OlderThan time.Duration
	// AnyAge sets no age limit (upstream's older_than_days=None): OlderThan
	// is ignored.
	AnyAge bool
	// Before, when not zero, is the time a session must have started
	// before (upstream's started_before), in place of the age.
	Before time.Time
	// After, when not zero, is the time a session must have started at or
	// after (started_after).
	After time.Time

	// Source limits the selection to one source; "" selects every source.
	Source string
	// TitleLike, ModelLike and BranchLike select sessions whose title,
	// model or git branch contains the text, letters of either case
	// (Python's lower() of the text against SQLite's ASCII LOWER() of the
	// column). As upstream's, the text is a LIKE pattern: % and _ in it
	// are wildcards.
	TitleLike, ModelLike, BranchLike string
	// EndReason selects sessions that ended for this reason.
	EndReason string
	// CwdPrefix selects sessions whose cwd is this directory or under it
	// (see CountOptions.CwdPrefix).
	CwdPrefix string
	// Provider selects sessions billed through this provider, letters of
	// either case.
	Provider string
	// UserID, ChatID and ChatType select sessions of this user, chat and
	// chat type (exact).
	UserID, ChatID, ChatType string
	// MinMessages and MaxMessages bound message_count; MinTokens and
	// MaxTokens input + output tokens; MinToolCalls and MaxToolCalls
	// tool_call_count (NULL counting as 0). Bounds are inclusive; nil is
	// no bound.
	MinMessages, MaxMessages   *int64
	MinTokens, MaxTokens       *int64
	MinToolCalls, MaxToolCalls *int64
	// MinCost and MaxCost bound the cost in USD: the actual cost, else the
	// estimate, else 0.
	MinCost, MaxCost *float64
	// Archived selects only archived sessions (true) or only those not
	// archived (false); nil selects both. ArchiveSessions takes nil as
	// false.
	Archived *bool

	// IDs, when not nil, limits the selection to these sessions: of the
	// sessions the other options select, only those listed are touched.
	// A prune a person confirmed from PruneCandidates' list passes that
	// list here, so that no session is deleted that was not shown, even
	// one that became old enough while they read it.
	IDs []string
	// SessionsDir, when not "", is where the pruned sessions' transcript
	// files are removed (as DeleteSession does).
	SessionsDir string
	// DryRun counts the sessions that would be pruned or archived and
	// changes nothing (no write lock is taken).
	DryRun bool
}

// errLikeTooLong is ErrInvalidFilter for a pattern of field.
func errLikeTooLong(field string) error {
	return fmt.Errorf("%s: %w: longer than %d bytes as a LIKE pattern", field, ErrInvalidFilter, maxLikePattern)
}

// candidatesParams converts opts to the selection query's parameters at
// time now, with defaultAge the operation's age limit for a zero OlderThan
// (0: none).
func (o PruneOptions) candidatesParams(now float64, defaultAge time.Duration) (db.SessionPruneCandidatesParams, error) {
	if err := checkTexts("source", o.Source, "title filter", o.TitleLike, "model filter", o.ModelLike,
		"branch filter", o.BranchLike, "end reason", o.EndReason, "cwd prefix", o.CwdPrefix,
		"provider", o.Provider, "user id", o.UserID, "chat id", o.ChatID, "chat type", o.ChatType); err != nil {
		return db.SessionPruneCandidatesParams{}, err
	}
	p := db.SessionPruneCandidatesParams{
		Source: nullable(o.Source), EndReason: nullable(o.EndReason),
		UserID: nullable(o.UserID), ChatID: nullable(o.ChatID), ChatType: nullable(o.ChatType),
		MinMessages: o.MinMessages, MaxMessages: o.MaxMessages,
		MinTokens: o.MinTokens, MaxTokens: o.MaxTokens,
		MinToolCalls: o.MinToolCalls, MaxToolCalls: o.MaxToolCalls,
		MinCost: o.MinCost, MaxCost: o.MaxCost,
	}
	switch age := cmp.Or(o.OlderThan, defaultAge); {
	case !o.Before.IsZero():
		p.StartedBefore = new(float64(TimestampOf(o.Before)))
	case !o.AnyAge && age != 0:
		p.StartedBefore = new(now - age.Seconds())
	}
	if !o.After.IsZero() {
		p.StartedAfter = new(float64(TimestampOf(o.After)))
	}
	var err error
	for _, f := range []struct {
		field, needle string
		dst           **string
	}{
		{"title filter", o.TitleLike, &p.TitleLike},
		{"model filter", o.ModelLike, &p.ModelLike},
		{"branch filter", o.BranchLike, &p.BranchLike},
	} {
		if *f.dst, err = containsPattern(f.field, f.needle); err != nil {
			return p, err
		}
	}
	if o.Provider != "" {
		p.Provider = new(pytext.Lower(o.Provider))
	}
	cwd, err := cwdPrefixPatterns(o.CwdPrefix)
	if err != nil {
		return p, err
	}
	p.CwdExact, p.CwdSlash, p.CwdBackslash = cwd.exact, cwd.slash, cwd.backslash
	if o.Archived != nil {
		p.Archived = new(boolInt(*o.Archived))
	}
	return p, nil
}

// containsPattern is upstream's f"%{needle.lower()}%", or nil for no
// needle; a pattern past SQLite's LIKE limit is ErrInvalidFilter.
func containsPattern(field, needle string) (*string, error) {
	if needle == "" {
		return nil, nil
	}
	p := "%" + pytext.Lower(needle) + "%"
	if len(p) > maxLikePattern {
		return nil, errLikeTooLong(field)
	}
	return &p, nil
}

// pruneDefaultAge is prune_sessions' default age limit.
const pruneDefaultAge = 90 * 24 * time.Hour

// PruneSessions is upstream's prune_sessions: it deletes, in one
// transaction, every ended session opts selects (by default: started more
// than 90 days ago), with its messages and usage rows, and returns how many
// it deleted. Active (not ended) sessions are never pruned; archived ones
// are unless opts.Archived says otherwise. Unlike DeleteSession, a prune
// does not delete delegate children with their parent: surviving children
// of a pruned session become roots, so a chain A→B→C→D with A and B old
// loses A and B, and C's parent is cleared while D keeps C.
//
// With opts.DryRun it returns how many sessions would be deleted, read in
// one snapshot, and changes nothing.
//
// It returns ErrInvalidText or ErrInvalidFilter for a filter it cannot
// run, ErrBusy or ErrClosed.
func (s *Store) PruneSessions(ctx context.Context, opts PruneOptions) (_ int, err error) {
	defer wrap(&err, opts.op("prune sessions"))
	return s.pruneSessions(ctx, opts)
}

// op names the operation opts describe in an error.
func (o PruneOptions) op(name string) string {
	if o.DryRun {
		return name + " (dry run)"
	}
	return name
}

// pruneSessions is PruneSessions.
func (s *Store) pruneSessions(ctx context.Context, opts PruneOptions) (int, error) {
	p, err := opts.candidatesParams(s.now(), pruneDefaultAge)
	if err != nil {
		return 0, err
	}
	if opts.DryRun {
		return s.countCandidates(ctx, p, opts.IDs)
	}
	return s.deleteSelected(ctx, opts.SessionsDir, func(ctx context.Context, tx backend.Tx) ([]string, error) {
		return s.pruneCandidates(ctx, tx, p, opts.IDs)
	})
}

// PruneCandidates is upstream's list_prune_candidates for the sessions
// PruneSessions(ctx, opts) would delete now (a zero OlderThan is 90 days,
// as for the prune): oldest first, read in one snapshot; it changes
// nothing. The sessions are whole rows (upstream's carry id, source,
// title, model, started_at, ended_at, message_count and archived).
//
// It returns ErrInvalidText, ErrInvalidFilter or ErrClosed.
func (s *Store) PruneCandidates(ctx context.Context, opts PruneOptions) (_ []Session, err error) {
	defer wrap(&err, "list prune candidates")
	p, err := opts.candidatesParams(s.now(), pruneDefaultAge)
	if err != nil {
		return nil, err
	}
	return read(s, ctx, func(ctx context.Context, q backend.Tx) ([]Session, error) {
		ids, err := s.pruneCandidates(ctx, q, p, opts.IDs)
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

// countCandidates is a dry run's answer: how many sessions pruneCandidates
// selects now, read in one snapshot.
func (s *Store) countCandidates(ctx context.Context, p db.SessionPruneCandidatesParams, only []string) (int, error) {
	ids, err := read(s, ctx, func(ctx context.Context, q backend.Tx) ([]string, error) {
		return s.pruneCandidates(ctx, q, p, only)
	})
	return len(ids), err
}

// pruneCandidates lists the ids of the sessions p selects, oldest first,
// only those of only when it is not nil.
func (s *Store) pruneCandidates(ctx context.Context, q backend.Tx, p db.SessionPruneCandidatesParams, only []string) ([]string, error) {
	ids, err := s.q.SessionPruneCandidates(ctx, q, p)
	if err != nil || only == nil {
		return ids, err
	}
	listed := make(map[string]bool, len(only))
	for _, id := range only {
		listed[id] = true
	}
	return slices.DeleteFunc(ids, func(id string) bool { return !listed[id] }), nil
}

// ghostAge is how old an empty TUI session must be for
// PruneEmptyGhostSessions.
const ghostAge = 24 * time.Hour

// PruneEmptyGhostSessions is upstream's prune_empty_ghost_sessions: it
// deletes, in one transaction, the TUI sessions that ended untitled without
// a single message and started more than 24 hours ago, returns how many,
// and removes their transcript files from sessionsDir (when not "") after
// the commit. Their children, if any, become roots (upstream's delete
// would fail on the foreign key instead).
//
// It returns ErrBusy or ErrClosed.
func (s *Store) PruneEmptyGhostSessions(ctx context.Context, sessionsDir string) (_ int, err error) {
	defer wrap(&err, "prune empty ghost sessions")
	cutoff := s.now() - ghostAge.Seconds()
	return s.deleteSelected(ctx, sessionsDir, func(ctx context.Context, tx backend.Tx) ([]string, error) {
		return s.q.SessionGhostIDs(ctx, tx, cutoff)
	})
}

// orphanedCompressionAge is how old an unfinished compression continuation
// must be for FinalizeOrphanedCompressionSessions.
const orphanedCompressionAge = 7 * 24 * time.Hour

// FinalizeOrphanedCompressionSessions is upstream's
// finalize_orphaned_compression_sessions: every compression continuation
// left open, a session with messages but no counted API call, not ended,
// started more than 7 days ago, whose parent ended with 'compression', is
// ended now with the reason 'orphaned_compression'. Nothing is deleted. It
// returns how many sessions it ended.
//
// It returns ErrBusy or ErrClosed.
func (s *Store) FinalizeOrphanedCompressionSessions(ctx context.Context) (_ int64, err error) {
	defer wrap(&err, "finalize orphaned compression sessions")
	now := s.now()
	var n int64
	err = s.writeAll(ctx, func(ctx context.Context, tx backend.Tx) error {
		var err error
		n, err = s.q.SessionFinalizeOrphanedCompression(ctx, tx, db.SessionFinalizeOrphanedCompressionParams{
			Now: now, Cutoff: now - orphanedCompressionAge.Seconds()})
		return err
	})
	return n, err
}
