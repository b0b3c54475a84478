package store

// The import caps of upstream c2a3b9ce5's import_sessions (_IMPORT_MAX_*),
// as ImportOptions.Limits. Upstream has no test of its own for them.

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Two records and their sizes as upstream counts them (CPython:
// len(json.dumps(json.loads(line), ensure_ascii=False,
// separators=(",", ":")).encode("utf-8"))): 102 and 40 bytes.
const (
	capsLineA = `{"id": "a", "source": "cli", "started_at": 1, "messages": [{"role": "user", "content": "héllo", "timestamp": 2}]}`
	capsLineB = `{"id": "b", "source": "cli", "started_at": 1}`
)

// TestImportLimits: an import over one of its limits fails with an
// *ImportLimitError naming the record's line, its session and the count,
// and nothing is written; a zero field is no limit.
func TestImportLimits(t *testing.T) {
	t.Parallel()
	if want := (ImportLimits{Sessions: 500, MessagesPerSession: 10_000, Messages: 50_000, SessionBytes: 5 * 1024 * 1024, Bytes: 25 * 1024 * 1024}); UpstreamImportLimits != want {
		t.Errorf("UpstreamImportLimits = %+v, want upstream's %+v", UpstreamImportLimits, want)
	}
	manyMessages := func(id string, n int) string {
		msgs := make([]string, n)
		for i := range msgs {
			msgs[i] = `{"role": "user", "content": "m", "timestamp": 2}`
		}
		return fmt.Sprintf(`{"id": %q, "source": "cli", "started_at": 1, "messages": [%s]}`, id, strings.Join(msgs, ", "))
	}
	lines := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "{\"id\": \"s%d\", \"source\": \"cli\", \"started_at\": 1}\n", i+1)
		}
		return b.String()
	}
	big := fmt.Sprintf(`{"id": "big", "source": "cli", "started_at": 1, "title": %q}`, strings.Repeat("x", 5<<20))
	for _, c := range []struct {
		name   string
		text   string
		limits ImportLimits
		want   string
	}{
		// Upstream's own numbers.
		{"Sessions", lines(501), UpstreamImportLimits, `line 501: session "s501": 501 sessions, at most 500`},
		{"MessagesInASession", manyMessages("m", 10_001), UpstreamImportLimits, `line 1: session "m": 10001 messages in a session, at most 10000`},
		{"Messages", strings.Repeat(manyMessages("x", 10_000)+"\n", 5) + manyMessages("last", 1), UpstreamImportLimits,
			`line 6: session "last": 50001 messages, at most 50000`},
		{"BytesOfASession", big, UpstreamImportLimits, fmt.Sprintf(`line 1: session "big": %d bytes of a session, at most 5242880`, 5<<20+53)},
		// The byte counts are upstream's: 102 + 40.
		{"Bytes", capsLineA + "\n" + capsLineB + "\n", ImportLimits{Bytes: 141}, `line 2: session "b": 142 bytes, at most 141`},
		{"BytesOfASessionExact", capsLineA + "\n", ImportLimits{SessionBytes: 101}, `line 1: session "a": 102 bytes of a session, at most 101`},
		// Of several limits crossed by one record, the first in this
		// order is named: sessions, then the session's messages and bytes.
		{"FirstLimitNamed", capsLineA + "\n" + capsLineB + "\n", ImportLimits{Sessions: 1, Bytes: 1, Messages: 0}, `line 1: session "a": 102 bytes, at most 1`},
		// In an array, as upstream's export_all dumps it.
		{"Array", "[\n" + capsLineA + ",\n" + capsLineB + "\n]\n", ImportLimits{Sessions: 1}, `line 3: session "b": 2 sessions, at most 1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, _ := openStore(t, nil)
			before := dumpTables(t, s)
			res, err := s.ImportJSONL(t.Context(), strings.NewReader(c.text), ImportOptions{Limits: &c.limits})
			var le *ImportLimitError
			if !errors.As(err, &le) || !errors.Is(err, ErrImportTooLarge) || errors.Is(err, ErrInvalidImport) {
				t.Fatalf("ImportJSONL = %+v, %v; want an *ImportLimitError", res, err)
			}
			if want := "store: import: " + c.want; err.Error() != want {
				t.Errorf("error %q, want %q", err, want)
			}
			if res != (ImportResult{}) {
				t.Errorf("result %+v, want zero", res)
			}
			if diff := cmp.Diff(before, dumpTables(t, s)); diff != "" {
				t.Errorf("a refused import changed the database (-before +after):\n%s", diff)
			}
		})
	}
}

// TestImportLimitsMalformed: under limits, a malformed record still fails
// the import with its *ImportError, and nothing is written, even of the
// records before it (one transaction, as upstream's).
func TestImportLimitsMalformed(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, nil)
	before := dumpTables(t, s)
	lim := UpstreamImportLimits
	res, err := s.ImportJSONL(t.Context(), strings.NewReader(capsLineB+"\n{bad\n"), ImportOptions{Limits: &lim, BatchSize: 1})
	var ie *ImportError
	if !errors.As(err, &ie) || ie.Line != 2 || res != (ImportResult{}) {
		t.Fatalf("ImportJSONL = %+v, %v; want the *ImportError of line 2", res, err)
	}
	if diff := cmp.Diff(before, dumpTables(t, s)); diff != "" {
		t.Errorf("the import wrote (-before +after):\n%s", diff)
	}
}

// TestImportWithinLimits: an import within its limits is written whole,
// in one transaction (Progress once, with the totals).
func TestImportWithinLimits(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, nil)
	var progress []ImportResult
	lim := ImportLimits{Sessions: 2, MessagesPerSession: 1, Messages: 1, SessionBytes: 102, Bytes: 142}
	res, err := s.ImportJSONL(t.Context(), strings.NewReader(capsLineA+"\n"+capsLineB+"\n"), ImportOptions{
		Limits: &lim, BatchSize: 1, Progress: func(r ImportResult) { progress = append(progress, r) },
	})
	want := ImportResult{Created: 2, Messages: 1}
	if err != nil || res != want {
		t.Fatalf("ImportJSONL = %+v, %v; want %+v", res, err, want)
	}
	if diff := cmp.Diff([]ImportResult{want}, progress); diff != "" {
		t.Errorf("Progress calls (-want +got):\n%s", diff)
	}
	if got := s.Stats().Writes; got != 1 {
		t.Errorf("%d write transactions, want 1", got)
	}
}
