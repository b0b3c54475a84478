package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/store"
)

// resolveSession returns the id of the session ref names: an exact id, else
// a unique id prefix, else a title (the lineage rule: "title" names the
// newest "title #N"). A prefix several ids share is an *ambiguousError
// unless a title matches.
func resolveSession(ctx context.Context, s *store.Store, ref string) (string, error) {
	if ref == "" {
		return "", cli.Usagef("the session id, prefix or title is empty")
	}
	id, err := s.ResolveSessionID(ctx, ref)
	var ambiguous *store.AmbiguousError
	if err == nil || !errors.Is(err, store.ErrNotFound) && !errors.As(err, &ambiguous) {
		return id, err
	}
	id, err = s.ResolveSessionByTitle(ctx, ref)
	switch {
	case err == nil || !errors.Is(err, store.ErrNotFound):
		return id, err
	case ambiguous != nil:
		return "", &ambiguousError{ref: ref, err: ambiguous}
	}
	return "", fmt.Errorf("no session has the id, id prefix or title %q", ref)
}

// ambiguousError is a reference that is the start of several session ids
// and no title. run prints it with its candidates, one a line, which the
// one-line error of cli.Exit cannot hold.
type ambiguousError struct {
	ref string
	err *store.AmbiguousError
}

func (a *ambiguousError) Error() string {
	return fmt.Sprintf("%q is the start of %s session ids; give more of the id", a.ref, a.count())
}

func (a *ambiguousError) Unwrap() error { return a.err }

// count says how many sessions match: "3", or "more than 20".
func (a *ambiguousError) count() string {
	if a.err.More {
		return fmt.Sprintf("more than %d", len(a.err.Candidates))
	}
	return fmt.Sprint(len(a.err.Candidates))
}

// print writes the error line and the candidates (newest first) to w.
func (a *ambiguousError) print(w io.Writer) {
	header := "sessions: " + a.Error()
	if a.err.More {
		header += fmt.Sprintf(" (the newest %d)", len(a.err.Candidates))
	}
	printSessions(w, header, a.err.Candidates, -1)
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
