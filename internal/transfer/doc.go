// Package transfer is the part of the store's import and export that needs
// no database: the export line (the original's export_all entry) as bytes,
// read and written.
//
//   - [Reader] splits an import into records, JSON Lines or one JSON array
//     of records (the original's export_all output saved with json.dump),
//     each with the line it starts on, and [Parse] checks one record and
//     turns it into the rows the store inserts ([Record]).
//   - [Writer] writes export lines, a session's messages streamed into its
//     line one at a time; [AppendEntry] is the same line in memory, and
//     [Decode] reads one back.
//
// The rows are [Session] and [Message]: every column of schema v21 in a
// fresh file's order,
// the numeric ones as SQLite stores them (package sqlnum: a value of
// another storage class is kept as stored), the JSON columns in the text
// Python's json.dumps writes (package pyjson). They are the generated
// db.Session and db.Message, field for field, so the store converts between
// them with a type conversion, and a column added to the schema fails the
// build instead of being dropped by an export or an import.
//
// An export line is what the original's json.dumps of an export_all entry
// reads as: the session's columns in the order of the exported file's
// table ([Order]: a file migrated from an older schema has its new columns
// last), last_active, then "messages" (each message's columns in the
// file's order too); the JSON text columns as strings, tool_calls and
// structured content ("\x00json:" and JSON, [ContentJSONPrefix]) decoded;
// numeric values as stored (text as a string,
// a float in Python's repr, an infinity as ±1e999, which Python reads back
// as inf). Text is written as encoding/json writes it without HTML
// escaping, as the store's exports have always been written.
//
// The package must not open or query a database, and must not hold the
// store's rules: whether an id is free, titles that clash, parents that
// come later, batches and transactions are the store's. Its two sentinels,
// [ErrInvalidJSON] and [ErrInvalidText], are the store's own (the store
// re-exports them), so a record refused here matches what the store's API
// refuses.
package transfer
