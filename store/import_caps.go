package store

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hermesstate/hermesstate/internal/transfer"
)

// ImportLimits bound one ImportJSONL call as upstream's import_sessions
// bounds one import (its _IMPORT_MAX_* caps). A zero field is no limit.
type ImportLimits struct {
	// Sessions is the most sessions (records) an import may hold.
	Sessions int
	// MessagesPerSession is the most messages one session may hold.
	MessagesPerSession int
	// Messages is the most messages of all the sessions together.
	Messages int
	// SessionBytes is the largest a session may be, and Bytes the largest
	// all of them together, measured as upstream measures them: the
	// record's JSON written compactly, non-ASCII as UTF-8
	// (len(json.dumps(s, ensure_ascii=False, separators=(",", ":")))).
	SessionBytes, Bytes int64
}

// UpstreamImportLimits are upstream's caps (c2a3b9ce5): 500 sessions,
// 10,000 messages a session and 50,000 in all, 5 MiB a session and
// 25 MiB in all. Upstream keeps them below its export sizes because its
// import is one BEGIN IMMEDIATE transaction that must not starve live
// writers; an import that accepts files from users (a dashboard, as
// upstream's) passes them.
var UpstreamImportLimits = ImportLimits{
	Sessions:           500,
	MessagesPerSession: 10_000,
	Messages:           50_000,
	SessionBytes:       5 << 20,
	Bytes:              25 << 20,
}

// ErrImportTooLarge is matched by the *ImportLimitError ImportJSONL
// returns for an import over its ImportOptions.Limits.
var ErrImportTooLarge = errors.New("import over its limits")

// ImportLimitError reports the record of an import that crossed one of its
// ImportLimits. Nothing of the import was written. It matches
// ErrImportTooLarge.
type ImportLimitError struct {
	// Line is the 1-based line the record starts on; SessionID its id.
	Line      int
	SessionID string
	// Limit names what is counted: "sessions", "messages in a session",
	// "messages", "bytes of a session" or "bytes".
	Limit string
	// Count is the count the record brought it to; Max the limit.
	Count, Max int64
}

// Error returns "line N: session "ID": COUNT LIMIT, at most MAX".
func (e *ImportLimitError) Error() string {
	return fmt.Sprintf("line %d: session %q: %d %s, at most %d", e.Line, e.SessionID, e.Count, e.Limit, e.Max)
}

// Is makes errors.Is(err, ErrImportTooLarge) true.
func (e *ImportLimitError) Is(target error) bool { return target == ErrImportTooLarge }

// importLimited is ImportJSONL under limits, upstream's import_sessions:
// every record is read and counted first, and the first one that crosses a
// limit fails the import with an *ImportLimitError before anything is
// written (upstream lists every bad session; this names the first); a
// malformed record fails it as in any import. Then all of it is written in
// one transaction, as upstream writes it; Progress is called once, after
// the commit. Memory is bounded by the limits.
func (s *Store) importLimited(ctx context.Context, r io.Reader, opts ImportOptions) (ImportResult, error) {
	lim := *opts.Limits
	var (
		all              []transfer.Record
		messages, nbytes int64
	)
	over := func(rec transfer.Record, limit string, count, max int64) error {
		if max > 0 && count > max {
			return &ImportLimitError{Line: rec.Line, SessionID: rec.Session.ID, Limit: limit, Count: count, Max: max}
		}
		return nil
	}
	err := eachRecord(r, func(rec transfer.Record) error {
		all = append(all, rec)
		messages += int64(len(rec.Messages))
		nbytes += rec.Size
		return errors.Join(
			over(rec, "sessions", int64(len(all)), int64(lim.Sessions)),
			over(rec, "messages in a session", int64(len(rec.Messages)), int64(lim.MessagesPerSession)),
			over(rec, "bytes of a session", rec.Size, lim.SessionBytes),
			over(rec, "bytes", nbytes, lim.Bytes),
			over(rec, "messages", messages, int64(lim.Messages)),
		)
	})
	if err != nil {
		var limit *ImportLimitError
		if errors.As(err, &limit) {
			return ImportResult{}, limit // the first limit the record crossed
		}
		return ImportResult{}, err
	}
	if len(all) == 0 {
		return ImportResult{}, nil
	}
	res, pending, cut, err := s.importBatch(ctx, all, map[string]string{})
	if err != nil {
		return ImportResult{}, err
	}
	res.Unparented = len(pending) + cut
	if opts.Progress != nil {
		opts.Progress(res)
	}
	return res, nil
}
