package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/hermesstate/hermesstate/store"
)

// backupCommand is "sessions backup": a consistent copy of the live file.
var backupCommand = command{
	name:    "backup",
	args:    "PATH",
	summary: "Copy the database, as of one moment, to a new private file at PATH (VACUUM INTO; safe while others write)",
	setup: func(fs *flag.FlagSet) action {
		return func(ctx context.Context, e *env, args []string) error {
			if err := wantArgs(args, 1, "backup path"); err != nil {
				return err
			}
			target := args[0]
			err := withStore(ctx, e, true, func(s *store.Store) error {
				err := s.Backup(ctx, target)
				if errors.Is(err, store.ErrExists) {
					return fmt.Errorf("%s already exists; backup writes only a new file", target)
				}
				return err
			})
			if err != nil {
				return err
			}
			fi, err := os.Stat(target)
			if err != nil {
				return err
			}
			if e.json {
				return writeJSON(e.stdout, backupJSON{Path: target, Bytes: fi.Size()})
			}
			_, err = fmt.Fprintf(e.stdout, "backed up %s to %s (%s bytes)\n", e.path, target, formatInt(fi.Size()))
			return err
		}
	},
}

// backupJSON is backup's --json output.
type backupJSON struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
}
