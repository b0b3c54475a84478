package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// NewSession describes a session to create. Empty optional fields are
// stored as NULL.
type NewSession struct {
	ID     string // required; any string, as in the original
	Source string // the platform: "cli", "telegram", "acp", …
	Model  string
	// ModelConfig is any JSON value; it is stored in Python's json.dumps
	// format, and an empty object or array is stored as NULL.
	ModelConfig     json.RawMessage
	SystemPrompt    string
	UserID          string
	ParentSessionID string // must name an existing session
	// SessionKey is the gateway's routing key; ChatID, ChatType and
	// ThreadID the messaging peer the session started in (chat or room, dm
	// or group, thread or topic).
	SessionKey, ChatID, ChatType, ThreadID string
	// Cwd is the frontend's working directory.
	Cwd string
}

// CreateSession inserts a session started now and returns its id.
//
// It returns ErrSessionExists (which matches ErrExists) when the id exists
// already: nothing changes, the existing row keeps its fields. Upstream's
// create_session fills the existing row's NULL columns instead: that is
// UpsertSession; CreateSessionIfAbsent is the v11 original's INSERT OR
// IGNORE. It returns ErrParentNotFound when ParentSessionID names no
// session, ErrInvalidJSON for a malformed ModelConfig (or one nested deeper
// than Python reads), ErrInvalidText for text that is not UTF-8, ErrBusy or
// ErrClosed; on error nothing is written.
func (s *Store) CreateSession(ctx context.Context, n NewSession) (_ string, err error) {
	defer wrapOn(&err, "create session", n.ID)
	created, err := s.createSession(ctx, n)
	switch {
	case err != nil:
		return "", err
	case !created:
		return "", ErrSessionExists
	}
	return n.ID, nil
}

// CreateSessionIfAbsent is the v11 original's create_session: it inserts a
// session started now unless the id exists, in which case nothing changes
// and the first row wins (INSERT OR IGNORE). It reports whether it
// created the session. Upstream v21 fills the NULL columns of an existing
// row instead (UpsertSession).
//
// It returns ErrParentNotFound, ErrInvalidJSON, ErrInvalidText, ErrBusy or
// ErrClosed, as CreateSession; on error nothing is written.
func (s *Store) CreateSessionIfAbsent(ctx context.Context, n NewSession) (_ bool, err error) {
	defer wrapOn(&err, "create session", n.ID)
	return s.createSession(ctx, n)
}

// createSession is CreateSessionIfAbsent.
func (s *Store) createSession(ctx context.Context, n NewSession) (bool, error) {
	p, err := s.newSessionParams(n)
	if err != nil {
		return false, err
	}
	var rows int64
	err = s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		var err error
		rows, err = s.q.SessionCreate(ctx, tx, db.SessionCreateParams(p))
		if isForeignKey(err) {
			return ErrParentNotFound
		}
		return err
	})
	return rows > 0, err
}

// UpsertSession is upstream's create_session (v21): it inserts a session
// started now, or, when the id exists, fills only those of the row's
// model, model_config, system_prompt, session_key, chat_id, chat_type,
// thread_id, parent_session_id and cwd that are NULL, from n. The row's
// source, user_id and started_at never change, so an agent's later call
// enriches a bare gateway row without clobbering its source, and a bare
// call never overwrites a model set earlier. It reports whether it created
// the session.
//
// It returns ErrParentNotFound when it would set a parent that names no
// session (a parent already set is kept and n's is then not checked),
// ErrInvalidJSON, ErrInvalidText, ErrBusy or ErrClosed; on error nothing is
// written.
func (s *Store) UpsertSession(ctx context.Context, n NewSession) (_ bool, err error) {
	defer wrapOn(&err, "upsert session", n.ID)
	p, err := s.newSessionParams(n)
	if err != nil {
		return false, err
	}
	var created bool
	err = s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		var err error
		created, err = s.upsertSession(ctx, tx, p)
		return err
	})
	return created, err
}

// upsertSession runs the upsert in tx and reports whether it created the
// row.
func (s *Store) upsertSession(ctx context.Context, tx backend.Tx, p db.SessionUpsertParams) (bool, error) {
	existed, err := s.q.SessionExists(ctx, tx, p.ID)
	if err != nil {
		return false, err
	}
	err = s.q.SessionUpsert(ctx, tx, p)
	if isForeignKey(err) {
		return false, ErrParentNotFound
	}
	return !existed && err == nil, err
}

// newSessionParams checks n and converts it to the row it writes (both
// statements bind the same columns), started now.
func (s *Store) newSessionParams(n NewSession) (db.SessionUpsertParams, error) {
	if err := checkTexts("id", n.ID, "source", n.Source, "model", n.Model,
		"system prompt", n.SystemPrompt, "user id", n.UserID, "parent session id", n.ParentSessionID,
		"session key", n.SessionKey, "chat id", n.ChatID, "chat type", n.ChatType,
		"thread id", n.ThreadID, "cwd", n.Cwd); err != nil {
		return db.SessionUpsertParams{}, err
	}
	cfg, _, err := encodeJSON("model config", n.ModelConfig)
	if err != nil {
		return db.SessionUpsertParams{}, err
	}
	return db.SessionUpsertParams{
		ID:              n.ID,
		Source:          n.Source,
		UserID:          nullable(n.UserID),
		SessionKey:      nullable(n.SessionKey),
		ChatID:          nullable(n.ChatID),
		ChatType:        nullable(n.ChatType),
		ThreadID:        nullable(n.ThreadID),
		Model:           nullable(n.Model),
		ModelConfig:     cfg,
		SystemPrompt:    nullable(n.SystemPrompt),
		ParentSessionID: nullable(n.ParentSessionID),
		Cwd:             nullable(n.Cwd),
		StartedAt:       sqlnum.RealOf(s.now()),
	}, nil
}

// EnsureSession is upstream's ensure_session(id, source, model): the
// upsert of UpsertSession with only a source and a model. It creates a
// minimal session (source, model, started now) when id does not exist; an
// existing session gets the model only when it has none, and nothing else
// of it changes. An empty source is stored as "unknown", the original's
// default. (Before schema v21 support it never changed an existing
// session; upstream's ensure_session now fills a NULL model.)
//
// It returns ErrInvalidText, ErrBusy or ErrClosed.
func (s *Store) EnsureSession(ctx context.Context, id, source, model string) (err error) {
	defer wrapOn(&err, "ensure session", id)
	if source == "" {
		source = "unknown"
	}
	p, err := s.newSessionParams(NewSession{ID: id, Source: source, Model: model})
	if err != nil {
		return err
	}
	return s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		_, err := s.upsertSession(ctx, tx, p)
		return err
	})
}

// EndSession records that a session ended now, for reason (e.g.
// "user_exit", "compression", "branched"). The first end wins: ending an
// ended session changes neither its time nor its reason (see
// ReopenSession).
//
// It returns ErrSessionNotFound, ErrInvalidText, ErrBusy or ErrClosed.
func (s *Store) EndSession(ctx context.Context, id, reason string) (err error) {
	defer wrapOn(&err, "end session", id)
	if err := checkTexts("end reason", reason); err != nil {
		return err
	}
	now := s.now()
	return s.update(ctx, id, func(ctx context.Context, tx backend.Tx) (int64, error) {
		return s.q.SessionEnd(ctx, tx, db.SessionEndParams{EndedAt: sqlnum.RealOf(now), EndReason: &reason, ID: id})
	})
}

// ReopenSession clears a session's end time and reason, so a later
// EndSession records a new end.
//
// It returns ErrSessionNotFound, ErrBusy or ErrClosed.
func (s *Store) ReopenSession(ctx context.Context, id string) (err error) {
	defer wrapOn(&err, "reopen session", id)
	return s.update(ctx, id, func(ctx context.Context, tx backend.Tx) (int64, error) {
		return s.q.SessionReopen(ctx, tx, id)
	})
}

// UpdateSystemPrompt replaces a session's system prompt.
//
// It returns ErrSessionNotFound, ErrInvalidText, ErrBusy or ErrClosed.
func (s *Store) UpdateSystemPrompt(ctx context.Context, id, prompt string) (err error) {
	defer wrapOn(&err, "update system prompt of", id)
	if err := checkTexts("system prompt", prompt); err != nil {
		return err
	}
	return s.update(ctx, id, func(ctx context.Context, tx backend.Tx) (int64, error) {
		return s.q.SessionUpdateSystemPrompt(ctx, tx, db.SessionUpdateSystemPromptParams{SystemPrompt: &prompt, ID: id})
	})
}

// update runs one UPDATE of session id in a write transaction. When it
// matches no row, the session's existence is checked in the same
// transaction: a missing session is ErrSessionNotFound, an existing one (an
// UPDATE whose WHERE excluded it, such as ending an ended session) is
// success.
func (s *Store) update(ctx context.Context, id string, fn func(context.Context, backend.Tx) (int64, error)) error {
	return s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		if err := s.q.LockSession(ctx, tx, id); err != nil {
			return err
		}
		n, err := fn(ctx, tx)
		if err != nil || n > 0 {
			return err
		}
		return s.mustExist(ctx, tx, id)
	})
}

// mustExist returns ErrSessionNotFound unless session id exists.
func (s *Store) mustExist(ctx context.Context, q backend.Tx, id string) error {
	ok, err := s.q.SessionExists(ctx, q, id)
	if err != nil {
		return err
	}
	if !ok {
		return ErrSessionNotFound
	}
	return nil
}

// GetSession returns the session with exactly this id.
//
// It returns ErrNotFound or ErrClosed.
func (s *Store) GetSession(ctx context.Context, id string) (_ *Session, err error) {
	defer wrapOn(&err, "get session", id)
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) (*Session, error) {
		return foundSession(s.q.SessionGet(ctx, q, id))
	})
}

// foundSession converts the result of a one-session query: "no row" becomes
// ErrNotFound.
func foundSession(r db.Session, err error) (*Session, error) {
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	sess := sessionFromDB(r)
	return &sess, nil
}

// ResolveSessionID returns the id of the session named by an exact id or by
// a unique prefix of one. The prefix is matched literally (its % and _ are
// not wildcards) and, like SQLite's LIKE, ASCII case-insensitively. A
// prefix whose LIKE pattern would pass SQLite's limit (maxLikePattern,
// some 50,000 bytes) names only the session with exactly that id.
//
// It returns ErrNotFound when nothing matches, an *AmbiguousError (matching
// ErrAmbiguous, not ErrNotFound) listing the candidates when several
// sessions do, or ErrClosed.
func (s *Store) ResolveSessionID(ctx context.Context, idOrPrefix string) (_ string, err error) {
	defer wrapOn(&err, "resolve session id", idOrPrefix)
	return read(s, ctx, func(ctx context.Context, q backend.Tx) (string, error) {
		if ok, err := s.q.SessionExists(ctx, q, idOrPrefix); err != nil || ok {
			return idOrPrefix, err
		}
		pattern := likePrefix(idOrPrefix, "%")
		if pattern == nil {
			return "", ErrNotFound // too long for a prefix: exactly this id, which does not exist
		}
		ids, err := s.q.SessionResolvePrefix(ctx, q, *pattern)
		switch {
		case err != nil:
			return "", err
		case len(ids) == 1:
			return ids[0], nil
		case len(ids) > 1:
			return "", s.ambiguous(ctx, q, idOrPrefix, ids)
		}
		return "", ErrNotFound
	})
}

// ambiguous builds the *AmbiguousError for prefix from the ids it matched
// (newest first, one more than MaxAmbiguousCandidates at most), read in
// the same snapshot.
func (s *Store) ambiguous(ctx context.Context, q backend.Tx, prefix string, ids []string) error {
	e := &AmbiguousError{Prefix: prefix, More: len(ids) > MaxAmbiguousCandidates}
	for _, id := range ids[:min(len(ids), MaxAmbiguousCandidates)] {
		sess, err := foundSession(s.q.SessionGet(ctx, q, id))
		if err != nil {
			return err
		}
		e.Candidates = append(e.Candidates, *sess)
	}
	return e
}

// now is the store clock as a Timestamp.
func (s *Store) now() float64 { return float64(TimestampOf(s.opts.Now())) }
