package main

import (
	"context"
	"errors"
	"flag"
)

func pendingCommand(name string) command {
	return command{name: name, summary: "pending", setup: func(fs *flag.FlagSet) action {
		return func(ctx context.Context, e *env, args []string) error { return errors.New("pending") }
	}}
}

var (
	exportCommand = pendingCommand("export")
	importCommand = pendingCommand("import")
	backupCommand = pendingCommand("backup")
	statsCommand  = pendingCommand("stats")
	doctorCommand = pendingCommand("doctor")
)
