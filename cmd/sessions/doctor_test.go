package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mattn/go-sqlite3"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// sqliteLine is doctor's SQLite line for the library the tests link, which
// the command links too.
func sqliteLine() string {
	v, _, _ := sqlite3.Version()
	return "sqlite                " + v + " (fts5 yes, trigram yes)"
}

// damage applies stmts to the file at path through a plain connection
// (foreign keys off, no store rules), as a bug or another program might.
func damage(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	dbtest.Exec(t, db, stmts...)
}

// TestDoctor checks a healthy file, one whose search index lost rows (and
// its repair with --fix-fts), one whose counters and messages disagree, a
// file that is not a database, and a missing file.
func TestDoctor(t *testing.T) {
	t.Parallel()
	healthy := text(
		"schema version        21",
		sqliteLine(),
		"integrity_check       ok",
		"messages_fts          ok",
		"messages_fts_trigram  ok",
		"counters              ok",
		"orphan messages       0",
		"wal size              0 bytes",
		"stale temp files      0",
		"healthy")

	t.Run("Healthy", func(t *testing.T) {
		t.Parallel()
		path := fixtureCopy(t)
		before := dbtest.FileHash(t, path)
		if diff := cmp.Diff(healthy, sessions(t, "-db", path, "doctor")); diff != "" {
			t.Errorf("sessions doctor (-want +got):\n%s", diff)
		}
		v, _, _ := sqlite3.Version()
		want := obj{"schema_version": 21.0, "sqlite_version": v, "fts5": true, "trigram": true, "integrity": []any{"ok"},
			"fts":      []any{obj{"table": "messages_fts", "problem": ""}, obj{"table": "messages_fts_trigram", "problem": ""}},
			"counters": []any{}, "orphan_messages": 0.0, "bad_values": []any{}, "bad_values_truncated": false,
			"wal_bytes": 0.0, "ok": true, "problems": []any{}, "rebuilt_fts": false,
			"stale_temp_files": []any{}, "removed_temp_files": []any{}}
		if diff := cmp.Diff(want, sessionsJSON[obj](t, "-db", path, "doctor")); diff != "" {
			t.Errorf("sessions --json doctor (-want +got):\n%s", diff)
		}
		if dbtest.FileHash(t, path) != before {
			t.Error("doctor changed the file")
		}
	})
	t.Run("DroppedSearchRows", func(t *testing.T) {
		t.Parallel()
		path := fixtureCopy(t)
		damage(t, path, "DELETE FROM messages_fts WHERE rowid IN (1, 2)")
		r := runSessions(t, nil, "-db", path, "doctor")
		want := result{code: 1, stdout: text(
			"schema version        21",
			sqliteLine(),
			"integrity_check       ok",
			"messages_fts          2 messages missing from the index",
			"messages_fts_trigram  ok",
			"counters              ok",
			"orphan messages       0",
			"wal size              0 bytes",
			"stale temp files      0",
			"problems:",
			"  messages_fts: 2 messages missing from the index"),
			stderr: "sessions: doctor: 1 problem found\n"}
		if diff := cmp.Diff(want, r, cmp.AllowUnexported(result{})); diff != "" {
			t.Errorf("sessions doctor (-want +got):\n%s", diff)
		}
		if got := sessions(t, "-db", path, "search", "--role", "user", "Docker"); got != "" {
			t.Errorf("search found the message whose index rows were dropped:\n%s", got)
		}

		// --fix-fts rebuilds both indexes: healthy again, and search
		// finds the message.
		got := sessionsJSON[obj](t, "-db", path, "doctor", "--fix-fts")
		if diff := cmp.Diff(obj{"ok": true, "problems": []any{}, "rebuilt_fts": true, "fts": []any{
			obj{"table": "messages_fts", "problem": ""}, obj{"table": "messages_fts_trigram", "problem": ""}}},
			obj{"ok": got["ok"], "problems": got["problems"], "rebuilt_fts": got["rebuilt_fts"], "fts": got["fts"]}); diff != "" {
			t.Errorf("sessions --json doctor --fix-fts (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(healthy, sessions(t, "-db", path, "doctor")); diff != "" {
			t.Errorf("sessions doctor after --fix-fts (-want +got):\n%s", diff)
		}
		if got, want := sessions(t, "-db", path, "search", "--role", "user", "Docker"),
			text("20250301_090000_a1a1a1  #1  user  2025-03-01 09:00  cli  claude-sonnet-4",
				"  How do I deploy with >>>Docker<<<?",
				"  | user: How do I deploy with Docker?",
				"  | assistant: Let me check the containers."); got != want {
			t.Errorf("search after --fix-fts:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("CountersAndOrphans", func(t *testing.T) {
		t.Parallel()
		path := fixtureCopy(t)
		damage(t, path,
			"UPDATE sessions SET message_count = 9 WHERE id = '"+idCJK+"'",
			"INSERT INTO messages (session_id, role, content, timestamp) VALUES ('gone', 'user', 'lost', 1)")
		got := sessionsJSONCode[obj](t, 1, "-db", path, "doctor")
		want := obj{"ok": false, "orphan_messages": 1.0,
			"counters": []any{obj{"session_id": idCJK, "column": "message_count", "stored": 9.0, "actual": 1.0}},
			"problems": []any{"session " + idCJK + ": message_count is 9, its rows say 1", "1 message without a session"}}
		diffDoctorKeys(t, want, got)
	})
	t.Run("BadValues", func(t *testing.T) {
		t.Parallel()
		// Values of another storage class, as the original or another
		// program may write them: each is named, and doctor exits 1.
		path := fixtureCopy(t)
		damage(t, path,
			"UPDATE sessions SET input_tokens = 9223372036854775807 + 1 WHERE id = '"+idDeploy+"'",
			"UPDATE messages SET timestamp = 'yesterday' WHERE id = 1")
		r := runSessions(t, nil, "-db", path, "doctor")
		want := result{code: 1, stdout: text(
			"schema version        21",
			sqliteLine(),
			"integrity_check       ok",
			"messages_fts          ok",
			"messages_fts_trigram  ok",
			"counters              ok",
			"orphan messages       0",
			"wal size              0 bytes",
			"stale temp files      0",
			"problems:",
			"  session "+idDeploy+": input_tokens is a REAL in an INTEGER column",
			"  message 1: timestamp is TEXT in a REAL column"),
			stderr: "sessions: doctor: 2 problems found\n"}
		if diff := cmp.Diff(want, r, cmp.AllowUnexported(result{})); diff != "" {
			t.Errorf("sessions doctor (-want +got):\n%s", diff)
		}
		got := sessionsJSONCode[obj](t, 1, "-db", path, "doctor")
		wantJSON := obj{"ok": false, "bad_values_truncated": false, "bad_values": []any{
			obj{"table": "sessions", "id": idDeploy, "column": "input_tokens", "type": "real"},
			obj{"table": "messages", "id": "1", "column": "timestamp", "type": "text"}}}
		diffDoctorKeys(t, wantJSON, got)
	})
	t.Run("EmptySearchIndex", func(t *testing.T) {
		t.Parallel()
		// The original's concurrent migration can leave an index that
		// exists but is empty: doctor names it, and search says so instead
		// of finding nothing.
		path := fixtureCopy(t)
		damage(t, path, "DELETE FROM messages_fts")
		r := runSessions(t, nil, "-db", path, "doctor")
		want := result{code: 1, stdout: text(
			"schema version        21",
			sqliteLine(),
			"integrity_check       ok",
			"messages_fts          empty: 10 messages missing from the index",
			"messages_fts_trigram  ok",
			"counters              ok",
			"orphan messages       0",
			"wal size              0 bytes",
			"stale temp files      0",
			"problems:",
			"  messages_fts: empty: 10 messages missing from the index"),
			stderr: "sessions: doctor: 1 problem found\n"}
		if diff := cmp.Diff(want, r, cmp.AllowUnexported(result{})); diff != "" {
			t.Errorf("sessions doctor (-want +got):\n%s", diff)
		}
		failure(t, 1, []string{`sessions: store: search "docker": messages_fts: the search index is empty while messages has rows ` +
			`(rebuild it: sessions doctor --fix-fts, or Store.RebuildSearchIndex)`}, "-db", path, "search", "docker")
	})
	t.Run("OlderSchema", func(t *testing.T) {
		t.Parallel()
		// A file the original wrote at schema version 9: a read-only store
		// cannot read it; doctor says so as every reading command does, with
		// the upgrade command, and exits 1.
		path := dbtest.CopyFixture(t, "state-v9.db")
		before := dbtest.FileHash(t, path)
		failure(t, 1, []string{"sessions: store: open " + path + ": database schema is older than this build: the file is at schema version 9, " +
			"this build reads 21; upgrade it first: migrate -db " + path + " up"}, "-db", path, "doctor")
		if dbtest.FileHash(t, path) != before {
			t.Error("doctor changed the file")
		}
	})
	t.Run("NotADatabase", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "state.db")
		if err := os.WriteFile(path, []byte("these are not the pages you are looking for\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		failure(t, 2, []string{"sessions: doctor: cannot check: " + path + " is not a SQLite database"}, "-db", path, "doctor")
	})
	t.Run("Missing", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "state.db")
		failure(t, 1, []string{"sessions: no database at " + path}, "-db", path, "doctor")
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("doctor created %s (%v)", path, err)
		}
	})
}

// sessionsJSONCode runs the command with --json, which must exit with
// code, and decodes its standard output.
func sessionsJSONCode[T any](t *testing.T, code int, args ...string) T {
	t.Helper()
	r := runSessions(t, nil, append([]string{"--json"}, args...)...)
	if r.code != code {
		t.Fatalf("sessions --json %v: exit %d, want %d\n%s", args, r.code, code, r.stderr)
	}
	var v T
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("sessions --json %v: %v\n%s", args, err, r.stdout)
	}
	return v
}

// diffDoctorKeys compares the keys of want with the same keys of got, a
// doctor --json report (its other keys are left out).
func diffDoctorKeys(t *testing.T, want, got obj) {
	t.Helper()
	for k := range got {
		if _, ok := want[k]; !ok {
			delete(got, k)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sessions --json doctor (-want +got):\n%s", diff)
	}
}
