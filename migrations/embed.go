package migrations

import (
	"embed"
	"strings"
)

// FS holds the SQL migrations, 00001_*.sql … 00021_*.sql, each with a
// -- +goose Up and a -- +goose Down section. Versions 16, 18 and 20 are Go
// migrations (00016_delegate_sessions.go, 00018_sessions_gateway_metadata.go,
// 00020_session_model_usage.go), compiled in rather than embedded; [Names]
// lists both kinds.
//
//go:embed *.sql
var FS embed.FS

// Latest is the schema version the migrations lead to, the version the
// original calls SCHEMA_VERSION.
const Latest int64 = 21

// Upstream's v21 DDL (v21/*.sql, commit c2a3b9ce5), byte for byte: what Up
// runs to create a new file and to bring an older one to Latest, and what
// the reconcile compares files with.
//
//go:embed v21/*.sql
var v21FS embed.FS

var (
	// schemaSQL is SCHEMA_SQL: the tables and their indexes, IF NOT EXISTS.
	schemaSQL = v21Script("schema.sql")
	// platformIndexSQL is idx_messages_platform_msg_id, sent on its own after
	// the reconcile; deferredIndexSQL is DEFERRED_INDEX_SQL, right after it:
	// both name columns the reconcile may have just added.
	platformIndexSQL = v21Script("platform_index.sql")
	deferredIndexSQL = v21Script("deferred_index.sql")
	// backfillV16SQL, backfillV18SQL and backfillV20SQL are upstream's v16,
	// v18 and v20 data steps (tag delegate sessions; copy one sessions.json
	// entry's gateway metadata, sent once per entry; seed per-model usage).
	backfillV16SQL = v21Script("backfill_v16.sql")
	backfillV18SQL = v21Script("backfill_v18.sql")
	backfillV20SQL = v21Script("backfill_v20.sql")
	// titleIndexSQL is the unique title index, created after the version
	// bookkeeping.
	titleIndexSQL = v21Script("title_index.sql")
	// ftsSQL and ftsTrigramSQL are FTS_SQL and FTS_TRIGRAM_SQL: each inline
	// FTS5 table with its three triggers.
	ftsSQL        = v21Script("fts.sql")
	ftsTrigramSQL = v21Script("fts_trigram.sql")
)

// v21Script returns v21/name without its leading comment lines, which
// SQLite would not store anyway (sqlite_master keeps each statement from
// its CREATE keyword).
func v21Script(name string) string {
	b, err := v21FS.ReadFile("v21/" + name)
	if err != nil {
		panic("migrations: embedded " + name + ": " + err.Error())
	}
	var out []string
	for line := range strings.SplitSeq(string(b), "\n") {
		if len(out) == 0 && strings.HasPrefix(line, "--") {
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
