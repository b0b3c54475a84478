package transfer

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// head is the required members of a record.
const head = `"id": "s", "source": "cli", "started_at": 1000`

// withMessage is a record with one message: the required members, then
// fields.
func withMessage(fields string) string {
	return `{` + head + `, "messages": [{"role": "user", "timestamp": 1001` + fields + `}]}`
}

// TestParseRefusals: every record Parse refuses, with the exact text of
// the error and the sentinel it matches.
//
// upstream: TestDeleteAndExport::test_import_sessions_rejects_invalid_metadata
// (its four cases: ModelConfigNotJSON, UserIDAnObject, MessageWithoutRole,
// MessageRoleNull)
func TestParseRefusals(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 513) + strings.Repeat("]", 513)
	for _, tc := range []struct {
		name, in, want string
		is             error
	}{
		{"NotJSON", `{"id": broken`, `not a session object: invalid character 'b' looking for beginning of value`, nil},
		{"Truncated", `{"id": "a", "source": "cli"`, `not a session object: unexpected end of JSON input`, nil},
		{"NotAnObject", `"s"`, `not a session object: json: cannot unmarshal string into Go value of type transfer.exportLine`, nil},
		{"TextWhereAnIDGoes", `{"id": 5, "source": "cli", "started_at": 1}`, `not a session object: json: cannot unmarshal number into Go struct field exportLine.id of type string`, nil},
		{"BoolWhereANumberGoes", `{` + head + `, "input_tokens": true}`, `not a session object: json: cannot unmarshal bool into Go struct field exportLine.input_tokens of type int64`, nil},
		{"ObjectWhereATimeGoes", `{"id": "s", "source": "cli", "started_at": {}}`, `not a session object: json: cannot unmarshal object into Go struct field exportLine.started_at of type float64`, nil},
		{"MessagesNotAList", `{` + head + `, "messages": {}}`, `not a session object: json: cannot unmarshal object into Go struct field exportLine.messages of type []transfer.exportMessage`, nil},
		{"MessageIDNotAnInteger", withMessage(`, "id": 1.5`), `not a session object: json: cannot unmarshal number 1.5 into Go struct field exportMessage.messages.id of type int64`, nil},
		{"TokenCountAList", withMessage(`, "token_count": [1]`), `not a session object: json: cannot unmarshal array into Go struct field exportMessage.messages.token_count of type int64`, nil},
		{"UserIDAnObject", `{` + head + `, "user_id": {"not": "text"}}`, `not a session object: json: cannot unmarshal object into Go struct field exportLine.user_id of type string`, nil},
		{"MessageRoleNull", `{` + head + `, "messages": [{"role": null, "content": "x", "timestamp": 1}]}`, `message 1: "role" is missing or empty`, nil},
		{"Null", `null`, `"id" is missing or empty`, nil},
		{"MissingID", `{"source": "cli", "started_at": 1}`, `"id" is missing or empty`, nil},
		{"EmptyID", `{"id": "", "source": "cli", "started_at": 1}`, `"id" is missing or empty`, nil},
		{"MissingSource", `{"id": "s", "started_at": 1}`, `"source" is missing or empty`, nil},
		{"EmptySource", `{"id": "s", "source": "", "started_at": 1}`, `"source" is missing or empty`, nil},
		{"MissingStartedAt", `{"id": "s", "source": "cli"}`, `"started_at" is missing or zero`, nil},
		{"NullStartedAt", `{"id": "s", "source": "cli", "started_at": null}`, `"started_at" is missing or zero`, nil},
		{"ZeroStartedAt", `{"id": "s", "source": "cli", "started_at": 0}`, `"started_at" is missing or zero`, nil},
		{"UnderflowingStartedAt", `{"id": "s", "source": "cli", "started_at": 1e-400}`, `"started_at" is missing or zero`, nil},
		{"ModelConfigNotJSON", `{` + head + `, "model_config": "{temperature"}`, `model_config: invalid JSON: expecting a string object key at offset 1`, ErrInvalidJSON},
		{"ModelConfigTooDeep", `{` + head + `, "model_config": "` + deep + `"}`, `model_config: invalid JSON: nested deeper than 512 levels (Python's json could not read it back) at offset 512`, ErrInvalidJSON},
		{"MessageOfAnotherSession", withMessage(`, "session_id": "other"`), `message 1: belongs to session "other", not "s"`, nil},
		{"MessageWithoutRole", `{` + head + `, "messages": [{"timestamp": 1}]}`, `message 1: "role" is missing or empty`, nil},
		{"MessageWithEmptyRole", `{` + head + `, "messages": [{"role": "", "timestamp": 1}]}`, `message 1: "role" is missing or empty`, nil},
		{"MessageWithoutTimestamp", `{` + head + `, "messages": [{"role": "user", "timestamp": 1}, {"role": "user"}]}`, `message 2: "timestamp" is missing or zero`, nil},
		{"ToolCallsTooDeep", withMessage(`, "tool_calls": ` + deep), `message 1: tool_calls: invalid JSON: nested deeper than 512 levels (Python's json could not read it back) at offset 512`, ErrInvalidJSON},
		{"ReasoningDetailsNotJSON", withMessage(`, "reasoning_details": "not json {"`), `message 1: reasoning_details: invalid JSON: invalid literal, expecting null at offset 0`, ErrInvalidJSON},
		{"ReasoningDetailsEmpty", withMessage(`, "reasoning_details": ""`), `message 1: reasoning_details: invalid JSON: unexpected end of input, expecting a value at offset 0`, ErrInvalidJSON},
		{"CodexReasoningItemsNotJSON", withMessage(`, "codex_reasoning_items": "[1,"`), `message 1: codex_reasoning_items: invalid JSON: unexpected end of input, expecting a value at offset 3`, ErrInvalidJSON},
		{"CodexMessageItemsNotJSON", withMessage(`, "codex_message_items": "{]"`), `message 1: codex_message_items: invalid JSON: expecting a string object key at offset 1`, ErrInvalidJSON},
		{"StructuredContentTooDeep", withMessage(`, "content": ` + deep), `messages[0].content: invalid JSON: nested deeper than 512 levels (Python's json could not read it back) at offset 512`, ErrInvalidJSON},
		{"IDNotUTF8", "{\"id\": \"s\xff\", \"source\": \"cli\", \"started_at\": 1}", `id: text is not valid UTF-8: byte 0xff`, ErrInvalidText},
		{"TitleLoneSurrogate", `{` + head + `, "title": "a \ud800 b"}`, `title: text is not valid UTF-8: \ud800 is half a UTF-16 surrogate pair`, ErrInvalidText},
		{"ContentReversedPair", withMessage(`, "content": "\udc00\ud800"`), `messages[0].content: text is not valid UTF-8: \udc00 is half a UTF-16 surrogate pair`, ErrInvalidText},
		{"ToolCallsNotUTF8", withMessage(", \"tool_calls\": [{\"id\": \"c\xfe\"}]"), `messages[0].tool_calls[0].id: text is not valid UTF-8: byte 0xfe`, ErrInvalidText},
		{"KeyNotUTF8", "{\"\xffkey\": 1, " + head + "}", `a key of the record: text is not valid UTF-8: byte 0xff`, ErrInvalidText},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tc.in))
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Parse error = %v, want %q", err, tc.want)
			}
			for _, sentinel := range []error{ErrInvalidJSON, ErrInvalidText} {
				if got := errors.Is(err, sentinel); got != (sentinel == tc.is) {
					t.Errorf("errors.Is(err, %v) = %v", sentinel, got)
				}
			}
		})
	}
}

// TestParse: what Parse makes of records it accepts, column by column.
func TestParse(t *testing.T) {
	t.Parallel()
	base := Session{ID: "s", Source: "cli", StartedAt: sqlnum.RealOf(1000),
		MessageCount: sqlnum.IntOf(0), ToolCallCount: sqlnum.IntOf(0), InputTokens: sqlnum.IntOf(0), OutputTokens: sqlnum.IntOf(0),
		CacheReadTokens: sqlnum.IntOf(0), CacheWriteTokens: sqlnum.IntOf(0), ReasoningTokens: sqlnum.IntOf(0), APICallCount: sqlnum.IntOf(0),
		ExpiryFinalized: sqlnum.IntOf(0), CompressionFallbackStreak: sqlnum.IntOf(0), RewindCount: sqlnum.IntOf(0), Archived: sqlnum.IntOf(0)}
	session := func(set func(*Session)) Session {
		s := base
		set(&s)
		return s
	}
	// msg is a message as Parse reads it when the record names only its
	// role and timestamp: the v21 columns at the schema's defaults.
	msg := func(id int64, role string, ts float64) Message {
		return Message{ID: id, SessionID: "s", Role: role, Timestamp: sqlnum.RealOf(ts),
			Observed: sqlnum.IntOf(0), Active: sqlnum.IntOf(1), Compacted: sqlnum.IntOf(0)}
	}
	message := msg(0, "user", 1001)
	withMsg := func(set func(*Message)) []Message {
		m := message
		set(&m)
		return []Message{m}
	}
	inf := math.Inf(1)
	for _, tc := range []struct {
		name, in string
		want     Record
	}{
		{"Required", `{` + head + `}`, Record{Session: base}},
		{"NoMessages", `{` + head + `, "messages": []}`, Record{Session: base, Messages: []Message{}}},
		{"UnknownKeysIgnored", `{` + head + `, "last_active": 5, "extra": {"deep": [1]}}`, Record{Session: base}},
		{"KeysMatchIgnoringCase", `{"ID": "s", "Source": "cli", "Started_At": 1000}`, Record{Session: base}},
		{"LastDuplicateWins", `{"id": "x", ` + head + `, "title": "a", "title": "b"}`, Record{Session: session(func(s *Session) { s.Title = new("b") })}},
		{"TextColumns", `{` + head + `, "user_id": "u", "model": "m", "system_prompt": "<b> & \u65e5", "parent_session_id": "p", "end_reason": "done", "billing_provider": "bp", "billing_base_url": "bu", "billing_mode": "bm", "cost_status": "cs", "cost_source": "cso", "pricing_version": "pv", "title": "t"}`,
			Record{Session: session(func(s *Session) {
				s.UserID, s.Model, s.SystemPrompt, s.ParentSessionID, s.EndReason = new("u"), new("m"), new("<b> & 日"), new("p"), new("done")
				s.BillingProvider, s.BillingBaseURL, s.BillingMode = new("bp"), new("bu"), new("bm")
				s.CostStatus, s.CostSource, s.PricingVersion, s.Title = new("cs"), new("cso"), new("pv"), new("t")
			})}},
		{"NullTextIsNULL", `{` + head + `, "title": null, "model": null}`, Record{Session: base}},
		{"EmptyTextKept", `{` + head + `, "title": ""}`, Record{Session: session(func(s *Session) { s.Title = new("") })}},
		// The JSON text columns hold a string's text as it is, any other
		// value as its own text.
		{"ModelConfigString", `{` + head + `, "model_config": "{\"a\":  1}"}`, Record{Session: session(func(s *Session) { s.ModelConfig = new(`{"a":  1}`) })}},
		{"ModelConfigObject", `{` + head + `, "model_config": {"a": [1, 2]}}`, Record{Session: session(func(s *Session) { s.ModelConfig = new(`{"a": [1, 2]}`) })}},
		{"ModelConfigNumber", `{` + head + `, "model_config": 3.5}`, Record{Session: session(func(s *Session) { s.ModelConfig = new(`3.5`) })}},
		{"Numbers", `{` + head + `, "ended_at": 1001.5, "message_count": 2, "tool_call_count": -1, "input_tokens": 9223372036854775807, "estimated_cost_usd": 0.25, "actual_cost_usd": 0}`,
			Record{Session: session(func(s *Session) {
				s.EndedAt, s.MessageCount, s.ToolCallCount = sqlnum.RealOf(1001.5), sqlnum.IntOf(2), sqlnum.IntOf(-1)
				s.InputTokens, s.EstimatedCostUSD, s.ActualCostUSD = sqlnum.IntOf(math.MaxInt64), sqlnum.RealOf(0.25), sqlnum.RealOf(0)
			})}},
		{"NullNumbers", `{` + head + `, "ended_at": null, "message_count": null, "estimated_cost_usd": null}`, Record{Session: base}},
		// What a counter cannot hold is kept as stored, the Go value its CAST.
		{"CountersAsStored", `{` + head + `, "message_count": 1.5, "tool_call_count": "12 apples", "input_tokens": 9223372036854775808, "output_tokens": 1e999, "cache_read_tokens": -1e999, "cache_write_tokens": 1e2, "reasoning_tokens": "lots"}`,
			Record{Session: session(func(s *Session) {
				s.MessageCount = sqlnum.Int{Int64: 1, Valid: true, Stored: 1.5}
				s.ToolCallCount = sqlnum.Int{Int64: 12, Valid: true, Stored: "12 apples"}
				s.InputTokens = sqlnum.Int{Int64: math.MaxInt64, Valid: true, Stored: 9.223372036854776e18}
				s.OutputTokens = sqlnum.Int{Int64: math.MaxInt64, Valid: true, Stored: inf}
				s.CacheReadTokens = sqlnum.Int{Int64: math.MinInt64, Valid: true, Stored: math.Inf(-1)}
				s.CacheWriteTokens = sqlnum.Int{Int64: 100, Valid: true, Stored: 100.0}
				s.ReasoningTokens = sqlnum.Int{Valid: true, Stored: "lots"}
			})}},
		{"RealsAsStored", `{"id": "s", "source": "cli", "started_at": "1.5e3 s", "ended_at": 1e999, "estimated_cost_usd": "n/a", "actual_cost_usd": -1` + strings.Repeat("0", 400) + `}`,
			Record{Session: session(func(s *Session) {
				s.StartedAt = sqlnum.Real{Float64: 1500, Valid: true, Stored: "1.5e3 s"}
				s.EndedAt = sqlnum.RealOf(inf)
				s.EstimatedCostUSD = sqlnum.Real{Valid: true, Stored: "n/a"}
				s.ActualCostUSD = sqlnum.RealOf(math.Inf(-1))
			})}},
		{"StartedAtText", `{"id": "s", "source": "cli", "started_at": "soon"}`, Record{Session: session(func(s *Session) { s.StartedAt = sqlnum.Real{Valid: true, Stored: "soon"} })}},
		{"Message", withMessage(`, "id": 4, "session_id": "s", "content": "c", "tool_call_id": "i", "tool_name": "t", "token_count": 7, "finish_reason": "stop", "reasoning": "r", "reasoning_content": "", "reasoning_details": "[1]", "codex_reasoning_items": "[2]", "codex_message_items": {"a": 1}`),
			Record{Session: base, MessageIDs: "[4]", Messages: withMsg(func(m *Message) {
				m.ID, m.Content, m.ToolCallID, m.ToolName, m.TokenCount = 4, new("c"), new("i"), new("t"), sqlnum.IntOf(7)
				m.FinishReason, m.Reasoning, m.ReasoningContent = new("stop"), new("r"), new("")
				m.ReasoningDetails, m.CodexReasoningItems, m.CodexMessageItems = new("[1]"), new("[2]"), new(`{"a": 1}`)
			})}},
		{"MessageGetsTheSessionsID", withMessage(``), Record{Session: base, Messages: []Message{message}}},
		{"MessageNumbersAsStored", withMessage(`, "timestamp": "soon", "token_count": "12 apples"`),
			Record{Session: base, Messages: withMsg(func(m *Message) {
				m.Timestamp, m.TokenCount = sqlnum.Real{Valid: true, Stored: "soon"}, sqlnum.Int{Int64: 12, Valid: true, Stored: "12 apples"}
			})}},
		{"TokenCountNull", withMessage(`, "token_count": null`), Record{Session: base, Messages: []Message{message}}},
		// tool_calls is stored as Python's json.dumps writes it, NULL when
		// Python finds it false.
		{"ToolCallsPythonText", withMessage(`, "tool_calls": [{"id":"c1","function":{"name":"x","arguments":"{}"}}, "\u65e5\ud800"]`),
			Record{Session: base, Messages: withMsg(func(m *Message) {
				m.ToolCalls = new(`[{"id": "c1", "function": {"name": "x", "arguments": "{}"}}, "\u65e5\ud800"]`)
			})}},
		{"ToolCallsString", withMessage(`, "tool_calls": "[1]"`), Record{Session: base, Messages: withMsg(func(m *Message) { m.ToolCalls = new(`"[1]"`) })}},
		{"ToolCallsNumbersAsWritten", withMessage(`, "tool_calls": [1e5, 1.50]`), Record{Session: base, Messages: withMsg(func(m *Message) { m.ToolCalls = new(`[1e5, 1.50]`) })}},
		{"ToolCallsFalsy", `{` + head + `, "messages": [{"role": "a", "timestamp": 1, "tool_calls": null}, {"role": "a", "timestamp": 1, "tool_calls": []}, {"role": "a", "timestamp": 1, "tool_calls": {}}, {"role": "a", "timestamp": 1, "tool_calls": ""}, {"role": "a", "timestamp": 1, "tool_calls": 0}, {"role": "a", "timestamp": 1, "tool_calls": false}]}`,
			Record{Session: base, Messages: []Message{
				msg(0, "a", 1), msg(0, "a", 1),
				msg(0, "a", 1), msg(0, "a", 1),
				msg(0, "a", 1), msg(0, "a", 1),
			}}},
		// Message ids are offered for keeping only when every one is
		// positive and distinct; else none is kept.
		{"IDsKept", `{` + head + `, "messages": [{"id": 5, "role": "a", "timestamp": 1}, {"id": 3, "role": "a", "timestamp": 2}]}`,
			Record{Session: base, MessageIDs: "[5,3]", Messages: []Message{
				msg(5, "a", 1), msg(3, "a", 2)}}},
		{"IDsRepeated", `{` + head + `, "messages": [{"id": 5, "role": "a", "timestamp": 1}, {"id": 5, "role": "a", "timestamp": 2}]}`,
			Record{Session: base, Messages: []Message{
				msg(0, "a", 1), msg(0, "a", 2)}}},
		{"AnIDMissing", `{` + head + `, "messages": [{"id": 5, "role": "a", "timestamp": 1}, {"role": "a", "timestamp": 2}]}`,
			Record{Session: base, Messages: []Message{
				msg(0, "a", 1), msg(0, "a", 2)}}},
		{"ANegativeID", `{` + head + `, "messages": [{"id": -5, "role": "a", "timestamp": 1}]}`,
			Record{Session: base, Messages: []Message{msg(0, "a", 1)}}},
		// The v21 columns: as written; absent ones at the schema's
		// default (an export of an older schema); null in a NOT NULL
		// column at its default, in a nullable one NULL.
		{"V21Columns", `{` + head + `, "session_key": "k", "chat_id": "c", "chat_type": "dm", "thread_id": "t", "display_name": "A", "origin_json": "{\"platform\": \"x\"}", "expiry_finalized": 1, "cwd": "/w", "git_branch": "b", "git_repo_root": "/r", "handoff_state": "pending", "handoff_platform": "p", "handoff_error": "e", "compression_failure_cooldown_until": 1500.5, "compression_failure_error": "f", "compression_fallback_streak": 2, "rewind_count": 3, "archived": 1}`,
			Record{Session: session(func(s *Session) {
				s.SessionKey, s.ChatID, s.ChatType, s.ThreadID, s.DisplayName = new("k"), new("c"), new("dm"), new("t"), new("A")
				s.OriginJSON, s.ExpiryFinalized = new(`{"platform": "x"}`), sqlnum.IntOf(1)
				s.Cwd, s.GitBranch, s.GitRepoRoot = new("/w"), new("b"), new("/r")
				s.HandoffState, s.HandoffPlatform, s.HandoffError = new("pending"), new("p"), new("e")
				s.CompressionFailureCooldownUntil, s.CompressionFailureError = sqlnum.RealOf(1500.5), new("f")
				s.CompressionFallbackStreak, s.RewindCount, s.Archived = sqlnum.IntOf(2), sqlnum.IntOf(3), sqlnum.IntOf(1)
			})}},
		{"V21NullsAndDefaults", `{` + head + `, "expiry_finalized": null, "compression_fallback_streak": null, "rewind_count": null, "archived": null, "compression_failure_cooldown_until": null}`,
			Record{Session: session(func(s *Session) { s.ExpiryFinalized = sqlnum.Int{} })}},
		{"V21MessageColumns", withMessage(`, "effect_disposition": "unknown", "platform_message_id": "9001", "observed": 1, "active": 0, "compacted": 1`),
			Record{Session: base, Messages: withMsg(func(m *Message) {
				m.EffectDisposition, m.PlatformMessageID = new("unknown"), new("9001")
				m.Observed, m.Active, m.Compacted = sqlnum.IntOf(1), sqlnum.IntOf(0), sqlnum.IntOf(1)
			})}},
		{"V21MessageNulls", withMessage(`, "observed": null, "active": null, "compacted": null`),
			Record{Session: base, Messages: withMsg(func(m *Message) { m.Observed = sqlnum.Int{} })}},
		// Content that is not a string is structured content, stored as
		// upstream stores it: the prefix and Python's json.dumps text.
		{"StructuredContent", withMessage(`, "content": [{"type":"text","text":"look \u00e9"},{"type":"image_url","image_url":{"url":"data:x"}}]`),
			Record{Session: base, Messages: withMsg(func(m *Message) {
				m.Content = new("\x00json:" + `[{"type": "text", "text": "look \u00e9"}, {"type": "image_url", "image_url": {"url": "data:x"}}]`)
			})}},
		{"StructuredContentObject", withMessage(`, "content": {"parts": [{"text": "hi"}]}`),
			Record{Session: base, Messages: withMsg(func(m *Message) { m.Content = new("\x00json:" + `{"parts": [{"text": "hi"}]}`) })}},
		{"StructuredContentNumber", withMessage(`, "content": 5`),
			Record{Session: base, Messages: withMsg(func(m *Message) { m.Content = new("\x00json:5") })}},
		{"ContentNull", withMessage(`, "content": null`), Record{Session: base, Messages: []Message{message}}},
		// Text checks: a whole surrogate pair is text; a lone surrogate
		// inside tool_calls is kept as its escape.
		{"SurrogatePair", withMessage(`, "content": "\ud83d\ude00 ok \\ud800"`), Record{Session: base, Messages: withMsg(func(m *Message) { m.Content = new(`😀 ok \ud800`) })}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
		})
	}
}
