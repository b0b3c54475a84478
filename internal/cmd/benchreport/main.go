// Command benchreport times the store's search, list, replay, export and
// append on benchmark corpora (built by benchcorpus) and prints a Markdown
// table with one column group per corpus, side by side, so the growth of
// each cost with the history's size is visible.
//
// usage: benchreport [-runs N] [-quick] [-o FILE] [-work DIR] CORPUS.db...
//
//	benchreport [flags] -dir DIR [-seed N] [-sizes 100k,1m]
//
// Each corpus is copied first (the appends write, and opening a file makes
// its -wal and -shm), and the copy is opened with the store's defaults
// (synchronous FULL). Each read runs once untimed, then -runs times; the
// table shows the median and the 95th percentile. When HERMES_SRC names a
// checkout of upstream hermes-agent, the same operations also run through
// its SessionDB (original.py, with python3) on another copy of the same
// file, interleaved round by round with the store's, and the table gains
// the original's median and the Go/original ratio; every operation's ids
// are compared between the two, and a difference is reported as a
// MISMATCH (and the exit status is 1).
//
// make bench-report runs it on the corpora of make bench-corpus.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermesstate/hermesstate/internal/cmd/benchcorpus/corpus"
	"github.com/hermesstate/hermesstate/store"
)

func main() {
	err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, errMismatch) {
		os.Exit(1)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(2)
	}
}

// errMismatch is run's error when the original returned other ids than
// the store for some operation (the report says which).
var errMismatch = errors.New("the original's results differ from the store's")

// config is what the flags choose.
type config struct {
	runs         int
	appendRounds int // rounds of appends on each side
	appends1     int // appends of the lone writer per round
	appends8     int // appends of each of the 8 writers per round
	work         string
	hermesSrc    string
}

func run(ctx context.Context, args []string, out, log io.Writer) error {
	fl := flag.NewFlagSet("benchreport", flag.ContinueOnError)
	fl.SetOutput(log)
	runs := fl.Int("runs", 11, "timed runs of each read (fewer for a read over 0.5 s: 5, over 2 s: 3)")
	quick := fl.Bool("quick", false, "one timed run of each read and a few appends (the tools' test)")
	outFile := fl.String("o", "", "also write the report to this file")
	work := fl.String("work", os.TempDir(), "directory for the corpus copies (removed after)")
	dir := fl.String("dir", "", "without CORPUS arguments: the corpora of benchcorpus -dir DIR -seed -sizes")
	seed := fl.Uint64("seed", 1, "with -dir: the corpora's seed")
	sizes := fl.String("sizes", "100k,1m", "with -dir: the corpora's sizes")
	if err := fl.Parse(args); err != nil {
		return err
	}
	paths := fl.Args()
	if len(paths) == 0 && *dir != "" {
		for _, size := range strings.Split(*sizes, ",") {
			n, err := corpus.ParseSize(size)
			if err != nil {
				return err
			}
			paths = append(paths, filepath.Join(*dir, corpus.FileName(n, *seed)))
		}
	}
	if len(paths) == 0 {
		return errors.New("no corpus: usage: benchreport [-runs N] [-quick] [-o FILE] CORPUS.db... or -dir DIR [-seed N] [-sizes 100k,1m]")
	}
	cfg := config{runs: max(1, *runs), appendRounds: 3, appends1: 100, appends8: 25, work: *work, hermesSrc: os.Getenv("HERMES_SRC")}
	if *quick {
		cfg.runs, cfg.appendRounds, cfg.appends1, cfg.appends8 = 1, 1, 4, 2
	}
	began := time.Now()
	m := machineInfo()
	var results []*corpusResult
	for _, path := range paths {
		fmt.Fprintf(log, "benchreport: %s\n", path)
		r, err := runCorpus(ctx, path, cfg, log)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		results = append(results, r)
		if r.original != "" {
			m.original = r.original
		}
	}
	m.loadEnd = loadAverage()
	m.took = time.Since(began)
	var b strings.Builder
	writeReport(&b, m, cfg, results)
	if _, err := io.WriteString(out, b.String()); err != nil {
		return err
	}
	if *outFile != "" {
		if err := os.WriteFile(*outFile, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	mismatches := 0
	for _, r := range results {
		for _, o := range r.ops {
			if o.mismatch != "" {
				fmt.Fprintf(log, "benchreport: MISMATCH on %s, %s: %s\n", r.label, o.name, o.mismatch)
			}
		}
		for _, a := range []*appendResult{&r.one, &r.eight} {
			if a.mismatch != "" {
				fmt.Fprintf(log, "benchreport: MISMATCH on %s, appends: %s\n", r.label, a.mismatch)
			}
		}
		mismatches += r.mismatches
	}
	if mismatches > 0 {
		return fmt.Errorf("%w: %d operations (see the report)", errMismatch, mismatches)
	}
	return nil
}

// corpusResult is everything measured on one corpus.
type corpusResult struct {
	label, path string
	size        int64
	stats       corpus.Stats
	ops         []opResult
	one, eight  appendResult
	original    string // the original's Python and SQLite versions
	mismatches  int
}

// opResult is one read's timed runs on both sides.
type opResult struct {
	name     string
	runs     int
	goD, pyD []time.Duration
	mismatch string
}

// appendResult is one append round on both sides.
type appendResult struct {
	writers, per int
	goRun, pyRun appendRun
	mismatch     string
}

// runCorpus measures the corpus at path.
func runCorpus(ctx context.Context, path string, cfg config, log io.Writer) (_ *corpusResult, err error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp(cfg.work, "benchreport-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	goPath := filepath.Join(work, "go.db")
	if err := copyFile(path, goPath); err != nil {
		return nil, err
	}
	s, err := store.Open(ctx, goPath, nil)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := s.Close(); err == nil {
			err = cerr
		}
	}()
	st, ok, err := corpus.ReadStats(ctx, s)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("not a benchmark corpus (no %s in state_meta): build it with benchcorpus", corpus.MetaKey)
	}
	res := &corpusResult{label: corpus.SizeLabel(st.Messages), path: path, size: info.Size(), stats: st}

	var py *original
	if cfg.hermesSrc != "" {
		pyPath := filepath.Join(work, "py.db")
		if err := copyFile(path, pyPath); err != nil {
			return nil, err
		}
		if py, err = startOriginal(cfg.hermesSrc, work, pyPath); err != nil {
			return nil, err
		}
		defer func() {
			if cerr := py.close(); err == nil && cerr != nil {
				err = fmt.Errorf("original.py: %w", cerr)
			}
		}()
		res.original = fmt.Sprintf("Python %s, SQLite %s (upstream SessionDB from HERMES_SRC)", py.Python, py.SQLite)
	}

	for _, o := range readOps(s, st) {
		fmt.Fprintf(log, "  %s\n", o.name)
		r, err := timeOp(ctx, o, py, cfg.runs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.name, err)
		}
		if r.mismatch != "" {
			res.mismatches++
		}
		res.ops = append(res.ops, r)
	}
	fmt.Fprintf(log, "  appends\n")
	for i, a := range []struct {
		dst          *appendResult
		writers, per int
	}{{&res.one, 1, cfg.appends1}, {&res.eight, 8, cfg.appends8}} {
		*a.dst = appendResult{writers: a.writers, per: a.per}
		if err := timeAppends(ctx, s, py, a.dst, cfg.appendRounds, i); err != nil {
			return nil, fmt.Errorf("append: %w", err)
		}
		if a.dst.mismatch != "" {
			res.mismatches++
		}
	}
	return res, nil
}

// copyFile copies a closed database file: a corpus's WAL is empty (the
// store's Close checkpoints it with TRUNCATE), and one that is not is
// refused, since the copy would lack the WAL's commits.
func copyFile(src, dst string) error {
	if fi, err := os.Stat(src + "-wal"); err == nil && fi.Size() > 0 {
		return fmt.Errorf("%s-wal holds %d bytes: the corpus was not closed cleanly (open and close it with the store first)", src, fi.Size())
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
