package pgmigrations

// LockSQL is the statement that takes the migration lock, for the test
// that holds it from another connection.
const LockSQL = sqlLock
