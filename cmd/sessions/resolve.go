package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/store"
)

// resolveSession returns the id of the session ref names: an exact id, else
// a unique id prefix, else a title (the lineage rule: "title" names the
// newest "title #N"). A prefix several ids share is an error unless a title
// matches.
func resolveSession(ctx context.Context, s *store.Store, ref string) (string, error) {
	if ref == "" {
		return "", cli.Usagef("the session id, prefix or title is empty")
	}
	id, err := s.ResolveSessionID(ctx, ref)
	if err == nil || !errors.Is(err, store.ErrNotFound) {
		return id, err
	}
	ambiguous := errors.Is(err, store.ErrAmbiguous)
	id, err = s.ResolveSessionByTitle(ctx, ref)
	switch {
	case err == nil || !errors.Is(err, store.ErrNotFound):
		return id, err
	case ambiguous:
		return "", fmt.Errorf("%q is the start of several session ids; give more of the id", ref)
	}
	return "", fmt.Errorf("no session has the id, id prefix or title %q", ref)
}

// withSession runs fn on the session named by a command's one argument,
// with the database opened read-only.
func withSession(ctx context.Context, e *env, args []string, fn func(s *store.Store, id string) error) error {
	if err := wantArgs(args, 1, "session id, id prefix or title"); err != nil {
		return err
	}
	return withStore(ctx, e, true, func(s *store.Store) error {
		id, err := resolveSession(ctx, s, args[0])
		if err != nil {
			return err
		}
		return fn(s, id)
	})
}
