package store

import (
	"context"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
)

// SetSessionArchived is upstream's set_session_archived: it archives (or,
// with archived false, unarchives) session id together with its whole
// compression lineage, the sessions it continues and those continuing it
// through parents that ended 'compression', in one transaction. An
// archived session keeps its messages; listings and counts leave it out by
// default, searches and prunes do not. It reports whether any session was
// updated: false for an unknown id; true for a session that already had
// the flag (a row set to its own value counts, as upstream's rowcount).
//
// It returns ErrBusy or ErrClosed.
func (s *Store) SetSessionArchived(ctx context.Context, id string, archived bool) (_ bool, err error) {
	defer wrapOn(&err, "set archived of", id)
	var n int64
	err = s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		if err := s.q.LockSession(ctx, tx, id); err != nil {
			return err
		}
		var err error
		n, err = s.setArchived(ctx, tx, id, archived)
		return err
	})
	return n > 0, err
}

// setArchived flags session id's compression lineage in tx and returns how
// many rows it updated.
func (s *Store) setArchived(ctx context.Context, tx backend.Tx, id string, archived bool) (int64, error) {
	lineage, err := s.q.SessionArchiveLineage(ctx, tx, id)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, sid := range lineage {
		changed, err := s.q.SessionSetArchived(ctx, tx, db.SessionSetArchivedParams{Archived: boolInt(archived), ID: sid})
		if err != nil {
			return 0, err
		}
		n += changed
	}
	return n, nil
}

// ArchiveSessions is upstream's archive_sessions: the soft prune. Every
// session opts selects (as PruneSessions selects, but a zero OlderThan
// means no age limit and a nil Archived means sessions not archived yet,
// so that a repeated run selects nothing) is archived with its compression
// lineage, as SetSessionArchived archives one; nothing is deleted. It
// returns how many sessions were selected (lineage members archived with
// them not counted). All in one transaction (upstream commits each
// session's lineage alone).
//
// With opts.DryRun it returns how many sessions would be selected, read in
// one snapshot, and changes nothing.
//
// It returns ErrInvalidText, ErrInvalidFilter, ErrBusy or ErrClosed.
func (s *Store) ArchiveSessions(ctx context.Context, opts PruneOptions) (_ int, err error) {
	defer wrap(&err, opts.op("archive sessions"))
	if opts.Archived == nil {
		opts.Archived = new(false)
	}
	p, err := opts.candidatesParams(s.now(), 0)
	if err != nil {
		return 0, err
	}
	if opts.DryRun {
		return s.countCandidates(ctx, p, opts.IDs)
	}
	var n int
	err = s.writeAll(ctx, func(ctx context.Context, tx backend.Tx) error {
		ids, err := s.pruneCandidates(ctx, tx, p, opts.IDs)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if _, err := s.setArchived(ctx, tx, id, true); err != nil {
				return err
			}
		}
		n = len(ids)
		return nil
	})
	return n, err
}
