package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
	"github.com/hermesstate/hermesstate/internal/transfer"
)

// SessionExport is one session with its live transcript, as the
// original's export_session and export_all return it.
type SessionExport struct {
	Session
	// LastActive is set by ExportAll and ExportJSONL (the original's
	// export_all rows carry it); ExportSession leaves it zero.
	LastActive Timestamp `json:"last_active,omitzero"`
	Messages   []Message `json:"messages"`

	// order is the column order of the file exported, which MarshalJSON
	// writes the keys in (the zero Order when the export was decoded).
	order transfer.Order
}

// ExportSession returns session id with its live messages (as GetMessages
// returns them: upstream's export goes through get_messages, so rewound
// and compaction-archived rows are left out), read in one snapshot. Its
// JSON form has the keys in the order of the file's columns.
//
// It returns ErrNotFound or ErrClosed.
func (s *Store) ExportSession(ctx context.Context, id string) (_ *SessionExport, err error) {
	defer wrapOn(&err, "export session", id)
	return readConn(s, ctx, func(ctx context.Context, q backend.Tx) (*SessionExport, error) {
		sess, err := foundSession(s.q.SessionGet(ctx, q, id))
		if err != nil {
			return nil, err
		}
		order, err := s.exportOrder(ctx, q)
		if err != nil {
			return nil, err
		}
		msgs, err := s.messagesOf(ctx, q, db.MessageListParams{SessionID: id, Limit: -1}, rowsCapacity(sess.MessageCount))
		if err != nil {
			return nil, err
		}
		return &SessionExport{Session: *sess, Messages: msgs, order: order}, nil
	})
}

// ExportAll returns every session (of one source, or all when source is
// ""), children, archived and delegate sessions included, most recently
// active first, each with its live messages, as the original's export_all. It holds everything in memory;
// for large stores use ExportJSONL.
//
// It returns ErrClosed.
func (s *Store) ExportAll(ctx context.Context, source string) (_ []SessionExport, err error) {
	defer wrap(&err, "export all")
	out := []SessionExport{}
	err = s.eachExport(ctx, source, func(e SessionExport) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

// ExportOptions select what ExportJSONL writes. The zero value is every
// session, as ExportAll returns them.
type ExportOptions struct {
	// Source limits the export to one source; "" exports every source.
	Source string
	// IDs, when not empty, exports exactly these sessions (of Source, when
	// that is set too), in the order given. An id naming no session fails
	// the export with ErrSessionNotFound before anything is written.
	IDs []string
	// Progress, when not nil, is called after each session line is written
	// with the number written so far.
	Progress func(written int)
}

// ExportJSONL writes what ExportAll returns to w as JSON Lines, one session
// object per line (the session's columns in the order of the file's
// table, last_active and a "messages" array, each message's columns in the
// file's order too, as the original's dict(row) has them), in bounded
// memory: one session's messages at a time, streamed in pages of
// 500, whatever the number of sessions and messages. opts narrows the
// export to a source or a list of ids. The whole export reads one snapshot
// of the database. It returns the number of sessions written.
//
// It returns ErrSessionNotFound for an unknown id in opts.IDs, w's write
// error, or ErrClosed.
func (s *Store) ExportJSONL(ctx context.Context, w io.Writer, opts ExportOptions) (_ int, err error) {
	defer wrap(&err, "export")
	n := 0
	var tw *transfer.Writer
	err = readEach(s, ctx, func(ctx context.Context, tx backend.Tx) error {
		order, err := s.exportOrder(ctx, tx)
		if err != nil {
			return err
		}
		tw = transfer.NewWriter(w, order)
		return s.walkExport(ctx, tx, opts, func(r db.Session, lastActive sqlnum.Real) error {
			if err := tw.Begin(transfer.Session(r), lastActive); err != nil {
				return err
			}
			err := s.eachMessageIn(ctx, tx, r.ID, func(m db.Message) error {
				return tw.Message(transfer.Message(m))
			})
			if err != nil {
				return err
			}
			if err := tw.End(); err != nil {
				return err
			}
			n++
			if opts.Progress != nil {
				opts.Progress(n)
			}
			return nil
		})
	})
	if err != nil {
		return n, err
	}
	return n, tw.Flush()
}

// ExportCount returns how many sessions ExportJSONL would write with opts
// (to size a progress bar). It returns ErrSessionNotFound for an unknown id
// in opts.IDs, or ErrClosed.
func (s *Store) ExportCount(ctx context.Context, opts ExportOptions) (_ int, err error) {
	defer wrap(&err, "count the export")
	return read(s, ctx, func(ctx context.Context, q backend.Tx) (int, error) {
		if len(opts.IDs) == 0 {
			n, err := s.q.ExportCount(ctx, q, nullable(opts.Source))
			return int(n), err
		}
		n := 0
		err := s.eachExportID(ctx, q, opts, func(db.Session) error {
			n++
			return nil
		})
		return n, err
	})
}

// eachExport calls fn with every exported session, messages loaded, in
// ExportAll's order and in one snapshot.
func (s *Store) eachExport(ctx context.Context, source string, fn func(SessionExport) error) error {
	return readEach(s, ctx, func(ctx context.Context, tx backend.Tx) error {
		order, err := s.exportOrder(ctx, tx)
		if err != nil {
			return err
		}
		return s.walkExport(ctx, tx, ExportOptions{Source: source}, func(r db.Session, lastActive sqlnum.Real) error {
			e := exportOf(r, lastActive)
			e.order = order
			err := s.eachMessageIn(ctx, tx, r.ID, func(m db.Message) error {
				e.Messages = append(e.Messages, messageFromDB(m))
				return nil
			})
			if err != nil {
				return err
			}
			return fn(e)
		})
	})
}

// exportOrderSQL is upstream's search_sessions order (export_all's)
// without its LIMIT, read as a cursor; last_active is the newest message's
// time, live or not, as there. Hand-written because sqlc's :many collects every row into a
// slice, and the export must stream. It selects only the id and the sort
// keys, so the sort SQLite runs holds a few bytes per session, not whole
// rows with their system prompts; each row is then read by id. The newest
// message is a correlated MAX, as in SessionBrowse (see there): one seek
// into the (session_id, timestamp) index per session instead of upstream's
// GROUP BY over every message, the same value for every session
// (TestExportOrderSameRows).
const exportOrderSQL = `
SELECT s.id, COALESCE(
    (SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id),
    s.started_at
) AS last_active
FROM sessions s
WHERE ?1 IS NULL OR s.source = ?1
ORDER BY last_active DESC, s.started_at DESC, s.id DESC`

// walkExport streams the sessions opts selects to fn, each row with its
// last activity: the ids given, in their order, after checking every one
// exists; else the export order.
func (s *Store) walkExport(ctx context.Context, tx backend.Tx, opts ExportOptions, fn func(db.Session, sqlnum.Real) error) error {
	if len(opts.IDs) == 0 {
		return s.walkSessions(ctx, tx, opts.Source, fn)
	}
	// Every id is looked up before the first line is written; the rows of
	// the sessions named are few, so they are kept for the second step.
	var named []db.Session
	err := s.eachExportID(ctx, tx, opts, func(r db.Session) error {
		named = append(named, r)
		return nil
	})
	if err != nil {
		return err
	}
	for _, r := range named {
		last, err := s.q.SessionLastActive(ctx, tx, r.ID)
		if err != nil {
			return err
		}
		if err := fn(r, last); err != nil {
			return err
		}
	}
	return nil
}

// eachExportID calls fn with the row of each of opts.IDs that has
// opts.Source (any source when ""), failing with ErrSessionNotFound at the
// first id that names no session.
func (s *Store) eachExportID(ctx context.Context, q backend.Tx, opts ExportOptions, fn func(db.Session) error) error {
	for _, id := range opts.IDs {
		r, err := s.q.SessionGet(ctx, q, id)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("session %s: %w", quote(id), ErrSessionNotFound)
		}
		if err != nil {
			return err
		}
		if opts.Source != "" && r.Source != opts.Source {
			continue
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// walkSessions streams the sessions of the export order to fn, each row
// with its last activity.
func (s *Store) walkSessions(ctx context.Context, tx backend.Tx, source string, fn func(db.Session, sqlnum.Real) error) error {
	if tx.PG != nil {
		return s.pgWalkSessions(ctx, tx, source, fn)
	}
	rows, err := tx.QueryContext(ctx, exportOrderSQL, nullable(source))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var lastActive sqlnum.Real
		if err := rows.Scan(&id, &lastActive); err != nil {
			return err
		}
		r, err := s.q.SessionGet(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := fn(r, lastActive); err != nil {
			return err
		}
	}
	return rows.Err()
}

// exportOf is a session row with its last activity, messages not read yet.
// A last activity of another storage class (the newest message's timestamp
// holds text) is kept in Stored, as the original's export_all carries it.
func exportOf(r db.Session, lastActive sqlnum.Real) SessionExport {
	e := SessionExport{Session: sessionFromDB(r), Messages: []Message{}}
	st := storedValues(e.Stored)
	e.LastActive = Timestamp(st.real("last_active", lastActive))
	e.Stored = st
	return e
}

// columnsSQL lists a table's columns in their order in the file (PRAGMA
// table_info). Hand-written: sqlc cannot compile the pragma's table-valued
// form. The table name is one of the two constants below, bound as a
// parameter.
const columnsSQL = `SELECT name FROM pragma_table_info(?1) ORDER BY cid`

// fileOrder reads the order of the sessions and messages columns of the
// file q reads: an export writes its keys in that order, as upstream's
// dict(row) does, so that a file migrated from an older schema (its new
// columns appended) exports as upstream exports it.
func fileOrder(ctx context.Context, q backend.Tx) (transfer.Order, error) {
	var cols [2][]string
	for i, table := range []string{"sessions", "messages"} {
		var err error
		if cols[i], err = columnNames(ctx, q, table); err != nil {
			return transfer.Order{}, err
		}
	}
	return transfer.NewOrder(cols[0], cols[1]), nil
}

// columnNames runs columnsSQL for table, through rawQuery when q allows
// it.
func columnNames(ctx context.Context, q backend.Tx, table string) ([]string, error) {
	var names []string
	var name string
	if rc, ok := rawOf(ctx, q); ok {
		err := rawQuery(ctx, rc, columnsSQL, []any{table}, []any{&name}, func() error {
			names = append(names, name)
			return nil
		})
		return names, err
	}
	rows, err := q.QueryContext(ctx, columnsSQL, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	return names, rows.Err()
}
