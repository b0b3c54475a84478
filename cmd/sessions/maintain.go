package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/internal/poll"
	"github.com/hermesstate/hermesstate/store"
)

// pruneCommand is "sessions prune": the original's prune_sessions, with
// Hermes's confirmation.
var pruneCommand = command{
	name:    "prune",
	args:    "--older-than AGE [--source S] [FILTERS] [--dry-run] [--yes]",
	summary: "Delete ended sessions that started before AGE (90, 36h, 90d, 2w, 2025-06-01), with their messages, after showing them and asking",
	setup: func(fs *flag.FlagSet) action {
		var (
			opts      store.PruneOptions
			olderThan string
			yes       bool
		)
		fs.StringVar(&olderThan, "older-than", "", "prune sessions that started before `AGE`: days (90), hours, days or weeks (36h, 90d, 2w), or a date or time (2025-06-01, \"2025-06-01 14:30\")")
		fs.StringVar(&opts.Source, "source", "", "only sessions of this `source`")
		filters := pruneFilterFlags(fs, &opts)
		fs.BoolVar(&opts.DryRun, "dry-run", false, "list what would be pruned; delete nothing")
		yesFlags(fs, &yes)
		return func(ctx context.Context, e *env, args []string) error {
			if err := wantArgs(args, 0, ""); err != nil {
				return err
			}
			if olderThan == "" {
				return cli.Usagef("--older-than is required")
			}
			cutoff, err := parseAge("--older-than", olderThan, time.Now())
			if err != nil {
				return err
			}
			opts.Before = cutoff
			if err := filters.apply(); err != nil {
				return err
			}
			if err := mayDelete(e, yes, opts.DryRun); err != nil {
				return err
			}
			what := "(ended, started before " + cutoff.Local().Format(minuteLayout)
			if opts.Source != "" {
				what += ", source " + opts.Source
			}
			what += filters.describe() + ")"
			// A dry run only reads: the file is opened read-only.
			return withStore(ctx, e, opts.DryRun, func(s *store.Store) error {
				found, err := s.PruneCandidates(ctx, opts)
				if err != nil {
					return err
				}
				if opts.DryRun {
					if e.json {
						return writeJSON(e.stdout, pruneJSON{Pruned: len(found), DryRun: true, IDs: sessionIDs(found)})
					}
					return printSessions(e.stdout, "would prune "+plural(int64(len(found)), "session")+" "+what, found, -1)
				}
				if !yes && len(found) > 0 {
					if err := printSessions(e.stderr, plural(int64(len(found)), "session")+" to prune "+what, found, maxListed); err != nil {
						return err
					}
					if err := confirm(ctx, e, "Delete "+these(len(found))+"?"); err != nil {
						return err
					}
				}
				// Exactly what was listed: a session that grew old enough
				// meanwhile waits for the next prune.
				opts.IDs = sessionIDs(found)
				opts.SessionsDir = sessionsDir(e)
				n, err := s.PruneSessions(ctx, opts)
				if err != nil {
					return err
				}
				if kept := len(found) - n; kept > 0 {
					fmt.Fprintf(e.stderr, "%s of those listed changed meanwhile (reopened or deleted) and %s not pruned\n",
						plural(int64(kept), "session"), map[bool]string{true: "was", false: "were"}[kept == 1])
				}
				if e.json {
					return writeJSON(e.stdout, pruneJSON{Pruned: n, IDs: opts.IDs})
				}
				_, err = fmt.Fprintf(e.stdout, "pruned %s\n", plural(int64(n), "session"))
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
	// IDs are the sessions selected, oldest first: those deleted, unless
	// one of them changed (was reopened) between the listing and the
	// deletion, when Pruned says fewer.
	IDs []string `json:"ids"`
}

// yesFlags registers --yes and its short form -y, Hermes's flags for
// deleting without asking.
func yesFlags(fs *flag.FlagSet, yes *bool) {
	fs.BoolVar(yes, "yes", false, "delete without asking (needed when standard input is not a terminal)")
	fs.BoolVar(yes, "y", false, "short for --yes")
}

// sessionsDir is where Hermes keeps the transcript files of the sessions
// in the database at e.path: the sessions directory beside it
// ($HERMES_HOME/sessions for $HERMES_HOME/state.db).
//
// For a PostgreSQL database, which is beside no directory, it is the
// default location's: $HERMES_HOME/sessions, else ~/.hermes/sessions.
func sessionsDir(e *env) string {
	path := e.path
	if store.IsPostgresURL(path) {
		if def, err := store.DefaultPath(); err == nil {
			path = def
		}
	}
	return filepath.Join(filepath.Dir(path), "sessions")
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
				stop := vacuumProgress(ctx, e, s)
				_, err = s.Vacuum(ctx)
				stop()
				return err
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
			if store.IsPostgresURL(e.path) {
				// No file to measure: the server's VACUUM (ANALYZE) ran.
				_, err = fmt.Fprintf(e.stdout, "%s: vacuumed and analyzed\n", e.path)
				return err
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

// WAL file layout (sqlite.org/fileformat2.html#walformat): a 32-byte
// header, then one frame per page written, a 24-byte header and the page.
const (
	walHeaderBytes      = 32
	walFrameHeaderBytes = 24
)

// vacuumProgress draws a bar for a VACUUM of a large file on a terminal
// and returns the function that ends it. VACUUM has no progress of its
// own; in WAL mode it writes the rebuilt database into the -wal, so the
// pages there, against the pages in use, are the measure. The -wal is
// looked at with Stat only: a descriptor on it would drop SQLite's locks.
// The bar stands still while SQLite builds its copy in temporary storage,
// then fills as the copy is written back.
func vacuumProgress(ctx context.Context, e *env, s *store.Store) (stop func()) {
	pages, err := s.Pages(ctx)
	if err != nil || pages.Size <= 0 {
		return func() {}
	}
	total := pages.UsedBytes()
	bar := startProgress(e, total, manyBytes, "vacuuming", true)
	if bar.bar == nil {
		return func() {}
	}
	stopPolling := poll.Every(store.ProgressInterval, func() {
		if fi, err := os.Stat(e.path + "-wal"); err == nil && fi.Size() > walHeaderBytes {
			frames := (fi.Size() - walHeaderBytes) / (pages.Size + walFrameHeaderBytes)
			bar.set(min(frames*pages.Size, total))
		}
	})
	return func() {
		stopPolling()
		bar.finish()
	}
}
