package migrations

import "context"

// delegateSessions is schema v16 (hermes-agent d62979a6f): subagent sessions
// are tagged with model_config._delegate_from, so that deleting a parent can
// take its delegates along and pickers can hide them. Up sends upstream's two
// statements (v21/backfill_v16.sql, as Up does for a file below 16): every
// child that is neither a /branch child nor a compression continuation gets
// its parent's id; every untitled, childless root with a tool message and at
// most 25 messages gets '__orphaned__' (a subagent whose parent link an older
// delete already cut). json_set rewrites model_config in SQLite's compact
// form ({"_delegate_from":"root"}).
//
// Down does nothing to the rows: a data step. The tags cannot be told apart
// from the ones upstream writes when it creates a delegate, and the step
// replaced NULL by {} and re-serialised any existing model_config, so the
// text before it is gone.
var delegateSessions = &goMigration{
	version: 16,
	name:    "00016_delegate_sessions.go",
	data: func(ctx context.Context, conn dbConn, _ stepEnv) error {
		return execAll(ctx, conn, backfillV16SQL)
	},
	down: func(context.Context, dbConn) error { return nil },
}
