package main

import (
	"context"
	"errors"
	"flag"
	"io"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/store"
)

// copyCommand is "sessions copy": export from one database and import into
// another in one step, through a pipe (a SQLite file and a PostgreSQL
// database either way, or two of a kind).
var copyCommand = command{
	name: "copy",
	args: "[--batch N] SRC DST",
	summary: "Copy the sessions of database SRC into database DST (each a file path or a postgres:// URL), as export piped " +
		"into import: DST gains the sessions it lacks, SRC is only read",
	noDatabase: true,
	setup: func(fs *flag.FlagSet) action {
		var opts store.ImportOptions
		fs.IntVar(&opts.BatchSize, "batch", 500, "sessions per transaction in DST: a failure loses only its own batch")
		return func(ctx context.Context, e *env, args []string) error {
			if len(args) != 2 {
				return cli.Usagef("needs SRC and DST, got %d arguments", len(args))
			}
			if opts.BatchSize < 1 {
				return cli.Usagef("--batch must be at least 1, got %d", opts.BatchSize)
			}
			var paths [2]string
			for i, a := range args {
				p, err := cli.DatabasePath(a)
				if err != nil {
					return err
				}
				paths[i] = p
			}
			if paths[0] == paths[1] {
				return cli.Usagef("SRC and DST are the same database")
			}
			res, err := copySessions(ctx, e, paths[0], paths[1], opts)
			if perr := printImport(e, res); err == nil {
				err = perr
			}
			return err
		}
	},
}

// copySessions streams the export of src (opened read-only, and required
// to exist) into the import of dst (created when it is a missing file, as
// import creates it) and returns the import's totals.
func copySessions(ctx context.Context, e *env, src, dst string, opts store.ImportOptions) (store.ImportResult, error) {
	in := *e
	in.path = src
	from, err := openExisting(ctx, &in, true)
	if err != nil {
		return store.ImportResult{}, err
	}
	defer from.Close()
	to, err := openStore(ctx, dst, nil)
	if err != nil {
		return store.ImportResult{}, err
	}
	pr, pw := io.Pipe()
	exported := make(chan error, 1)
	go func() {
		_, err := from.ExportJSONL(ctx, pw, store.ExportOptions{})
		pw.CloseWithError(err)
		exported <- err
	}()
	res, err := to.ImportJSONL(ctx, pr, opts)
	// An import that stopped early leaves the export blocked on the pipe.
	pr.CloseWithError(errors.New("the import stopped"))
	if xerr := <-exported; err == nil {
		err = xerr
	}
	return res, errors.Join(err, to.Close())
}
