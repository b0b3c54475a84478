package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// The gateway routing index (gateway_routing) is the durable replacement
// for the gateway's sessions.json: one row per routing key holding the
// gateway's whole serialised entry (entry_json, stored exactly as given),
// namespaced by a scope (the gateway passes its sessions directory; "" is
// the default scope), with updated_at in epoch seconds from the store's
// clock. Rows are not tied to sessions: deleting a session leaves its
// routing entry, as upstream.

// checkRoutingKey validates a routing key and the scope it is in.
func checkRoutingKey(scope, key string) error {
	if key == "" {
		return fmt.Errorf("session key: %w", ErrEmptyArgument)
	}
	return checkTexts("scope", scope, "session key", key)
}

// SaveGatewayRoutingEntry writes the entry of routing key key in scope,
// replacing the one stored, and stamps it now.
//
// It returns ErrEmptyArgument for an empty key or entry (the original
// ignores such a call), ErrInvalidJSON when entry is not one JSON value,
// ErrInvalidText, ErrBusy or ErrClosed; on error nothing is written.
func (s *Store) SaveGatewayRoutingEntry(ctx context.Context, scope, key string, entry json.RawMessage) (err error) {
	defer wrapOn(&err, "save gateway routing entry", key)
	if err := checkRoutingKey(scope, key); err != nil {
		return err
	}
	if len(entry) == 0 {
		return fmt.Errorf("entry: %w", ErrEmptyArgument)
	}
	text, err := opaqueJSON("entry", entry)
	if err != nil {
		return err
	}
	return s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		return s.q.GatewayRoutingUpsert(ctx, tx, db.GatewayRoutingUpsertParams{
			Scope: scope, SessionKey: key, EntryJSON: text, UpdatedAt: sqlnum.RealOf(s.now()),
		})
	})
}

// ReplaceGatewayRoutingEntries makes entries the whole index of scope, in
// one transaction: keys of scope absent from entries are removed, every
// entry is written with the same time, other scopes are untouched. Entries
// with an empty key or an empty value are skipped, as the original skips
// them; an empty or nil map empties the scope.
//
// It returns ErrInvalidJSON when a value is not one JSON value,
// ErrInvalidText, ErrBusy or ErrClosed; on error nothing is written.
func (s *Store) ReplaceGatewayRoutingEntries(ctx context.Context, scope string, entries map[string]json.RawMessage) (err error) {
	defer wrapOn(&err, "replace gateway routing entries", scope)
	if err := checkText("scope", scope); err != nil {
		return err
	}
	keys := make([]string, 0, len(entries))
	texts := make(map[string]string, len(entries))
	for k, v := range entries {
		if k == "" || len(v) == 0 {
			continue
		}
		if err := checkText("session key", k); err != nil {
			return err
		}
		text, err := opaqueJSON(fmt.Sprintf("entry %s", quote(k)), v)
		if err != nil {
			return err
		}
		keys, texts[k] = append(keys, k), text
	}
	slices.Sort(keys) // the order of the rows does not depend on the map's
	return s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		if _, err := s.q.GatewayRoutingDeleteScope(ctx, tx, scope); err != nil {
			return err
		}
		now := sqlnum.RealOf(s.now())
		for _, k := range keys {
			if err := s.q.GatewayRoutingInsert(ctx, tx, db.GatewayRoutingInsertParams{
				Scope: scope, SessionKey: k, EntryJSON: texts[k], UpdatedAt: now,
			}); err != nil {
				return err
			}
		}
		return nil
	})
}

// LoadGatewayRoutingEntries returns the index of scope: each routing key's
// entry text as stored (an empty map when the scope has none).
//
// It returns ErrClosed.
func (s *Store) LoadGatewayRoutingEntries(ctx context.Context, scope string) (_ map[string]JSONText, err error) {
	defer wrapOn(&err, "load gateway routing entries", scope)
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) (map[string]JSONText, error) {
		rows, err := s.q.GatewayRoutingLoad(ctx, q, scope)
		if err != nil {
			return nil, err
		}
		out := make(map[string]JSONText, len(rows))
		for _, r := range rows {
			out[r.SessionKey] = JSONText(r.EntryJSON)
		}
		return out, nil
	})
}

// DeleteGatewayRoutingEntries removes the entries of keys from scope in one
// transaction; keys that have none are ignored, and no keys is no write.
//
// It returns ErrInvalidText, ErrBusy or ErrClosed.
func (s *Store) DeleteGatewayRoutingEntries(ctx context.Context, scope string, keys []string) (err error) {
	defer wrapOn(&err, "delete gateway routing entries", scope)
	if err := checkText("scope", scope); err != nil {
		return err
	}
	for _, k := range keys {
		if err := checkText("session key", k); err != nil {
			return err
		}
	}
	if len(keys) == 0 {
		return nil
	}
	return s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		for _, k := range keys {
			if _, err := s.q.GatewayRoutingDelete(ctx, tx, db.GatewayRoutingDeleteParams{Scope: scope, SessionKey: k}); err != nil {
				return err
			}
		}
		return nil
	})
}
