package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/hermesstate/hermesstate/store"
)

// exportCommand is "sessions export": the original's export_all as JSON
// Lines, streamed.
var exportCommand = command{
	name:    "export",
	args:    "[--source S] [-o FILE] [ID|PREFIX|TITLE]...",
	summary: "Write sessions (all, or those named) with their messages as JSON Lines, one session a line",
	setup: func(fs *flag.FlagSet) action {
		var (
			opts store.ExportOptions
			out  string
		)
		fs.StringVar(&opts.Source, "source", "", "only sessions of this `source`")
		fs.StringVar(&out, "o", "", "write to `FILE` (private, 0600; in place only once the export is complete) instead of standard output")
		return func(ctx context.Context, e *env, args []string) error {
			if err := notTheDatabase(out, e.path); err != nil {
				return err
			}
			return withStore(ctx, e, true, func(s *store.Store) error {
				for _, ref := range args {
					id, err := resolveSession(ctx, s, ref)
					if err != nil {
						return err
					}
					if !slices.Contains(opts.IDs, id) {
						opts.IDs = append(opts.IDs, id)
					}
				}
				total, err := s.ExportCount(ctx, opts)
				if err != nil {
					return err
				}
				n, err := writeOutput(e, out, func(w io.Writer) (int, error) {
					bar := startProgress(e, int64(total), manySessions, "exporting", false)
					defer bar.finish()
					opts.Progress = func(written int) { bar.set(int64(written)) }
					return s.ExportJSONL(ctx, w, opts)
				})
				if err != nil || out == "" {
					return err
				}
				if e.json {
					return writeJSON(e.stdout, exportJSON{Exported: n, Path: out})
				}
				_, err = fmt.Fprintf(e.stdout, "exported %s to %s\n", plural(int64(n), "session"), out)
				return err
			})
		}
	},
}

// exportJSON is export's --json summary, printed when the export went to a
// file.
type exportJSON struct {
	Exported int    `json:"exported"`
	Path     string `json:"path"`
}

// writeOutput runs write on standard output, or, when path is not "", on a
// private temporary file beside path that replaces path only when write
// succeeds: a failed export leaves no half-written file behind.
func writeOutput(e *env, path string, write func(io.Writer) (int, error)) (int, error) {
	if path == "" {
		return write(e.stdout)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".export-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	n, err := write(f)
	if err == nil {
		err = f.Sync()
	}
	if err := errors.Join(err, f.Close()); err != nil {
		return n, err
	}
	return n, os.Rename(f.Name(), path)
}
