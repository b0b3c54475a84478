package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
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
