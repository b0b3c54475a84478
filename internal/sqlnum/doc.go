// Package sqlnum reads the numeric columns of the state database whatever
// SQLite stored in them, as the original's Python does.
//
// SQLite keeps the value's own storage class: an INTEGER column holds a
// REAL when the original wrote a float into it (or when an integer sum
// overflowed), and TEXT or a BLOB when another program wrote one; a REAL
// column holds TEXT or a BLOB the same way. Python reads each row as stored
// (int, float, str, bytes). database/sql cannot scan 1.5 or "abc" into an
// int64, so a single such row would fail every read of its table.
//
// [Int] and [Real] are the generated code's types for those columns (sqlc
// overrides). Scanning never fails: the Go value is what SQLite's CAST
// gives (CAST(x AS INTEGER), CAST(x AS REAL)), and a value of another
// storage class is kept as stored, so the store can export it as the
// original would and bind it back unchanged (keyset pages compare against
// it, an import writes it again).
//
// The package must not decide what a caller sees beyond that conversion:
// the store chooses what to export and what to report.
package sqlnum
