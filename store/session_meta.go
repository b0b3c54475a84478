package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/pyjson"
)

// UpdateSessionModel is upstream's update_session_model: it sets session
// id's model unconditionally (a mid-session /model switch), where
// UpdateTokenCounts only fills a missing one. An empty model clears it
// (NULL). The cached system prompt is kept, as upstream keeps it.
//
// It returns ErrSessionNotFound (upstream updates nothing silently),
// ErrInvalidText, ErrBusy or ErrClosed.
func (s *Store) UpdateSessionModel(ctx context.Context, id, model string) (err error) {
	defer wrapOn(&err, "update model of", id)
	if err := checkTexts("model", model); err != nil {
		return err
	}
	return s.update(ctx, id, func(ctx context.Context, tx backend.Tx) (int64, error) {
		return s.q.SessionSetModel(ctx, tx, db.SessionSetModelParams{Model: nullable(model), ID: id})
	})
}

// BillingRoute is the provider a session is billed through after a switch.
// Empty fields are NULL.
type BillingRoute struct {
	Provider, BaseURL string
	// Mode is set only when not empty; "" keeps the stored mode.
	Mode string
}

// UpdateSessionBillingRoute is upstream's update_session_billing_route: it
// sets session id's billing provider and base URL unconditionally (where
// UpdateTokenCounts keeps the first ones), the billing mode when given,
// and clears the cached system prompt (NULL), whose Model:/Provider:
// header is stale after the switch, so that the next turn rebuilds it.
// Upstream's docstring says UpdateSessionModel does the same; it does not,
// and neither does ours (see UpdateSessionModel).
//
// It returns ErrSessionNotFound (upstream updates nothing silently),
// ErrInvalidText, ErrBusy or ErrClosed.
func (s *Store) UpdateSessionBillingRoute(ctx context.Context, id string, r BillingRoute) (err error) {
	defer wrapOn(&err, "update billing route of", id)
	if err := checkTexts("billing provider", r.Provider, "billing base url", r.BaseURL, "billing mode", r.Mode); err != nil {
		return err
	}
	return s.update(ctx, id, func(ctx context.Context, tx backend.Tx) (int64, error) {
		return s.q.SessionSetBillingRoute(ctx, tx, db.SessionSetBillingRouteParams{
			BillingProvider: nullable(r.Provider), BillingBaseURL: nullable(r.BaseURL),
			BillingMode: nullable(r.Mode), ID: id,
		})
	})
}

// UpdateSessionMeta is upstream's update_session_meta: it replaces session
// id's model_config with modelConfig and, when model is not "", its model.
// modelConfig is stored as Python's json.dumps writes it (the text
// upstream's callers pass); unlike UpsertSession's, an empty object stays
// "{}", and only a nil modelConfig stores NULL.
//
// It returns ErrSessionNotFound (upstream updates nothing silently),
// ErrInvalidJSON, ErrInvalidText, ErrBusy or ErrClosed.
func (s *Store) UpdateSessionMeta(ctx context.Context, id string, modelConfig json.RawMessage, model string) (err error) {
	defer wrapOn(&err, "update meta of", id)
	if err := checkTexts("model", model); err != nil {
		return err
	}
	var cfg *string
	if modelConfig != nil {
		text, err := pyjson.Encode(modelConfig)
		if err != nil {
			return fmt.Errorf("model config: %w", err)
		}
		cfg = &text
	}
	return s.update(ctx, id, func(ctx context.Context, tx backend.Tx) (int64, error) {
		return s.q.SessionSetMeta(ctx, tx, db.SessionSetMetaParams{ModelConfig: cfg, Model: nullable(model), ID: id})
	})
}
