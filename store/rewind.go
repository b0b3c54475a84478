package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/pytext"
	"github.com/hermesstate/hermesstate/internal/sentinel"
)

// Rewind takes messages back without deleting them: their rows stay with
// active = 0 (compacted = 0 tells them from compaction-archived ones),
// hidden from GetMessages, Conversation, exports and search, and found
// again by the Include-Inactive options.

var (
	// ErrMessageNotFound is returned by RewindToMessage when the target id
	// is not a message of the session. Nothing is written. It matches
	// ErrNotFound.
	ErrMessageNotFound = sentinel.New("no such message in the session", ErrNotFound)

	// ErrNotUserMessage is returned by RewindToMessage when the target is
	// not a user message: a rewind goes back to a prompt. Nothing is
	// written.
	ErrNotUserMessage = errors.New("rewind target is not a user message")
)

// RewindResult is what RewindToMessage did.
type RewindResult struct {
	// Rewound is the number of messages newly taken back (live ones from
	// the target on; already inactive ones are not counted).
	Rewound int
	// Target is the target message as it was before the rewind, its
	// content decoded, for a caller to offer as the next prompt.
	Target Message
	// NewHead is the id of the session's newest live message after the
	// rewind, nil when none is left.
	NewHead *int64
}

// RewindToMessage takes back session id's live messages from the user
// message target on, that message included (upstream's rewind_to_message):
// they get active = 0 and stay on disk. The session's rewind_count goes up
// by one on every call, even when nothing was live any more; its
// message_count is left as it is, as upstream leaves it. Everything
// happens in one write transaction.
//
// It returns ErrMessageNotFound (the target is not a message of the
// session, or the session does not exist), ErrNotUserMessage, ErrBusy or
// ErrClosed; on error nothing is written.
func (s *Store) RewindToMessage(ctx context.Context, id string, target int64) (_ RewindResult, err error) {
	defer wrapOn(&err, "rewind", id)
	var res RewindResult
	err = s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		if err := s.q.LockSession(ctx, tx, id); err != nil {
			return err
		}
		res = RewindResult{}
		row, err := s.q.MessageInSession(ctx, tx, db.MessageInSessionParams{ID: target, SessionID: id})
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("message %d: %w", target, ErrMessageNotFound)
		case err != nil:
			return err
		case row.Role != "user":
			return fmt.Errorf("%w: message %d is a %q message", ErrNotUserMessage, target, row.Role)
		}
		res.Target = messageFromDB(row)
		n, err := s.q.MessageRewindFrom(ctx, tx, db.MessageRewindFromParams{SessionID: id, ID: target})
		if err != nil {
			return err
		}
		res.Rewound = int(n)
		if _, err := s.q.SessionBumpRewindCount(ctx, tx, id); err != nil {
			return err
		}
		head, err := s.q.MessageActiveHead(ctx, tx, id)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return nil
		case err != nil:
			return err
		}
		res.NewHead = &head
		return nil
	})
	return res, err
}

// RestoreRewound makes session id's inactive messages from the message id
// since on live again and returns how many (upstream's restore_rewound:
// compaction-archived rows in that range come back too, their compacted
// flag left as it is). The counters are left as they are. An unknown
// session restores nothing.
//
// It returns ErrBusy, ErrReadOnly or ErrClosed.
func (s *Store) RestoreRewound(ctx context.Context, id string, since int64) (_ int, err error) {
	defer wrapOn(&err, "restore rewound messages of", id)
	var n int64
	err = s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		if err := s.q.LockSession(ctx, tx, id); err != nil {
			return err
		}
		var err error
		n, err = s.q.MessageRestoreFrom(ctx, tx, db.MessageRestoreFromParams{SessionID: id, ID: since})
		return err
	})
	return int(n), err
}

// UserMessagePreview is one entry of ListRecentUserMessages: a user message
// to rewind to.
type UserMessagePreview struct {
	ID        int64     `json:"id"`
	Timestamp Timestamp `json:"timestamp"`
	// Preview is the message's text with every run of white space made
	// one space, cut to 77 code points and "..." when longer than 80; for
	// structured content its text parts joined by spaces, or
	// "[multimodal content]" when it has none.
	Preview string `json:"preview"`
}

// RecentUserMessagesOptions select what ListRecentUserMessages returns.
type RecentUserMessagesOptions struct {
	// Limit is how many messages at most; 0 means upstream's default, 20;
	// negative means all.
	Limit int
	// IncludeInactive lists rewound and compaction-archived user messages
	// too.
	IncludeInactive bool
}

// defaultRecentUserMessages is upstream's list_recent_user_messages limit.
const defaultRecentUserMessages = 20

// ListRecentUserMessages returns session id's newest user messages, newest
// first, with a one-line preview each (the /rewind picker's list; see
// UserMessagePreview). Live messages only unless opts.IncludeInactive.
//
// It returns ErrClosed.
func (s *Store) ListRecentUserMessages(ctx context.Context, id string, opts RecentUserMessagesOptions) (_ []UserMessagePreview, err error) {
	defer wrapOn(&err, "list recent user messages of", id)
	p := db.MessageRecentUserParams{SessionID: id, IncludeInactive: boolInt(opts.IncludeInactive), Limit: int64(opts.Limit)}
	switch {
	case opts.Limit == 0:
		p.Limit = defaultRecentUserMessages
	case opts.Limit < 0:
		p.Limit = -1
	}
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) ([]UserMessagePreview, error) {
		rows, err := s.q.MessageRecentUser(ctx, q, p)
		return convertRows(rows, err, func(r db.MessageRecentUserRow) UserMessagePreview {
			var st storedValues
			return UserMessagePreview{ID: r.ID, Timestamp: Timestamp(st.real("timestamp", r.Timestamp)), Preview: preview(r.Content)}
		})
	})
}

// previewLength is the longest preview in code points; a longer text is
// cut to previewLength-3 and "...".
const previewLength = 80

// preview is upstream's list_recent_user_messages preview of a stored
// content.
func preview(col *string) string {
	text, structured := decodeContent(col)
	var p string
	switch {
	case structured != nil:
		p = partsText(structured)
	case text != nil:
		p = *text
	}
	// " ".join(p.split()): Python's split() cuts at its Unicode white space.
	p = strings.Join(strings.FieldsFunc(p, pytext.IsSpace), " ")
	if pytext.RuneCount(p) > previewLength {
		p = pytext.Truncate(p, previewLength-3) + "..."
	}
	return p
}

// partsText is the preview of structured content: for a list, the
// non-empty "text" of its {"type": "text"} parts joined by spaces and
// trimmed, "[multimodal content]" when that is empty; for anything else
// (a dict, a number), "".
func partsText(raw []byte) string {
	var parts []any
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "" // not a list
	}
	var texts []string
	for _, p := range parts {
		obj, ok := p.(map[string]any)
		if !ok || obj["type"] != "text" {
			continue
		}
		// A text that is not a string would make upstream's join fail;
		// a read must not, so such a part is skipped.
		if t, ok := obj["text"].(string); ok && t != "" {
			texts = append(texts, t)
		}
	}
	if t := pytext.Strip(strings.Join(texts, " ")); t != "" {
		return t
	}
	return "[multimodal content]"
}
