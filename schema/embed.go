// Package schema holds schema.sql, the state database at the latest schema
// version as one SQL file, and embeds it.
//
// schema.sql is generated: a new database is created by the migrator in
// ../migrations (upstream Hermes c2a3b9ce5's v21 DDL) and its sqlite_master
// is dumped in creation order (`make generate`), so it is upstream's fresh
// v21 DDL. It is never edited by hand; a test fails when it drifts from the
// migrations. sqlc compiles the queries against it. (The migrations
// reconcile live files against their own v21 DDL, which this file equals.)
//
// Nothing reads it to build a database: the migrations do that, from their
// own files; this is their dump, for sqlc and the drift test.
package schema

import _ "embed"

// SQL is the content of schema.sql: CREATE statements for every table,
// virtual table, index and trigger of the latest schema, in creation order.
//
//go:embed schema.sql
var SQL string
