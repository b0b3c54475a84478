package store

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
)

// Anchored views read a window of a session's messages around one message
// (session search's hit, or a scroll position), every active state
// included: a search can land on a compaction-archived row, and its
// neighbours are what the hit means.

// MessageWindow is a window of messages around an anchor.
type MessageWindow struct {
	// Messages are the window, in id order: up to the window's size of
	// messages before the anchor, the anchor, up to that many after.
	Messages []Message
	// Before and After count the messages of the window before and after
	// the anchor: fewer than the window's size means the session starts
	// or ends there.
	Before, After int
}

// MessagesAround returns the window of session id's messages around the
// message anchor, window messages on each side (negative: 0), by id and
// whatever their active state (upstream's get_messages_around). An anchor
// that is not a message of the session gives an empty window.
//
// It returns ErrClosed.
func (s *Store) MessagesAround(ctx context.Context, id string, anchor int64, window int) (_ MessageWindow, err error) {
	defer wrapOn(&err, "read messages around a message of", id)
	return read(s, ctx, func(ctx context.Context, q backend.Tx) (MessageWindow, error) {
		return s.messagesAround(ctx, q, id, anchor, window)
	})
}

// messagesAround is MessagesAround in the read transaction q.
func (s *Store) messagesAround(ctx context.Context, q backend.Tx, id string, anchor int64, window int) (MessageWindow, error) {
	w := MessageWindow{Messages: []Message{}}
	window = max(window, 0)
	// The anchor and the rows before it, newest first; the anchor is the
	// first row when it is a message of the session.
	before, err := s.q.MessageUpTo(ctx, q, db.MessageUpToParams{SessionID: id, ID: anchor, Limit: int64(window) + 1})
	if err != nil || len(before) == 0 || before[0].ID != anchor {
		return w, err
	}
	after, err := s.q.MessageAfter(ctx, q, db.MessageAfterParams{SessionID: id, ID: anchor, Limit: int64(window)})
	if err != nil {
		return w, err
	}
	slices.Reverse(before)
	w.Messages = messagesFromDB(append(before, after...))
	w.Before, w.After = len(before)-1, len(after)
	return w, nil
}

// AnchoredViewOptions shape an AnchoredView. DefaultAnchoredView gives
// upstream's defaults.
type AnchoredViewOptions struct {
	// Window is the number of messages on each side of the anchor
	// (negative: 0).
	Window int
	// Bookend is the number of messages at each end of the session
	// (negative: 0).
	Bookend int
	// Roles keeps only messages of these roles in the window (the anchor
	// is always kept) and the bookends; empty keeps every role.
	Roles []string
}

// DefaultAnchoredView returns upstream's get_anchored_view defaults: a
// window of 5, bookends of 3, user and assistant messages.
func DefaultAnchoredView() AnchoredViewOptions {
	return AnchoredViewOptions{Window: 5, Bookend: 3, Roles: []string{"user", "assistant"}}
}

// AnchoredView is a window around an anchor and the two ends of its
// session: the goal and the outcome of a long session around a search
// hit, in one read.
type AnchoredView struct {
	MessageWindow
	// BookendStart are the session's first messages with content (of the
	// roles kept) before the window, in id order; BookendEnd its last
	// ones after the window, in id order. A bookend never overlaps the
	// window, so near an end of the session it is shorter or empty.
	BookendStart, BookendEnd []Message
}

// AnchoredView returns the window around the message anchor of session id
// (as MessagesAround, then filtered to opts.Roles) with the session's
// bookends (upstream's get_anchored_view). A bookend message has content
// whose SQLite length() is above 0: a tool-call-only turn ("" content) is
// never one, and neither is structured content, whose stored text starts
// with a NUL byte, so length() is 0 (upstream's SQL, followed). An anchor
// that is not a message of the session gives an empty view.
//
// It returns ErrClosed.
func (s *Store) AnchoredView(ctx context.Context, id string, anchor int64, opts AnchoredViewOptions) (_ AnchoredView, err error) {
	defer wrapOn(&err, "read the anchored view of", id)
	return read(s, ctx, func(ctx context.Context, q backend.Tx) (AnchoredView, error) {
		v := AnchoredView{BookendStart: []Message{}, BookendEnd: []Message{}}
		w, err := s.messagesAround(ctx, q, id, anchor, opts.Window)
		if err != nil || len(w.Messages) == 0 {
			v.MessageWindow = w
			return v, err
		}
		first, last := w.Messages[0].ID, w.Messages[len(w.Messages)-1].ID
		if len(opts.Roles) > 0 {
			w.Messages = slices.DeleteFunc(w.Messages, func(m Message) bool {
				return m.ID != anchor && !slices.Contains(opts.Roles, m.Role)
			})
		}
		v.MessageWindow = w
		bookend := int64(max(opts.Bookend, 0))
		if bookend == 0 {
			return v, nil
		}
		roles, err := json.Marshal(opts.Roles)
		if err != nil {
			return v, err
		}
		all := boolInt(len(opts.Roles) == 0)
		start, err := s.q.MessageBookendStart(ctx, q, db.MessageBookendStartParams{
			SessionID: id, ID: first, AllRoles: all, Roles: string(roles), Limit: bookend,
		})
		if err != nil {
			return v, err
		}
		end, err := s.q.MessageBookendEnd(ctx, q, db.MessageBookendEndParams{
			SessionID: id, ID: last, AllRoles: all, Roles: string(roles), Limit: bookend,
		})
		if err != nil {
			return v, err
		}
		slices.Reverse(end)
		v.BookendStart, v.BookendEnd = messagesFromDB(start), messagesFromDB(end)
		return v, nil
	})
}
