package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/internal/publish"
	"github.com/hermesstate/hermesstate/store"
)

// exportCommand is "sessions export": the original's export_all as JSON
// Lines, streamed.
var exportCommand = command{
	name:    "export",
	args:    "[--source S] [-o FILE [--force]] [ID|PREFIX|TITLE]...",
	summary: "Write sessions (all, or those named) with their messages as JSON Lines, one session a line",
	setup: func(fs *flag.FlagSet) action {
		var (
			opts  store.ExportOptions
			out   string
			force bool
		)
		fs.StringVar(&opts.Source, "source", "", "only sessions of this `source`")
		fs.StringVar(&out, "o", "", "write to `FILE` (private, 0600; in place only once the export is complete) instead of standard output")
		forceFlag(fs, &force)
		return func(ctx context.Context, e *env, args []string) error {
			if force && out == "" {
				return cli.Usagef("--force needs -o FILE")
			}
			if out != "" {
				if err := notTheDatabase(out, e.path); err != nil {
					return err
				}
				if err := checkTarget(out, force); err != nil {
					return err
				}
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
				n, err := writeOutput(ctx, e, out, force, func(w io.Writer) (int, error) {
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
// private temporary file beside path that becomes path only when write
// succeeds (see package publish): a failed or interrupted export leaves no
// file behind, and an existing path is replaced only with force.
func writeOutput(ctx context.Context, e *env, path string, force bool, write func(io.Writer) (int, error)) (int, error) {
	if path == "" {
		return write(e.stdout)
	}
	f, err := publish.Create(path, force)
	if err != nil {
		return 0, err
	}
	defer f.Discard()
	n, err := write(f)
	if err != nil {
		return n, err
	}
	return n, f.Commit(ctx)
}
