// Package migrations holds the state database's schema history, v1 to v11,
// as goose SQL migrations, and runs them.
//
// # Files
//
// 00001_initial_schema.sql … 00011_fts_inline_tool_fields.sql are embedded
// ([FS]). Each reproduces what that version of the Python original did to a
// real database, with a -- +goose Down section that restores the version
// before it; v11's down rebuilds v10's external-content FTS layout. Shipped
// migrations are never edited.
//
// # Versions
//
// The version lives in Hermes' own single-row schema_version table, read and
// written by goose through a custom database.Store: there is no
// goose_db_version table, and a file the original left at version N is
// adopted as-is (goose applies N+1…11). A file above [Latest] was written by a
// newer Hermes: [Migrator] refuses to migrate it ([ErrNewerSchema]).
//
// # Locking and atomicity
//
// Every Up/Down call holds one BEGIN IMMEDIATE transaction from the moment
// goose reads the version to the final commit, so processes that migrate the
// same file at once (a gateway, a CLI and worktree agents opening one state.db)
// apply each migration once; the later ones find nothing to do. Each
// migration runs in a savepoint: it is applied whole or not at all. A dry run
// rolls the transaction back.
//
// # Legacy files and the reconcile
//
// The original numbered one version twice (v7 renumbered to v8), and swallowed
// "duplicate column" errors, so real files can hold columns ahead of their
// version. Before goose plans an up, add-column migrations whose columns are
// already there are completed and recorded (adopt.go). After the last
// migration, [Reconcile] compares the file with the declared schema
// (schema/schema.sql, dumped from these migrations by [GenerateSchema]) and
// adds missing tables, columns, indexes and FTS indexes, filling a recreated
// FTS index from the messages table.
//
// # Adding a migration
//
//  1. Add 000NN_what_it_does.sql with -- +goose Up and -- +goose Down
//     sections (-- +goose StatementBegin/End around triggers) and raise
//     [Latest].
//  2. Run make generate: schema/schema.sql is dumped again and sqlc
//     regenerates db/.
//  3. Add a test that migrates a database holding rows from the previous
//     version, and run make verify and make test.
package migrations
