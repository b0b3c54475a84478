// Package pgmigrations holds the PostgreSQL schema of the state database as
// goose migrations (00021_schema_v21.sql: version 21, written once), and
// runs them.
package pgmigrations

import "embed"

// FS holds the SQL migrations, each with a -- +goose Up and a -- +goose
// Down section.
//
//go:embed *.sql
var FS embed.FS
