package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/pyjson"
	"github.com/hermesstate/hermesstate/internal/pytext"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// Gateway sessions: a session the messaging gateway runs carries its
// routing key (session_key, e.g. "agent:main:telegram:dm:123"), its peer
// (source, user_id, chat_id, chat_type, thread_id) and its presentation
// (display_name, origin_json: the gateway's own JSON of the origin, stored
// as given). Rows with a session_key are the gateway's; the lookups below
// read only those (FindLatestGatewaySessionForPeer's fallback excepted).
// Every text argument must be UTF-8 (ErrInvalidText); "" in an optional
// field is NULL, which every gateway lookup treats as "" anyway.

// GatewayPeer is the routing peer of a gateway session, for
// RecordGatewaySessionPeer and FindLatestGatewaySessionForPeer.
type GatewayPeer struct {
	// Source is the platform ("telegram", "discord", …), stored in
	// sessions.source; required.
	Source string
	// SessionKey is the gateway's routing key; required.
	SessionKey string
	// UserID, ChatID, ChatType and ThreadID are the peer; "" is NULL.
	UserID, ChatID, ChatType, ThreadID string
	// DisplayName and OriginJSON are the presentation metadata; empty ones
	// keep what is stored. OriginJSON must be one JSON value; its bytes are
	// stored exactly as given. FindLatestGatewaySessionForPeer ignores both.
	DisplayName string
	OriginJSON  json.RawMessage
}

// check validates the fields every use of a peer needs.
func (p GatewayPeer) check() error {
	switch {
	case p.Source == "":
		return fmt.Errorf("source: %w", ErrEmptyArgument)
	case p.SessionKey == "":
		return fmt.Errorf("session key: %w", ErrEmptyArgument)
	}
	return checkTexts("source", p.Source, "session key", p.SessionKey, "user id", p.UserID,
		"chat id", p.ChatID, "chat type", p.ChatType, "thread id", p.ThreadID, "display name", p.DisplayName)
}

// opaqueJSON checks text a caller hands the store to keep as it is: it must
// be UTF-8 and one JSON value Python can read (what the original's readers
// json.loads), else ErrInvalidText or ErrInvalidJSON naming field.
func opaqueJSON(field string, text []byte) (string, error) {
	if err := checkText(field, string(text)); err != nil {
		return "", err
	}
	if _, err := pyjson.Encode(text); err != nil {
		return "", fmt.Errorf("%s: %w", field, err) // err matches ErrInvalidJSON
	}
	return string(text), nil
}

// RecordGatewaySessionPeer records on session id the gateway routing key
// and peer of p. The key, source and peer fields are overwritten, "" ones
// with NULL (a peer field the gateway no longer knows must not survive);
// DisplayName and OriginJSON are written only when given.
//
// It returns ErrSessionNotFound, ErrEmptyArgument for an empty Source or
// SessionKey (the original ignores such a call), ErrInvalidJSON,
// ErrInvalidText, ErrBusy or ErrClosed; on error nothing is written.
func (s *Store) RecordGatewaySessionPeer(ctx context.Context, id string, p GatewayPeer) (err error) {
	defer wrapOn(&err, "record gateway peer", id)
	if err := p.check(); err != nil {
		return err
	}
	var origin *string
	if len(p.OriginJSON) > 0 {
		text, err := opaqueJSON("origin json", p.OriginJSON)
		if err != nil {
			return err
		}
		origin = &text
	}
	return s.update(ctx, id, func(ctx context.Context, tx backend.Tx) (int64, error) {
		return s.q.GatewayRecordPeer(ctx, tx, db.GatewayRecordPeerParams{
			SessionKey: &p.SessionKey, Source: p.Source, UserID: nullable(p.UserID),
			ChatID: nullable(p.ChatID), ChatType: nullable(p.ChatType), ThreadID: nullable(p.ThreadID),
			DisplayName: nullable(p.DisplayName), OriginJSON: origin, ID: id,
		})
	})
}

// SetExpiryFinalized sets session id's expiry_finalized flag: 1 when
// finalized, else 0.
//
// It returns ErrSessionNotFound, ErrBusy or ErrClosed.
func (s *Store) SetExpiryFinalized(ctx context.Context, id string, finalized bool) (err error) {
	defer wrapOn(&err, "set expiry finalized", id)
	return s.update(ctx, id, func(ctx context.Context, tx backend.Tx) (int64, error) {
		return s.q.GatewaySetExpiryFinalized(ctx, tx, db.GatewaySetExpiryFinalizedParams{ExpiryFinalized: sqlnum.IntOf(boolInt(finalized)), ID: id})
	})
}

// GatewayListOptions select the sessions ListGatewaySessions returns.
type GatewayListOptions struct {
	// Platform keeps one source, compared case-insensitively (ASCII);
	// "" keeps all.
	Platform string
	// IncludeEnded lists ended sessions too (the original's
	// active_only=False).
	IncludeEnded bool
}

// ListGatewaySessions lists the gateway's sessions: for each routing key
// the session that started last (sessions sharing that start all appear),
// most recently active first (ties: greater id first), each with its last
// activity (newest message of any kind, else its start). Sessions without
// a key are never listed.
//
// It returns ErrClosed.
func (s *Store) ListGatewaySessions(ctx context.Context, opts GatewayListOptions) (_ []ActiveSession, err error) {
	defer wrap(&err, "list gateway sessions")
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) ([]ActiveSession, error) {
		rows, err := s.q.GatewaySessionList(ctx, q, db.GatewaySessionListParams{
			Platform: nullable(opts.Platform), IncludeEnded: boolInt(opts.IncludeEnded),
		})
		return convertRows(rows, err, func(r db.GatewaySessionListRow) ActiveSession {
			return ActiveSession{Session: sessionFromDB(r.Session), LastActive: Timestamp(r.LastActive)}
		})
	})
}

// Origin names a chat for FindSessionByOrigin.
type Origin struct {
	// Platform is the source, compared case-insensitively (ASCII);
	// required.
	Platform string
	// ChatID is the chat; required.
	ChatID string
	// ThreadID, when not nil, keeps the sessions of that thread only (""
	// keeps those without a thread); nil matches every thread.
	ThreadID *string
	// UserID, when not "", prefers the sender's own session.
	UserID string
	// ExactUser refuses the fallback the original takes when UserID
	// matches no session but the chat has exactly one: with it set, that
	// case is ErrNotFound instead of the other user's session.
	ExactUser bool
}

// FindSessionByOrigin returns the id of the newest live (not ended) gateway
// session of a chat, as the gateway mirror finds where to copy a message.
// With o.UserID, the newest session of that user wins; when none is that
// user's, the chat's only session is returned (upstream's rule, kept unless
// o.ExactUser is set), and none when there are several. Without o.UserID,
// none is returned when the chat's sessions belong to more than one
// (non-blank) user: a message must not land in another participant's
// session.
//
// It returns ErrNotFound when there is no such session or the choice is
// ambiguous, ErrEmptyArgument for an empty Platform or ChatID,
// ErrInvalidText or ErrClosed.
func (s *Store) FindSessionByOrigin(ctx context.Context, o Origin) (_ string, err error) {
	defer wrapOn(&err, "find session by origin", o.Platform+":"+o.ChatID)
	switch {
	case o.Platform == "":
		return "", fmt.Errorf("platform: %w", ErrEmptyArgument)
	case o.ChatID == "":
		return "", fmt.Errorf("chat id: %w", ErrEmptyArgument)
	}
	if err := checkTexts("platform", o.Platform, "chat id", o.ChatID, "thread id", deref(o.ThreadID), "user id", o.UserID); err != nil {
		return "", err
	}
	rows, err := readOne(s, ctx, func(ctx context.Context, q backend.Tx) ([]db.GatewayOriginCandidatesRow, error) {
		return s.q.GatewayOriginCandidates(ctx, q, db.GatewayOriginCandidatesParams{
			Platform: o.Platform, ChatID: &o.ChatID,
			MatchThread: boolInt(o.ThreadID != nil), ThreadID: deref(o.ThreadID),
		})
	})
	if err != nil {
		return "", err
	}
	if id, ok := pickOrigin(rows, o); ok {
		return id, nil
	}
	return "", ErrNotFound
}

// pickOrigin chooses among a chat's live sessions, newest first, by the
// original's rules (see FindSessionByOrigin).
func pickOrigin(rows []db.GatewayOriginCandidatesRow, o Origin) (string, bool) {
	if len(rows) == 0 {
		return "", false
	}
	if o.UserID != "" {
		for _, r := range rows {
			if deref(r.UserID) == o.UserID {
				return r.ID, true
			}
		}
		if len(rows) > 1 || o.ExactUser {
			return "", false
		}
		return rows[0].ID, true
	}
	users := map[string]bool{}
	for _, r := range rows {
		if u := pytext.Strip(deref(r.UserID)); u != "" {
			users[u] = true
		}
	}
	if len(users) > 1 {
		return "", false
	}
	return rows[0].ID, true
}

// FindLatestGatewaySessionForPeer returns the newest session the gateway
// can recover for a routing peer: one with p.SessionKey and p.Source that
// is live or was ended only by the old gateway cleanup ("agent_close") or
// the TUI's mistaken reap ("ws_orphan_reap"), and that holds messages.
// When none has the key, and p.ChatID and p.ChatType are both given, a
// session matching the whole peer (source, user, chat, chat type and
// thread, "" matching NULL) is taken instead, by the same rules, so a
// recovery never crosses chats, threads or users. p.DisplayName and
// p.OriginJSON are ignored.
//
// It returns ErrNotFound when there is none, ErrEmptyArgument for an empty
// Source or SessionKey, ErrInvalidText or ErrClosed.
func (s *Store) FindLatestGatewaySessionForPeer(ctx context.Context, p GatewayPeer) (_ *Session, err error) {
	defer wrapOn(&err, "find gateway session", p.SessionKey)
	if err := p.check(); err != nil {
		return nil, err
	}
	return read(s, ctx, func(ctx context.Context, q backend.Tx) (*Session, error) {
		r, err := s.q.GatewayLatestByKey(ctx, q, db.GatewayLatestByKeyParams{SessionKey: &p.SessionKey, Source: p.Source})
		if !errors.Is(err, sql.ErrNoRows) || p.ChatID == "" || p.ChatType == "" {
			return foundSession(r, err)
		}
		return foundSession(s.q.GatewayLatestByPeer(ctx, q, db.GatewayLatestByPeerParams{
			Source: p.Source, UserID: p.UserID, ChatID: p.ChatID, ChatType: p.ChatType, ThreadID: p.ThreadID,
		}))
	})
}
