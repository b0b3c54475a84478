package sqlite

// The durability pragmas of one platform. Hand-written: pragmas take no
// bound parameter.
const (
	// checkpointFullFsyncSQL makes SQLite sync with F_FULLFSYNC when a
	// checkpoint copies WAL frames into the database file. On macOS a
	// plain fsync() does not reach stable storage nor order writes
	// (fsync(2)), so a checkpoint cut short by a launchd shutdown can leave
	// a damaged file (upstream #30636); elsewhere the pragma does nothing.
	checkpointFullFsyncSQL = "PRAGMA checkpoint_fullfsync = 1"
)

// durabilityFor is what the writer connection sets on the platform goos
// (a runtime.GOOS value) for the level asked: the synchronous level it
// really uses, and the pragmas it runs on each connection. On darwin, as
// upstream c2a3b9ce5 does, synchronous is always FULL (upstream #63531:
// NORMAL's plain fsync left half-written b-tree pages) and checkpoints
// sync with F_FULLFSYNC (checkpoint_fullfsync, about 0.1 ms a commit; the
// broader fullfsync, on every commit's WAL sync, costs about 4 ms and is
// not set). Elsewhere the level is as asked and nothing is added.
func durabilityFor(goos string, asked Synchronous) (Synchronous, []string) {
	if goos == "darwin" {
		return SynchronousFull, []string{checkpointFullFsyncSQL}
	}
	return asked, nil
}
