package store

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// TestCounterOverflowRefused: an addition that would take a token counter,
// api_call_count, message_count or tool_call_count past the int64 range
// (SQLite would store the sum as a REAL) fails with ErrCounterOverflow,
// naming the counter, and leaves every row of every table as it was; the
// same update within the range, an absolute one, and additions to a
// counter already holding a REAL or NULL (as the original adds) still
// work.
func TestCounterOverflowRefused(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, _ := openStore(t, quick(nil))
	seedBadInput(t, s)
	execSQL(t, s, `UPDATE sessions SET input_tokens = 9223372036854775000, output_tokens = -9223372036854775000,
		cache_read_tokens = 9223372036854775807, cache_write_tokens = 9223372036854775807, reasoning_tokens = 9223372036854775807,
		api_call_count = 9223372036854775807 WHERE id = 's1'`)
	execSQL(t, s, "UPDATE sessions SET message_count = 9223372036854775807 WHERE id = 's2'")
	execSQL(t, s, "UPDATE sessions SET tool_call_count = 9223372036854775806 WHERE id = 's1-child'")
	calls := []byte(`[{"id": "a"}, {"id": "b"}]`)

	for _, c := range []struct {
		name string
		op   func() error
		msg  string
	}{
		{"InputTokens", func() error { return s.UpdateTokenCounts(ctx, "s1", TokenUpdate{InputTokens: 808}) },
			`store: update token counts of "s1": counter would overflow int64: input_tokens is 9223372036854775000, adding 808`},
		{"OutputTokensNegative", func() error { return s.UpdateTokenCounts(ctx, "s1", TokenUpdate{OutputTokens: -809}) },
			`store: update token counts of "s1": counter would overflow int64: output_tokens is -9223372036854775000, adding -809`},
		{"CacheRead", func() error { return s.UpdateTokenCounts(ctx, "s1", TokenUpdate{CacheReadTokens: 1}) },
			`store: update token counts of "s1": counter would overflow int64: cache_read_tokens is 9223372036854775807, adding 1`},
		{"CacheWrite", func() error { return s.UpdateTokenCounts(ctx, "s1", TokenUpdate{CacheWriteTokens: math.MaxInt64}) },
			`store: update token counts of "s1": counter would overflow int64: cache_write_tokens is 9223372036854775807, adding 9223372036854775807`},
		{"Reasoning", func() error { return s.UpdateTokenCounts(ctx, "s1", TokenUpdate{ReasoningTokens: 2}) },
			`store: update token counts of "s1": counter would overflow int64: reasoning_tokens is 9223372036854775807, adding 2`},
		{"APICallCount", func() error {
			return s.UpdateTokenCounts(ctx, "s1", TokenUpdate{APICallCount: 1, EstimatedCostUSD: new(1.0)})
		},
			`store: update token counts of "s1": counter would overflow int64: api_call_count is 9223372036854775807, adding 1`},
		{"MessageCount", func() error {
			_, err := s.AppendMessage(ctx, "s2", NewMessage{Role: "user", Content: new("x")})
			return err
		},
			`store: append message to "s2": counter would overflow int64: message_count is 9223372036854775807, adding 1`},
		{"ToolCallCount", func() error {
			_, err := s.AppendMessage(ctx, "s1-child", NewMessage{Role: "assistant", ToolCalls: calls})
			return err
		}, `store: append message to "s1-child": counter would overflow int64: tool_call_count is 9223372036854775806, adding 2`},
	} {
		before := dumpTables(t, s)
		err := c.op()
		if !errors.Is(err, ErrCounterOverflow) || err.Error() != c.msg {
			t.Errorf("%s: error = %v; want %s", c.name, err, c.msg)
		}
		if diff := cmp.Diff(before, dumpTables(t, s)); diff != "" {
			t.Errorf("%s: the refused write changed the database (-before +after):\n%s", c.name, diff)
		}
	}

	// Within the range, absolutely, and onto values SQL adds without
	// overflowing (a REAL, a NULL), writes go through as before.
	if err := s.UpdateTokenCounts(ctx, "s1", TokenUpdate{InputTokens: 807, OutputTokens: -808}); err != nil {
		t.Errorf("UpdateTokenCounts up to the bounds: %v", err)
	}
	if _, err := s.AppendMessage(ctx, "s1-child", NewMessage{Role: "assistant", ToolCalls: []byte(`[{"id": "a"}]`)}); err != nil {
		t.Errorf("AppendMessage up to the bound: %v", err)
	}
	execSQL(t, s, "UPDATE sessions SET input_tokens = 1.5e19, output_tokens = NULL WHERE id = 's2'")
	if err := s.UpdateTokenCounts(ctx, "s2", TokenUpdate{InputTokens: 5, OutputTokens: 5}); err != nil {
		t.Errorf("UpdateTokenCounts onto a REAL and a NULL: %v", err)
	}
	got := dbtest.Rows(t, s.r, "SELECT input_tokens, output_tokens FROM sessions WHERE id = 's1' UNION ALL SELECT input_tokens, output_tokens FROM sessions WHERE id = 's2'")
	want := [][]any{{int64(math.MaxInt64), int64(math.MinInt64)}, {1.5e19, nil}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counters after the accepted updates (-want +got):\n%s", diff)
	}
	if err := s.UpdateTokenCounts(ctx, "s1", TokenUpdate{Absolute: true, InputTokens: 1}); err != nil {
		t.Errorf("absolute UpdateTokenCounts: %v", err)
	}
	// Upstream's update_token_counts creates a missing session (source
	// "unknown") before counting on it.
	if err := s.UpdateTokenCounts(ctx, "nope", TokenUpdate{InputTokens: 1}); err != nil {
		t.Errorf("UpdateTokenCounts(unknown session) = %v, want nil (the session is created)", err)
	}
	if got := dbtest.Rows(t, s.r, "SELECT source, input_tokens FROM sessions WHERE id = 'nope'"); !cmp.Equal(got, [][]any{{"unknown", int64(1)}}) {
		t.Errorf("created session (source, input_tokens) = %v, want [[unknown 1]]", got)
	}
}

// TestAppendCountsOddCounters: the append's UPDATE refuses only an INTEGER
// counter's sum past the int64 range. A NULL, REAL or text counter (bad
// data a legacy or foreign writer left) is added to as SQLite adds: NULL
// stays NULL, text counts as its number, a REAL stays a REAL, even above
// the int64 range.
func TestAppendCountsOddCounters(t *testing.T) {
	ctx := t.Context()
	s, _ := openStore(t, nil)
	for value, want := range map[string]string{
		"NULL":                 "null ",
		"'7'":                  "integer 8",
		"2.5":                  "real 3.5",
		"9.3e18":               "real 9.3e+18",
		"9223372036854775806":  "integer 9223372036854775807",
		"-9223372036854775808": "integer -9223372036854775807",
	} {
		id := "s" + value
		mustCreate(t, s, NewSession{ID: id, Source: "cli"})
		execSQL(t, s, "UPDATE sessions SET message_count = "+value+" WHERE id = ?", id)
		if _, err := s.AppendMessage(ctx, id, NewMessage{Role: "user", Content: new("x")}); err != nil {
			t.Errorf("message_count %s: %v", value, err)
			continue
		}
		// Why hand-written: the stored type and text of the counter.
		got := dbtest.Value[string](t, s.r, "SELECT typeof(message_count) || ' ' || COALESCE(CAST(message_count AS TEXT), '') FROM sessions WHERE id = ?", id)
		if got != want {
			t.Errorf("message_count %s after one append: %s, want %s", value, got, want)
		}
	}
}
