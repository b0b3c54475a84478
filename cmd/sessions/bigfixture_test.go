package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/store"
)

// bigSessions is the number of sessions in the big fixture.
const bigSessions = 20000

// bigFixture returns the path of a database of bigSessions ended cli
// sessions with one 300-character message each, built once per test
// process (tests copy it): past manyBytes on disk, so backup and vacuum
// draw their bars, and long enough to export that a test can stop the
// export half-way.
var bigFixture = sync.OnceValues(func() (string, error) {
	path := filepath.Join(filepath.Dir(filepath.Dir(fixturePath)), "big", "state.db")
	if err := os.Mkdir(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	s, err := store.Open(context.Background(), path, nil) // the schema, through the store
	if err != nil {
		return "", err
	}
	if err := s.Close(); err != nil {
		return "", err
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		return "", err
	}
	defer db.Close()
	// The rows in one transaction of plain SQL (the triggers fill both
	// search indexes): through the store, 20,000 writes would take a
	// minute under the race detector.
	_, err = db.Exec(`BEGIN;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ` + fmt.Sprint(bigSessions) + `)
INSERT INTO sessions (id, source, started_at, ended_at, end_reason, message_count)
SELECT printf('big%05d', i), 'cli', 1740787200 + i, 1740787200 + i + 60, 'user_exit', 1 FROM n;
INSERT INTO messages (session_id, role, content, timestamp)
SELECT id, 'user', substr(printf('%s %s %s %s %s %s', id, 'deploy the service with docker compose and check the logs',
	'the quick brown fox jumps over the lazy dog near the river bank', hex(randomblob(40)),
	'kubernetes helm chart values for the staging cluster and its ingress', hex(randomblob(40))), 1, 300), started_at + 1
FROM sessions;
COMMIT;`)
	if err != nil {
		return "", err
	}
	return path, nil
})

// bigCopy copies the big fixture into a new directory and returns the
// copy's path.
func bigCopy(t *testing.T) string {
	t.Helper()
	src, err := bigFixture()
	if err != nil {
		t.Fatal(err)
	}
	return dbtest.CopyFile(t, src, filepath.Join(t.TempDir(), "state.db"))
}
