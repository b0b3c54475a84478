package store

import (
	"testing"
	"time"
)

// TestTimestampOf checks the conversion both ways against the values
// Python's float arithmetic gives for the same instants (time.time() is
// float(ns) / 1e9): nanoseconds are kept as far as a float64 holds them,
// and Time inverts TimestampOf to the microsecond Python timestamps carry.
func TestTimestampOf(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		in   time.Time
		want Timestamp
		back time.Time // ts.Time(), compared with Equal
	}{
		{"Epoch", time.Unix(0, 0), 0, time.Unix(0, 0)},
		{"HalfSecond", time.Unix(1, 500_000_000), 1.5, time.Unix(1, 500_000_000)},
		{"BeforeEpoch", time.Unix(-2, 500_000_000), -1.5, time.Unix(-2, 500_000_000)},
		{"Microsecond", time.Unix(1740819600, 1_000), 1740819600.000001, time.Unix(1740819600, 954)},
		// float(1740819600123456789) / 1e9 in Python: 1740819600.1234567.
		{"Nanoseconds", time.Unix(1740819600, 123_456_789), 1740819600.1234567, time.Unix(1740819600, 123_456_717)},
		{"OtherZone", time.Date(2025, 3, 1, 10, 0, 0, 0, time.FixedZone("UTC+9", 9*3600)), 1740790800, time.Unix(1740790800, 0)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := TimestampOf(tt.in)
			if got != tt.want {
				t.Errorf("TimestampOf(%v) = %.9f, want %.9f", tt.in, float64(got), float64(tt.want))
			}
			if back := got.Time(); !back.Equal(tt.back) {
				t.Errorf("Timestamp(%.9f).Time() = %v (%d ns), want %v", float64(got), back, back.UnixNano(), tt.back)
			}
		})
	}
}
