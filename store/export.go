package store

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"

	"github.com/hermesstate/hermesstate/db"
)

// SessionExport is one session with its whole transcript, as the
// original's export_session and export_all return it.
type SessionExport struct {
	Session
	// LastActive is set by ExportAll and ExportJSONL (the original's
	// export_all rows carry it); ExportSession leaves it zero.
	LastActive Timestamp `json:"last_active,omitzero"`
	Messages   []Message `json:"messages"`
}

// ExportSession returns session id with all its messages (as GetMessages
// returns them), read in one snapshot.
//
// It returns ErrNotFound or ErrClosed.
func (s *Store) ExportSession(ctx context.Context, id string) (*SessionExport, error) {
	return read(s, ctx, func(ctx context.Context, q db.DBTX) (*SessionExport, error) {
		r, err := s.q.SessionGet(ctx, q, id)
		sess, err := foundSession(r, err, "export %q", id)
		if err != nil {
			return nil, err
		}
		msgs, err := s.q.MessageListBySession(ctx, q, id)
		if err != nil {
			return nil, err
		}
		e := &SessionExport{Session: *sess, Messages: make([]Message, len(msgs))}
		for i, m := range msgs {
			e.Messages[i] = messageFromDB(m)
		}
		return e, nil
	})
}

// ExportAll returns every session (of one source, or all when source is
// ""), children included, most recently active first, each with all its
// messages, as the original's export_all. It holds everything in memory;
// for large stores use ExportJSONL.
//
// It returns ErrClosed.
func (s *Store) ExportAll(ctx context.Context, source string) ([]SessionExport, error) {
	out := []SessionExport{}
	err := s.eachExport(ctx, source, func(e SessionExport) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

// ExportJSONL writes what ExportAll returns to w as JSON Lines, one session
// object per line (the Session fields, last_active and a "messages" array),
// in bounded memory: one session's messages at a time, streamed message by
// message, whatever the number of sessions and messages. The whole export
// reads one snapshot of the database. It returns the number of sessions
// written.
//
// It returns w's write error or ErrClosed.
func (s *Store) ExportJSONL(ctx context.Context, w io.Writer, source string) (int, error) {
	bw := bufio.NewWriter(w)
	n := 0
	err := readEach(s, ctx, func(ctx context.Context, tx *sql.Tx) error {
		return s.walkSessions(ctx, tx, source, func(e SessionExport) error {
			head, err := marshalJSON(e)
			if err != nil {
				return err
			}
			// "messages":[] is the last field: cut the line open after its
			// [ and stream the messages into it.
			if _, err := bw.Write(bytes.TrimSuffix(head, []byte("]}\n"))); err != nil {
				return err
			}
			sep := ""
			err = s.streamMessages(ctx, tx, e.ID, func(m Message) error {
				b, err := marshalJSON(m)
				if err != nil {
					return err
				}
				bw.WriteString(sep)
				sep = ","
				_, err = bw.Write(bytes.TrimSuffix(b, []byte("\n")))
				return err
			})
			if err != nil {
				return err
			}
			if _, err := bw.WriteString("]}\n"); err != nil {
				return err
			}
			n++
			return nil
		})
	})
	if err != nil {
		return n, fmt.Errorf("store: export: %w", err)
	}
	return n, bw.Flush()
}

// marshalJSON is json.Marshal without HTML escaping (an export is data, not
// a web page: "<" stays "<"), ending in a newline as json.Encoder writes.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return buf.Bytes(), err
}

// eachExport calls fn with every exported session, messages loaded, in
// ExportAll's order and in one snapshot.
func (s *Store) eachExport(ctx context.Context, source string, fn func(SessionExport) error) error {
	return readEach(s, ctx, func(ctx context.Context, tx *sql.Tx) error {
		return s.walkSessions(ctx, tx, source, func(e SessionExport) error {
			err := s.streamMessages(ctx, tx, e.ID, func(m Message) error {
				e.Messages = append(e.Messages, m)
				return nil
			})
			if err != nil {
				return err
			}
			return fn(e)
		})
	})
}

// exportOrderSQL is SessionBrowse's order without its LIMIT, read as a
// cursor. Hand-written because sqlc's :many collects every row into a
// slice, and the export must stream. It selects only the id and the sort
// keys, so the sort SQLite runs holds a few bytes per session, not whole
// rows with their system prompts; each row is then read by id.
const exportOrderSQL = `
SELECT s.id, COALESCE(m.last_active, s.started_at) AS last_active
FROM sessions s
LEFT JOIN (
    SELECT session_id, MAX(timestamp) AS last_active FROM messages GROUP BY session_id
) m ON m.session_id = s.id
WHERE ?1 IS NULL OR s.source = ?1
ORDER BY last_active DESC, s.started_at DESC, s.id DESC`

// walkSessions streams the sessions of the export order to fn, Messages
// empty.
func (s *Store) walkSessions(ctx context.Context, tx *sql.Tx, source string, fn func(SessionExport) error) error {
	rows, err := tx.QueryContext(ctx, exportOrderSQL, nullable(source))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var lastActive float64
		if err := rows.Scan(&id, &lastActive); err != nil {
			return err
		}
		r, err := s.q.SessionGet(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := fn(SessionExport{Session: sessionFromDB(r), LastActive: Timestamp(lastActive), Messages: []Message{}}); err != nil {
			return err
		}
	}
	return rows.Err()
}

// streamMessagesSQL is MessageListBySession read as a cursor (see
// exportSessionsSQL for why it is not the generated method).
// The columns are named, not *, because a file migrated from an old schema
// has its columns in ALTER TABLE order.
const streamMessagesSQL = `
SELECT id, session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp,
    token_count, finish_reason, reasoning, reasoning_details, codex_reasoning_items,
    reasoning_content, codex_message_items
FROM messages WHERE session_id = ? ORDER BY timestamp, id`

// streamMessages calls fn with one session's messages, oldest first.
func (s *Store) streamMessages(ctx context.Context, tx *sql.Tx, id string, fn func(Message) error) error {
	rows, err := tx.QueryContext(ctx, streamMessagesSQL, id)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var m db.Message
		if err := rows.Scan(&m.ID, &m.SessionID, &m.Role, &m.Content, &m.ToolCallID, &m.ToolCalls,
			&m.ToolName, &m.Timestamp, &m.TokenCount, &m.FinishReason, &m.Reasoning,
			&m.ReasoningDetails, &m.CodexReasoningItems, &m.ReasoningContent, &m.CodexMessageItems); err != nil {
			return err
		}
		if err := fn(messageFromDB(m)); err != nil {
			return err
		}
	}
	return rows.Err()
}
