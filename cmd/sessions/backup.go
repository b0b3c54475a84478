package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/hermesstate/hermesstate/internal/publish"
	"github.com/hermesstate/hermesstate/store"
)

// backupCommand is "sessions backup": a consistent copy of the live file.
var backupCommand = command{
	name:    "backup",
	args:    "[--force] PATH",
	summary: "Copy the database, as of one moment, to a new private file at PATH (VACUUM INTO; safe while others write)",
	setup: func(fs *flag.FlagSet) action {
		var opts store.BackupOptions
		forceFlag(fs, &opts.Force)
		return func(ctx context.Context, e *env, args []string) error {
			if err := wantArgs(args, 1, "backup path"); err != nil {
				return err
			}
			target := args[0]
			if err := notTheDatabase(target, e.path); err != nil {
				return err
			}
			if err := checkTarget(target, opts.Force); err != nil {
				return err
			}
			var bar *progress
			opts.Progress = func(written, total int64) {
				if bar == nil {
					bar = new(startProgress(e, total, manyBytes, "backing up", true))
				}
				bar.set(min(written, total))
			}
			err := withStore(ctx, e, true, func(s *store.Store) error {
				err := s.Backup(ctx, target, opts)
				if bar != nil {
					bar.finish()
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

// forceFlag registers --force, which lets export -o and backup replace an
// existing regular file.
func forceFlag(fs *flag.FlagSet, force *bool) {
	fs.BoolVar(force, "force", false, "replace an existing regular file at the path (never a link, directory or device)")
}

// checkTarget refuses, before the database is opened, an output path the
// file would not be published at (see package publish): its directory
// missing, the path taken (without force), or not a regular file.
func checkTarget(path string, force bool) error {
	err := publish.Check(path, force)
	if errors.Is(err, publish.ErrExists) {
		return fmt.Errorf("%w; --force replaces it", err)
	}
	return err
}
