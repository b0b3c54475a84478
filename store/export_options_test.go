package store

// Tests of ExportOptions (IDs, Source, Progress) and ExportCount.

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// exportIDs returns the session id of each line of a JSON Lines export,
// and each line by id.
func exportIDs(t testing.TB, text string) ([]string, map[string]string) {
	t.Helper()
	ids := []string{}
	byID := map[string]string{}
	for line := range strings.Lines(text) {
		var head struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal([]byte(line), &head); err != nil {
			t.Fatalf("decode %s: %v", line, err)
		}
		ids = append(ids, head.ID)
		byID[head.ID] = line
	}
	return ids, byID
}

// writeCounter counts the calls to Write.
type writeCounter struct{ calls int }

func (w *writeCounter) Write(p []byte) (int, error) {
	w.calls++
	return len(p), nil
}

// TestExportIDs checks ExportOptions.IDs: exactly the sessions named, in
// the order given (repeats included), each line as the full export writes
// it; Source narrows them further.
func TestExportIDs(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(&Options{Now: fixtureClock()}))
	fillExportFixture(t, s)
	fullIDs, full := exportIDs(t, exportText(t, s, ExportOptions{}))
	if diff := cmp.Diff([]string{"empty", "tg", "grandchild", "child", "root"}, fullIDs); diff != "" {
		t.Errorf("full export order (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		name string
		opts ExportOptions
		want []string
	}{
		{"GivenOrder", ExportOptions{IDs: []string{"tg", "root", "empty"}}, []string{"tg", "root", "empty"}},
		{"Repeated", ExportOptions{IDs: []string{"child", "child"}}, []string{"child", "child"}},
		{"WithSource", ExportOptions{IDs: []string{"tg", "root", "child", "empty"}, Source: "cli"}, []string{"root", "child"}},
		{"NoneOfSource", ExportOptions{IDs: []string{"tg"}, Source: "cli"}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			n, err := s.ExportJSONL(t.Context(), &buf, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if n != len(tc.want) {
				t.Errorf("ExportJSONL returned %d, want %d", n, len(tc.want))
			}
			var want strings.Builder
			for _, id := range tc.want {
				want.WriteString(full[id])
			}
			if diff := cmp.Diff(want.String(), buf.String()); diff != "" {
				t.Errorf("export (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExportUnknownID checks that an id naming no session fails the export
// with ErrSessionNotFound before anything reaches the writer, and fails
// ExportCount the same way.
func TestExportUnknownID(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(&Options{Now: fixtureClock()}))
	fillExportFixture(t, s)
	for _, opts := range []ExportOptions{
		{IDs: []string{"root", "child", "nope"}},
		{IDs: []string{"nope", "root"}},
		{IDs: []string{"root", "nope"}, Source: "telegram"},
	} {
		var w writeCounter
		n, err := s.ExportJSONL(t.Context(), &w, opts)
		if !errors.Is(err, ErrSessionNotFound) || !errors.Is(err, ErrNotFound) {
			t.Errorf("ExportJSONL(%+v) error = %v, want ErrSessionNotFound", opts, err)
		}
		if n != 0 || w.calls != 0 {
			t.Errorf("ExportJSONL(%+v) = %d sessions in %d writes, want nothing written", opts, n, w.calls)
		}
		if _, err := s.ExportCount(t.Context(), opts); !errors.Is(err, ErrSessionNotFound) {
			t.Errorf("ExportCount(%+v) error = %v, want ErrSessionNotFound", opts, err)
		}
	}
}

// TestExportProgress checks that Progress is called once per line with
// the number written so far.
func TestExportProgress(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(&Options{Now: fixtureClock()}))
	fillExportFixture(t, s)
	for _, tc := range []struct {
		opts ExportOptions
		want []int
	}{
		{ExportOptions{}, []int{1, 2, 3, 4, 5}},
		{ExportOptions{Source: "cli"}, []int{1, 2, 3}},
		{ExportOptions{IDs: []string{"tg", "root"}}, []int{1, 2}},
		{ExportOptions{Source: "none"}, nil},
	} {
		var got []int
		opts := tc.opts
		opts.Progress = func(n int) { got = append(got, n) }
		exportText(t, s, opts)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Progress calls for %+v (-want +got):\n%s", tc.opts, diff)
		}
	}
}

// TestExportCount checks that ExportCount says how many lines ExportJSONL
// writes, for several option sets.
func TestExportCount(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(&Options{Now: fixtureClock()}))
	fillExportFixture(t, s)
	for _, tc := range []struct {
		opts ExportOptions
		want int
	}{
		{ExportOptions{}, 5},
		{ExportOptions{Source: "cli"}, 3},
		{ExportOptions{Source: "telegram"}, 1},
		{ExportOptions{Source: "none"}, 0},
		{ExportOptions{IDs: []string{"tg", "root"}}, 2},
		{ExportOptions{IDs: []string{"root", "root", "root"}}, 3},
		{ExportOptions{IDs: []string{"tg", "root", "child"}, Source: "cli"}, 2},
		{ExportOptions{IDs: []string{"tg"}, Source: "acp"}, 0},
	} {
		count, err := s.ExportCount(t.Context(), tc.opts)
		if err != nil {
			t.Fatalf("ExportCount(%+v): %v", tc.opts, err)
		}
		var buf bytes.Buffer
		n, err := s.ExportJSONL(t.Context(), &buf, tc.opts)
		if err != nil {
			t.Fatalf("ExportJSONL(%+v): %v", tc.opts, err)
		}
		if lines := strings.Count(buf.String(), "\n"); count != tc.want || n != tc.want || lines != tc.want {
			t.Errorf("%+v: ExportCount %d, ExportJSONL %d, lines %d; want %d each", tc.opts, count, n, lines, tc.want)
		}
	}
}
