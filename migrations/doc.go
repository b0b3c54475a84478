// Package migrations holds the state database's schema history, v1 to v11,
// and brings a file to v11 exactly as the Python original does.
//
// # Two ways up
//
// [Migrator.Up] (and UpTo(Latest)) runs the original's v11 DDL (v11/*.sql,
// its SCHEMA_SQL, FTS_SQL, FTS_TRIGRAM_SQL and title index, byte for byte)
// in the order of its _init_schema (upgrade.go): SCHEMA_SQL IF NOT EXISTS,
// the declarative column reconcile (every declared column a table lacks,
// in declaration order, as ALTER TABLE "t" ADD COLUMN "c" <type…>), the
// v11 step, one version update, the title index, the FTS probes. A new file
// gets the original's fresh v11 file and version 11; a file at any older
// version gets what the original makes of it: the same column order, the
// same sqlite_master text and order, the same rows and FTS content
// (golden_test.go holds it against layouts recorded by running the
// original on historical files, testdata/golden). The original's
// exports (dict(row), key order) of our files are therefore its own.
//
// The goose migrations 00001_initial_schema.sql … 00011_fts_inline_tool_fields.sql
// (embedded, [FS]) are the history, one per version, each with a
// -- +goose Down section. [Migrator.UpTo] below Latest replays them, and
// Down, DownTo and Redo roll them back: a file can still go down to 0 and
// back up. Shipped migrations are never edited.
//
// Why a fresh-file path and not a squashed baseline migration: the version
// number is shared with the original (a file at 7 means the original's 7),
// so a baseline cannot take a number of its own, and goose has no notion of
// a migration that applies to empty files only. More to the point, a
// baseline would fix new files alone: the original's own upgrade of an old
// file is not the replay of v2…v9 in history order (those versions' columns
// land where _reconcile_columns puts them, after whatever the file has), so
// matching its legacy files needs its declarative path anyway. Up is that
// one path for every file below Latest, new ones included (a file without
// a version row is the original's "fresh" case); goose keeps the steps.
//
// # Versions
//
// The version lives in Hermes' own single-row schema_version table, read and
// written by goose through a custom database.Store: there is no
// goose_db_version table, and a file the original left at version N reports
// 1…N applied ([Migrator.Status]). A file above [Latest] was written by a
// newer Hermes: [Migrator] refuses to migrate it ([ErrNewerSchema]), up or
// down.
//
// # Locking and atomicity
//
// Every Up/Down call holds one BEGIN IMMEDIATE transaction from the moment
// it reads the version to the final commit, so processes that migrate the
// same file at once (a gateway, a CLI and worktree agents opening one
// state.db) apply each change once; the later ones find nothing to do. Up is
// one transaction (the original's init is not: ours is applied whole or not
// at all); each goose migration runs in a savepoint. A dry run rolls the
// transaction back.
//
// # The reconcile
//
// On a file already at Latest, Up adds what the declared schema has and the
// file lacks, as the original does on every open, and writes nothing (and
// takes no lock) when nothing is missing; [Options].NoReconcile turns it
// off. One deliberate difference: the original recreated a missing FTS
// table empty, leaving search blind to every older message; Up fills it
// from the messages table. [RebuildFTS] is the same repair on demand.
//
// # Legacy files and goose
//
// The original numbered one version twice (v7 renumbered to v8) and
// swallowed "duplicate column" errors, so real files can hold columns ahead
// of their version. Before goose plans an UpTo below Latest, add-column
// migrations whose columns are already there are completed and recorded
// (adopt.go). Up needs no such care: it adds what is missing.
//
// # Adding a version
//
//  1. Change the v11/*.sql DDL to the original's new one (rename the
//     directory with the version), add 000NN_what_it_does.sql with
//     -- +goose Up and -- +goose Down sections (-- +goose StatementBegin/End
//     around triggers), add the version's step to upgrade.go, and raise
//     [Latest].
//  2. Run make generate: schema/schema.sql is dumped again and sqlc
//     regenerates db/.
//  3. Record golden layouts with the new original (testdata/README.md) and
//     run make verify and make test.
//
// # What it must not do
//
// It must not hold the store's rules or read and write sessions and
// messages beyond what a version's own step moves; it never downgrades a
// file (a file above [Latest] is refused, up or down), never writes outside
// the one session transaction, and never creates a database file or a
// directory itself: its caller opens the file (internal/sqlite).
package migrations
