package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbpath"
)

// TestParse parses flags mixed with positional arguments in every order.
func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		positional []string
		db         string
		verbose    bool
	}{
		{"Nothing", nil, nil, "", false},
		{"FlagsFirst", []string{"-db", "x.db", "-v", "up", "3"}, []string{"up", "3"}, "x.db", true},
		{"FlagsLast", []string{"up", "3", "--db=x.db", "--v"}, []string{"up", "3"}, "x.db", true},
		{"FlagsBetween", []string{"up", "-v", "3", "-db", "x.db"}, []string{"up", "3"}, "x.db", true},
		{"DoubleDash", []string{"-v", "search", "--", "-db", "-v"}, []string{"search", "-db", "-v"}, "", true},
		{"DoubleDashAfterPositional", []string{"search", "--", "--"}, []string{"search", "--"}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			db := fs.String("db", "", "")
			verbose := fs.Bool("v", false, "")
			got, err := Parse(fs, tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.positional, got); diff != "" {
				t.Errorf("positional arguments (-want +got):\n%s", diff)
			}
			if *db != tt.db || *verbose != tt.verbose {
				t.Errorf("-db %q -v %v, want %q %v", *db, *verbose, tt.db, tt.verbose)
			}
		})
	}
}

// TestParseErrors turns flag errors into usage errors, and -h into ErrHelp.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want error
	}{
		{[]string{"up", "-force"}, UsageError{Msg: "flag provided but not defined: -force"}},
		{[]string{"-n", "x"}, UsageError{Msg: `invalid value "x" for flag -n: parse error`}},
		{[]string{"up", "-h"}, ErrHelp},
		{[]string{"--help"}, ErrHelp},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("n", 0, "")
		_, err := Parse(fs, tt.args)
		if err != tt.want {
			t.Errorf("Parse(%q) = %v, want %v", tt.args, err, tt.want)
		}
	}
}

// TestExit maps errors to the exit status and the lines on standard error.
func TestExit(t *testing.T) {
	t.Parallel()
	const usage = "usage: tool COMMAND"
	tests := []struct {
		name   string
		err    error
		code   int
		stderr string
	}{
		{"Success", nil, 0, ""},
		{"Help", ErrHelp, 0, ""},
		{"Usage", Usagef("unknown command %q", "x"), 2, "tool: unknown command \"x\"\n" + usage + "\n"},
		{"UsageOwnLine", UsageError{Msg: "bad", Usage: "usage: tool sub"}, 2, "tool: bad\nusage: tool sub\n"},
		{"WrappedUsage", fmt.Errorf("context: %w", Usagef("bad")), 2, "tool: context: bad\n" + usage + "\n"},
		{"Failure", errors.New("disk\n  on fire"), 1, "tool: disk on fire\n"},
		{"ExitCode", &ExitError{Code: 2, Err: errors.New("cannot check")}, 2, "tool: cannot check\n"},
		{"SilentExitCode", fmt.Errorf("wrapped: %w", &ExitError{Code: 3}), 3, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stderr strings.Builder
			if code := Exit("tool", usage, tt.err, &stderr); code != tt.code || stderr.String() != tt.stderr {
				t.Errorf("Exit(%v) = %d, %q; want %d, %q", tt.err, code, stderr.String(), tt.code, tt.stderr)
			}
		})
	}
}

// TestDatabasePath prefers the flag, then the default location; a flag in a
// missing directory is "no such directory: DIR", a URL a usage error.
func TestDatabasePath(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HERMES_HOME", home)
	for flagValue, want := range map[string]string{"x.db": "x.db", "": filepath.Join(home, "state.db")} {
		if got, err := DatabasePath(flagValue); err != nil || got != want {
			t.Errorf("DatabasePath(%q) = %q, %v; want %q", flagValue, got, err, want)
		}
	}
	missing := filepath.Join(home, "no", "such")
	if _, err := DatabasePath(filepath.Join(missing, "state.db")); !errors.Is(err, dbpath.ErrNoDirectory) || err.Error() != "no such directory: "+missing {
		t.Errorf("DatabasePath in a missing directory: %v", err)
	}
	var u UsageError
	if _, err := DatabasePath("mysql://host/db"); !errors.As(err, &u) || u.Msg != "-db mysql://host/db: "+dbpath.ErrURL.Error() {
		t.Errorf("DatabasePath of a URL: %v, want a UsageError", err)
	}
	for _, url := range []string{"postgres://u@h:5432/hermes?sslmode=disable", "postgresql://h/db"} {
		if got, err := DatabasePath(url); err != nil || got != url {
			t.Errorf("DatabasePath(%q) = %q, %v; want it as given (the PostgreSQL engine)", url, got, err)
		}
	}
}
