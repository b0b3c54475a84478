package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hermesstate/hermesstate/internal/cli"
)

// errCancelled is a deletion the person at the terminal declined.
var errCancelled = errors.New("cancelled; nothing deleted")

// mayDelete refuses, before anything is opened, a deleting command that
// could not ask its question: without --yes, standard input must be a
// terminal. A dry run deletes nothing and needs neither.
func mayDelete(e *env, yes, dryRun bool) error {
	if yes || dryRun || e.stdinIsTerminal {
		return nil
	}
	return cli.Usagef("standard input is not a terminal, so there is no one to ask: nothing deleted; " +
		"--yes deletes without asking, --dry-run lists what would be deleted")
}

// confirm asks question, followed by " [y/N] ", on standard error and reads
// the answer, one line, from standard input: y or yes (any case) go ahead,
// anything else, the end of input included, is errCancelled. An
// interrupted wait returns ctx's error.
func confirm(ctx context.Context, e *env, question string) error {
	fmt.Fprintf(e.stderr, "%s [y/N] ", question)
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(e.stdin).ReadString('\n')
		answer <- line
	}()
	select {
	case <-ctx.Done():
		fmt.Fprintln(e.stderr)
		return ctx.Err()
	case line := <-answer:
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return nil
		}
		if !strings.HasSuffix(line, "\n") {
			fmt.Fprintln(e.stderr) // the input ended without a line break
		}
		return errCancelled
	}
}
