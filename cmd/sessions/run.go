package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/hermesstate/hermesstate/internal/cli"
)

// usageSummary is the line printed after a usage error that names no
// command.
const usageSummary = "usage: sessions [-db PATH] [--json] list|show|search|lineage|export|import|prune|delete|archive|unarchive|rename|vacuum|backup|stats|doctor|help|version [ARGS] (-h for help)"

// env is what a command runs with: where to read and write, and the
// options every command shares.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// stdinIsTerminal tells whether a question may be asked: a prune or
	// delete without --yes is refused when standard input is not a
	// terminal.
	stdinIsTerminal bool
	// stderrIsTerminal tells whether a progress bar may be drawn, and
	// "No sessions found." said.
	stderrIsTerminal bool
	// path is the database file, resolved from -db, $HERMES_HOME or ~/.hermes.
	path string
	// json asks for machine-readable output.
	json bool
}

// newEnv returns the environment for the process's own standard streams.
func newEnv(stdin, stdout, stderr *os.File) *env {
	return &env{stdin: stdin, stdout: stdout, stderr: stderr,
		stdinIsTerminal:  term.IsTerminal(int(stdin.Fd())),
		stderrIsTerminal: term.IsTerminal(int(stderr.Fd()))}
}

// action runs a command once its flags are parsed, with its positional
// arguments.
type action func(ctx context.Context, e *env, args []string) error

// command is one subcommand.
type command struct {
	name string
	// args is the synopsis after the name, e.g. "[--limit N] ID".
	args string
	// summary is the one-line description in the help.
	summary string
	// setup registers the command's own flags on fs and returns the action
	// that reads them.
	setup func(fs *flag.FlagSet) action
	// noDatabase is set for the commands that never look at a database
	// (help, version): no path is resolved for them.
	noDatabase bool
}

// usage is the command's usage line.
func (c command) usage() string {
	return fmt.Sprintf("usage: sessions %s [-db PATH] [--json] %s (-h for help)", c.name, c.args)
}

// commands lists the subcommands in the order the help shows them. help
// and version, which look at this list, join it in init.
var commands = []command{
	listCommand,
	showCommand,
	searchCommand,
	lineageCommand,
	exportCommand,
	importCommand,
	copyCommand,
	pruneCommand,
	deleteCommand,
	archiveCommand,
	unarchiveCommand,
	renameCommand,
	vacuumCommand,
	backupCommand,
	statsCommand,
	doctorCommand,
}

func init() {
	commands = append(commands, helpCommand, versionCommand)
}

// lookup returns the command called name.
func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// globalFlags registers the flags every command accepts, before or after
// its name.
func globalFlags(fs *flag.FlagSet, dbPath *string, asJSON *bool) {
	fs.StringVar(dbPath, "db", *dbPath, "database `path` (default $HERMES_HOME/state.db, else ~/.hermes/state.db)")
	fs.BoolVar(asJSON, "json", *asJSON, "print JSON (the original's key names and types) instead of a table")
}

// topFlags returns the flag set of the command line before the command:
// the flags every command accepts, and --version.
func topFlags(dbPath *string, asJSON, version *bool) *flag.FlagSet {
	top := newFlagSet("sessions")
	globalFlags(top, dbPath, asJSON)
	top.BoolVar(version, "version", false, "print the version of the command, its SQLite and its schema, and exit")
	return top
}

// run executes one sessions command line.
func run(ctx context.Context, args []string, e *env) error {
	var (
		dbPath  string
		version bool
	)
	top := topFlags(&dbPath, &e.json, &version)
	if err := top.Parse(args); err != nil {
		return flagError(err, func() { printHelp(top, e.stderr) })
	}
	if version {
		return printVersion(ctx, e)
	}
	if top.NArg() == 0 {
		return cli.Usagef("no command given")
	}
	c, ok := lookup(top.Arg(0))
	if !ok {
		return cli.Usagef("unknown command %q", top.Arg(0))
	}
	fs := newFlagSet("sessions " + c.name)
	globalFlags(fs, &dbPath, &e.json)
	act := c.setup(fs)
	positional, err := cli.Parse(fs, top.Args()[1:])
	if err != nil {
		err = flagError(err, func() { c.printHelp(fs, e.stderr) })
	} else if !c.noDatabase {
		e.path, err = cli.DatabasePath(dbPath)
	}
	if err == nil {
		err = act(ctx, e, positional)
	}
	if a := (*ambiguousError)(nil); errors.As(err, &a) {
		a.print(e.stderr)
		return &cli.ExitError{Code: 1}
	}
	if u := (cli.UsageError{}); errors.As(err, &u) {
		u.Msg = c.name + ": " + u.Msg
		if u.Usage == "" {
			u.Usage = c.usage()
		}
		return u
	}
	return err
}

// newFlagSet returns a flag set that prints nothing by itself: a flag error
// becomes one line from cli.Exit, and -h prints through flagError.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// flagError turns a parse error into the error run returns: for -h, help
// prints the help and ErrHelp is returned.
func flagError(err error, help func()) error {
	if errors.Is(err, flag.ErrHelp) || errors.Is(err, cli.ErrHelp) {
		help()
		return cli.ErrHelp
	}
	var u cli.UsageError
	if errors.As(err, &u) {
		return u
	}
	return cli.UsageError{Msg: err.Error()}
}

// printHelp prints the help for sessions COMMAND -h.
func (c command) printHelp(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, "%s\n\n%s.\n\nFlags:\n", strings.TrimSuffix(c.usage(), " (-h for help)"), c.summary)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// printHelp prints the help for sessions -h (and sessions help).
func printHelp(fs *flag.FlagSet, w io.Writer) {
	fs.SetOutput(w)
	fmt.Fprint(w, `usage: sessions [-db PATH] [--json] COMMAND [FLAGS] [ARGS]

Reads, searches, exports, prunes and checks the Hermes state database.

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s  %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nRun sessions COMMAND -h for a command's flags. Flags for every command:\n")
	fs.PrintDefaults()
}

// wantArgs returns a usage error unless args holds exactly n (0 or 1)
// arguments; what names the one.
func wantArgs(args []string, n int, what string) error {
	switch {
	case len(args) == n:
		return nil
	case n == 0:
		return cli.Usagef("takes no arguments, got %q", strings.Join(args, " "))
	case len(args) < n:
		return cli.Usagef("needs one %s", what)
	}
	return cli.Usagef("takes one %s, got %q", what, strings.Join(args, " "))
}

// stringList is a flag that may be given several times.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}
