package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/store"
)

// pruneCommand is "sessions prune": the original's prune_sessions.
var pruneCommand = command{
	name:    "prune",
	args:    "--older-than DURATION [--source S] [--dry-run]",
	summary: "Delete ended sessions that started more than DURATION ago (e.g. 90d, 36h), with their messages",
	setup: func(fs *flag.FlagSet) action {
		var (
			opts      store.PruneOptions
			olderThan string
		)
		fs.StringVar(&olderThan, "older-than", "", "the age (by start) a session must exceed: `DURATION` as 90d, 2w, 36h or 90m")
		fs.StringVar(&opts.Source, "source", "", "only sessions of this `source`")
		fs.BoolVar(&opts.DryRun, "dry-run", false, "count what would be pruned; delete nothing")
		return func(ctx context.Context, e *env, args []string) error {
			if err := wantArgs(args, 0, ""); err != nil {
				return err
			}
			if olderThan == "" {
				return cli.Usagef("--older-than is required")
			}
			age, err := parseAge(olderThan)
			if err != nil {
				return err
			}
			opts.OlderThan = age
			// A dry run only reads: the file is opened read-only.
			return withStore(ctx, e, opts.DryRun, func(s *store.Store) error {
				n, err := s.PruneSessions(ctx, opts)
				if err != nil {
					return err
				}
				if e.json {
					return writeJSON(e.stdout, pruneJSON{Pruned: n, DryRun: opts.DryRun})
				}
				verb := "pruned"
				if opts.DryRun {
					verb = "would prune"
				}
				_, err = fmt.Fprintf(e.stdout, "%s %s\n", verb, plural(int64(n), "session"))
				return err
			})
		}
	},
}

// pruneJSON is prune's --json output.
type pruneJSON struct {
	// Pruned is the number of sessions deleted, or that would be.
	Pruned int  `json:"pruned"`
	DryRun bool `json:"dry_run"`
}

// parseAge reads an age: a whole number of days ("90d") or weeks ("2w"), or
// a Go duration ("36h", "90m"). It must be positive.
func parseAge(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if num, ok := strings.CutSuffix(s, suffix); ok {
			var n int64
			n, err = strconv.ParseInt(num, 10, 32)
			d = time.Duration(n) * unit
		}
	}
	if err != nil || d <= 0 {
		return 0, cli.Usagef("--older-than: %q is not a positive age such as 90d, 2w, 36h or 90m", s)
	}
	return d, nil
}

// vacuumCommand is "sessions vacuum": the original's vacuum.
var vacuumCommand = command{
	name:    "vacuum",
	args:    "",
	summary: "Checkpoint the WAL and rebuild the file, returning free pages to the filesystem",
	setup: func(fs *flag.FlagSet) action {
		return func(ctx context.Context, e *env, args []string) error {
			if err := wantArgs(args, 0, ""); err != nil {
				return err
			}
			var res vacuumJSON
			err := withStore(ctx, e, false, func(s *store.Store) error {
				var err error
				if res.BytesBefore, err = diskSize(e.path); err != nil {
					return err
				}
				return s.Vacuum(ctx)
			})
			if err != nil {
				return err
			}
			if res.BytesAfter, err = diskSize(e.path); err != nil {
				return err
			}
			if e.json {
				return writeJSON(e.stdout, res)
			}
			_, err = fmt.Fprintf(e.stdout, "%s: %s bytes before, %s after\n", e.path, formatInt(res.BytesBefore), formatInt(res.BytesAfter))
			return err
		}
	},
}

// vacuumJSON is vacuum's --json output.
type vacuumJSON struct {
	BytesBefore int64 `json:"bytes_before"`
	BytesAfter  int64 `json:"bytes_after"`
}

// diskSize is the size of the database file and its WAL together.
func diskSize(path string) (int64, error) {
	var total int64
	for _, p := range []string{path, path + "-wal"} {
		fi, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return 0, err
		default:
			total += fi.Size()
		}
	}
	return total, nil
}
