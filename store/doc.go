// Package store is the Go data layer for Hermes Agent's session store, the
// SQLite file ~/.hermes/state.db at schema version 21, interchangeable with
// upstream Hermes's SessionDB (c2a3b9ce5): a file written by either opens, migrates
// and reads the same way in the other.
//
// # Opening
//
// [Open] creates or upgrades the file (see package migrations: a new file
// and an upgraded one are exactly what the original makes) and returns a
// [Store]: one writer connection in WAL mode (foreign keys on, busy timeout
// 1 s, synchronous=FULL, all set per connection in the DSN; journal_size_limit
// 64 MiB, so a WAL that a long reader let grow is cut back after the next
// checkpoint; on macOS F_FULLFSYNC barriers at checkpoints) and a pool of
// read-only connections that read while the writer writes. On a filesystem
// that refuses WAL's locking or shared memory (NFS, SMB, some FUSE mounts)
// the file uses the DELETE journal instead, as upstream falls back, with one
// warning per file and process; never because of a transient I/O error. [Options] holds
// the original's defaults; nil means them. [Store.Close] runs a TRUNCATE
// checkpoint (as upstream Hermes closes) and closes everything; later calls
// return [ErrClosed].
//
// Open never invents a database: an empty path is [DefaultPath], whose
// directories it creates (0700); any other path must be in a directory that
// exists ([ErrNoDirectory]) and must not be a URL ([ErrURL]). It never
// writes old rules into a newer file: a file above version 21 is refused
// with [ErrNewerSchema] before anything can write, unless it is opened
// ReadOnly (every read works) or with Options.WriteNewerSchema.
//
// # What it holds, and what it must not
//
// The store holds the rules (the original's, and the guarantees this module
// adds) and the transactions that apply them. It must not hold codecs or
// SQL builders: the import reader, record checks and export writer are
// package transfer's, the search statements package sqlitesearch's (from
// package fts's plan), Python's JSON text package pyjson's, the numeric
// scan types package sqlnum's, opening and classifying SQLite failures
// package sqlite's, and the schema and its upgrades package migrations'.
// Its SQL is sqlc's generated queries plus a few constant statements sqlc
// cannot compile, each with its reason.
//
// # Writes
//
// Every write runs through one helper: BEGIN IMMEDIATE on the writer, the
// whole closure retried while another connection holds the lock
// (SQLITE_BUSY or SQLITE_LOCKED, told apart by error code, never by message
// text) up to Options.WriteAttempts times with random 20–150 ms sleeps, any
// other error rolled back and returned at once, a PASSIVE WAL checkpoint
// after every Options.CheckpointEvery-th committed write transaction and a
// merge of the full-text indexes after every Options.OptimizeEvery-th (for
// a lone writer, every n-th write, as upstream). [Store.Stats] counts writes,
// the transactions that committed them, retries, busy failures and
// checkpoints.
//
// Concurrent writes of one Store share transactions (group commit): a write
// arriving while another commits waits for that commit, then runs with the
// others queued behind it in one transaction, each in a savepoint of its
// own and in arrival order, so that one fsync commits them all at
// synchronous=FULL. Each call still returns only after the commit holding
// its write, a failing write fails only its own caller, and a lone write
// starts at once, in a transaction of its own. A group's appends insert
// their messages with one statement, so the full-text indexes gain one
// segment a group, not one a message; a leader waits up to 100 µs for the
// writers of the group before it to queue again, so that groups do not
// split in two.
//
// # The API
//
// The methods are the original SessionDB's, typed, each taking a context
// first and running as one transaction (reads in one snapshot of the
// read-only pool):
//
//   - sessions: [Store.CreateSession], [Store.CreateSessionIfAbsent], [Store.UpsertSession],
//     [Store.EnsureSession], [Store.EndSession], [Store.ReopenSession],
//     [Store.UpdateSystemPrompt], [Store.UpdateSessionModel],
//     [Store.UpdateSessionBillingRoute], [Store.UpdateSessionMeta],
//     [Store.GetSession], [Store.ResolveSessionID]
//   - usage: [Store.UpdateTokenCounts], [Store.ModelUsage], [Store.UsageByModel]
//   - workspace: [Store.UpdateSessionCwd], [Store.BackfillRepoRoots],
//     [Store.DistinctSessionCwds], [WorkspaceKey]
//   - titles: [SanitizeTitle], [Store.SetSessionTitle], [Store.SessionTitle],
//     [Store.SessionByTitle], [Store.ResolveSessionByTitle],
//     [Store.NextTitleInLineage]
//   - lineage: [Store.CompressionTip], [Store.ResolveResumeSessionID],
//     [Store.CompressionLineage], [Store.Lineage], [Store.Ancestors],
//     [Store.Descendants]
//   - listing: [Store.ListSessionsRich], [Store.CountSessions],
//     [Store.SearchSessionsByID], [Store.SearchSessions],
//     [Store.ListCronJobRuns], [Store.DistinctSessionCwds],
//     [Store.SessionCount], [Store.MessageCount]
//   - messages: [Store.AppendMessage], [Store.ReplaceMessages],
//     [Store.ReplaceActiveMessages], [Store.GetMessages],
//     [Store.GetMessagesWith], [Store.EachMessage], [Store.Conversation],
//     [Store.ConversationWith], [Store.ClearMessages],
//     [Store.HasPlatformMessageID]
//   - rewind and compaction: [Store.RewindToMessage], [Store.RestoreRewound],
//     [Store.ListRecentUserMessages], [Store.ArchiveAndCompact],
//     [Store.HasArchivedMessages]
//   - anchored views: [Store.MessagesAround], [Store.AnchoredView]
//   - compression: [Store.TryAcquireCompressionLock],
//     [Store.RefreshCompressionLock], [Store.ReleaseCompressionLock],
//     [Store.CompressionLockHolder], [Store.RecordCompressionFailureCooldown],
//     [Store.CompressionFailureCooldown], [Store.ClearCompressionFailureCooldown],
//     [Store.CompressionFallbackStreak], [Store.SetCompressionFallbackStreak]
//   - gateway: [Store.RecordGatewaySessionPeer], [Store.SetExpiryFinalized],
//     [Store.ListGatewaySessions], [Store.FindSessionByOrigin],
//     [Store.FindLatestGatewaySessionForPeer], [Store.SaveGatewayRoutingEntry],
//     [Store.ReplaceGatewayRoutingEntries], [Store.LoadGatewayRoutingEntries],
//     [Store.DeleteGatewayRoutingEntries]
//   - handoff: [Store.RequestHandoff], [Store.ClaimHandoff],
//     [Store.CompleteHandoff], [Store.FailHandoff], [Store.HandoffState],
//     [Store.ListPendingHandoffs]
//   - async delegations: [Store.DispatchDelegation], [Store.CompleteDelegation],
//     [Store.GetDelegation], [Store.ListDelegations],
//     [Store.UndeliveredDelegations], [Store.ClaimDelegationDelivery],
//     [Store.ReleaseDelegationDelivery], [Store.CompleteDelegationDelivery],
//     [Store.MarkDelegationDelivered], [Store.RecoverAbandonedDelegations],
//     [Store.PruneDelegations], [Store.DeleteDelegation]
//   - search: [Store.SearchMessages] (query language: package fts)
//   - export and cleanup: [Store.ExportSession], [Store.ExportAll],
//     [Store.ExportJSONL], [Store.DeleteSession], [Store.DeleteSessions],
//     [Store.DeleteExistingSessions], [Store.DeleteSessionIfEmpty],
//     [Store.CountEmptySessions], [Store.DeleteEmptySessions],
//     [Store.PruneSessions], [Store.PruneCandidates],
//     [Store.PruneEmptyGhostSessions], [Store.FinalizeOrphanedCompressionSessions]
//   - archive: [Store.SetSessionArchived], [Store.ArchiveSessions]
//   - maintenance: [Store.GetMeta], [Store.SetMeta], [Store.Vacuum],
//     [Store.OptimizeFTS], [Store.AutoMaintain], [Store.Checkpoint]
//   - moving and keeping history: [Store.ExportCount], [Store.ImportJSONL],
//     [Store.Backup]
//   - health: [Store.Check], [Store.RebuildSearchIndex], [Store.SchemaVersion],
//     [Store.Path], [Store.Pages]
//   - statistics: [Store.TokenStatsByModel], [Store.TokenStatsBySource],
//     [Store.TopSessionsByTokens]
//
// [Options].ReadOnly opens an existing file for reading only: nothing is
// created, migrated or written, and every write returns [ErrReadOnly]. A
// file below version 21 is refused with [ErrOlderSchema], whose message
// names the upgrade command (migrate -db PATH up).
//
// Timestamps are REAL epoch seconds ([Timestamp]) exactly as the original
// stores them. A numeric column holding a value of another storage class
// (a REAL in an INTEGER column, text, a BLOB) never fails a read: the Go
// field holds SQLite's CAST of it and [Session].Stored the value as
// stored, which exports write as the original's export does. JSON columns take [encoding/json.RawMessage] and come back as
// [encoding/json.RawMessage] (tool calls) or [JSONText]; the
// store writes the text Python's json.dumps writes, because that text is
// what full-text search indexes. For large histories [Store.EachMessage]
// and [Store.ExportJSONL] stream in bounded memory.
//
// # Errors
//
// One rule: every exported function and method wraps its error once, at
// its boundary, as "store: OPERATION[ SUBJECT]: " followed by what went
// wrong, so a message names the package and the operation exactly once:
//
//	store: append message to "nope": no such session
//	store: get session "x": not found
//	store: create session "s\xff": id: text is not valid UTF-8
//	store: open /data/state.db: database schema is newer than this build: …
//
// The subject (an id, title, key or query) is quoted, cut after 64 code
// points; a path is not quoted. The sentinels carry no prefix and name no
// operation ("not found", "closed"), and neither do the helpers below the
// boundary, which add only what the operation does not say ("message 3: ",
// "line 12: ", `session "x": `); no exported method returns another's
// error. Reads are wrapped as writes are, including the read helper's own
// failures (a closed store, BEGIN, a cancelled context). A validation
// failure names its field after the operation. The driver's error stays
// wrapped inside, classified by SQLite's result codes in internal/sqlite,
// never by message text (the store does not import the driver).
//
// Failures match the sentinels in errors.go with errors.Is: [ErrNotFound]
// (and [ErrSessionNotFound], [ErrParentNotFound], which match it without
// repeating its text), [ErrAmbiguous] (an [*AmbiguousError] listing the
// candidates; it does not match ErrNotFound), [ErrTitleInUse] (a
// [*TitleInUseError]), [ErrTitleTooLong], [ErrInvalidJSON],
// [ErrInvalidText], [ErrInvalidImport] (an [*ImportError] naming the line),
// [ErrImportTooLarge] (an [*ImportLimitError]),
// [ErrExists] (and [ErrSessionExists]), [ErrCounterOverflow],
// [ErrQueryTooLong], [ErrNotRegular], [ErrNoDirectory], [ErrBusy],
// [ErrDiskFull], [ErrReadOnly], [ErrCorrupt] (and [ErrSearchIndexEmpty]),
// [ErrClosed], and at Open [ErrNoDirectory], [ErrURL], [ErrNewerSchema],
// [ErrOlderSchema], [ErrNotDatabase], [ErrCantOpen], [ErrReadOnly],
// [ErrForeignWAL] (which matches ErrCorrupt), [ErrDiskFull],
// [ErrSearchIndexEmpty] (an empty search index it could not rebuild),
// [ErrNoFTS5], [ErrSQLiteVersion], [ErrNotWAL]. A search returns its
// context's error as soon as the context ends. A failed write leaves the
// database exactly as it was.
//
// # Changing the schema
//
//  1. Follow "Adding a version" in package migrations (the original's new
//     DDL, a goose migration with Up and Down sections, the version's
//     step) and raise migrations.Latest.
//  2. Run make generate: schema/schema.sql is dumped from the migrations and
//     sqlc regenerates package db from queries/sqlite/*.sql. A column added to
//     sessions or messages goes into internal/transfer's Session or Message
//     too, and into its export line's reader and writer: the store converts
//     the generated rows to those types, and does not build until they
//     match.
//  3. Add or change the queries in ../queries (one file per subject,
//     noun-first names such as SessionGet, named parameters only; keep the
//     comments ASCII: sqlc v1.31.1 mis-slices a file whose comments hold
//     multi-byte characters) and regenerate. Statements sqlc cannot parse
//     (the message searches) live in internal/sqlitesearch and are prepared
//     by TestHandWrittenSQLPrepares.
//  4. Test the migration on a database holding rows of the previous version;
//     make verify and make test must pass.
package store
