package store

// Tests of ResolveSessionID's ambiguous prefix: an *AmbiguousError with
// the candidates, newest first, that never matches ErrNotFound.

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestResolveAmbiguousPrefix(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(nil))
	base := float64(TimestampOf(time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)))
	for i := range 22 {
		addSession(t, s, fmt.Sprintf("2025_%02d", i), nil, base+float64(i))
	}
	addSession(t, s, "2026_00", nil, base)

	for _, tt := range []struct {
		prefix string
		want   []string
		more   bool
		msg    string
	}{
		{"2025_0", []string{"2025_09", "2025_08", "2025_07", "2025_06", "2025_05", "2025_04", "2025_03", "2025_02", "2025_01", "2025_00"},
			false, `store: resolve session id "2025_0": ambiguous session id prefix: matches 10 sessions`},
		{"2025", []string{"2025_21", "2025_20", "2025_19", "2025_18", "2025_17", "2025_16", "2025_15", "2025_14", "2025_13", "2025_12",
			"2025_11", "2025_10", "2025_09", "2025_08", "2025_07", "2025_06", "2025_05", "2025_04", "2025_03", "2025_02"},
			true, `store: resolve session id "2025": ambiguous session id prefix: matches 21 or more sessions`},
	} {
		id, err := s.ResolveSessionID(t.Context(), tt.prefix)
		var amb *AmbiguousError
		if !errors.As(err, &amb) || !errors.Is(err, ErrAmbiguous) || errors.Is(err, ErrNotFound) || id != "" {
			t.Fatalf("ResolveSessionID(%q) = %q, %v; want an *AmbiguousError, not ErrNotFound", tt.prefix, id, err)
		}
		if diff := cmp.Diff(tt.want, ids(amb.Candidates)); diff != "" || amb.More != tt.more || amb.Prefix != tt.prefix || err.Error() != tt.msg {
			t.Errorf("ResolveSessionID(%q): %q, more %v, prefix %q; candidates (-want +got):\n%s", tt.prefix, err, amb.More, amb.Prefix, diff)
		}
	}
	if _, err := s.ResolveSessionID(t.Context(), "2027"); !errors.Is(err, ErrNotFound) || errors.Is(err, ErrAmbiguous) {
		t.Errorf("ResolveSessionID(2027) = %v, want ErrNotFound", err)
	}
}
