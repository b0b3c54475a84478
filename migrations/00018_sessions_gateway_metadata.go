package migrations

import (
	"context"
	"path/filepath"
)

// gatewayMetadata is schema v18 (hermes-agent 747386ecf): the gateway's
// presentation metadata moves into the sessions table (display_name,
// origin_json, expiry_finalized, added as upstream's reconcile adds them),
// and the sessions the gateway already knew get it from its index,
// HERMES_HOME/sessions/sessions.json (Options.HermesHome; see
// backfillGatewayMetadata). Without the option, or without the file,
// nothing is copied, as upstream does when the file is missing.
//
// Down drops the three columns, and with them what the step copied into
// them. What it filled into v17's columns (session_key, chat_id, chat_type,
// thread_id, only where they were NULL) cannot be told apart from what the
// gateway wrote since, and stays.
var gatewayMetadata = &goMigration{
	version: 18,
	name:    "00018_sessions_gateway_metadata.go",
	schema: func(d *declaredSchema) []string {
		var stmts []string
		for _, name := range gatewayMetadataColumns {
			c, _ := d.base.column("sessions", name)
			stmts = append(stmts, addColumnSQL("sessions", c))
		}
		return stmts
	},
	data: func(ctx context.Context, conn dbConn, env stepEnv) error {
		if env.hermesHome == "" {
			return nil
		}
		_, err := backfillGatewayMetadata(ctx, conn, filepath.Join(env.hermesHome, "sessions", "sessions.json"), env.log)
		return err
	},
	down: func(ctx context.Context, conn dbConn) error {
		return execAll(ctx, conn,
			`ALTER TABLE sessions DROP COLUMN "expiry_finalized"`,
			`ALTER TABLE sessions DROP COLUMN "origin_json"`,
			`ALTER TABLE sessions DROP COLUMN "display_name"`,
		)
	},
}

// gatewayMetadataColumns are v18's columns, in upstream's declaration order.
var gatewayMetadataColumns = []string{"display_name", "origin_json", "expiry_finalized"}
