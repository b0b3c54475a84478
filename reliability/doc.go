// Package reliability holds tests only. They prove that the state database
// keeps every write the store acknowledged, and stays a valid, searchable,
// consistently versioned file, under the conditions that broke the
// original's: many writers in many processes, processes killed mid-write,
// and long readers that let the WAL grow.
//
// The tests run the real store on real SQLite files in t.TempDir(), in real
// OS processes: the test binary re-runs itself as the writer, the crashing
// child or the long reader (see TestMain). They are modelled on SQLite's own
// crashtest and mptest and on Litestream's invariant tests:
//
//   - TestManyWritersManyProcesses: 4 processes × 4 goroutines write, search
//     and list on one file; every write the store acknowledged is found
//     exactly once, every failed one is absent, and the counters, both FTS
//     indexes and the file's integrity check agree.
//   - TestKilledWriterLosesNothing: a child appending, replacing
//     transcripts, pruning or vacuuming is killed with SIGKILL at a random
//     moment; reopened, the file holds exactly the acknowledged writes (plus,
//     at most, the one in flight, whole), and passes every check.
//   - TestKilledGroupCommitLosesNothing: a child whose 8 goroutines append
//     at synchronous=FULL through one store, so that their writes share
//     commits, is killed at random moments; reopened, every acknowledged
//     append is there with its id and in its goroutine's order, and each
//     write in flight is whole or absent.
//   - TestKilledMigrationIsAllOrNothing: a child migrating a 50,000-message
//     v6 file to v21 is killed; the file is left at v6 or v21 with exactly
//     that version's schema, and the next Open finishes the job.
//   - TestWALShrinksAfterLongReader: a reader in another process holds a
//     read transaction while thousands of messages are appended; once it
//     ends, the next checkpoint and the WAL size limit bring the -wal file
//     back to its bound within two writes, and Close leaves no oversized
//     WAL.
//
// # Running
//
// The short form is what make test and CI run (well under a minute on two
// cores with -race):
//
//	go test -race -tags sqlite_fts5 -count=1 ./reliability
//
// The long form (make stress) runs minutes of load, more than 100 crashes
// and 20,000 appends behind the reader:
//
//	go test -race -tags sqlite_fts5 -count=1 -timeout 60m ./reliability -long -v
//
// Every random choice (kill delays, the writers' workloads) comes from one
// seed, logged by each test; -seed=N makes the same choices again (the
// scheduling of the processes, and so the exact kill moments, still vary).
package reliability
