package transfer

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/pyjson"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// TestDecodeRoundTrip: an export line read back with Decode writes the
// same bytes again, and so does the line as the original's json.dumps
// writes it (", " and ": " separators, non-ASCII as \uXXXX): an export
// imported into a new file exports identically.
func TestDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	stored := fullSession
	stored.StartedAt = sqlnum.Real{Float64: 1500, Valid: true, Stored: "1.5e3 s"}
	stored.EndedAt = sqlnum.RealOf(-inf)
	stored.MessageCount = sqlnum.Int{Int64: 1, Valid: true, Stored: 1.5}
	stored.InputTokens = sqlnum.Int{Int64: math.MaxInt64, Valid: true, Stored: 9.223372036854776e18}
	stored.CacheReadTokens = sqlnum.Int{Valid: true, Stored: "lots"}
	stored.OutputTokens = sqlnum.Int{Int64: math.MaxInt64, Valid: true, Stored: inf}
	stored.EstimatedCostUSD = sqlnum.RealOf(inf)
	stored.ActualCostUSD = sqlnum.Real{Valid: true, Stored: "n/a"}
	msg := fullMessage
	msg.Timestamp = sqlnum.Real{Valid: true, Stored: "soon"}
	msg.TokenCount = sqlnum.Int{Int64: 12, Valid: true, Stored: "12 apples"}
	tiny := fullSession
	tiny.EstimatedCostUSD, tiny.ActualCostUSD = sqlnum.RealOf(5e-7), sqlnum.RealOf(1e21)
	for name, e := range map[string]Entry{
		"EveryColumn":  {Session: fullSession, LastActive: sqlnum.RealOf(1750000001.5), Messages: []Message{fullMessage, fullMessage}},
		"NULLs":        {Session: Session{ID: "e", Source: "acp", StartedAt: sqlnum.RealOf(1)}, Messages: []Message{{SessionID: "e", Role: "user", Timestamp: sqlnum.RealOf(2)}}},
		"StoredValues": {Session: stored, LastActive: sqlnum.Real{Valid: true, Stored: "soon"}, Messages: []Message{msg}},
		"CostForms":    {Session: tiny},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			line, err := AppendEntry(nil, e, Order{})
			if err != nil {
				t.Fatal(err)
			}
			python, err := pyjson.Encode(line)
			if err != nil {
				t.Fatal(err)
			}
			for form, text := range map[string]string{"ours": string(line), "python": python} {
				back, err := Decode([]byte(text))
				if err != nil {
					t.Fatalf("Decode(%s): %v", form, err)
				}
				again, err := AppendEntry(nil, back, Order{})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(string(line), string(again)); diff != "" {
					t.Errorf("%s line read back and written again (-first +again):\n%s", form, diff)
				}
			}
		})
	}
}

// TestDecode: what Decode reads that Parse does not check: last_active,
// tool_calls as written, the messages key absent or empty.
func TestDecode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		want     Entry
	}{
		{"NoMessagesKey", `{"id": "s"}`, Entry{Session: Session{ID: "s", MessageCount: sqlnum.IntOf(0), ToolCallCount: sqlnum.IntOf(0),
			InputTokens: sqlnum.IntOf(0), OutputTokens: sqlnum.IntOf(0), CacheReadTokens: sqlnum.IntOf(0), CacheWriteTokens: sqlnum.IntOf(0),
			ReasoningTokens: sqlnum.IntOf(0), APICallCount: sqlnum.IntOf(0), ExpiryFinalized: sqlnum.IntOf(0),
			CompressionFallbackStreak: sqlnum.IntOf(0), RewindCount: sqlnum.IntOf(0), Archived: sqlnum.IntOf(0)}}},
		{"LastActiveAndToolCalls", `{"id": "s", "last_active": "soon", "messages": [{"tool_calls": [1,  2]}, {"tool_calls": null}, {}]}`,
			Entry{Session: Session{ID: "s", MessageCount: sqlnum.IntOf(0), ToolCallCount: sqlnum.IntOf(0),
				InputTokens: sqlnum.IntOf(0), OutputTokens: sqlnum.IntOf(0), CacheReadTokens: sqlnum.IntOf(0), CacheWriteTokens: sqlnum.IntOf(0),
				ReasoningTokens: sqlnum.IntOf(0), APICallCount: sqlnum.IntOf(0), ExpiryFinalized: sqlnum.IntOf(0),
				CompressionFallbackStreak: sqlnum.IntOf(0), RewindCount: sqlnum.IntOf(0), Archived: sqlnum.IntOf(0)},
				LastActive: sqlnum.Real{Valid: true, Stored: "soon"},
				Messages:   []Message{withDefaults(Message{ToolCalls: new("[1,  2]")}), withDefaults(Message{ToolCalls: new("null")}), withDefaults(Message{})}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Decode([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Decode (-want +got):\n%s", diff)
			}
		})
	}
}

// withDefaults is m with the v21 columns a line without them reads as.
func withDefaults(m Message) Message {
	m.Observed, m.Active, m.Compacted = sqlnum.IntOf(0), sqlnum.IntOf(1), sqlnum.IntOf(0)
	return m
}
