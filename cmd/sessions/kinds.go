package main

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/hermesstate/hermesstate/store"
)

// The flags of the session list and of show's header: why a session is
// one the default list leaves out, or sets apart.
const (
	// flagArchived: the session is archived (with its compression lineage).
	flagArchived = "archived"
	// flagDelegate: a subagent run, tagged with the _delegate_from marker
	// in its model_config.
	flagDelegate = "delegate"
	// flagBranch: a /branch child (the _branched_from marker, or a parent
	// that ended "branched" before it started).
	flagBranch = "branch"
	// flagContinuation: a compression continuation, the child of a session
	// that ended by compression (the default list shows a chain as its
	// newest continuation, in its root's place).
	flagContinuation = "continuation"
	// flagChild: any other child (an untagged subagent, a tool session).
	flagChild = "child"
)

// orphanedMarker is the v16 migration's _delegate_from guess, which the
// store's listing does not take for a delegate (upstream-v21.md 8.3).
const orphanedMarker = `"__orphaned__"`

// sessionFlags returns s's flags, in the order archived, then its kind as
// a child of parent (nil when it has none, or when the parent is gone):
// the rules of the store's default listing, which lists roots and /branch
// children, and no delegate, archived session or other child.
func sessionFlags(s *store.Session, parent *store.Session) []string {
	var flags []string
	if s.Archived != 0 {
		flags = append(flags, flagArchived)
	}
	delegate, branched := modelConfigMarkers(s.ModelConfig)
	switch {
	case delegate != nil && string(delegate) != orphanedMarker:
		flags = append(flags, flagDelegate)
	case s.ParentSessionID == nil:
	case branched != nil || parent != nil && deref(parent.EndReason) == "branched" &&
		parent.EndedAt != nil && s.StartedAt >= *parent.EndedAt:
		flags = append(flags, flagBranch)
	case parent != nil && deref(parent.EndReason) == "compression" && delegate == nil && s.Source != "tool":
		flags = append(flags, flagContinuation)
	default:
		flags = append(flags, flagChild)
	}
	return flags
}

// modelConfigMarkers returns the JSON values of the _delegate_from and
// _branched_from keys of a model_config object, nil where a key is absent
// or null; a model_config that is not a JSON object carries neither.
func modelConfigMarkers(config store.JSONText) (delegate, branched json.RawMessage) {
	var keys map[string]json.RawMessage
	if json.Unmarshal(config, &keys) != nil {
		return nil, nil
	}
	marker := func(key string) json.RawMessage {
		if v := keys[key]; string(v) != "null" {
			return v
		}
		return nil
	}
	return marker("_delegate_from"), marker("_branched_from")
}

// parentsOf returns the parent session of every session in rows that has
// one: from known (sessions already read, by id) where it is there, else
// read from s. A parent that is gone is left out.
func parentsOf(ctx context.Context, s *store.Store, rows []*store.Session, known map[string]*store.Session) (map[string]*store.Session, error) {
	parents := map[string]*store.Session{}
	for _, r := range rows {
		if r.ParentSessionID == nil {
			continue
		}
		pid := *r.ParentSessionID
		if _, done := parents[pid]; done {
			continue
		}
		if p, ok := known[pid]; ok {
			parents[pid] = p
			continue
		}
		p, err := s.GetSession(ctx, pid)
		switch {
		case errors.Is(err, store.ErrNotFound):
			parents[pid] = nil
		case err != nil:
			return nil, err
		default:
			parents[pid] = p
		}
	}
	return parents, nil
}

// parentOf returns s's parent from parents, nil when it has none.
func parentOf(s *store.Session, parents map[string]*store.Session) *store.Session {
	if s.ParentSessionID == nil {
		return nil
	}
	return parents[*s.ParentSessionID]
}
