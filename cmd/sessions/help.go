package main

import (
	"context"
	"flag"
	"strings"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/store"
)

// helpCommand is "sessions help [COMMAND]": the help of sessions -h or of
// sessions COMMAND -h, on standard output, since it was asked for.
var helpCommand = command{
	name:       "help",
	args:       "[COMMAND]",
	summary:    "Print the list of commands, or a command's flags, on standard output",
	noDatabase: true,
	setup: func(*flag.FlagSet) action {
		return func(_ context.Context, e *env, args []string) error {
			switch len(args) {
			case 0:
				var (
					dbPath string
					b      bool
				)
				printHelp(topFlags(&dbPath, &b, &b), e.stdout)
				return nil
			case 1:
				c, ok := lookup(args[0])
				if !ok {
					return cli.Usagef("unknown command %q", args[0])
				}
				c.printHelp(commandFlags(c), e.stdout)
				return nil
			}
			return cli.Usagef("takes at most one command, got %q", strings.Join(args, " "))
		}
	},
}

// commandFlags returns c's flag set: the shared flags and its own.
func commandFlags(c command) *flag.FlagSet {
	var (
		dbPath string
		asJSON bool
	)
	fs := newFlagSet("sessions " + c.name)
	globalFlags(fs, &dbPath, &asJSON)
	c.setup(fs)
	return fs
}

// versionCommand is "sessions version", the same as sessions --version.
var versionCommand = command{
	name:       "version",
	args:       "",
	summary:    "Print the version of the command, its SQLite and the schema version it reads and writes",
	noDatabase: true,
	setup: func(*flag.FlagSet) action {
		return func(ctx context.Context, e *env, args []string) error {
			if err := wantArgs(args, 0, ""); err != nil {
				return err
			}
			return printVersion(ctx, e)
		}
	},
}

// printVersion prints the --version text on standard output.
func printVersion(ctx context.Context, e *env) error {
	return cli.PrintVersion(ctx, e.stdout, "sessions", store.SchemaVersionLatest)
}
