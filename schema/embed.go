// Package schema holds schema.sql, the state database at the latest schema
// version as one SQL file, and embeds it.
//
// schema.sql is generated: an empty database is migrated with the migrations
// in ../migrations and its sqlite_master is dumped (`make generate`). It is
// never edited by hand; a test fails when it drifts from the migrations. sqlc
// compiles the queries against it, and the migrations package reconciles live
// files against it.
package schema

import _ "embed"

// SQL is the content of schema.sql: CREATE statements for every table,
// virtual table, index and trigger of the latest schema, in creation order.
//
//go:embed schema.sql
var SQL string
