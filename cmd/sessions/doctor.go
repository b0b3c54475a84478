package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/internal/publish"
	"github.com/hermesstate/hermesstate/store"
)

// doctorCommand is "sessions doctor": is the file healthy?
var doctorCommand = command{
	name: "doctor",
	args: "[--fix-fts] [--fix-temp]",
	summary: "Check the file: schema and SQLite versions, FTS5, integrity, both search indexes, counters, orphan messages, WAL size, " +
		"stale temporary files beside it (exit 0 healthy, 1 problems found, 2 could not check)",
	setup: func(fs *flag.FlagSet) action {
		fixFTS := fs.Bool("fix-fts", false, "first rebuild both full-text indexes from the messages (opens the file for writing)")
		fixTemp := fs.Bool("fix-temp", false, "remove the stale temporary files a killed export or backup left beside the database")
		return func(ctx context.Context, e *env, args []string) error {
			if err := wantArgs(args, 0, ""); err != nil {
				return err
			}
			s, err := openExisting(ctx, e, !*fixFTS)
			if errors.Is(err, errNoDatabase) || errors.Is(err, store.ErrOlderSchema) || errors.Is(err, store.ErrNewerSchema) {
				// The same line as every other command: exit 1.
				return err
			}
			if err != nil {
				return &cli.ExitError{Code: 2, Err: fmt.Errorf("doctor: cannot check: %w", err)}
			}
			defer s.Close()
			if *fixFTS {
				if err := s.RebuildSearchIndex(ctx); err != nil {
					return err
				}
			}
			h, err := s.Check(ctx)
			if err != nil {
				return &cli.ExitError{Code: 2, Err: fmt.Errorf("doctor: cannot check %s: %w", e.path, err)}
			}
			report := doctorJSON{Health: h, RebuiltFTS: *fixFTS}
			if err := staleTemps(e, *fixTemp, &report); err != nil {
				return &cli.ExitError{Code: 2, Err: fmt.Errorf("doctor: cannot check for stale temporary files: %w", err)}
			}
			report.Problems = append(problemTexts(h), tempProblems(report.StaleTemps)...)
			report.OK = h.OK() && len(report.StaleTemps) == 0
			if e.json {
				err = writeJSON(e.stdout, report)
			} else {
				err = printHealth(e, report)
			}
			if err != nil || report.OK {
				return err
			}
			return &cli.ExitError{Code: 1, Err: fmt.Errorf("doctor: %s found", plural(int64(len(report.Problems)), "problem"))}
		}
	},
}

// doctorJSON is doctor's --json output: the store's Health, whether it is
// healthy, and the problems in words.
type doctorJSON struct {
	*store.Health
	OK         bool     `json:"ok"`
	Problems   []string `json:"problems"`
	RebuiltFTS bool     `json:"rebuilt_fts"`
	// StaleTemps are the stale temporary files beside the database (see
	// staleTemps) still there; RemovedTemps those --fix-temp removed.
	StaleTemps   []string `json:"stale_temp_files"`
	RemovedTemps []string `json:"removed_temp_files"`
}

// staleTemps finds the stale temporary files beside the database, left by
// an export -o or backup into its directory that was killed (SIGKILL, a
// crash) before it could remove them, and with fix removes them. A
// temporary file another process is writing is never stale (see package
// publish). They are never removed without --fix-temp: doctor's check
// changes nothing unasked, and such a file holds a private copy of
// conversations its owner may want to look at.
func staleTemps(e *env, fix bool, r *doctorJSON) error {
	dir := filepath.Dir(e.path)
	r.StaleTemps, r.RemovedTemps = []string{}, []string{}
	if store.IsPostgresURL(e.path) {
		return nil // a PostgreSQL database has no directory to leave files in
	}
	if fix {
		removed, err := publish.RemoveStale(dir)
		r.RemovedTemps = append(r.RemovedTemps, removed...)
		return err
	}
	stale, err := publish.Stale(dir)
	r.StaleTemps = append(r.StaleTemps, stale...)
	return err
}

// tempProblems describes each stale temporary file.
func tempProblems(paths []string) []string {
	out := []string{}
	for _, p := range paths {
		out = append(out, "stale temporary file "+p+": left by a killed export or backup; --fix-temp removes it")
	}
	return out
}

// problemTexts is the line of each problem the store's check found: every
// kind of problem is described there, once.
func problemTexts(h *store.Health) []string {
	out := []string{}
	for _, p := range h.Problems() {
		out = append(out, p.Text)
	}
	return out
}

// printHealth prints what was checked and how it came out, then either
// "healthy" or the problems.
func printHealth(e *env, r doctorJSON) error {
	h := r.Health
	yesNo := map[bool]string{true: "yes", false: "no"}
	okOr := func(bad bool, what string) string {
		if bad {
			return what
		}
		return "ok"
	}
	var t table
	if r.RebuiltFTS {
		t.row("search indexes", "rebuilt")
	}
	version := strconv.FormatInt(h.SchemaVersion, 10)
	if h.SchemaVersion != store.SchemaVersionLatest {
		version += fmt.Sprintf(" (this build: %d)", store.SchemaVersionLatest)
	}
	t.row("schema version", version)
	postgres := h.ServerVersion != ""
	if postgres {
		// The database's own checks (ctype, pg_trgm, indexes) stand where
		// SQLite's integrity_check does; there is no WAL file or directory
		// of the store's to report.
		t.row("postgresql", h.ServerVersion)
		t.row("database checks", okOr(len(h.Integrity) != 1 || h.Integrity[0] != "ok", plural(int64(len(h.Integrity)), "problem")))
	} else {
		t.row("sqlite", fmt.Sprintf("%s (fts5 %s, trigram %s)", h.SQLiteVersion, yesNo[h.FTS5], yesNo[h.Trigram]))
		t.row("integrity_check", okOr(len(h.Integrity) != 1 || h.Integrity[0] != "ok", plural(int64(len(h.Integrity)), "problem")))
	}
	for _, f := range h.FTS {
		t.row(f.Table, okOr(f.Problem != "", f.Problem))
	}
	t.row("counters", okOr(len(h.Counters) > 0, plural(int64(len(h.Counters)), "counter")+" off"))
	t.row("orphan messages", formatInt(h.OrphanMessages))
	if !postgres {
		t.row("wal size", formatInt(h.WALBytes)+" bytes")
	}
	switch {
	case postgres:
	case len(r.RemovedTemps) > 0:
		t.row("stale temp files", formatInt(int64(len(r.RemovedTemps)))+" removed")
	default:
		t.row("stale temp files", formatInt(int64(len(r.StaleTemps))))
	}
	if err := t.write(e.stdout); err != nil {
		return err
	}
	if r.OK {
		_, err := fmt.Fprintln(e.stdout, "healthy")
		return err
	}
	fmt.Fprintln(e.stdout, "problems:")
	for _, p := range r.Problems {
		fmt.Fprintf(e.stdout, "  %s\n", p)
	}
	return nil
}
