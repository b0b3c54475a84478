package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/store"
)

// archiveCommand is "sessions archive": the original's
// set_session_archived(id, True) for each session named.
var archiveCommand = archiveCommandFor("archive", true)

// unarchiveCommand is "sessions unarchive": set_session_archived(id, False).
var unarchiveCommand = archiveCommandFor("unarchive", false)

// archiveCommandFor returns the command that sets the archived flag of the
// sessions named to archived.
func archiveCommandFor(name string, archived bool) command {
	summary := "Archive sessions (by id, unique id prefix or title), each with its whole compression lineage: the list leaves them out, nothing is deleted"
	if !archived {
		summary = "Unarchive sessions (by id, unique id prefix or title), each with its whole compression lineage"
	}
	return command{
		name:    name,
		args:    "ID|PREFIX|TITLE...",
		summary: summary,
		setup: func(fs *flag.FlagSet) action {
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) == 0 {
					return cli.Usagef("needs at least one session id, id prefix or title")
				}
				return withStore(ctx, e, false, func(s *store.Store) error {
					found, err := resolveSessions(ctx, s, args)
					if err != nil {
						return err
					}
					// One transaction a session: a failure leaves the
					// sessions before it set, which the same command
					// run again leaves as they are.
					ids := sessionIDs(found)
					for _, id := range ids {
						if _, err := s.SetSessionArchived(ctx, id, archived); err != nil {
							return err
						}
					}
					if e.json {
						return writeJSON(e.stdout, archiveJSON{Archived: archived, IDs: ids})
					}
					for _, id := range ids {
						if _, err := fmt.Fprintf(e.stdout, "%sd %s\n", name, id); err != nil {
							return err
						}
					}
					return nil
				})
			}
		},
	}
}

// archiveJSON is the --json output of archive and unarchive.
type archiveJSON struct {
	// Archived is the flag the sessions have now.
	Archived bool `json:"archived"`
	// IDs are the sessions named, in their order, each once (the others of
	// their compression lineages are not listed).
	IDs []string `json:"ids"`
}
