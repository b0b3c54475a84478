package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/migrations"
)

// Health is what Check found. Problems lists what is wrong; OK reports
// whether nothing is.
type Health struct {
	SchemaVersion int64  `json:"schema_version"`
	SQLiteVersion string `json:"sqlite_version"`
	// ServerVersion is the PostgreSQL server's version on that engine
	// ("" on SQLite).
	ServerVersion string `json:"server_version,omitempty"`
	FTS5          bool   `json:"fts5"`
	Trigram       bool   `json:"trigram"`
	// Integrity is PRAGMA integrity_check's report: ["ok"] when the file
	// is sound, else up to 100 descriptions of damage.
	Integrity []string `json:"integrity"`
	// FTS is the state of each full-text index.
	FTS []FTSCheck `json:"fts"`
	// Counters lists the sessions whose message_count or tool_call_count
	// disagrees with their message rows. At schema v21 the counters count
	// the rows written since the transcript was last replaced or compacted:
	// rewinding and restoring change no counter, and rewound or
	// compaction-archived rows left from before a replace or a compaction
	// are not counted (upstream-v21.md trap 7). So message_count may be any
	// number from 0 to the rows not archived by compaction newer than the
	// session's newest archived one, and tool_call_count must be the calls
	// of that many newest rows; a NULL message_count (which never counts
	// again) is a mismatch unless the session has no such row.
	Counters []CounterMismatch `json:"counters"`
	// OrphanMessages counts messages whose session row is missing.
	OrphanMessages int64 `json:"orphan_messages"`
	// BadValues lists the numeric columns holding a value of another
	// storage class, at most 100 rows of each table (by id);
	// BadValuesTruncated is set when a table has more.
	BadValues          []BadValue `json:"bad_values"`
	BadValuesTruncated bool       `json:"bad_values_truncated"`
	// WALBytes is the size of the -wal file (0 when there is none).
	WALBytes int64 `json:"wal_bytes"`
}

// FTSCheck is the state of one full-text index.
type FTSCheck struct {
	Table string `json:"table"`
	// Problem is "" for a sound index that holds exactly the indexed text
	// of every message; else what is wrong, e.g. "3 messages missing from
	// the index", or "empty: 3 messages missing from the index" for an
	// index with no row at all (see ErrSearchIndexEmpty).
	Problem string `json:"problem"`
	// Cause is why the index is damaged where Check can tell ("" when it
	// cannot, or the index is sound): FTSCauseNULText.
	Cause FTSCause `json:"cause,omitempty"`
}

// FTSCause is a known cause of a full-text index's damage.
type FTSCause string

// FTSCauseNULText: the trigram index fails FTS5's integrity check and
// messages hold text with a NUL byte (upstream's multimodal content
// "\x00json:[...]"). The index was built by another SQLite version than
// the one checking it: SQLite 3.40 (Python's, which upstream runs on)
// trigram-indexes text only up to a NUL, while this build's SQLite reads
// past it, so each finds the other's index rows wrong, and deleting or
// changing such a message damages the index further. Nothing is lost:
// RebuildSearchIndex (sessions doctor --fix-fts) indexes the messages
// again.
const FTSCauseNULText FTSCause = "nul_text"

// CounterMismatch is one stored counter that disagrees with the rows (see
// Health.Counters for the rule).
type CounterMismatch struct {
	SessionID string `json:"session_id"`
	Column    string `json:"column"` // "message_count" or "tool_call_count"
	Stored    int64  `json:"stored"` // a NULL counter is 0
	// Actual is what the rows allow: for message_count the most it may be
	// (every countable row; for a file no rewind, replace or compaction
	// touched, every row of the session), for tool_call_count the calls of
	// the rows message_count counts (of the rows Actual says when
	// message_count is off).
	Actual int64 `json:"actual"`
}

// OK reports whether the check found nothing wrong (Problems is empty):
// integrity "ok", every index sound, no counter off, no orphan message, no
// value of the wrong storage class, and a schema this build knows in full.
func (h *Health) OK() bool { return len(h.Problems()) == 0 }

// ftsIndexes are the full-text indexes of the schema, each with the
// statements that check it. Hand-written: sqlc cannot compile FTS5 tables'
// rowid or PRAGMA, and a table name cannot be bound, so each statement
// names its table.
//
// The integrity pragma with a table argument runs FTS5's own check
// (structure, checksums, the index against the table's stored text); the
// comparison query finds what that check cannot: messages the index lacks,
// index rows whose message is gone, and rows whose stored text is not the
// text the v11 triggers index.
//
// The refresh queries run before any integrity check. FTS5 keeps each
// index's structure record cached per connection, and its integrity check
// (the table's own and the one PRAGMA integrity_check runs) reuses that
// cache without noticing that another connection has written since: a
// pooled connection that searched before reported a sound index as
// "checksum mismatch". Any MATCH reloads the structure when the file
// changed; a LIMIT 1 lookup of one term costs a few page reads.
var ftsIndexes = []struct{ table, refresh, integrity, compare string }{
	{
		"messages_fts",
		"SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'hermes' LIMIT 1",
		"PRAGMA integrity_check(messages_fts)",
		`SELECT
    (SELECT COUNT(*) FROM messages m WHERE NOT EXISTS (SELECT 1 FROM messages_fts f WHERE f.rowid = m.id)),
    (SELECT COUNT(*) FROM messages_fts f WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = f.rowid)),
    (SELECT COUNT(*) FROM messages m JOIN messages_fts f ON f.rowid = m.id
     WHERE f.content IS NOT COALESCE(m.content, '') || ' ' || COALESCE(m.tool_name, '') || ' ' || COALESCE(m.tool_calls, ''))`,
	},
	{
		"messages_fts_trigram",
		"SELECT rowid FROM messages_fts_trigram WHERE messages_fts_trigram MATCH 'hermes' LIMIT 1",
		"PRAGMA integrity_check(messages_fts_trigram)",
		`SELECT
    (SELECT COUNT(*) FROM messages m WHERE NOT EXISTS (SELECT 1 FROM messages_fts_trigram f WHERE f.rowid = m.id)),
    (SELECT COUNT(*) FROM messages_fts_trigram f WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = f.rowid)),
    (SELECT COUNT(*) FROM messages m JOIN messages_fts_trigram f ON f.rowid = m.id
     WHERE f.content IS NOT COALESCE(m.content, '') || ' ' || COALESCE(m.tool_name, '') || ' ' || COALESCE(m.tool_calls, ''))`,
	},
}

// integrityCheckSQL lists damage anywhere in the file (at most 100 lines,
// "ok" when there is none). Hand-written: a PRAGMA.
const integrityCheckSQL = "PRAGMA integrity_check"

// Check looks the database over without changing it (it works on a store
// opened with Options.ReadOnly, and takes no write lock): the schema
// version, the SQLite library, PRAGMA integrity_check, each full-text index
// (FTS5's own check, plus a comparison with the messages table), stored
// counters against the rows (the rule of Health.Counters), messages
// without a session, numeric columns
// holding values of another storage class, and the WAL file's size. It reads one snapshot. Damage is reported in the Health, not as an
// error; the check takes time proportional to the file.
//
// It returns an error only when the check itself could not run: ErrCorrupt
// or ErrNotDatabase for a file too damaged to read, or ErrClosed.
func (s *Store) Check(ctx context.Context) (_ *Health, err error) {
	defer wrap(&err, "check")
	if s.pg != nil {
		return s.pgCheck(ctx)
	}
	h, err := read(s, ctx, func(ctx context.Context, q backend.Tx) (*Health, error) {
		h := &Health{Integrity: []string{}, FTS: []FTSCheck{}, Counters: []CounterMismatch{}, BadValues: []BadValue{}}
		lib, err := sqlite.ReadLibrary(ctx, q)
		if err != nil {
			return nil, err
		}
		h.SQLiteVersion, h.FTS5, h.Trigram = lib.Version, lib.FTS5, lib.Trigram
		if h.SchemaVersion, err = migrations.ReadVersion(ctx, q); err != nil {
			return nil, err
		}
		for _, f := range ftsIndexes {
			// Only to reload the cached structure (see ftsIndexes); a
			// damaged index fails the checks below with a better message.
			var rowid int64
			_ = q.QueryRowContext(ctx, f.refresh).Scan(&rowid)
		}
		if h.Integrity, err = pragmaLines(ctx, q, integrityCheckSQL); err != nil {
			return nil, err
		}
		empty, _ := emptySearchIndexes(ctx, q) // a failure shows in checkFTS
		for _, f := range ftsIndexes {
			problem, damaged := checkFTS(ctx, q, f.integrity, f.compare)
			if slices.Contains(empty, f.table) {
				problem = "empty: " + problem
			}
			c := FTSCheck{Table: f.table, Problem: problem}
			if damaged && f.table == "messages_fts_trigram" {
				nul, err := s.q.HealthHasNULText(ctx, q)
				if err != nil {
					return nil, err
				}
				if nul {
					c.Cause = FTSCauseNULText
				}
			}
			h.FTS = append(h.FTS, c)
		}
		if err := s.counterMismatches(ctx, q, h); err != nil {
			return nil, err
		}
		if h.OrphanMessages, err = s.q.HealthOrphanMessages(ctx, q); err != nil {
			return nil, err
		}
		return h, s.badValues(ctx, q, h)
	})
	if err != nil {
		return nil, err
	}
	// Stat, never open: a descriptor of ours on the -wal file would drop
	// SQLite's locks when closed.
	if fi, err := os.Stat(s.path + "-wal"); err == nil {
		h.WALBytes = fi.Size()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return h, nil
}

// counterMismatches adds to h.Counters every stored counter its rows
// contradict.
func (s *Store) counterMismatches(ctx context.Context, q backend.Tx, h *Health) error {
	rows, err := s.q.HealthCounterMismatches(ctx, q)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if r.StoredMessages != r.ActualMessages {
			h.Counters = append(h.Counters, CounterMismatch{r.ID, "message_count", r.StoredMessages, r.ActualMessages})
		}
		if r.StoredCalls != r.ActualCalls {
			h.Counters = append(h.Counters, CounterMismatch{r.ID, "tool_call_count", r.StoredCalls, r.ActualCalls})
		}
	}
	return nil
}

// checkFTS returns what is wrong with one full-text index, or "", and
// whether FTS5's own integrity check failed (damaged). A damaged or
// missing index makes its queries fail; the failure is the finding.
func checkFTS(ctx context.Context, q backend.Tx, integrity, compare string) (problem string, damaged bool) {
	lines, err := pragmaLines(ctx, q, integrity)
	if err != nil {
		return err.Error(), true
	}
	if len(lines) != 1 || lines[0] != "ok" {
		return strings.Join(lines, "; "), true
	}
	var missing, extra, stale int64
	if err := q.QueryRowContext(ctx, compare).Scan(&missing, &extra, &stale); err != nil {
		return err.Error(), false
	}
	var problems []string
	for _, p := range []struct {
		n    int64
		what string
	}{{missing, "messages missing from the index"}, {extra, "index rows without a message"}, {stale, "index rows with outdated text"}} {
		if p.n > 0 {
			problems = append(problems, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	return strings.Join(problems, "; "), false
}

// pragmaLines runs a pragma that reports one text line per row.
func pragmaLines(ctx context.Context, q backend.Tx, pragma string) ([]string, error) {
	return sqlite.Strings(ctx, q, pragma)
}

// RebuildSearchIndex drops both full-text indexes (messages_fts and
// messages_fts_trigram) with their triggers, recreates them as the schema
// declares them and indexes every message again, in one write transaction of its own (shared with no other write):
// the repair for an index that search reports as damaged (ErrCorrupt) or
// that Check finds out of step with the messages. Searches running
// meanwhile see the old index until it commits. It takes time and space
// proportional to the messages' text. On PostgreSQL it writes every
// message's row of messages_search again, holding every other write off
// (writeAll); the trigram route's index needs no rebuild there.
//
// It returns ErrReadOnly on a read-only store, ErrBusy, ErrDiskFull or
// ErrClosed.
func (s *Store) RebuildSearchIndex(ctx context.Context) (err error) {
	defer wrap(&err, "rebuild search index")
	return s.writeAllAlone(ctx, func(ctx context.Context, tx backend.Tx) error {
		done, err := s.q.RebuildSearchIndex(ctx, tx)
		for _, d := range done {
			s.log.InfoContext(ctx, d)
		}
		return err
	})
}
