package dbtest

// The changes of the upgrade to 21 (migrations/upgrade.go) as
// migrations.Result.Changes names them, in the order upstream's
// _init_schema makes them, as parts a file below 11 needs. A test of an
// upgrade builds its exact expected list from them (slices.Concat) and
// writes out the changes that belong to its file alone.

// NewTables are the tables of SCHEMA_SQL a file below 14 lacks, in
// declaration order; a file below 8 also lacks state_meta, the second.
func NewTables(stateMeta bool) []string {
	out := []string{"create table session_model_usage"}
	if stateMeta {
		out = append(out, "create table state_meta")
	}
	return append(out, "create table gateway_routing", "create table compression_locks", "create table async_delegations")
}

// NewIndexes are SCHEMA_SQL's indexes on those tables (and v15's on
// sessions), in declaration order.
var NewIndexes = []string{
	"create index idx_sessions_source_id",
	"create index idx_compression_locks_expires",
	"create index idx_session_model_usage_session",
	"create index idx_session_model_usage_model",
	"create index idx_async_delegations_delivery",
}

// GatewayColumns are v17's and v18's session columns, declared right after
// user_id.
var GatewayColumns = []string{
	"add column sessions.session_key",
	"add column sessions.chat_id",
	"add column sessions.chat_type",
	"add column sessions.thread_id",
	"add column sessions.display_name",
	"add column sessions.origin_json",
	"add column sessions.expiry_finalized",
}

// WorkspaceColumns are declared after reasoning_tokens.
var WorkspaceColumns = []string{
	"add column sessions.cwd",
	"add column sessions.git_branch",
	"add column sessions.git_repo_root",
}

// LateSessionColumns are declared after api_call_count, the last of v11.
var LateSessionColumns = []string{
	"add column sessions.handoff_state",
	"add column sessions.handoff_platform",
	"add column sessions.handoff_error",
	"add column sessions.compression_failure_cooldown_until",
	"add column sessions.compression_failure_error",
	"add column sessions.compression_fallback_streak",
	"add column sessions.rewind_count",
	"add column sessions.archived",
}

// EffectColumn is declared after tool_name, before every column a v1 file
// lacks.
var EffectColumn = []string{"add column messages.effect_disposition"}

// LateMessageColumns are declared after codex_message_items, the last of
// v11.
var LateMessageColumns = []string{
	"add column messages.platform_message_id",
	"add column messages.observed",
	"add column messages.active",
	"add column messages.compacted",
}

// LateIndexes are the platform index and DEFERRED_INDEX_SQL, after the
// columns.
var LateIndexes = []string{
	"create index idx_messages_platform_msg_id",
	"create the deferred indexes",
}

// V11Step is what a file below 11 gets after its indexes: both FTS indexes
// rebuilt.
var V11Step = []string{
	"rebuild full-text index messages_fts",
	"rebuild full-text index messages_fts_trigram",
}

// DataSteps are the v16 and v20 data steps (no sessions.json: no v18 copy)
// and the version.
var DataSteps = []string{
	"v16: tag delegate sessions",
	"v20: seed per-model usage",
	"set schema version 21",
}

// The billing columns v5 added to sessions, as the upgrade adds them: the
// token columns before cwd (V5Tokens), the rest after git_repo_root
// (V5Billing).
var (
	V5Tokens = []string{
		"add column sessions.cache_read_tokens",
		"add column sessions.cache_write_tokens",
		"add column sessions.reasoning_tokens",
	}
	V5Billing = []string{
		"add column sessions.billing_provider",
		"add column sessions.billing_base_url",
		"add column sessions.billing_mode",
		"add column sessions.estimated_cost_usd",
		"add column sessions.actual_cost_usd",
		"add column sessions.cost_status",
		"add column sessions.cost_source",
		"add column sessions.pricing_version",
	}
)
