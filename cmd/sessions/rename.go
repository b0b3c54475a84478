package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/store"
)

// renameCommand is "sessions rename": the original's set_session_title.
var renameCommand = command{
	name:    "rename",
	args:    "ID|PREFIX|TITLE NEW TITLE...",
	summary: "Set or change a session's title (the words after the session, joined by spaces; \"\" removes it)",
	setup: func(fs *flag.FlagSet) action {
		return func(ctx context.Context, e *env, args []string) error {
			if len(args) < 2 {
				return cli.Usagef("needs a session id, id prefix or title, and the new title")
			}
			title := strings.Join(args[1:], " ")
			return withStore(ctx, e, false, func(s *store.Store) error {
				id, err := resolveSession(ctx, s, args[0])
				if err != nil {
					return err
				}
				if err := s.SetSessionTitle(ctx, id, title); err != nil {
					return titleError(err)
				}
				// The title as stored: sanitised (spaces folded, control
				// characters dropped), or none.
				stored, err := s.SessionTitle(ctx, id)
				if err != nil {
					return err
				}
				if e.json {
					return writeJSON(e.stdout, renameJSON{ID: id, Title: nullString(stored)})
				}
				if stored == "" {
					_, err = fmt.Fprintf(e.stdout, "removed the title of %s\n", id)
				} else {
					_, err = fmt.Fprintf(e.stdout, "renamed %s to %s\n", id, stored)
				}
				return err
			})
		}
	},
}

// renameJSON is rename's --json output: the session and its title now
// (null: none).
type renameJSON struct {
	ID    string  `json:"id"`
	Title *string `json:"title"`
}

// nullString returns &s, or nil for "".
func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// titleError gives a refused title the original's words: "Title 'x' is
// already in use by session ID" or "Title too long (101 chars, max 100)",
// without the store's prefix.
func titleError(err error) error {
	var inUse *store.TitleInUseError
	switch {
	case errors.As(err, &inUse):
		return inUse
	case errors.Is(err, store.ErrTitleTooLong) && errors.Unwrap(err) != nil:
		return errors.Unwrap(err)
	}
	return err
}
