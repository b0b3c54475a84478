package migrations

import (
	"embed"
	"strings"
)

// FS holds the migrations, 00001_*.sql … 00011_*.sql, each with a
// -- +goose Up and a -- +goose Down section.
//
//go:embed *.sql
var FS embed.FS

// Latest is the schema version the migrations lead to, the version the
// original calls SCHEMA_VERSION.
const Latest int64 = 11

// The original's v11 DDL (v11/*.sql), byte for byte: what Up runs to
// create a new file and to bring an older one to Latest, and what the
// reconcile compares files with.
//
//go:embed v11/*.sql
var v11FS embed.FS

var (
	// schemaSQL is SCHEMA_SQL: the tables and their indexes, IF NOT EXISTS.
	schemaSQL = v11Script("schema.sql")
	// titleIndexSQL is the unique title index, created after the version
	// bookkeeping.
	titleIndexSQL = v11Script("title_index.sql")
	// ftsSQL and ftsTrigramSQL are FTS_SQL and FTS_TRIGRAM_SQL: each inline
	// FTS5 table with its three triggers.
	ftsSQL        = v11Script("fts.sql")
	ftsTrigramSQL = v11Script("fts_trigram.sql")
)

// v11Script returns v11/name without its leading comment lines, which
// SQLite would not store anyway (sqlite_master keeps each statement from
// its CREATE keyword).
func v11Script(name string) string {
	b, err := v11FS.ReadFile("v11/" + name)
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
