package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/transfer"
)

// ErrInvalidImport is matched by the *ImportError ImportJSONL returns for a
// record it cannot import.
var ErrInvalidImport = errors.New("invalid import record")

// ImportError reports a malformed record of an import: not JSON, not a
// session object, a required field missing, a message of another session,
// a JSON column that is not JSON (or is nested deeper than Python reads:
// ErrInvalidJSON), text that is not UTF-8 or escapes a lone UTF-16
// surrogate (ErrInvalidText, naming the field). Nothing of the record's
// batch was written. It matches ErrInvalidImport, and the problem's own
// sentinel through Unwrap.
type ImportError struct {
	// Line is the 1-based line the record starts on.
	Line int
	Err  error
}

// Error returns "line N: " and what is wrong.
func (e *ImportError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Is makes errors.Is(err, ErrInvalidImport) true.
func (e *ImportError) Is(target error) bool { return target == ErrInvalidImport }

// Unwrap returns the underlying problem (for example ErrInvalidJSON).
func (e *ImportError) Unwrap() error { return e.Err }

// ImportOptions configure ImportJSONL; the zero value is the defaults.
type ImportOptions struct {
	// BatchSize is the number of sessions written per transaction; zero
	// means 500. A batch is also closed once it holds 50,000 messages, so
	// memory stays bounded whatever the file.
	BatchSize int
	// Progress, when not nil, is called after each committed batch with
	// the running totals.
	Progress func(ImportResult)
	// Limits, when not nil, bounds the import as upstream's
	// import_sessions does (UpstreamImportLimits are its caps; see
	// import_caps.go): the whole input is read and counted first, an
	// import over a limit fails with an *ImportLimitError (ErrImportTooLarge)
	// before anything is written, and the rest is written in one
	// transaction (BatchSize is not used). Nil streams inputs of any size
	// in batches, as the sessions import command does.
	Limits *ImportLimits
}

// ImportResult counts what ImportJSONL did.
type ImportResult struct {
	// Created is the number of sessions written.
	Created int `json:"created"`
	// Skipped is the number of sessions whose id already existed; nothing
	// of them was written.
	Skipped int `json:"skipped"`
	// Retitled is the number of sessions whose title another session held:
	// they got the next title of that lineage ("title #2", …).
	Retitled int `json:"retitled"`
	// Unparented is the number of sessions whose parent was in neither the
	// file nor the database, or whose parent link would have closed a
	// cycle (a session its own parent, two sessions each other's): they
	// were imported as roots. (In a Progress call: those whose parent has
	// not been seen yet, and the cycles cut so far.)
	Unparented int `json:"unparented"`
	// Messages is the number of messages written.
	Messages int `json:"messages"`
}

func (r *ImportResult) add(o ImportResult) {
	r.Created += o.Created
	r.Skipped += o.Skipped
	r.Retitled += o.Retitled
	r.Messages += o.Messages
}

const (
	defaultImportBatch  = 500
	importBatchMessages = 50_000
)

// ImportJSONL reads sessions with their messages from r and writes the ones
// the database lacks. r holds JSON Lines, one session object per line, as
// ExportJSONL writes them, or one JSON array of such objects, as the
// original's export_all output dumped with json.dump. Every column is kept
// as exported, message ids too when they are free (else the session's
// messages get new ids, in their order), except the session's
// message_count and tool_call_count: as upstream's import_sessions, the
// import recounts them from the rows it writes. message_count becomes the
// rows not archived by compaction newer than the session's newest archived
// one (every row of an export, which carries only live rows) and
// tool_call_count their calls, counted as AppendMessage counts them, so an
// import never leaves counters Check reports. A session whose counters
// already matched its rows keeps them, and an export of such sessions
// imported into a new file exports again identically; a rewound or
// compacted session, whose export lacks the rows its counters counted,
// imports with the counters of the rows it has.
//
// The import is idempotent and atomic per batch (ImportOptions.BatchSize):
//   - a session whose id exists is skipped and counted;
//   - a title another session holds becomes the next title of its lineage
//     (NextTitleInLineage) instead of failing the batch;
//   - a parent that comes later in the file is linked once it is written;
//     one in neither the file nor the database leaves the session a root,
//     and so does a link that would close a cycle;
//   - a malformed record fails with an *ImportError naming its line, and
//     nothing of its batch is written; the batches before it stay.
//
// It returns the running totals with the error, if any: an error matching
// ErrInvalidImport, r's read error, ErrBusy, ErrDiskFull, ErrReadOnly or
// ErrClosed. Every error reads "store: import: …": "store: import: line 4:
// not a session object: …" for a malformed record.
func (s *Store) ImportJSONL(ctx context.Context, r io.Reader, opts ImportOptions) (_ ImportResult, err error) {
	defer wrap(&err, "import")
	if opts.Limits != nil {
		return s.importLimited(ctx, r, opts)
	}
	size := opts.BatchSize
	if size <= 0 {
		size = defaultImportBatch
	}
	var (
		res      ImportResult
		batch    []transfer.Record
		messages int
		// pending maps an imported session to a parent not written yet.
		pending = map[string]string{}
		// detached counts the sessions left roots because their parent
		// link would have closed a cycle.
		detached int
	)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		got, linked, cut, err := s.importBatch(ctx, batch, pending)
		if err != nil {
			return fmt.Errorf("batch of lines %d-%d: %w", batch[0].Line, batch[len(batch)-1].Line, err)
		}
		pending = linked
		detached += cut
		res.add(got)
		res.Unparented = len(pending) + detached
		batch, messages = batch[:0], 0
		if opts.Progress != nil {
			opts.Progress(res)
		}
		return nil
	}
	err = eachRecord(r, func(rec transfer.Record) error {
		batch = append(batch, rec)
		messages += len(rec.Messages)
		if len(batch) >= size || messages >= importBatchMessages {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	res.Unparented = len(pending) + detached
	if res.Messages >= pgAnalyzeAfter {
		s.pgAnalyze(ctx)
	}
	return res, err
}

// eachRecord calls fn with each record of r (transfer.Reader), stopping at
// fn's error, r's read error, or an *ImportError for a record that cannot
// be imported.
func eachRecord(r io.Reader, fn func(transfer.Record) error) error {
	records := transfer.NewReader(r)
	for {
		rec, err := records.Next()
		var bad *transfer.RecordError
		switch {
		case err == io.EOF:
			return nil
		case errors.As(err, &bad):
			return &ImportError{Line: bad.Line, Err: bad.Err}
		case err != nil:
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}

// importBatch writes one batch in one transaction. pending is not changed:
// the write may run more than once, so each attempt starts from a copy, and
// the copy of the attempt that committed is returned, with the number of
// parent links dropped because they would close a cycle.
func (s *Store) importBatch(ctx context.Context, batch []transfer.Record, pending map[string]string) (ImportResult, map[string]string, int, error) {
	var got ImportResult
	var left map[string]string
	var cut int
	err := s.writeAll(ctx, func(ctx context.Context, tx backend.Tx) error {
		got, left = ImportResult{}, maps.Clone(pending)
		for _, rec := range batch {
			if err := s.importSession(ctx, tx, rec, &got, left); err != nil {
				return err
			}
		}
		var err error
		cut, err = s.linkParents(ctx, tx, left)
		return err
	})
	return got, left, cut, err
}

// importSession writes one record unless its id exists.
func (s *Store) importSession(ctx context.Context, tx backend.Tx, rec transfer.Record, got *ImportResult, pending map[string]string) error {
	sess := db.SessionImportParams(rec.Session)
	exists, err := s.q.SessionExists(ctx, tx, sess.ID)
	if err != nil || exists {
		got.Skipped += int(boolInt(exists))
		return err
	}
	if p := sess.ParentSessionID; p != nil {
		ok, err := s.q.SessionExists(ctx, tx, *p)
		if err != nil {
			return err
		}
		if !ok {
			pending[sess.ID] = *p
			sess.ParentSessionID = nil
		}
	}
	if sess.Title != nil {
		_, err := s.q.SessionTitleOwner(ctx, tx, db.SessionTitleOwnerParams{Title: sess.Title, ID: sess.ID})
		switch {
		case err == nil:
			next, err := s.nextTitle(ctx, tx, lineageBase(*sess.Title))
			if err != nil {
				return err
			}
			sess.Title = &next
			got.Retitled++
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
	}
	if err := s.q.SessionImport(ctx, tx, sess); err != nil {
		return fmt.Errorf("line %d: %w", rec.Line, err)
	}
	// The ids are kept when they are free, else the session's messages
	// are numbered anew, in their order (an ID of 0 takes the next one).
	keepIDs := rec.MessageIDs != ""
	if keepIDs {
		taken, err := s.q.MessageIDsTaken(ctx, tx, rec.MessageIDs)
		if err != nil {
			return err
		}
		keepIDs = taken == 0
	}
	for _, m := range rec.Messages {
		p := db.MessageImportParams(m)
		if !keepIDs {
			p.ID = 0
		}
		if err := s.q.MessageImport(ctx, tx, p); err != nil {
			return fmt.Errorf("line %d: %w", rec.Line, err)
		}
	}
	// The counters are recounted from the rows written, as upstream's
	// import_sessions recounts them: an export omits rewound and compacted
	// rows, so the exported counters may count rows the file lacks.
	if err := s.q.SessionImportRecount(ctx, tx, sess.ID); err != nil {
		return fmt.Errorf("line %d: %w", rec.Line, err)
	}
	got.Created++
	got.Messages += len(rec.Messages)
	return nil
}

// linkParents sets the parent of every pending session whose parent now
// exists, and drops it from pending. A link that would close a cycle (a
// session its own parent, or the parent of one of its ancestors) is
// dropped instead and the session stays a root, as upstream's
// import_sessions drops the closing edge; it returns how many.
func (s *Store) linkParents(ctx context.Context, tx backend.Tx, pending map[string]string) (int, error) {
	cut := 0
	// In a fixed order, so that which edge of an imported cycle is cut
	// does not depend on map iteration.
	for _, child := range slices.Sorted(maps.Keys(pending)) {
		parent := pending[child]
		ok, err := s.q.SessionExists(ctx, tx, parent)
		if err != nil {
			return 0, err
		}
		if !ok {
			continue
		}
		cycle, err := s.q.ImportClosesCycle(ctx, tx, db.ImportClosesCycleParams{Child: child, Parent: parent})
		if err != nil {
			return 0, err
		}
		delete(pending, child)
		if cycle {
			cut++
			continue
		}
		if _, err := s.q.SessionSetParent(ctx, tx, db.SessionSetParentParams{ParentSessionID: &parent, ID: child}); err != nil {
			return 0, err
		}
	}
	return cut, nil
}
