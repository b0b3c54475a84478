package migrations

import "embed"

// FS holds the migrations, 00001_*.sql … 00011_*.sql, each with a
// -- +goose Up and a -- +goose Down section.
//
//go:embed *.sql
var FS embed.FS

// Latest is the schema version the migrations lead to, the version the
// original calls SCHEMA_VERSION.
const Latest int64 = 11
