package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/migrations"
)

// options are the parsed command line.
type options struct {
	path    string
	dryRun  bool
	verbose bool
	command string
	target  int64 // for up-to and down-to
}

// commands maps each command to whether it takes a version argument and
// whether it may be dry-run.
var commands = map[string]struct{ takesN, dryRun bool }{
	"up":      {false, true},
	"up-to":   {true, true},
	"down":    {false, true},
	"down-to": {true, true},
	"redo":    {false, false},
	"status":  {false, false},
	"version": {false, false},
}

const helpText = `usage: migrate [-db PATH] [-dry-run] [-v] COMMAND [N]

Creates or upgrades the Hermes state database (schema version %d).

Commands:
  up          apply every pending migration, then add what the file lacks
  up-to N     apply the pending migrations up to version N
  down        roll back the latest migration
  down-to N   roll back every migration above version N (0: all)
  redo        roll back the latest migration and apply it again
  status      list every migration, applied or pending
  version     print the database's schema version

Flags (before or after the command):
`

// parse reads the command line; flags may come before or after the command.
func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.path, "db", "", "database `path` (default $HERMES_HOME/state.db, else ~/.hermes/state.db)")
	fs.BoolVar(&o.dryRun, "dry-run", false, "run up/down in a transaction that is rolled back")
	fs.BoolVar(&o.verbose, "v", false, "log each statement and step to standard error")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), helpText, migrations.Latest)
		fs.PrintDefaults()
	}
	positional, err := cli.Parse(fs, args)
	if err != nil {
		return o, err
	}
	if len(positional) == 0 {
		return o, cli.Usagef("no command given")
	}
	o.command = positional[0]
	spec, ok := commands[o.command]
	if !ok {
		return o, cli.Usagef("unknown command %q", o.command)
	}
	want := 1
	if spec.takesN {
		want = 2
	}
	if len(positional) != want {
		if spec.takesN {
			return o, cli.Usagef("%s needs one version number", o.command)
		}
		return o, cli.Usagef("%s takes no arguments, got %q", o.command, strings.Join(positional[1:], " "))
	}
	if spec.takesN {
		lowest := int64(0) // down-to 0 rolls everything back
		if o.command == "up-to" {
			lowest = 1
		}
		n, err := strconv.ParseInt(positional[1], 10, 64)
		if err != nil || n < lowest || n > migrations.Latest {
			return o, cli.Usagef("%s: version must be a number from %d to %d, got %q", o.command, lowest, migrations.Latest, positional[1])
		}
		o.target = n
	}
	if o.dryRun && !spec.dryRun {
		return o, cli.Usagef("-dry-run applies to up, up-to, down and down-to, not %s", o.command)
	}
	return o, nil
}

// run executes one migrate command line, writing results to stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parse(args, stderr)
	if err != nil {
		return err
	}
	if o.path, err = cli.DatabasePath(o.path); err != nil {
		return err
	}
	if o.command == "status" || o.command == "version" {
		return report(ctx, o, stdout)
	}
	logger := slog.New(slog.DiscardHandler)
	if o.verbose {
		logger = slog.New(slog.NewTextHandler(stderr, nil))
	}
	if err := preflight(ctx, o); err != nil {
		return err
	}
	// The same connection setup as store.Open: WAL, foreign keys, busy
	// timeout, synchronous=FULL, BEGIN IMMEDIATE, the same retry budget.
	w, err := sqlite.OpenWriter(ctx, o.path, sqlite.Config{Retry: sqlite.DefaultRetry()})
	if err != nil {
		return err
	}
	defer w.Close()
	m, err := migrations.New(w, &migrations.Options{DryRun: o.dryRun, Logger: logger})
	if err != nil {
		return err
	}
	if err := execute(ctx, m, o, stdout); err != nil {
		return fmt.Errorf("%s: %w", o.path, err)
	}
	return w.Close()
}

// preflight inspects an existing file through a read-only connection before
// anything opens it for writing: a file that is not a database, a build
// without FTS5, or a newer schema is refused with the file left byte for byte
// as it was.
func preflight(ctx context.Context, o options) error {
	v, exists, err := readOnlyVersion(ctx, o.path)
	if err != nil || !exists {
		return err
	}
	if err := migrations.CheckVersion(v); err != nil {
		return fmt.Errorf("%s: %w", o.path, err)
	}
	return nil
}

// readOnlyVersion reads the schema version of the file at path through a
// read-only connection. A file that does not exist is at version 0 and is not
// created.
func readOnlyVersion(ctx context.Context, path string) (v int64, exists bool, err error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err := sqlite.CheckWAL(ctx, path); err != nil {
		return 0, true, err
	}
	r, err := sqlite.OpenReader(ctx, path, sqlite.Config{Retry: sqlite.DefaultRetry()}, 1)
	if err != nil {
		return 0, true, err
	}
	defer r.Close()
	v, err = migrations.ReadVersion(ctx, r)
	return v, true, err
}

// report serves status and version without ever writing: read-only, and a
// missing file is reported at version 0, not created.
func report(ctx context.Context, o options, stdout io.Writer) error {
	v, exists, err := readOnlyVersion(ctx, o.path)
	if err != nil {
		return err
	}
	if o.command == "version" {
		fmt.Fprintln(stdout, v)
		return nil
	}
	st, err := migrations.Statuses(v)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tSTATE\tMIGRATION")
	for _, s := range st {
		state := "pending"
		if s.Applied {
			state = "applied"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\n", s.Version, state, s.Name)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	switch {
	case !exists:
		fmt.Fprintf(stdout, "schema version 0: %s does not exist yet\n", o.path)
	case v > migrations.Latest:
		fmt.Fprintf(stdout, "schema version %d: newer than this build (%d), written by a later Hermes\n", v, migrations.Latest)
	default:
		fmt.Fprintf(stdout, "schema version %d\n", v)
	}
	return nil
}

// execute runs the command against m and prints its outcome.
func execute(ctx context.Context, m *migrations.Migrator, o options, stdout io.Writer) error {
	var (
		res []migrations.Result
		err error
	)
	switch o.command {
	case "up":
		res, err = m.Up(ctx)
	case "up-to":
		res, err = m.UpTo(ctx, o.target)
	case "down":
		var r migrations.Result
		r, err = m.Down(ctx)
		if err == nil {
			res = []migrations.Result{r}
		}
	case "down-to":
		res, err = m.DownTo(ctx, o.target)
	case "redo":
		res, err = m.Redo(ctx)
	}
	printResults(stdout, res, o.dryRun)
	if errors.Is(err, migrations.ErrNoChange) {
		fmt.Fprintln(stdout, "nothing to roll back")
		err = nil
	}
	if err != nil {
		return err
	}
	if o.command == "up" && !o.dryRun {
		changes, err := m.Reconcile(ctx)
		if err != nil {
			return err
		}
		for _, c := range changes {
			fmt.Fprintf(stdout, "reconciled  %s\n", c)
		}
	}
	v, err := m.Version(ctx)
	if err != nil {
		return err
	}
	switch {
	case o.dryRun:
		fmt.Fprintf(stdout, "dry run: nothing was written; schema version %d\n", v)
	case len(res) == 0:
		fmt.Fprintf(stdout, "schema version %d (no change)\n", v)
	default:
		fmt.Fprintf(stdout, "schema version %d\n", v)
	}
	return nil
}

// printResults prints one line per migration: applied, adopted (an
// add-column migration the file already partly had: only the missing part was
// added) or rolled back, with "would" in a dry run.
func printResults(w io.Writer, res []migrations.Result, dryRun bool) {
	for _, r := range res {
		verb := "applied"
		switch {
		case r.Adopted:
			verb = "adopted"
		case r.Direction == "down":
			verb = "rolled back"
		}
		if dryRun {
			verb = "would " + map[string]string{"applied": "apply", "adopted": "adopt", "rolled back": "roll back"}[verb]
		}
		fmt.Fprintf(w, "%-11s  %s  (%s)\n", verb, r.Name, r.Duration.Round(10*time.Microsecond))
	}
}
