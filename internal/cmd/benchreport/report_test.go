package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermesstate/hermesstate/internal/cmd/benchcorpus/corpus"
	"github.com/hermesstate/hermesstate/store"
)

// TestQuickReport builds a 2,000-message corpus and runs the report on it
// in quick mode, without the original: every operation gets a row with a
// time, and the corpus file itself is left unchanged (the report works on
// a copy).
func TestQuickReport(t *testing.T) {
	t.Setenv("HERMES_SRC", "")
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, corpus.FileName(2000, 1))
	st, err := corpus.Build(ctx, path, corpus.Config{Messages: 2000, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out, log bytes.Buffer
	if err := run(ctx, []string{"-quick", "-work", dir, "-o", filepath.Join(dir, "report.md"), path}, &out, &log); err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	report := out.String()
	for _, want := range []string{
		"| operation | 2k median | 2k p95 |",
		`| search "docker kubernetes" | `,
		`| search "zebrafish" | `,
		`| search "记忆断裂" | `,
		`| search "通信" | `,
		"| list 20 (ListSessionsRich) | ",
		"| list 20 by last activity | ",
		"typical session 16 messages, longest 200\n",
		"| replay typical session | ",
		"| replay longest session | ",
		"| export one session (typical) | ",
		"| export all (JSONL) | ",
		"| 1 writer: latency p50 | ",
		"| 8 writers: latency p99 | ",
		"| 8 writers / 1 writer throughput | ",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the report has no %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "| – |") || strings.Contains(report, "MISMATCH") {
		t.Errorf("the report has an empty figure or a mismatch:\n%s", report)
	}
	if st.TypicalMessages != 16 || st.LongestMessages != 200 {
		t.Errorf("typical %d, longest %d: the expected corpus line above is stale", st.TypicalMessages, st.LongestMessages)
	}
	// The appends went to the copy: the corpus holds its own rows only.
	s, err := store.Open(ctx, path, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	n, nerr := s.MessageCount(ctx, "")
	sessions, serr := s.SessionCount(ctx, "")
	s.Close()
	if nerr != nil || serr != nil || n != 2000 || sessions != int64(st.Sessions) {
		t.Fatalf("after the report the corpus has %d messages (%v) in %d sessions (%v); want 2000 in %d", n, nerr, sessions, serr, st.Sessions)
	}
}

// TestReportRefuses: a file that is not a benchmark corpus, and a missing
// one, fail the report.
func TestReportRefuses(t *testing.T) {
	t.Setenv("HERMES_SRC", "")
	ctx := context.Background()
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.db")
	s, err := store.Open(ctx, plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var out, log bytes.Buffer
	err = run(ctx, []string{"-quick", "-work", dir, plain}, &out, &log)
	if err == nil || !strings.Contains(err.Error(), "not a benchmark corpus") {
		t.Errorf("a plain state.db: %v; want not a benchmark corpus", err)
	}
	if err := run(ctx, []string{"-quick", "-work", dir, filepath.Join(dir, "missing.db")}, &out, &log); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing corpus: %v; want fs.ErrNotExist", err)
	}
}

// wrongOriginal is a hermes_state module whose SessionDB answers every
// operation with results of the right shape and the wrong ids, so the
// report's comparison must flag every operation.
const wrongOriginal = `
class SessionDB:
    def __init__(self, db_path=None, read_only=False):
        self.counts = {}
    def search_messages(self, query, limit=20, **kw):
        return [{"id": -1}]
    def list_sessions_rich(self, limit=20, order_by_last_active=False, **kw):
        return [{"id": "nope"}]
    def get_messages_as_conversation(self, session_id, **kw):
        return [{"role": "user", "content": "not what the store has"}]
    def export_session(self, session_id):
        return {"id": session_id, "messages": [{"id": -1}]}
    def export_all(self, source=None):
        return [{"id": "nope", "messages": []}]
    def create_session(self, session_id, source, **kw):
        self.counts[session_id] = 0
    def append_message(self, session_id, role, content=None, **kw):
        self.counts[session_id] += 2
    def get_session(self, session_id):
        return {"message_count": self.counts[session_id]}
    def close(self):
        pass
`

// TestReportFlagsMismatch runs the report with HERMES_SRC naming an
// "original" that returns other ids: every read and both append rounds are
// reported as a MISMATCH, in the report and in the error.
func TestReportFlagsMismatch(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "hermes_state.py"), []byte(wrongOriginal), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HERMES_SRC", src)
	path := filepath.Join(dir, "c.db")
	if _, err := corpus.Build(ctx, path, corpus.Config{Messages: 500, Seed: 2}, nil); err != nil {
		t.Fatal(err)
	}
	var out, log bytes.Buffer
	err := run(ctx, []string{"-quick", "-work", dir, path}, &out, &log)
	if !errors.Is(err, errMismatch) || !strings.Contains(err.Error(), ": 12 operations") {
		t.Fatalf("run: %v; want errMismatch for 12 operations\n%s", err, log.String())
	}
	report := out.String()
	if !strings.Contains(report, "**MISMATCH") || strings.Count(report, "\n- 500, ") != 12 {
		t.Errorf("the report does not list the 12 mismatches:\n%s", report)
	}
	if n := strings.Count(log.String(), "benchreport: MISMATCH on 500, "); n != 12 {
		t.Errorf("%d MISMATCH lines on stderr, want 12:\n%s", n, log.String())
	}
}
