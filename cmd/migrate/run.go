package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/internal/dbpath"
	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/migrations"
)

// options are the parsed command line.
type options struct {
	path     string
	explicit bool // -db was given: its directory must exist
	// hermesHome is where the v18 step looks for sessions/sessions.json:
	// -hermes-home, else upstream's HERMES_HOME (homeDir).
	hermesHome string
	dryRun     bool
	verbose    bool
	version    bool
	command    string
	target     int64 // for up-to and down-to
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

const helpText = `usage: migrate [-db PATH] [-hermes-home DIR] [-dry-run] [-v] COMMAND [N]

Creates or upgrades the Hermes state database (schema version %d).

Commands:
  up          bring the file to version %d as upstream Hermes does, creating
              it if missing; on a current file, add what it lacks
  up-to N     apply the migrations up to version N, one by one
  down        roll back the latest migration
  down-to N   roll back every migration above version N (0: all)
  redo        roll back the latest migration and apply it again
  status      list every migration, applied or pending
  version     print the database's schema version

Without -db the file is $HERMES_HOME/state.db, else ~/.hermes/state.db (its
directories are created); a -db path must be in a directory that exists.

A -db of postgres://… or postgresql://… (a pgx/libpq URL) runs the same
commands, with the same output, on that PostgreSQL database, which must
exist: one transaction per command under an advisory lock, safe from many
hosts at once. Its only migration is version 21; down goes to 0.

A file below version 18 gets the gateway metadata of its sessions from
HOME/sessions/sessions.json, as upstream Hermes does on its first open
(HOME: -hermes-home, else $HERMES_HOME, else ~/.hermes, wherever the file
is); without that file nothing is copied.

Flags (before or after the command):
`

// parse reads the command line; flags may come before or after the command.
// The flag package prints nothing: a mistake is one UsageError, and -h
// prints the help to stdout.
func parse(args []string, stdout io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&o.path, "db", "", "database `path` (default $HERMES_HOME/state.db, else ~/.hermes/state.db)")
	fs.StringVar(&o.hermesHome, "hermes-home", "", "`directory` whose sessions/sessions.json the v18 step reads (default $HERMES_HOME, else ~/.hermes)")
	fs.BoolVar(&o.dryRun, "dry-run", false, "run up/down in a transaction that is rolled back")
	fs.BoolVar(&o.verbose, "v", false, "log each statement and step to standard error")
	fs.BoolVar(&o.version, "version", false, "print the build's version, SQLite and schema version, and exit")
	positional, err := cli.Parse(fs, args)
	if errors.Is(err, cli.ErrHelp) {
		fmt.Fprintf(stdout, helpText, migrations.Latest, migrations.Latest)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return o, err
	}
	if err != nil || o.version {
		return o, err
	}
	o.explicit = o.path != ""
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
	o, err := parse(args, stdout)
	if err != nil {
		return err
	}
	if o.version {
		return cli.PrintVersion(ctx, stdout, "migrate", migrations.Latest)
	}
	if isPostgres(o.path) {
		return runPostgres(ctx, o, stdout, stderr)
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
	v, exists, err := peekVersion(ctx, o.path)
	if err != nil {
		return err
	}
	if v > migrations.Latest {
		return refuseNewer(o, v, stdout)
	}
	if !exists {
		if done, err := missingFile(o, stdout); done || err != nil {
			return err
		}
		if !o.explicit {
			if err := dbpath.MakeDefaultDir(o.path); err != nil {
				return err
			}
		}
		created, err := sqlite.EnsureFile(ctx, o.path)
		if err != nil {
			return fmt.Errorf("open %s: %w", o.path, err)
		}
		if created {
			fmt.Fprintf(stdout, "created new database %s\n", o.path)
		}
	}
	// The same connection setup as store.Open: WAL, foreign keys, busy
	// timeout, synchronous=FULL, BEGIN IMMEDIATE, the same retry budget.
	w, err := sqlite.OpenWriter(ctx, o.path, sqlite.Config{Retry: sqlite.DefaultRetry()})
	if err != nil {
		return fmt.Errorf("open %s: %w", o.path, err) // internal/sqlite names no path
	}
	defer w.Close()
	m, err := migrations.New(w, &migrations.Options{DryRun: o.dryRun, Logger: logger, HermesHome: homeDir(o.hermesHome)})
	if err != nil {
		return err
	}
	if err := execute(ctx, m, o, stdout); err != nil {
		return fmt.Errorf("%s: %w", o.path, err)
	}
	return w.Close()
}

// homeDir returns the directory the v18 step reads sessions/sessions.json
// from: flagValue when given, else upstream's get_hermes_home(),
// $HERMES_HOME or ~/.hermes (the directory of the default database path), or
// "" when neither is known (the step then copies nothing).
func homeDir(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	def, err := dbpath.Default()
	if err != nil {
		return ""
	}
	return filepath.Dir(def)
}

// refuseNewer answers a command on a file a newer Hermes wrote, which this
// build never writes: up has nothing to do (exit 0, as goose does, so that a
// rolled-back deploy does not fail); every other migration fails.
func refuseNewer(o options, v int64, stdout io.Writer) error {
	return refuseNewerAt(o.path, o, v, stdout)
}

// refuseNewerAt is refuseNewer naming the database name (a path, or a URL
// without its password).
func refuseNewerAt(name string, o options, v int64, stdout io.Writer) error {
	if o.command == "up" {
		fmt.Fprintf(stdout, "%s is at schema version %d, newer than this build's %d: nothing was done\n", name, v, migrations.Latest)
		return nil
	}
	return fmt.Errorf("%s: %s: %w", name, o.command, migrations.CheckVersion(v))
}

// missingFile handles a command on a file that does not exist yet, before
// anything creates it. Only up and up-to create a file; a dry run says what
// it would do and creates nothing; a rollback has nothing to roll back. It
// reports whether the command is done.
func missingFile(o options, stdout io.Writer) (bool, error) {
	switch {
	case o.command != "up" && o.command != "up-to":
		return true, fmt.Errorf("no database at %s: nothing to roll back", o.path)
	case o.dryRun:
		target := o.target
		if o.command == "up" {
			target = migrations.Latest
		}
		fmt.Fprintf(stdout, "dry run: %s does not exist; %s would create it at schema version %d\n", o.path, o.command, target)
		return true, nil
	}
	return false, nil
}

// peekVersion reads the schema version of the file at path without
// changing it or leaving any file beside it (sqlite.Peek). A file that does
// not exist is at version 0 and is not created.
func peekVersion(ctx context.Context, path string) (v int64, exists bool, err error) {
	err = sqlite.Peek(ctx, path, sqlite.Config{Retry: sqlite.DefaultRetry()}, func(r *sql.DB) error {
		var err error
		v, err = migrations.ReadVersion(ctx, r)
		return err
	})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, false, nil
	case err != nil:
		return 0, true, fmt.Errorf("open %s: %w", path, err)
	}
	return v, true, nil
}

// report serves status and version without ever writing: read-only, and a
// missing file is reported at version 0, not created.
func report(ctx context.Context, o options, stdout io.Writer) error {
	v, exists, err := peekVersion(ctx, o.path)
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
	if err := printStatus(stdout, st); err != nil {
		return err
	}
	switch {
	case !exists:
		fmt.Fprintf(stdout, "schema version 0: %s does not exist yet\n", o.path)
	default:
		printVersionLine(stdout, v)
	}
	return nil
}

// printStatus prints the status table.
func printStatus(stdout io.Writer, st []migrations.Status) error {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tSTATE\tMIGRATION")
	for _, s := range st {
		state := "pending"
		if s.Applied {
			state = "applied"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\n", s.Version, state, s.Name)
	}
	return tw.Flush()
}

// printVersionLine prints status's last line for a database at version v.
func printVersionLine(stdout io.Writer, v int64) {
	if v > migrations.Latest {
		fmt.Fprintf(stdout, "schema version %d: newer than this build (%d), written by a later Hermes\n", v, migrations.Latest)
		return
	}
	fmt.Fprintf(stdout, "schema version %d\n", v)
}

// migrator is what execute runs a command on: *migrations.Migrator on a
// SQLite file, *pgmigrations.Migrator on PostgreSQL.
type migrator interface {
	Up(ctx context.Context) (migrations.UpResult, error)
	UpTo(ctx context.Context, version int64) (migrations.UpResult, error)
	Down(ctx context.Context) (migrations.Result, error)
	DownTo(ctx context.Context, version int64) ([]migrations.Result, error)
	Redo(ctx context.Context) (migrations.Result, migrations.UpResult, error)
	Version(ctx context.Context) (int64, error)
}

// execute runs the command against m and prints its outcome.
func execute(ctx context.Context, m migrator, o options, stdout io.Writer) error {
	var (
		up      migrations.UpResult
		down    []migrations.Result
		changed bool
		err     error
	)
	switch o.command {
	case "up":
		up, err = m.Up(ctx)
	case "up-to":
		up, err = m.UpTo(ctx, o.target)
	case "down":
		var r migrations.Result
		r, err = m.Down(ctx)
		if err == nil {
			down = []migrations.Result{r}
		}
	case "down-to":
		down, err = m.DownTo(ctx, o.target)
	case "redo":
		var r migrations.Result
		r, up, err = m.Redo(ctx)
		if r.Name != "" {
			down = []migrations.Result{r}
		}
	}
	printResults(stdout, down, o.dryRun)
	printUp(stdout, up, o.dryRun)
	changed = len(down) > 0 || len(up.Migrations) > 0 || len(up.Changes) > 0
	if errors.Is(err, migrations.ErrNoChange) {
		fmt.Fprintln(stdout, "nothing to roll back")
		err = nil
	}
	if err != nil {
		return err
	}
	v, err := m.Version(ctx)
	if err != nil {
		return err
	}
	switch {
	case o.dryRun:
		fmt.Fprintf(stdout, "dry run: nothing was written; schema version %d\n", v)
	case !changed:
		fmt.Fprintf(stdout, "schema version %d (no change)\n", v)
	default:
		fmt.Fprintf(stdout, "schema version %d\n", v)
	}
	return nil
}

// printUp prints what an up did: the goose migrations applied below Latest
// (printResults), then the way to Latest. A new file says "created"; an
// older one "upgraded" with each change on a line of its own; a current
// one "reconciled" per repair. A dry run says "would".
func printUp(w io.Writer, res migrations.UpResult, dryRun bool) {
	printResults(w, res.Migrations, dryRun)
	if len(res.Changes) == 0 {
		return
	}
	would := func(verb, would string) string {
		if dryRun {
			return "would " + would
		}
		return verb
	}
	dur := res.Duration.Round(10 * time.Microsecond)
	switch {
	case res.From == 0:
		fmt.Fprintf(w, "%-11s  schema version %d  (%s)\n", would("created", "create"), res.To, dur)
	case res.From < migrations.Latest:
		fmt.Fprintf(w, "%-11s  schema version %d to %d  (%s)\n", would("upgraded", "upgrade"), res.From, res.To, dur)
		for _, c := range res.Changes {
			fmt.Fprintf(w, "%-11s  %s\n", "", c)
		}
	default:
		for _, c := range res.Changes {
			fmt.Fprintf(w, "%-11s  %s\n", would("reconciled", "reconcile"), c)
		}
	}
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
