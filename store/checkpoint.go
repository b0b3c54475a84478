package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// CheckpointMode is how hard a WAL checkpoint tries; see
// sqlite.org/pragma.html#pragma_wal_checkpoint.
type CheckpointMode int

const (
	// CheckpointPassive copies as many frames as it can without waiting for
	// readers or writers. It never blocks; the WAL file keeps its size.
	CheckpointPassive CheckpointMode = iota
	// CheckpointFull waits for the writer, then copies every frame.
	CheckpointFull
	// CheckpointRestart is Full, then waits for readers so the next writer
	// starts the WAL from its beginning.
	CheckpointRestart
	// CheckpointTruncate is Restart, then truncates the WAL file to zero
	// bytes.
	CheckpointTruncate
)

// The pragma for each mode: fixed strings, never built from input.
var checkpointSQL = map[CheckpointMode]string{
	CheckpointPassive:  "PRAGMA wal_checkpoint(PASSIVE)",
	CheckpointFull:     "PRAGMA wal_checkpoint(FULL)",
	CheckpointRestart:  "PRAGMA wal_checkpoint(RESTART)",
	CheckpointTruncate: "PRAGMA wal_checkpoint(TRUNCATE)",
}

// String returns the mode's pragma argument, e.g. "PASSIVE".
func (m CheckpointMode) String() string {
	switch m {
	case CheckpointPassive:
		return "PASSIVE"
	case CheckpointFull:
		return "FULL"
	case CheckpointRestart:
		return "RESTART"
	case CheckpointTruncate:
		return "TRUNCATE"
	}
	return fmt.Sprintf("CheckpointMode(%d)", int(m))
}

// CheckpointResult is the row PRAGMA wal_checkpoint returns.
type CheckpointResult struct {
	// Busy is true when a FULL, RESTART or TRUNCATE checkpoint could not
	// finish because another connection held a lock it needed (PASSIVE never
	// reports busy).
	Busy bool
	// LogFrames is the number of frames in the WAL; CheckpointedFrames how
	// many of them are now in the database file. Both are -1 when the
	// database is not in WAL mode.
	LogFrames, CheckpointedFrames int
}

// Checkpoint copies WAL frames into the database file with the given mode on
// the writer connection (waiting for a write in progress to finish). It
// returns the checkpoint's outcome, ErrClosed after Close, or the SQLite
// error.
func (s *Store) Checkpoint(ctx context.Context, mode CheckpointMode) (_ CheckpointResult, err error) {
	defer wrap(&err, "checkpoint "+mode.String())
	if err := s.acquire(); err != nil {
		return CheckpointResult{}, err
	}
	defer s.release()
	if s.pg != nil {
		return CheckpointResult{}, errNoWALOnPostgres
	}
	return s.checkpoint(ctx, mode)
}

// errUnknownMode is Checkpoint's error for a mode that is none of the four.
var errUnknownMode = errors.New("unknown checkpoint mode")

// checkpoint is Checkpoint inside a call (acquired).
func (s *Store) checkpoint(ctx context.Context, mode CheckpointMode) (CheckpointResult, error) {
	stmt, ok := checkpointSQL[mode]
	if !ok {
		return CheckpointResult{}, errUnknownMode
	}
	var res CheckpointResult
	w, err := s.writer()
	if err != nil {
		return res, err
	}
	err = w.QueryRowContext(ctx, stmt).Scan(&res.Busy, &res.LogFrames, &res.CheckpointedFrames)
	if err != nil {
		return res, sqlite.Classify(err)
	}
	if res.LogFrames > 0 {
		s.log.DebugContext(ctx, "wal checkpoint", slog.String("mode", mode.String()),
			slog.Int("log_frames", res.LogFrames), slog.Int("checkpointed", res.CheckpointedFrames))
	}
	return res, nil
}
