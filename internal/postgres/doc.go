// Package postgres opens the PostgreSQL engine's connection pool and runs
// its write transactions with the store's retry policy; it classifies
// PostgreSQL's errors by SQLSTATE into the sentinels the store exports
// (the ones package sqlite defines for SQLite's codes), so that a caller's
// errors.Is works the same on both engines.
package postgres
