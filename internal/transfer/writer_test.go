package transfer

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// fullSession sets every column of a session; fullMessage every column
// of a message.
var (
	fullSession = Session{
		ID: "s1", Source: "cli", UserID: new("u1"), SessionKey: new("agent:main:telegram:dm:42"), ChatID: new("42"),
		ChatType: new("dm"), ThreadID: new("t9"), DisplayName: new("Alice"), OriginJSON: new(`{"platform": "telegram"}`),
		ExpiryFinalized: sqlnum.IntOf(1), Model: new("claude-x"),
		ModelConfig: new(`{"temperature": 0.5, "stop": ["<end>"]}`), SystemPrompt: new("Be brief <b> & kind — ✓"),
		ParentSessionID: new("p0"), StartedAt: sqlnum.RealOf(1750000000.25), EndedAt: sqlnum.RealOf(1750000100),
		EndReason: new("compression"), MessageCount: sqlnum.IntOf(2), ToolCallCount: sqlnum.IntOf(1),
		InputTokens: sqlnum.IntOf(100), OutputTokens: sqlnum.IntOf(50), CacheReadTokens: sqlnum.IntOf(3),
		CacheWriteTokens: sqlnum.IntOf(4), ReasoningTokens: sqlnum.IntOf(5), Cwd: new("/w"), GitBranch: new("main"),
		GitRepoRoot: new("/w"), BillingProvider: new("anthropic"),
		BillingBaseURL: new("https://api.example/v1"), BillingMode: new("api"),
		EstimatedCostUSD: sqlnum.RealOf(0.25), ActualCostUSD: sqlnum.RealOf(1), CostStatus: new("estimated"),
		CostSource: new("table"), PricingVersion: new("2026-01"), Title: new("x #2"), APICallCount: sqlnum.IntOf(2),
		HandoffState: new("pending"), HandoffPlatform: new("slack"), HandoffError: new("boom"),
		CompressionFailureCooldownUntil: sqlnum.RealOf(1750000200.5), CompressionFailureError: new("too long"),
		CompressionFallbackStreak: sqlnum.IntOf(2), RewindCount: sqlnum.IntOf(3), Archived: sqlnum.IntOf(1),
	}
	fullSessionJSON = `{"id":"s1","source":"cli","user_id":"u1","session_key":"agent:main:telegram:dm:42",` +
		`"chat_id":"42","chat_type":"dm","thread_id":"t9","display_name":"Alice",` +
		`"origin_json":"{\"platform\": \"telegram\"}","expiry_finalized":1,"model":"claude-x",` +
		`"model_config":"{\"temperature\": 0.5, \"stop\": [\"<end>\"]}","system_prompt":"Be brief <b> & kind — ✓",` +
		`"parent_session_id":"p0","started_at":1750000000.25,"ended_at":1750000100.0,"end_reason":"compression",` +
		`"message_count":2,"tool_call_count":1,"input_tokens":100,"output_tokens":50,"cache_read_tokens":3,` +
		`"cache_write_tokens":4,"reasoning_tokens":5,"cwd":"/w","git_branch":"main","git_repo_root":"/w",` +
		`"billing_provider":"anthropic",` +
		`"billing_base_url":"https://api.example/v1","billing_mode":"api","estimated_cost_usd":0.25,` +
		`"actual_cost_usd":1.0,"cost_status":"estimated","cost_source":"table","pricing_version":"2026-01",` +
		`"title":"x #2","api_call_count":2,"handoff_state":"pending","handoff_platform":"slack",` +
		`"handoff_error":"boom","compression_failure_cooldown_until":1750000200.5,` +
		`"compression_failure_error":"too long","compression_fallback_streak":2,"rewind_count":3,"archived":1`

	fullMessage = Message{
		ID: 7, SessionID: "s1", Role: "assistant", Content: new("héllo\n"), ToolCallID: new("c0"),
		ToolCalls: new(`[{"id": "c1", "function": {"name": "web_search", "arguments": "{\"q\": \"<x>\"}"}}]`),
		ToolName:  new("web_search"), EffectDisposition: new("unknown"), Timestamp: sqlnum.RealOf(1750000001.5),
		TokenCount: sqlnum.IntOf(9), FinishReason: new("tool_calls"), Reasoning: new("because"), ReasoningContent: new(""),
		ReasoningDetails: new(`[{"type": "summary"}]`), CodexReasoningItems: new(`[{"id": "r1"}]`),
		CodexMessageItems: new(`[{"id": "m1"}]`), PlatformMessageID: new("9001"), Observed: sqlnum.IntOf(1),
		Active: sqlnum.IntOf(1), Compacted: sqlnum.IntOf(0),
	}
	fullMessageJSON = `{"id":7,"session_id":"s1","role":"assistant","content":"héllo\n","tool_call_id":"c0",` +
		`"tool_calls":[{"id":"c1","function":{"name":"web_search","arguments":"{\"q\": \"<x>\"}"}}],` +
		`"tool_name":"web_search","effect_disposition":"unknown","timestamp":1750000001.5,"token_count":9,` +
		`"finish_reason":"tool_calls",` +
		`"reasoning":"because","reasoning_content":"","reasoning_details":"[{\"type\": \"summary\"}]",` +
		`"codex_reasoning_items":"[{\"id\": \"r1\"}]","codex_message_items":"[{\"id\": \"m1\"}]",` +
		`"platform_message_id":"9001","observed":1,"active":1,"compacted":0}`

	// emptyMessageJSON is Message{} with the two required columns.
	emptyMessageJSON = `{"id":0,"session_id":"s1","role":"user","content":null,"tool_call_id":null,"tool_calls":null,` +
		`"tool_name":null,"effect_disposition":null,"timestamp":0.0,"token_count":null,"finish_reason":null,"reasoning":null,` +
		`"reasoning_content":null,"reasoning_details":null,"codex_reasoning_items":null,"codex_message_items":null,` +
		`"platform_message_id":null,"observed":null,"active":0,"compacted":0}`
)

// TestAppendEntry pins export lines to exact bytes: every column of a
// session and of a message, the columns NULL, and last_active written or
// left out.
func TestAppendEntry(t *testing.T) {
	t.Parallel()
	emptySession := `{"id":"e","source":"acp","user_id":null,"session_key":null,"chat_id":null,"chat_type":null,` +
		`"thread_id":null,"display_name":null,"origin_json":null,"expiry_finalized":null,` +
		`"model":null,"model_config":null,"system_prompt":null,` +
		`"parent_session_id":null,"started_at":0.0,"ended_at":null,"end_reason":null,"message_count":0,` +
		`"tool_call_count":0,"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0,` +
		`"reasoning_tokens":0,"cwd":null,"git_branch":null,"git_repo_root":null,` +
		`"billing_provider":null,"billing_base_url":null,"billing_mode":null,` +
		`"estimated_cost_usd":null,"actual_cost_usd":null,"cost_status":null,"cost_source":null,` +
		`"pricing_version":null,"title":null,"api_call_count":0,"handoff_state":null,"handoff_platform":null,` +
		`"handoff_error":null,"compression_failure_cooldown_until":null,"compression_failure_error":null,` +
		`"compression_fallback_streak":0,"rewind_count":0,"archived":0`
	for _, tc := range []struct {
		name string
		in   Entry
		want string
	}{
		{"EveryColumn", Entry{Session: fullSession, LastActive: sqlnum.RealOf(1750000001.5), Messages: []Message{fullMessage}},
			fullSessionJSON + `,"last_active":1750000001.5,"messages":[` + fullMessageJSON + `]}`},
		{"TwoMessages", Entry{Session: fullSession, LastActive: sqlnum.RealOf(2), Messages: []Message{fullMessage, {SessionID: "s1", Role: "user"}}},
			fullSessionJSON + `,"last_active":2.0,"messages":[` + fullMessageJSON + `,` + emptyMessageJSON + `]}`},
		{"NoMessagesNoLastActive", Entry{Session: fullSession}, fullSessionJSON + `,"messages":[]}`},
		{"EverythingNULL", Entry{Session: Session{ID: "e", Source: "acp"}}, emptySession + `,"messages":[]}`},
		{"LastActiveNegativeZero", Entry{Session: Session{ID: "e", Source: "acp"}, LastActive: sqlnum.RealOf(math.Copysign(0, -1))}, emptySession + `,"messages":[]}`},
		{"LastActiveBLOBOfZero", Entry{Session: Session{ID: "e", Source: "acp"}, LastActive: sqlnum.Real{Valid: true, Stored: []byte("x")}}, emptySession + `,"messages":[]}`},
		{"LastActiveBLOB", Entry{Session: Session{ID: "e", Source: "acp"}, LastActive: sqlnum.Real{Float64: 12, Valid: true, Stored: []byte("12")}},
			emptySession + `,"last_active":12.0,"messages":[]}`},
		{"LastActiveText", Entry{Session: Session{ID: "e", Source: "acp"}, LastActive: sqlnum.Real{Valid: true, Stored: "soon"}},
			emptySession + `,"last_active":"soon","messages":[]}`},
		{"LastActiveInfinite", Entry{Session: Session{ID: "e", Source: "acp"}, LastActive: sqlnum.RealOf(math.Inf(1))},
			emptySession + `,"last_active":1e999,"messages":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := AppendEntry(nil, tc.in, Order{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("AppendEntry (-want +got):\n%s", diff)
			}
			var w bytes.Buffer
			writeEntries(t, &w, tc.in)
			if diff := cmp.Diff(tc.want+"\n", w.String()); diff != "" {
				t.Errorf("Writer (-want +got):\n%s", diff)
			}
		})
	}
}

// writeEntries writes entries through a Writer.
func writeEntries(t *testing.T, w *bytes.Buffer, entries ...Entry) {
	t.Helper()
	tw := NewWriter(w, Order{})
	for _, e := range entries {
		if err := tw.Begin(e.Session, e.LastActive); err != nil {
			t.Fatal(err)
		}
		for _, m := range e.Messages {
			if err := tw.Message(m); err != nil {
				t.Fatal(err)
			}
		}
		if err := tw.End(); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
}

// TestWriterLines writes several sessions, one a line, each line what
// AppendEntry gives for it.
func TestWriterLines(t *testing.T) {
	t.Parallel()
	entries := []Entry{
		{Session: fullSession, LastActive: sqlnum.RealOf(3), Messages: []Message{fullMessage, fullMessage}},
		{Session: Session{ID: "e", Source: "acp"}},
		{Session: fullSession, Messages: []Message{{Role: "user", Content: new(strings.Repeat("long text ", 10_000))}}},
	}
	var want strings.Builder
	for _, e := range entries {
		line, err := AppendEntry(nil, e, Order{})
		if err != nil {
			t.Fatal(err)
		}
		want.Write(line)
		want.WriteByte('\n')
	}
	var got bytes.Buffer
	writeEntries(t, &got, entries...)
	if got.String() != want.String() {
		t.Errorf("Writer wrote %d bytes, want AppendEntry's %d lines of %d bytes", got.Len(), len(entries), want.Len())
	}
}

// TestNumericValues pins how each numeric column writes each value it can
// hold: its Go value, NULL, and a value of another storage class (kept in
// Stored, written as the original's json.dumps writes it, a BLOB as its Go
// value, an infinity as ±1e999).
func TestNumericValues(t *testing.T) {
	t.Parallel()
	inf, maxF, tenth := math.Inf(1), math.MaxFloat64, 0.1
	for _, tc := range []struct {
		name string
		set  func(*Session, *Message)
		want string // the member as written
	}{
		{"CounterNULL", func(s *Session, _ *Message) { s.InputTokens = sqlnum.Int{} }, `"input_tokens":0`},
		{"CounterNegative", func(s *Session, _ *Message) { s.InputTokens = sqlnum.IntOf(-3) }, `"input_tokens":-3`},
		{"CounterREAL", func(s *Session, _ *Message) { s.OutputTokens = sqlnum.Int{Int64: 1, Valid: true, Stored: 1.5} }, `"output_tokens":1.5`},
		{"CounterOverflowedSum", func(s *Session, _ *Message) {
			s.InputTokens = sqlnum.Int{Int64: math.MaxInt64, Valid: true, Stored: 9.223372036854776e18}
		}, `"input_tokens":9.223372036854776e+18`},
		{"CounterTEXT", func(s *Session, _ *Message) { s.CacheReadTokens = sqlnum.Int{Valid: true, Stored: "lots"} }, `"cache_read_tokens":"lots"`},
		{"CounterBLOB", func(s *Session, _ *Message) {
			s.ReasoningTokens = sqlnum.Int{Int64: 12, Valid: true, Stored: []byte("12")}
		}, `"reasoning_tokens":12`},
		{"CounterInfinite", func(s *Session, _ *Message) {
			s.APICallCount = sqlnum.Int{Int64: math.MaxInt64, Valid: true, Stored: inf}
		}, `"api_call_count":1e999`},
		{"TimestampWhole", func(s *Session, _ *Message) { s.StartedAt = sqlnum.RealOf(1750000000) }, `"started_at":1750000000.0`},
		{"TimestampFraction", func(s *Session, _ *Message) { s.StartedAt = sqlnum.RealOf(1750000000.1234567) }, `"started_at":1750000000.1234567`},
		{"TimestampTiny", func(s *Session, _ *Message) { s.StartedAt = sqlnum.RealOf(1e-7) }, `"started_at":1e-07`},
		{"TimestampHuge", func(s *Session, _ *Message) { s.StartedAt = sqlnum.RealOf(1e16) }, `"started_at":1e+16`},
		{"TimestampNegativeZero", func(s *Session, _ *Message) { s.StartedAt = sqlnum.RealOf(math.Copysign(0, -1)) }, `"started_at":-0.0`},
		{"TimestampInfinite", func(s *Session, _ *Message) { s.StartedAt = sqlnum.RealOf(math.Inf(-1)) }, `"started_at":-1e999`},
		{"TimestampTEXT", func(s *Session, _ *Message) { s.StartedAt = sqlnum.Real{Float64: 1500, Valid: true, Stored: "1.5e3 s"} }, `"started_at":"1.5e3 s"`},
		{"TimestampBLOB", func(s *Session, _ *Message) {
			s.StartedAt = sqlnum.Real{Float64: 12, Valid: true, Stored: []byte("12")}
		}, `"started_at":12.0`},
		{"TimestampBLOBInfinite", func(s *Session, _ *Message) {
			s.StartedAt = sqlnum.Real{Float64: inf, Valid: true, Stored: []byte("1e999")}
		}, `"started_at":1.7976931348623157e+308`},
		{"EndedAtNULL", func(s *Session, _ *Message) { s.EndedAt = sqlnum.Real{} }, `"ended_at":null`},
		{"EndedAtTEXT", func(s *Session, _ *Message) { s.EndedAt = sqlnum.Real{Valid: true, Stored: "later"} }, `"ended_at":"later"`},
		{"CostNULL", func(s *Session, _ *Message) { s.EstimatedCostUSD = sqlnum.Real{} }, `"estimated_cost_usd":null`},
		{"CostZero", func(s *Session, _ *Message) { s.EstimatedCostUSD = sqlnum.RealOf(0) }, `"estimated_cost_usd":0.0`},
		{"CostWholeHuge", func(s *Session, _ *Message) { s.EstimatedCostUSD = sqlnum.RealOf(1e16) }, `"estimated_cost_usd":1e+16`},
		{"CostFraction", func(s *Session, _ *Message) { s.EstimatedCostUSD = sqlnum.RealOf(tenth + 0.2) }, `"estimated_cost_usd":0.30000000000000004`},
		// Not integral: encoding/json's form, as the store always wrote it.
		{"CostTiny", func(s *Session, _ *Message) { s.EstimatedCostUSD = sqlnum.RealOf(5e-7) }, `"estimated_cost_usd":5e-7`},
		{"CostTinier", func(s *Session, _ *Message) { s.EstimatedCostUSD = sqlnum.RealOf(1.5e-10) }, `"estimated_cost_usd":1.5e-10`},
		{"CostHugeFraction", func(s *Session, _ *Message) { s.ActualCostUSD = sqlnum.RealOf(123456789.125) }, `"actual_cost_usd":123456789.125`},
		{"CostInfinite", func(s *Session, _ *Message) { s.EstimatedCostUSD = sqlnum.RealOf(inf) }, `"estimated_cost_usd":1e999`},
		{"CostTEXT", func(s *Session, _ *Message) { s.ActualCostUSD = sqlnum.Real{Valid: true, Stored: "n/a"} }, `"actual_cost_usd":"n/a"`},
		{"CostBLOB", func(s *Session, _ *Message) {
			s.ActualCostUSD = sqlnum.Real{Float64: 0.5, Valid: true, Stored: []byte("0.5")}
		}, `"actual_cost_usd":0.5`},
		{"CostBLOBInfinite", func(s *Session, _ *Message) {
			s.ActualCostUSD = sqlnum.Real{Float64: inf, Valid: true, Stored: []byte("1e999")}
		}, `"actual_cost_usd":1.7976931348623157e+308`},
		{"CostLargest", func(s *Session, _ *Message) { s.ActualCostUSD = sqlnum.RealOf(maxF) }, `"actual_cost_usd":1.7976931348623157e+308`},
		{"TokenCountNULL", func(_ *Session, m *Message) { m.TokenCount = sqlnum.Int{} }, `"token_count":null`},
		{"TokenCountZero", func(_ *Session, m *Message) { m.TokenCount = sqlnum.IntOf(0) }, `"token_count":0`},
		{"TokenCountTEXT", func(_ *Session, m *Message) { m.TokenCount = sqlnum.Int{Int64: 12, Valid: true, Stored: "12 apples"} }, `"token_count":"12 apples"`},
		{"TokenCountREAL", func(_ *Session, m *Message) {
			m.TokenCount = sqlnum.Int{Int64: math.MinInt64, Valid: true, Stored: -1e20}
		}, `"token_count":-1e+20`},
		{"MessageTimestampNULL", func(_ *Session, m *Message) { m.Timestamp = sqlnum.Real{} }, `"timestamp":0.0`},
		{"MessageTimestampInfinite", func(_ *Session, m *Message) { m.Timestamp = sqlnum.RealOf(inf) }, `"timestamp":1e999`},
		{"MessageTimestampTEXT", func(_ *Session, m *Message) { m.Timestamp = sqlnum.Real{Valid: true, Stored: "soon"} }, `"timestamp":"soon"`},
		{"MessageTimestampBLOB", func(_ *Session, m *Message) { m.Timestamp = sqlnum.Real{Valid: true, Stored: []byte{0, 0xff}} }, `"timestamp":0.0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, m := fullSession, fullMessage
			tc.set(&s, &m)
			got, err := AppendEntry(nil, Entry{Session: s, Messages: []Message{m}}, Order{})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(got), ","+tc.want+",") {
				t.Errorf("the line lacks ,%s,:\n%s", tc.want, got)
			}
		})
	}
}

// TestToolCallsValues: tool_calls is written decoded, as get_messages
// returns it: the stored JSON without its insignificant white space
// (nothing escaped), [] for stored text that is not JSON, null for NULL
// and for "".
func TestToolCallsValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		col  *string
		want string
	}{
		{"NULL", nil, `null`},
		{"Empty", new(""), `null`},
		{"PythonText", new(`[{"id": "c1", "arguments": "{\"q\": \"<x> & y\"}"}]`), `[{"id":"c1","arguments":"{\"q\": \"<x> & y\"}"}]`},
		{"ADict", new(`{"id": "c3"}`), `{"id":"c3"}`},
		{"WhiteSpaceAround", new("  [1,   2,{\"a\" :  \"<b>\"}]\n"), `[1,2,{"a":"<b>"}]`},
		{"PythonEscapesKept", new(`["\u65e5\ud800"]`), `["\u65e5\ud800"]`},
		{"NotJSON", new(`not json`), `[]`},
		{"TwoValues", new(`[1] [2]`), `[]`},
		{"JSONNull", new(`null`), `null`},
		{"AString", new(`"str"`), `"str"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := fullMessage
			m.ToolCalls = tc.col
			got, err := AppendEntry(nil, Entry{Session: fullSession, Messages: []Message{m}}, Order{})
			if err != nil {
				t.Fatal(err)
			}
			if want := `"tool_call_id":"c0","tool_calls":` + tc.want + `,"tool_name":`; !strings.Contains(string(got), want) {
				t.Errorf("the line lacks %s:\n%s", want, got)
			}
		})
	}
}

// TestNaN: a NaN (which SQLite never stores: it reads as NULL) has no JSON
// form, and the line fails naming the column.
func TestNaN(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		e    Entry
		want string
	}{
		{"StartedAt", Entry{Session: Session{ID: "s", StartedAt: sqlnum.RealOf(nan)}}, `session "s": started_at: NaN has no JSON form`},
		{"Cost", Entry{Session: Session{ID: "s", ActualCostUSD: sqlnum.RealOf(nan)}}, `session "s": actual_cost_usd: NaN has no JSON form`},
		{"StoredCounter", Entry{Session: Session{ID: "s", InputTokens: sqlnum.Int{Valid: true, Stored: nan}}}, `session "s": input_tokens: NaN has no JSON form`},
		{"LastActive", Entry{Session: Session{ID: "s"}, LastActive: sqlnum.RealOf(nan)}, `session "s": last_active: NaN has no JSON form`},
		{"MessageTimestamp", Entry{Session: Session{ID: "s"}, Messages: []Message{{ID: 3, Timestamp: sqlnum.RealOf(nan)}}}, `message 3: timestamp: NaN has no JSON form`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := AppendEntry(nil, tc.e, Order{})
			if err == nil || err.Error() != tc.want || !errors.Is(err, errNaN) {
				t.Errorf("AppendEntry error = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestWriterWriteError: the io.Writer's error comes back from the call
// that writes (Begin, Message or End once the buffer fills, else Flush).
func TestWriterWriteError(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk unplugged")
	tw := NewWriter(errWriter{boom}, Order{})
	if err := tw.Begin(fullSession, sqlnum.Real{}); err != nil {
		t.Fatalf("Begin into the buffer: %v", err)
	}
	big := fullMessage
	big.Content = new(strings.Repeat("x", 10_000))
	if err := tw.Message(big); !errors.Is(err, boom) {
		t.Errorf("Message past the buffer: %v, want %v", err, boom)
	}
	if err := tw.Flush(); !errors.Is(err, boom) {
		t.Errorf("Flush: %v, want %v", err, boom)
	}
}

// errWriter fails every write.
type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }
