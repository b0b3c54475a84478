package store

import (
	"context"

	"github.com/hermesstate/hermesstate/internal/backend"
)

// In-place compaction keeps one session id for the whole conversation:
// the live messages are summarised away (active = 0, compacted = 1: hidden
// from replays and exports, still found by search) and the compacted
// transcript takes their place.

// ArchiveAndCompact compacts session id in place (upstream's
// archive_and_compact): in one write transaction it marks every live
// message compacted and inactive, inserts msgs as the new live messages
// (as ReplaceMessages inserts them) and sets message_count and
// tool_call_count to the new live set. It returns the number of messages
// inserted.
//
// It returns ErrSessionNotFound, ErrInvalidMessage, ErrInvalidJSON,
// ErrInvalidText, ErrBusy or ErrClosed; on error nothing is written.
func (s *Store) ArchiveAndCompact(ctx context.Context, id string, msgs []NewMessage) (_ int, err error) {
	defer wrapOn(&err, "compact", id)
	err = s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		if err := s.q.LockSession(ctx, tx, id); err != nil {
			return err
		}
		if err := s.mustExist(ctx, tx, id); err != nil {
			return err
		}
		if _, err := s.q.MessageArchiveActive(ctx, tx, id); err != nil {
			return err
		}
		return s.insertCounted(ctx, tx, id, msgs)
	})
	if err != nil {
		return 0, err
	}
	return len(msgs), nil
}

// HasArchivedMessages reports whether session id has a message that is not
// live: rewound or compaction-archived (active = 0). A caller about to
// replace the whole transcript checks it first, so it does not destroy the
// archived turns (ReplaceActiveMessages keeps them).
//
// It returns ErrClosed.
func (s *Store) HasArchivedMessages(ctx context.Context, id string) (_ bool, err error) {
	defer wrapOn(&err, "look for archived messages of", id)
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) (bool, error) {
		return s.q.MessageHasInactive(ctx, q, id)
	})
}
