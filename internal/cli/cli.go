// Package cli holds the conventions the project's commands (cmd/migrate and
// cmd/sessions) share: flags before or after the positional arguments, the
// database path resolved from -db, $HERMES_HOME or ~/.hermes, and the exit
// status: 0 on success, 1 on failure with one line on standard error, 2 on a
// usage error with the usage line after it.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/hermesstate/hermesstate/internal/dbpath"
)

// UsageError is a mistake on the command line: exit status 2, the message
// and then the usage line on standard error.
type UsageError struct {
	Msg string
	// Usage is the usage line to print; "" means the command's default.
	Usage string
}

func (e UsageError) Error() string { return e.Msg }

// Usagef returns a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return UsageError{Msg: fmt.Sprintf(format, args...)}
}

// ErrHelp means -h or -help was given: the help was printed, exit 0.
var ErrHelp = errors.New("help requested")

// ExitError is a failure with an exit status of its own (doctor's 1 for
// "problems found" and 2 for "could not check"). Err, when not nil, is
// printed as one line.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Exit prints err (if any) to stderr as one line prefixed with the command's
// name and returns the exit status it stands for. usage is the usage line
// printed after a UsageError that carries none of its own.
func Exit(name, usage string, err error, stderr io.Writer) int {
	var (
		usageErr UsageError
		exitErr  *ExitError
	)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, ErrHelp):
		return 0
	case errors.As(err, &usageErr):
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		if usageErr.Usage != "" {
			usage = usageErr.Usage
		}
		fmt.Fprintln(stderr, usage)
		return 2
	case errors.As(err, &exitErr):
		if exitErr.Err != nil {
			fmt.Fprintf(stderr, "%s: %s\n", name, OneLine(exitErr.Err))
		}
		return exitErr.Code
	default:
		fmt.Fprintf(stderr, "%s: %s\n", name, OneLine(err))
		return 1
	}
}

// Parse parses args with fs, letting flags come before, between and after
// the positional arguments, which it returns in order. Everything after a
// "--" is positional. A flag error is a UsageError; -h is ErrHelp (fs has
// printed the help).
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, ErrHelp
			}
			return nil, UsageError{Msg: err.Error()}
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// DatabasePath returns the database file a command works on: the -db flag's
// value when given, else the default location ($HERMES_HOME/state.db, else
// ~/.hermes/state.db). A -db value that is a PostgreSQL URL is returned as
// it is; any other URL is a UsageError (exit 2);
// one whose directory does not exist fails with "no such directory: DIR"
// (exit 1), so that no command ever creates a database the user did not
// ask for. Only the default location's directories may be created, by the
// command that creates the file.
func DatabasePath(flagValue string) (string, error) {
	if flagValue == "" {
		return dbpath.Default()
	}
	if dbpath.IsPostgresURL(flagValue) {
		return flagValue, nil
	}
	if dbpath.IsURL(flagValue) {
		return "", Usagef("-db %s: %v", flagValue, dbpath.ErrURL)
	}
	if err := dbpath.DirExists(flagValue); err != nil {
		return "", err
	}
	return flagValue, nil
}

// OneLine flattens an error message to one line.
func OneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
