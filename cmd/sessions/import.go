package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/store"
)

// importCommand is "sessions import": what export wrote, back in.
var importCommand = command{
	name: "import",
	args: "[--batch N] FILE",
	summary: "Read sessions from FILE (JSON Lines as export writes them, or the original's export_all JSON array; - for standard input) " +
		"and add the ones the database lacks",
	setup: func(fs *flag.FlagSet) action {
		var opts store.ImportOptions
		fs.IntVar(&opts.BatchSize, "batch", 500, "sessions per transaction: a malformed record loses only its own batch")
		return func(ctx context.Context, e *env, args []string) error {
			if err := wantArgs(args, 1, "file"); err != nil {
				return err
			}
			if opts.BatchSize < 1 {
				return cli.Usagef("--batch must be at least 1, got %d", opts.BatchSize)
			}
			if err := notTheDatabase(args[0], e.path); err != nil {
				return err
			}
			in, size, err := openInput(args[0])
			if err != nil {
				return err
			}
			defer in.Close()
			// import is the one command that creates a missing database.
			s, err := openStore(ctx, e.path, nil)
			if err != nil {
				return err
			}
			bar := startProgress(e, size, manyBytes, "importing", true)
			res, err := s.ImportJSONL(ctx, bar.reader(in), opts)
			bar.finish()
			err = errors.Join(err, s.Close())
			if perr := printImport(e, res); err == nil {
				err = perr
			}
			// A malformed record names the file and its line: the store's
			// "store: import: line N: …" does not know the file. Any other
			// failure is the store's message as it is.
			if bad := (*store.ImportError)(nil); errors.As(err, &bad) {
				return fmt.Errorf("import %s: %w", args[0], bad)
			}
			return err
		}
	},
}

// openInput opens the file to import ("-": standard input) and returns its
// size, 0 when unknown.
func openInput(path string) (io.ReadCloser, int64, error) {
	if path == "-" {
		return io.NopCloser(os.Stdin), 0, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// printImport reports what the import wrote (also when it stopped at a bad
// record: the batches before it stay written).
func printImport(e *env, r store.ImportResult) error {
	if e.json {
		return writeJSON(e.stdout, r)
	}
	_, err := fmt.Fprintf(e.stdout, "created %s (%s), skipped %d already present, retitled %d, unparented %d\n",
		plural(int64(r.Created), "session"), plural(int64(r.Messages), "message"), r.Skipped, r.Retitled, r.Unparented)
	return err
}
