package transfer

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/hermesstate/hermesstate/internal/pyjson"
)

// Record is one session of an import, checked, as the store inserts it.
type Record struct {
	// Line is the 1-based line the record starts on (set by Reader).
	Line     int
	Session  Session
	Messages []Message
	// MessageIDs is the JSON array of the messages' ids when they could
	// be kept (every one positive and distinct), else "" and every
	// message's ID is 0.
	MessageIDs string
	// Size is the record's size as upstream's import caps count it
	// (PythonCompactSize; set by Reader).
	Size int64
}

// Parse checks one import record (an export line, or an entry of the
// original's export_all) and returns it as rows to insert: every column as
// written, numeric values as stored, a column the record lacks as the
// schema's default (Decode), each message given the session's id,
// tool_calls re-encoded as the original stores it (the text of Python's
// json.dumps; NULL for a value Python treats as false, as JSONColumn),
// structured content as the original stores it (EncodeContent).
//
// It refuses, with an error naming the field (and the 1-based message): text
// that is not UTF-8 or escapes half a UTF-16 surrogate pair (ErrInvalidText;
// except inside tool_calls, where the escape is kept); text that is not one
// JSON object of an export line's shape; an empty or missing "id" or
// "source"; a "started_at" that is missing or 0; a message of another
// session, or without "role" or "timestamp"; a JSON column (model_config,
// tool_calls, reasoning_details, codex_reasoning_items,
// codex_message_items) or a structured content that is not one JSON value
// or is nested deeper than Python reads (ErrInvalidJSON). The text
// columns are stored as they are.
func Parse(raw []byte) (Record, error) {
	if err := checkText(raw); err != nil {
		return Record{}, err
	}
	e, err := Decode(raw)
	switch {
	case errors.Is(err, ErrInvalidJSON) || errors.Is(err, ErrInvalidText): // a content Decode cannot store
		return Record{}, err
	case err != nil:
		return Record{}, fmt.Errorf("not a session object: %w", err)
	}
	s := e.Session
	switch {
	case s.ID == "":
		return Record{}, errors.New(`"id" is missing or empty`)
	case s.Source == "":
		return Record{}, errors.New(`"source" is missing or empty`)
	case s.StartedAt.Float64 == 0 && s.StartedAt.Stored == nil:
		return Record{}, errors.New(`"started_at" is missing or zero`)
	}
	if err := checkJSONText("model_config", s.ModelConfig); err != nil {
		return Record{}, err
	}
	rec := Record{Session: s, Messages: e.Messages}
	ids := make([]byte, 0, 8*len(e.Messages)+2)
	ids = append(ids, '[')
	seen := make(map[int64]bool, len(e.Messages))
	keep := true
	for i := range rec.Messages {
		m := &rec.Messages[i]
		if err := checkMessage(s.ID, m); err != nil {
			return Record{}, fmt.Errorf("message %d: %w", i+1, err)
		}
		keep = keep && m.ID > 0 && !seen[m.ID]
		seen[m.ID] = true
		if i > 0 {
			ids = append(ids, ',')
		}
		ids = strconv.AppendInt(ids, m.ID, 10)
	}
	if keep && len(rec.Messages) > 0 {
		rec.MessageIDs = string(append(ids, ']'))
	} else {
		for i := range rec.Messages {
			rec.Messages[i].ID = 0
		}
	}
	return rec, nil
}

// checkMessage checks one message of session id and encodes its
// tool_calls as stored.
func checkMessage(id string, m *Message) error {
	switch {
	case m.SessionID != "" && m.SessionID != id:
		return fmt.Errorf("belongs to session %q, not %q", m.SessionID, id)
	case m.Role == "":
		return errors.New(`"role" is missing or empty`)
	case m.Timestamp.Float64 == 0 && m.Timestamp.Stored == nil:
		return errors.New(`"timestamp" is missing or zero`)
	}
	m.SessionID = id
	// tool_calls is exported decoded (get_messages decodes it); storing it
	// again writes the Python json.dumps text the original stored.
	if m.ToolCalls != nil {
		calls, _, err := JSONColumn("tool_calls", []byte(*m.ToolCalls))
		if err != nil {
			return err
		}
		m.ToolCalls = calls
	}
	for _, c := range []struct {
		name string
		text *string
	}{{"reasoning_details", m.ReasoningDetails}, {"codex_reasoning_items", m.CodexReasoningItems}, {"codex_message_items", m.CodexMessageItems}} {
		if err := checkJSONText(c.name, c.text); err != nil {
			return err
		}
	}
	return nil
}

// JSONColumn returns what a JSON column stores for the JSON text raw, as
// the original stores `json.dumps(x) if x else None`: NULL for nothing and
// for a value Python treats as false (null, false, 0, "", [], {}), else
// the text Python's json.dumps writes. It also returns the value's number
// of tool calls (pyjson.Value.Calls), from the same scan.
//
// It returns an error matching ErrInvalidJSON, naming field, when raw is
// not one JSON value or is nested deeper than Python reads.
func JSONColumn(field string, raw []byte) (*string, int, error) {
	if len(raw) == 0 {
		return nil, 0, nil
	}
	v, err := pyjson.Analyze(raw)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", field, err)
	}
	if !v.Truthy {
		return nil, v.Calls, nil
	}
	return &v.Text, v.Calls, nil
}

// checkJSONText refuses a JSON text column that is not JSON, or is JSON
// nested deeper than Python reads (pyjson.MaxDepth): every JSON column the
// store writes holds what the original can read back. The text itself is
// stored as it is.
func checkJSONText(field string, text *string) error {
	if text == nil {
		return nil
	}
	if _, err := pyjson.Encode([]byte(*text)); err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	return nil
}
