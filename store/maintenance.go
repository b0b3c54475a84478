package store

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// GetMeta returns the value of key in state_meta, the free key/value table,
// and whether the key exists (a stored NULL reads as "", true).
//
// It returns ErrClosed.
func (s *Store) GetMeta(ctx context.Context, key string) (_ string, _ bool, err error) {
	defer wrapOn(&err, "get meta", key)
	return s.getMeta(ctx, key)
}

// getMeta is GetMeta.
func (s *Store) getMeta(ctx context.Context, key string) (string, bool, error) {
	type result struct {
		v  string
		ok bool
	}
	r, err := readOne(s, ctx, func(ctx context.Context, q backend.Tx) (result, error) {
		v, err := s.q.StateMetaGet(ctx, q, key)
		if errors.Is(err, sql.ErrNoRows) {
			return result{}, nil
		}
		return result{deref(v), true}, err
	})
	return r.v, r.ok, err
}

// SetMeta sets key to value in state_meta, replacing any value.
//
// It returns ErrInvalidText, ErrBusy or ErrClosed.
func (s *Store) SetMeta(ctx context.Context, key, value string) (err error) {
	defer wrapOn(&err, "set meta", key)
	return s.setMeta(ctx, key, value)
}

// setMeta is SetMeta.
func (s *Store) setMeta(ctx context.Context, key, value string) error {
	if err := checkTexts("key", key, "value", value); err != nil {
		return err
	}
	return s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		return s.q.StateMetaSet(ctx, tx, db.StateMetaSetParams{Key: key, Value: &value})
	})
}

// Vacuum merges the full-text indexes (OptimizeFTS; a failure is logged
// and the vacuum goes on, as in upstream), checkpoints the WAL into the
// database file (TRUNCATE; its failure is logged at debug level, as in
// upstream) and rebuilds the file with VACUUM, returning freed pages, the
// merge's among them, to the filesystem. VACUUM runs outside the write
// helper (it cannot run in a transaction) but on the same single writer
// connection, so it never races this Store's writes; another connection's
// open transaction makes it fail with ErrBusy after the busy timeout.
//
// It returns the number of full-text indexes merged (upstream's vacuum()
// result: 2, or 1 on a file without the trigram index, 0 when the merge
// failed), and ErrReadOnly on a read-only store, ErrBusy or ErrClosed.
func (s *Store) Vacuum(ctx context.Context) (_ int, err error) {
	defer wrap(&err, "vacuum")
	return s.vacuum(ctx)
}

// vacuum is Vacuum.
func (s *Store) vacuum(ctx context.Context) (int, error) {
	if err := s.acquire(); err != nil {
		return 0, err
	}
	defer s.release()
	if s.pg != nil {
		return 0, s.pgVacuum(ctx)
	}
	w, err := s.writer()
	if err != nil {
		return 0, err
	}
	optimized, err := s.optimizeFTS(ctx)
	if err != nil {
		s.log.WarnContext(ctx, "FTS optimize before VACUUM failed", slog.Any("error", err))
	}
	if _, err := s.checkpoint(ctx, CheckpointTruncate); err != nil {
		s.log.DebugContext(ctx, "WAL checkpoint (TRUNCATE) before VACUUM failed", slog.Any("error", err))
	}
	// Hand-written: VACUUM is not a query sqlc can compile, and it must run
	// on the writer connection outside any transaction.
	if _, err := w.ExecContext(ctx, "VACUUM"); err != nil {
		return optimized, sqlite.Classify(err)
	}
	return optimized, nil
}

// lastAutoPruneKey is the state_meta key the original keeps the time of the
// last automatic prune under (a Python float repr of epoch seconds).
const lastAutoPruneKey = "last_auto_prune"

// AutoMaintainOptions configure AutoMaintain; zero fields take the
// original's defaults.
type AutoMaintainOptions struct {
	// Retention is the age after which ended sessions are pruned; zero
	// means 90 days.
	Retention time.Duration
	// MinInterval is the least time between two runs; zero means 24 hours.
	MinInterval time.Duration
	// SkipVacuum leaves the file as it is after pruning. Otherwise VACUUM
	// runs when something was pruned.
	SkipVacuum bool
	// SessionsDir is where pruned sessions' transcript files are removed.
	SessionsDir string
}

// AutoMaintainResult reports what AutoMaintain did.
type AutoMaintainResult struct {
	// Skipped is true when the last run was less than MinInterval ago;
	// nothing else happened then.
	Skipped bool `json:"skipped"`
	// Pruned is the number of sessions deleted.
	Pruned int `json:"pruned"`
	// Vacuumed is true when VACUUM ran and succeeded.
	Vacuumed bool `json:"vacuumed"`
	// Err is the failure that stopped the run, if any (the original's
	// "error" key); a failed VACUUM alone is only logged.
	Err error `json:"-"`
}

// AutoMaintain is the original's maybe_auto_prune_and_vacuum: unless the
// last run (state_meta "last_auto_prune") was less than MinInterval ago, it
// prunes ended sessions older than Retention from every source, vacuums when
// it pruned something, and records the run's time, even when nothing was
// pruned. An unreadable marker counts as no earlier run. It never returns an
// error: a failure is reported in the result's Err ("store: auto maintain:
// …"), as the original reports it in its result.
func (s *Store) AutoMaintain(ctx context.Context, opts AutoMaintainOptions) (res AutoMaintainResult) {
	defer wrap(&res.Err, "auto maintain")
	if opts.Retention == 0 {
		opts.Retention = 90 * 24 * time.Hour
	}
	if opts.MinInterval == 0 {
		opts.MinInterval = 24 * time.Hour
	}
	now := s.now()
	last, ok, err := s.getMeta(ctx, lastAutoPruneKey)
	if err != nil {
		res.Err = err
		return res
	}
	if ok {
		if t, err := strconv.ParseFloat(last, 64); err == nil && now-t < opts.MinInterval.Seconds() {
			res.Skipped = true
			return res
		}
	}
	if res.Pruned, err = s.pruneSessions(ctx, PruneOptions{OlderThan: opts.Retention, SessionsDir: opts.SessionsDir}); err != nil {
		res.Err = err
		return res
	}
	if !opts.SkipVacuum && res.Pruned > 0 {
		if _, err := s.vacuum(ctx); err != nil {
			s.log.WarnContext(ctx, "vacuum after auto-prune failed", slog.Any("error", err))
		} else {
			res.Vacuumed = true
		}
	}
	if err := s.setMeta(ctx, lastAutoPruneKey, pyFloatRepr(now)); err != nil {
		res.Err = err
	}
	return res
}

// pyFloatRepr formats f as Python's repr(float) does for epoch seconds: the
// shortest text that reads back as f, always with a fractional part
// ("1796207170.3032675", "1796207170.0"), so the original parses our marker
// and we parse its.
func pyFloatRepr(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	for _, c := range s {
		if c == '.' {
			return s
		}
	}
	return s + ".0"
}
