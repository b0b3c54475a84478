// Command benchcorpus builds the benchmark corpora: deterministic, seeded
// Hermes state.db files at schema v21 (see package corpus for what they
// hold), one per size, named corpus-SIZE-sSEED.db in a directory. A file
// already built by the same rules, seed and size is kept; any other is
// rebuilt. It prints what each build holds and how long it took.
//
// usage: benchcorpus [-dir DIR] [-seed N] [-sizes 100k,1m] [-force]
//
// make bench-corpus runs it with DIR = $(BENCH_DIR).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermesstate/hermesstate/internal/cmd/benchcorpus/corpus"
	"github.com/hermesstate/hermesstate/store"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchcorpus:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fl := flag.NewFlagSet("benchcorpus", flag.ContinueOnError)
	dir := fl.String("dir", filepath.Join(os.TempDir(), "hermesstate-bench"), "directory of the corpus files (created)")
	seed := fl.Uint64("seed", 1, "generator seed: the same seed and size give the same content")
	sizes := fl.String("sizes", "100k,1m", "comma-separated message counts (k and m suffixes)")
	force := fl.Bool("force", false, "rebuild files that are up to date")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return err
	}
	for _, size := range strings.Split(*sizes, ",") {
		n, err := corpus.ParseSize(size)
		if err != nil {
			return err
		}
		path := filepath.Join(*dir, corpus.FileName(n, *seed))
		cfg := corpus.Config{Messages: n, Seed: *seed}
		if !*force {
			ok, err := upToDate(ctx, path, cfg)
			if err != nil {
				return err
			}
			if ok {
				fmt.Fprintf(out, "%s: up to date\n", path)
				continue
			}
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		start := time.Now()
		st, err := corpus.Build(ctx, path, cfg, out)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		info, err := os.Stat(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%s: built in %s (%.1f MB): %d messages (%d tool, %d CJK) in %d sessions "+
			"(%d roots, %d compression continuations, %d /branch children); longest %d, typical %d; "+
			"%q in %d messages, %q in %d, %q in %d, %q in %d\n",
			path, time.Since(start).Round(100*time.Millisecond), float64(info.Size())/1e6,
			st.Messages, st.ToolMessages, st.CJKMessages, st.Sessions, st.Roots, st.Continuations, st.Branches,
			st.LongestMessages, st.TypicalMessages,
			corpus.CommonQuery, st.CommonMatches, corpus.RareQuery, st.RareMatches,
			corpus.TrigramQuery, st.TrigramMatches, corpus.ShortCJKQuery, st.ShortCJKMatches)
	}
	return nil
}

// upToDate reports whether path holds the corpus cfg chooses, built by
// this generator's Version.
func upToDate(ctx context.Context, path string, cfg corpus.Config) (bool, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	s, err := store.Open(ctx, path, &store.Options{ReadOnly: true})
	if err != nil {
		return false, nil // not a usable file: rebuild it
	}
	defer s.Close()
	st, ok, err := corpus.ReadStats(ctx, s)
	if err != nil || !ok {
		return false, nil
	}
	return st.Version == corpus.Version && st.Seed == cfg.Seed && st.Messages == cfg.Messages, nil
}
