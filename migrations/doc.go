// Package migrations holds the state database's schema history, v1 to v21,
// and brings a file to v21 exactly as upstream Hermes (hermes-agent
// c2a3b9ce5, the original's current code) does.
//
// # Two ways up
//
// [Migrator.Up] (and UpTo(Latest)) runs upstream's v21 DDL (v21/*.sql: its
// SCHEMA_SQL, the platform index, DEFERRED_INDEX_SQL, the title index,
// FTS_SQL and FTS_TRIGRAM_SQL, byte for byte, and its three data steps) in
// the order of its _init_schema (upgrade.go): SCHEMA_SQL IF NOT EXISTS, the
// declarative column reconcile (every declared column a table lacks, in
// declaration order, as ALTER TABLE "t" ADD COLUMN "c" <type…>), the
// platform and deferred indexes, the heal of NULL messages.active, the
// version-gated steps (v11's FTS rebuild below 11, v16's delegate tags
// below 16, v18's gateway metadata below 18, v20's usage seed below 20),
// one version update, the title index, the FTS probes. A new file gets
// upstream's fresh v21 file and version 21; a file any Hermes v1…v21 wrote
// gets what upstream makes of it: the same column order, the same
// sqlite_master text and order, the same rows and FTS content (golden_test.go
// holds it against layouts recorded by running upstream on historical
// files, testdata/golden, and against upstream's own v16 and v21 files,
// testdata/upstream). Upstream's exports (dict(row), key order) of our
// files are therefore its own.
//
// The columns upstream added without a version of their own (handoff_*,
// cwd, git_*, rewind_count, archived, active, compacted, compression_*,
// effect_disposition) arrive only through the reconcile, as upstream's do:
// no goose migration adds them, and a file at any version may already hold
// them (upstream-v21.md §2.3).
//
// The goose migrations 00001_initial_schema.sql … 00021_async_delegations.sql
// are the history, one per version, each with a down: SQL files (embedded,
// [FS]) with a -- +goose Down section, and three Go migrations for
// upstream's data steps, 00016_delegate_sessions.go,
// 00018_sessions_gateway_metadata.go and 00020_session_model_usage.go (see
// goMigration for how goose runs them in the session). [Migrator.UpTo]
// below Latest replays them, and Down, DownTo and Redo roll them back: a
// file can still go down to 0 and back up. The downs of the data steps undo
// what can be told apart: v20's drops the table it seeded, v18's drops its
// three columns (what it filled into v17's stays), v16's is a data step it
// cannot undo and changes no row. Shipped migrations are never edited.
//
// Why a fresh-file path and not a squashed baseline migration: the version
// number is shared with the original (a file at 7 means the original's 7),
// so a baseline cannot take a number of its own, and goose has no notion of
// a migration that applies to empty files only. More to the point, a
// baseline would fix new files alone: upstream's own upgrade of an old file
// is not the replay of v2…v21 in history order (those versions' columns
// land where _reconcile_columns puts them, after whatever the file has), so
// matching its files needs its declarative path anyway. Up is that one path
// for every file below Latest, new ones included (a file without a version
// row is upstream's "fresh" case: stamped 21, no data step runs); goose
// keeps the steps.
//
// # Versions
//
// The version lives in Hermes' own single-row schema_version table, read and
// written by goose through a custom database.Store: there is no
// goose_db_version table, and a file the original left at version N reports
// 1…N applied ([Migrator.Status]). A file above [Latest] was written by a
// newer Hermes: [Migrator] refuses to migrate it ([ErrNewerSchema]), up or
// down. (Upstream opens such a file read-write and reconciles it; this
// build leaves it alone, on purpose.)
//
// # Locking and atomicity
//
// Every Up/Down call holds one BEGIN IMMEDIATE transaction from the moment
// it reads the version to the final commit, so processes that migrate the
// same file at once (a gateway, a CLI and worktree agents opening one
// state.db) apply each change once; the later ones find nothing to do. Up is
// one transaction (upstream's init is not: ours is applied whole or not at
// all); each goose migration, Go ones included, runs in a savepoint. A dry
// run rolls the transaction back.
//
// # The reconcile
//
// On a file already at Latest, Up adds what the declared schema has and the
// file lacks, and heals rows whose active is NULL, as upstream does on
// every open, and writes nothing (and takes no lock) when there is nothing
// to do; [Options].NoReconcile turns it off. One deliberate difference:
// upstream recreated a missing FTS table empty, leaving search blind to
// every older message; Up fills it from the messages table. [RebuildFTS] is
// the same repair on demand.
//
// # Legacy files and goose
//
// The original numbered one version twice (v7 renumbered to v8) and
// swallowed "duplicate column" errors, and its init is not one transaction,
// so real files can hold columns ahead of their version. Before goose plans
// an UpTo below Latest, migrations whose columns are already there are
// completed and recorded, Go migrations with their data steps (adopt.go).
// Up needs no such care: it adds what is missing.
//
// # Adding a version
//
//  1. Change the v21/*.sql DDL to upstream's new one (rename the directory
//     with the version and keep the text byte for byte), and raise
//     [Latest].
//  2. Add the version's history step: 000NN_what_it_does.sql with
//     -- +goose Up and -- +goose Down sections (-- +goose StatementBegin/End
//     around triggers) when it only changes the schema (a column upstream
//     adds to SCHEMA_SQL needs nothing more: the reconcile adds it); a Go
//     migration, 000NN_what_it_does.go with a *goMigration listed in
//     goMigrations, when upstream added a gated data step ("if
//     current_version < NN"), whose statement text goes in v21/ so that the
//     step and upgrade.go send the same; in upgrade.go, run the data step
//     for a file below NN, in upstream's order.
//  3. Add the file to dbtest.MigrationNames, run make generate
//     (schema/schema.sql is dumped again and sqlc regenerates db/).
//  4. Record golden layouts with the new upstream (testdata/README.md) and
//     run make verify and make test.
//
// # What it must not do
//
// It must not hold the store's rules or read and write sessions and
// messages beyond what a version's own step moves; it never downgrades a
// file (a file above [Latest] is refused, up or down), never writes outside
// the one session transaction, never reads a file besides the database
// other than sessions.json for the v18 step (and only under
// Options.HermesHome), and never creates a database file or a directory
// itself: its caller opens the file (internal/sqlite).
package migrations
