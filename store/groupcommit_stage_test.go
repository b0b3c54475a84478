package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// ftsSegmentRows returns the rows of messages_fts_data: with automerge off,
// every segment a commit or savepoint writes adds its own.
func ftsSegmentRows(t *testing.T, s *Store) int {
	t.Helper()
	return dbtest.Value[int](t, s.r, "SELECT COUNT(*) FROM messages_fts_data")
}

// noAutomerge turns FTS5's merging of segments off in s's file, so that
// each segment written stays a row of its own.
func noAutomerge(t *testing.T, s *Store) {
	t.Helper()
	// Why hand-written: FTS5's configuration commands, test only.
	for _, cmd := range []string{
		"INSERT INTO messages_fts(messages_fts, rank) VALUES ('automerge', 0)",
		"INSERT INTO messages_fts(messages_fts, rank) VALUES ('crisismerge', 1000)",
	} {
		if _, err := s.w.Exec(cmd); err != nil {
			t.Fatal(err)
		}
	}
}

// appendCallsRecording returns one call per label: AppendMessage of a
// user message with content labels[i] to sessions[i], its id stored in
// ids[i].
func appendCallsRecording(s *Store, ids []int64, sessions, labels []string) []func() error {
	calls := make([]func() error, len(labels))
	for i, label := range labels {
		calls[i] = func() (err error) {
			ids[i], err = s.AppendMessage(context.Background(), sessions[i], NewMessage{Role: "user", Content: &label})
			return err
		}
	}
	return calls
}

// TestGroupCommitStagesAppends queues eight appends behind a held write,
// so they share one transaction: their messages go in with one INSERT (one
// new segment in the full-text index, where eight INSERTs write eight), in
// arrival order, with the ids AppendMessage returned, the counters of
// eight appends, and searchable.
func TestGroupCommitStagesAppends(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, &Options{CheckpointEvery: -1, OptimizeEvery: -1})
	mustCreate(t, s, NewSession{ID: "a", Source: "cli"})
	mustCreate(t, s, NewSession{ID: "b", Source: "cli"})
	noAutomerge(t, s)
	before, segments := s.Stats(), ftsSegmentRows(t, s)

	release := holdWriter(t, s)
	var sessions, want []string
	for i := range 8 {
		sessions = append(sessions, []string{"a", "b"}[i%2])
		want = append(want, fmt.Sprintf("staged message %d zebra%d", i, i))
	}
	ids := make([]int64, len(want))
	out := queueCalls(t, s, appendCallsRecording(s, ids, sessions, want)...)
	release()
	for i, o := range collect(out) {
		if o.err != nil || o.panicked != nil {
			t.Fatalf("append %d: %v %v", i, o.err, o.panicked)
		}
	}
	if d := since(s, before); d.Writes != 9 || d.Groups != 2 {
		t.Errorf("Stats grew by %+v, want 9 writes in 2 transactions (the held one, then the eight)", d)
	}
	if got := ftsSegmentRows(t, s) - segments; got != 1 {
		t.Errorf("the eight appends added %d rows to messages_fts_data, want 1 (one segment)", got)
	}
	rows := dbtest.Rows(t, s.r, "SELECT id, content FROM messages ORDER BY id")
	if len(rows) != 8 {
		t.Fatalf("%d messages, want 8", len(rows))
	}
	for i, r := range rows {
		if r[0].(int64) != ids[i] || r[1].(string) != want[i] {
			t.Errorf("row %d is %v %q; AppendMessage returned id %d for %q", i, r[0], r[1], ids[i], want[i])
		}
	}
	if !slices.IsSorted(ids) || ids[7]-ids[0] != 7 {
		t.Errorf("ids %v, want eight consecutive in arrival order", ids)
	}
	for _, id := range []string{"a", "b"} {
		if n := messageCount(t, s, id); n != 4 {
			t.Errorf("session %s: message_count %d, want 4", id, n)
		}
	}
	for i := range 8 {
		hits, err := s.SearchMessages(context.Background(), fmt.Sprintf("zebra%d", i), SearchOptions{})
		if err != nil || len(hits) != 1 || hits[0].ID != ids[i] {
			t.Errorf("search zebra%d: %v hits, %v; want message %d", i, len(hits), err, ids[i])
		}
	}
	checkHealthy(t, s)

	// The same eight, one by one: a segment each.
	segments = ftsSegmentRows(t, s)
	for i, label := range want {
		mustAppend(t, s, []string{"a", "b"}[i%2], NewMessage{Role: "user", Content: &label})
	}
	if got := ftsSegmentRows(t, s) - segments; got != 8 {
		t.Errorf("eight appends one by one added %d rows to messages_fts_data, want 8", got)
	}
}

// TestGroupCommitStagedInsertFails makes the shared INSERT of a group's
// staged messages fail, with a real SQLite error: a TEMP trigger on the
// writer's connection aborts the insert of one message. The group runs
// again with each append inserting its own message, so exactly that
// append fails, with the trigger's error and nothing of it written (its
// counter included), and the others commit with their ids, in order.
func TestGroupCommitStagedInsertFails(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, &Options{CheckpointEvery: -1, OptimizeEvery: -1})
	mustCreate(t, s, NewSession{ID: "a", Source: "cli"})
	// Why hand-written: a test-only trigger. The writer pool holds one
	// connection, so the TEMP trigger is on the connection every write uses.
	if _, err := s.w.Exec(`CREATE TEMP TRIGGER poison BEFORE INSERT ON main.messages
		WHEN NEW.content = 'poison' BEGIN SELECT RAISE(ABORT, 'poisoned message'); END`); err != nil {
		t.Fatal(err)
	}
	release := holdWriter(t, s)
	labels := []string{"one", "two", "poison", "four", "five"}
	ids := make([]int64, len(labels))
	out := queueCalls(t, s, appendCallsRecording(s, ids, slices.Repeat([]string{"a"}, len(labels)), labels)...)
	release()
	for i, o := range collect(out) {
		switch {
		case labels[i] == "poison":
			var se sqlite3.Error
			if !errors.As(o.err, &se) || se.ExtendedCode != sqlite3.ErrConstraintTrigger {
				t.Errorf("poisoned append: %v, want the trigger's SQLITE_CONSTRAINT_TRIGGER", o.err)
			}
		case o.err != nil:
			t.Errorf("append %q: %v", labels[i], o.err)
		}
	}
	if got, want := sessionContents(t, s, "a"), []string{"one", "two", "four", "five"}; !slices.Equal(got, want) {
		t.Errorf("session holds %q, want %q", got, want)
	}
	got := dbtest.Values[int64](t, s.r, "SELECT id FROM messages ORDER BY id")
	if want := []int64{ids[0], ids[1], ids[3], ids[4]}; !slices.Equal(got, want) {
		t.Errorf("ids %v, AppendMessage returned %v", got, ids)
	}
	if n := messageCount(t, s, "a"); n != 4 {
		t.Errorf("message_count %d, want 4", n)
	}
	checkHealthy(t, s)
}

// TestGroupCommitWriteSeesStagedMessages queues appends, then a write that
// is not an append and counts the session's messages on the shared
// transaction, then more appends: the count is that of the appends before
// it, as if the writes had run one by one.
func TestGroupCommitWriteSeesStagedMessages(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, &Options{CheckpointEvery: -1, OptimizeEvery: -1})
	mustCreate(t, s, NewSession{ID: "a", Source: "cli"})
	release := holdWriter(t, s)
	var seen int
	count := func() error {
		return s.write(context.Background(), func(ctx context.Context, tx backend.Tx) error {
			// Why hand-written: what the write sees, test only.
			return tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM messages WHERE session_id = 'a'").Scan(&seen)
		})
	}
	out := queueCalls(t, s, appendCall(s, "a", "1"), appendCall(s, "a", "2"), appendCall(s, "a", "3"),
		count, appendCall(s, "a", "4"))
	release()
	for i, o := range collect(out) {
		if o.err != nil || o.panicked != nil {
			t.Fatalf("call %d: %v %v", i, o.err, o.panicked)
		}
	}
	if seen != 3 {
		t.Errorf("the write after three appends saw %d messages, want 3", seen)
	}
	if got := sessionContents(t, s, "a"); !slices.Equal(got, []string{"1", "2", "3", "4"}) {
		t.Errorf("session holds %q", got)
	}
	checkHealthy(t, s)
}

// TestMultiInsertSQL checks the multi-row form of MessageInsert: the
// generated text up to VALUES, then k copies of its row, the parameters of
// each row numbered after the row before.
func TestMultiInsertSQL(t *testing.T) {
	s, _ := openStore(t, nil)
	tx, err := s.w.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	one, err := multiInsertSQL(s, tx, 1)
	if err != nil {
		t.Fatal(err)
	}
	three, err := multiInsertSQL(s, tx, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"?1, ?2,", "?17, 1, 0", "?18, ?19,", "?34, 1, 0", "?35, ?36,", "?51, 1, 0"} {
		if !strings.Contains(three, want) {
			t.Errorf("three rows: no %q in\n%s", want, three)
		}
	}
	if strings.Contains(three, "?52") || !strings.Contains(one, "?17, 1, 0") || strings.Contains(one, "?18") {
		t.Errorf("parameters past the rows:\n%s\n%s", one, three)
	}
}

// TestGroupCommitNoAutoincrement: on a file whose messages table has no
// AUTOINCREMENT (its declaration rewritten in sqlite_master), the
// multi-row INSERT's ids are not relied on: the first group finds out and
// runs unstaged, later groups do not stage, and every append gets its own
// id, in order.
func TestGroupCommitNoAutoincrement(t *testing.T) {
	t.Parallel()
	s, path := openStore(t, &Options{CheckpointEvery: -1, OptimizeEvery: -1})
	mustCreate(t, s, NewSession{ID: "a", Source: "cli"})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	// Why hand-written: a test-only schema rewrite (the table's b-tree is
	// the same; AUTOINCREMENT only decides how new ids are chosen).
	for _, stmt := range []string{
		"PRAGMA writable_schema = ON",
		"UPDATE sqlite_master SET sql = replace(sql, 'AUTOINCREMENT', '') WHERE type = 'table' AND name = 'messages'",
		"PRAGMA writable_schema = OFF",
	} {
		if _, err := raw.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	s = openAt(t, path, &Options{CheckpointEvery: -1, OptimizeEvery: -1})
	for round := range 2 {
		release := holdWriter(t, s)
		var labels []string
		for i := range 4 {
			labels = append(labels, fmt.Sprintf("round %d message %d", round, i))
		}
		ids := make([]int64, len(labels))
		out := queueCalls(t, s, appendCallsRecording(s, ids, slices.Repeat([]string{"a"}, len(labels)), labels)...)
		release()
		for i, o := range collect(out) {
			if o.err != nil || o.panicked != nil {
				t.Fatalf("round %d append %d: %v %v", round, i, o.err, o.panicked)
			}
		}
		if !s.stageRefused.Load() {
			t.Fatalf("round %d: staging not refused on a table without AUTOINCREMENT", round)
		}
		got := dbtest.Values[int64](t, s.r, "SELECT id FROM messages WHERE content LIKE ? ORDER BY id", fmt.Sprintf("round %d %%", round))
		if !slices.Equal(got, ids) {
			t.Errorf("round %d: ids %v, AppendMessage returned %v", round, got, ids)
		}
	}
	checkHealthy(t, s)
}
