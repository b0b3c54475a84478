package main

import (
	"context"
	"flag"
	"fmt"
	"slices"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/store"
)

// deleteCommand is "sessions delete": the original's delete_session for
// each session named, with Hermes's confirmation.
var deleteCommand = command{
	name:    "delete",
	args:    "[--dry-run] [--yes] ID|PREFIX|TITLE...",
	summary: "Delete sessions (by id, unique id prefix or title) with their messages and transcript files, after showing them and asking",
	setup: func(fs *flag.FlagSet) action {
		var dryRun, yes bool
		fs.BoolVar(&dryRun, "dry-run", false, "list what would be deleted; delete nothing")
		yesFlags(fs, &yes)
		return func(ctx context.Context, e *env, args []string) error {
			if len(args) == 0 {
				return cli.Usagef("needs at least one session id, id prefix or title")
			}
			if err := mayDelete(e, yes, dryRun); err != nil {
				return err
			}
			return withStore(ctx, e, dryRun, func(s *store.Store) error {
				found, err := resolveSessions(ctx, s, args)
				if err != nil {
					return err
				}
				ids := sessionIDs(found)
				if dryRun {
					if e.json {
						return writeJSON(e.stdout, deleteJSON{Deleted: len(ids), DryRun: true, IDs: ids})
					}
					return printSessions(e.stdout, "would delete "+plural(int64(len(ids)), "session"), found, -1)
				}
				if !yes {
					if err := printSessions(e.stderr, plural(int64(len(ids)), "session")+" to delete", found, maxListed); err != nil {
						return err
					}
					if err := confirm(ctx, e, "Delete "+these(len(ids))+"?"); err != nil {
						return err
					}
				}
				// Exactly what was shown, in one transaction: a session
				// deleted meanwhile fails the whole command.
				if err := s.DeleteSessions(ctx, ids, sessionsDir(e)); err != nil {
					return err
				}
				if e.json {
					return writeJSON(e.stdout, deleteJSON{Deleted: len(ids), IDs: ids})
				}
				_, err = fmt.Fprintf(e.stdout, "deleted %s\n", plural(int64(len(ids)), "session"))
				return err
			})
		}
	},
}

// deleteJSON is delete's --json output.
type deleteJSON struct {
	// Deleted is the number of sessions deleted, or that would be.
	Deleted int  `json:"deleted"`
	DryRun  bool `json:"dry_run"`
	// IDs are the sessions, in the order named.
	IDs []string `json:"ids"`
}

// resolveSessions returns the sessions refs name (see resolveSession), in
// their order, each once.
func resolveSessions(ctx context.Context, s *store.Store, refs []string) ([]store.Session, error) {
	var out []store.Session
	for _, ref := range refs {
		id, err := resolveSession(ctx, s, ref)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out, func(s store.Session) bool { return s.ID == id }) {
			continue
		}
		sess, err := s.GetSession(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, *sess)
	}
	return out, nil
}
