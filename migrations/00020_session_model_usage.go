package migrations

import "context"

// sessionModelUsage is schema v20 (hermes-agent cb7f6bbb2, with the
// five-column key of 0d63c23f3): per-model usage, one row per session and
// billing route, and its two indexes, as upstream declares them (v21's
// SCHEMA_SQL text), then upstream's seed (v21/backfill_v20.sql): one row per
// session that has tokens, from its aggregate counters.
//
// Down drops the table with its indexes, which takes the seeded rows (and any
// written since) with it.
var sessionModelUsage = &goMigration{
	version: 20,
	name:    "00020_session_model_usage.go",
	schema: func(d *declaredSchema) []string {
		return []string{
			d.base.objects["session_model_usage"].SQL,
			d.base.objects["idx_session_model_usage_session"].SQL,
			d.base.objects["idx_session_model_usage_model"].SQL,
		}
	},
	data: func(ctx context.Context, conn dbConn, _ stepEnv) error {
		return execAll(ctx, conn, backfillV20SQL)
	},
	down: func(ctx context.Context, conn dbConn) error {
		return execAll(ctx, conn, "DROP TABLE IF EXISTS session_model_usage")
	},
}
