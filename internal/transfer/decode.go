package transfer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// Decode reads one export line (or an entry of upstream's export_all or
// export_session) into column values: a numeric key holding what its
// column's Go type cannot (1.5 or 1e+20 in a counter, text, 1e999) reads
// as the store reads such a column, CAST to the column's type with the
// value kept as stored, so that writing the row stores it again
// unchanged. The JSON text columns hold the text of a string (any other
// JSON value as its own text); tool_calls holds the value's JSON text as
// written; a message's content that is not a string (structured content:
// a list of parts) holds what upstream stores for it (EncodeContent).
//
// A column the line does not carry (an export of an older schema) reads
// as the schema's default: 0 for the counters and for observed and
// expiry_finalized, 1 for active; a NOT NULL column that is null reads as
// its default too, a nullable one as NULL. Keys match as encoding/json
// matches struct fields (an exact match first, else one that differs only
// in case); unknown keys are ignored. Nothing else is checked: see Parse.
//
// It returns encoding/json's error for text that is not JSON or not an
// object of that shape, with what it could decode, as json.Unmarshal
// leaves it.
func Decode(raw []byte) (Entry, error) {
	var w exportLine
	err := json.Unmarshal(raw, &w)
	e := Entry{Session: Session{
		ID: w.ID, Source: w.Source, UserID: w.UserID,
		SessionKey: w.SessionKey, ChatID: w.ChatID, ChatType: w.ChatType, ThreadID: w.ThreadID,
		DisplayName: w.DisplayName, OriginJSON: w.OriginJSON.s, ExpiryFinalized: w.ExpiryFinalized.nullable(0),
		Model: w.Model, ModelConfig: w.ModelConfig.s, SystemPrompt: w.SystemPrompt, ParentSessionID: w.ParentSessionID,
		StartedAt: sqlnum.Real(w.StartedAt), EndedAt: w.EndedAt.column(), EndReason: w.EndReason,
		MessageCount: w.MessageCount.counter(), ToolCallCount: w.ToolCallCount.counter(),
		InputTokens: w.InputTokens.counter(), OutputTokens: w.OutputTokens.counter(),
		CacheReadTokens: w.CacheReadTokens.counter(), CacheWriteTokens: w.CacheWriteTokens.counter(),
		ReasoningTokens: w.ReasoningTokens.counter(),
		Cwd:             w.Cwd, GitBranch: w.GitBranch, GitRepoRoot: w.GitRepoRoot,
		BillingProvider: w.BillingProvider, BillingBaseURL: w.BillingBaseURL, BillingMode: w.BillingMode,
		EstimatedCostUSD: w.EstimatedCostUSD.column(), ActualCostUSD: w.ActualCostUSD.column(),
		CostStatus: w.CostStatus, CostSource: w.CostSource, PricingVersion: w.PricingVersion,
		Title: w.Title, APICallCount: w.APICallCount.counter(),
		HandoffState: w.HandoffState, HandoffPlatform: w.HandoffPlatform, HandoffError: w.HandoffError,
		CompressionFailureCooldownUntil: w.CompressionFailureCooldownUntil.column(),
		CompressionFailureError:         w.CompressionFailureError,
		CompressionFallbackStreak:       w.CompressionFallbackStreak.counter(),
		RewindCount:                     w.RewindCount.counter(), Archived: w.Archived.counter(),
	}, LastActive: sqlnum.Real(w.LastActive)}
	if w.Messages != nil {
		e.Messages = make([]Message, len(w.Messages))
	}
	for i, m := range w.Messages {
		e.Messages[i] = m.row()
		if err == nil && m.Content.err != nil {
			err = fmt.Errorf("messages[%d].%w", i, m.Content.err)
		}
	}
	return e, err
}

// DecodeMessage reads one message object of an export line (a row of
// upstream's get_messages) into column values, as Decode reads the
// messages of a line.
//
// It returns encoding/json's error for text that is not JSON or not an
// object of that shape, or the error of a content that cannot be stored
// (EncodeContent), with what it could decode.
func DecodeMessage(raw []byte) (Message, error) {
	var m exportMessage
	err := json.Unmarshal(raw, &m)
	if err == nil {
		err = m.Content.err
	}
	return m.row(), err
}

// row is m's column values.
func (m exportMessage) row() Message {
	return Message{
		ID: m.ID, SessionID: m.SessionID, Role: m.Role, Content: m.Content.s, ToolCallID: m.ToolCallID,
		ToolCalls: rawText(m.ToolCalls), ToolName: m.ToolName, EffectDisposition: m.EffectDisposition,
		Timestamp: sqlnum.Real(m.Timestamp), TokenCount: m.TokenCount.column(), FinishReason: m.FinishReason,
		Reasoning: m.Reasoning, ReasoningContent: m.ReasoningContent, ReasoningDetails: m.ReasoningDetails.s,
		CodexReasoningItems: m.CodexReasoningItems.s, CodexMessageItems: m.CodexMessageItems.s,
		PlatformMessageID: m.PlatformMessageID, Observed: m.Observed.nullable(0),
		Active: m.Active.notNull(1), Compacted: m.Compacted.notNull(0),
	}
}

// exportLine is an export line as encoding/json decodes it (its name and
// exportMessage's are in encoding/json's errors). The fields are in any
// order: keys are matched by name.
type exportLine struct {
	ID                              string          `json:"id"`
	Source                          string          `json:"source"`
	UserID                          *string         `json:"user_id"`
	SessionKey                      *string         `json:"session_key"`
	ChatID                          *string         `json:"chat_id"`
	ChatType                        *string         `json:"chat_type"`
	ThreadID                        *string         `json:"thread_id"`
	DisplayName                     *string         `json:"display_name"`
	OriginJSON                      jsonText        `json:"origin_json"`
	ExpiryFinalized                 seenInt         `json:"expiry_finalized"`
	Model                           *string         `json:"model"`
	ModelConfig                     jsonText        `json:"model_config"`
	SystemPrompt                    *string         `json:"system_prompt"`
	ParentSessionID                 *string         `json:"parent_session_id"`
	StartedAt                       jsonReal        `json:"started_at"`
	EndedAt                         jsonReal        `json:"ended_at"`
	EndReason                       *string         `json:"end_reason"`
	MessageCount                    jsonInt         `json:"message_count"`
	ToolCallCount                   jsonInt         `json:"tool_call_count"`
	InputTokens                     jsonInt         `json:"input_tokens"`
	OutputTokens                    jsonInt         `json:"output_tokens"`
	CacheReadTokens                 jsonInt         `json:"cache_read_tokens"`
	CacheWriteTokens                jsonInt         `json:"cache_write_tokens"`
	ReasoningTokens                 jsonInt         `json:"reasoning_tokens"`
	Cwd                             *string         `json:"cwd"`
	GitBranch                       *string         `json:"git_branch"`
	GitRepoRoot                     *string         `json:"git_repo_root"`
	BillingProvider                 *string         `json:"billing_provider"`
	BillingBaseURL                  *string         `json:"billing_base_url"`
	BillingMode                     *string         `json:"billing_mode"`
	EstimatedCostUSD                jsonReal        `json:"estimated_cost_usd"`
	ActualCostUSD                   jsonReal        `json:"actual_cost_usd"`
	CostStatus                      *string         `json:"cost_status"`
	CostSource                      *string         `json:"cost_source"`
	PricingVersion                  *string         `json:"pricing_version"`
	Title                           *string         `json:"title"`
	APICallCount                    jsonInt         `json:"api_call_count"`
	HandoffState                    *string         `json:"handoff_state"`
	HandoffPlatform                 *string         `json:"handoff_platform"`
	HandoffError                    *string         `json:"handoff_error"`
	CompressionFailureCooldownUntil jsonReal        `json:"compression_failure_cooldown_until"`
	CompressionFailureError         *string         `json:"compression_failure_error"`
	CompressionFallbackStreak       jsonInt         `json:"compression_fallback_streak"`
	RewindCount                     jsonInt         `json:"rewind_count"`
	Archived                        jsonInt         `json:"archived"`
	LastActive                      jsonReal        `json:"last_active"`
	Messages                        []exportMessage `json:"messages"`
}

// exportMessage is a message of an export line as encoding/json decodes it.
type exportMessage struct {
	ID                  int64           `json:"id"`
	SessionID           string          `json:"session_id"`
	Role                string          `json:"role"`
	Content             jsonContent     `json:"content"`
	ToolCallID          *string         `json:"tool_call_id"`
	ToolCalls           json.RawMessage `json:"tool_calls"`
	ToolName            *string         `json:"tool_name"`
	EffectDisposition   *string         `json:"effect_disposition"`
	Timestamp           jsonReal        `json:"timestamp"`
	TokenCount          *jsonInt        `json:"token_count"`
	FinishReason        *string         `json:"finish_reason"`
	Reasoning           *string         `json:"reasoning"`
	ReasoningContent    *string         `json:"reasoning_content"`
	ReasoningDetails    jsonText        `json:"reasoning_details"`
	CodexReasoningItems jsonText        `json:"codex_reasoning_items"`
	CodexMessageItems   jsonText        `json:"codex_message_items"`
	PlatformMessageID   *string         `json:"platform_message_id"`
	Observed            seenInt         `json:"observed"`
	Active              seenInt         `json:"active"`
	Compacted           seenInt         `json:"compacted"`
}

// jsonContent is a message's content: a string as its text, null as NULL,
// any other value as the structured content upstream stores for it. A
// value that cannot be stored is kept in err, which Decode returns once
// the rest is read, so that the error names the message.
type jsonContent struct {
	s   *string
	err error
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *jsonContent) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		c.s, c.err = &s, nil
		return nil
	}
	c.s, c.err = EncodeContent("content", b)
	return nil
}

// seenInt is an INTEGER column whose default is not 0 or that is nullable
// with a default: it tells a key absent (the default) from a key that is
// null.
type seenInt struct {
	seen bool
	n    *jsonInt // nil for null
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *seenInt) UnmarshalJSON(b []byte) error {
	n.seen = true
	if bytes.Equal(b, []byte("null")) {
		n.n = nil
		return nil
	}
	var v jsonInt
	if err := v.UnmarshalJSON(b); err != nil {
		return err
	}
	n.n = &v
	return nil
}

// nullable is a nullable column's value: def when absent, NULL when null.
func (n seenInt) nullable(def int64) sqlnum.Int {
	if !n.seen {
		return sqlnum.IntOf(def)
	}
	return n.n.column()
}

// notNull is a NOT NULL column's value: def when absent or null.
func (n seenInt) notNull(def int64) sqlnum.Int {
	if n.n == nil {
		return sqlnum.IntOf(def)
	}
	return sqlnum.Int(*n.n)
}

// rawText is a raw JSON value as a column's text: NULL when absent.
func rawText(raw json.RawMessage) *string {
	if raw == nil {
		return nil
	}
	return new(string(raw))
}

// jsonText is a JSON text column of an export line (see DecodeJSONText).
type jsonText struct{ s *string }

// UnmarshalJSON implements json.Unmarshaler.
func (t *jsonText) UnmarshalJSON(b []byte) error {
	text, err := DecodeJSONText(b)
	if err != nil {
		return err
	}
	t.s = nil
	if text != nil {
		t.s = new(string(text))
	}
	return nil
}

// DecodeJSONText reads the value of a JSON text column (model_config,
// reasoning_details, the codex columns) as an export line carries it: nil
// for null, the text of a string, and any other JSON value's own text, so
// that a document that embeds the value itself reads the same. It returns
// encoding/json's error for a string it cannot decode.
func DecodeJSONText(b []byte) ([]byte, error) {
	switch {
	case bytes.Equal(b, []byte("null")):
		return nil, nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, err
		}
		return []byte(s), nil
	}
	return bytes.Clone(b), nil
}

// jsonInt is an INTEGER column of an export line: an integer as itself, a
// float or a string kept as stored (see Decode). Like an int64 field, it
// is left as it was by null; a nullable column's is a *jsonInt, which null
// sets to nil.
type jsonInt sqlnum.Int

// counter is a counter's value: an absent or null one is 0.
func (n jsonInt) counter() sqlnum.Int {
	if !n.Valid {
		return sqlnum.IntOf(0)
	}
	return sqlnum.Int(n)
}

// column is a nullable column's value: NULL when absent or null.
func (n *jsonInt) column() sqlnum.Int {
	if n == nil {
		return sqlnum.Int{}
	}
	return sqlnum.Int(*n)
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *jsonInt) UnmarshalJSON(b []byte) error {
	r, err := readNumber(b, reflect.TypeFor[int64]())
	switch {
	case err != nil || !r.Valid: // null leaves it as it was
		return err
	case r.Stored != nil:
		*n = jsonInt{Int64: sqlnum.TextToInt(r.Stored.(string)), Valid: true, Stored: r.Stored}
	default:
		if v, err := strconv.ParseInt(string(b), 10, 64); err == nil {
			*n = jsonInt(sqlnum.IntOf(v))
			return nil
		}
		*n = jsonInt{Int64: sqlnum.FloatToInt(r.Float64), Valid: true, Stored: r.Float64}
	}
	return nil
}

// jsonReal is a REAL column of an export line: a number as itself (1e999
// as +Inf), a string kept as stored (see Decode). null leaves it as it
// was, as jsonInt.
type jsonReal sqlnum.Real

// column is a nullable column's value: NULL when absent or null.
func (r *jsonReal) column() sqlnum.Real {
	if r == nil {
		return sqlnum.Real{}
	}
	return sqlnum.Real(*r)
}

// UnmarshalJSON implements json.Unmarshaler.
func (r *jsonReal) UnmarshalJSON(b []byte) error {
	v, err := readNumber(b, reflect.TypeFor[float64]())
	if err == nil && v.Valid { // null leaves it as it was
		*r = jsonReal(v)
	}
	return err
}

// readNumber reads the JSON value b of a numeric column as a REAL column
// would hold it: NULL for null, a string kept as stored (Float64 its CAST),
// a number as a float64 (±Inf when it is out of range). Any other value is
// an *json.UnmarshalTypeError for want, which encoding/json completes with
// the key's name.
func readNumber(b []byte, want reflect.Type) (sqlnum.Real, error) {
	switch {
	case bytes.Equal(b, []byte("null")):
		return sqlnum.Real{}, nil
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return sqlnum.Real{}, err
		}
		return sqlnum.Real{Float64: sqlnum.TextToReal(s), Valid: true, Stored: s}, nil
	case b[0] == '-' || '0' <= b[0] && b[0] <= '9':
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil && !math.IsInf(f, 0) {
			return sqlnum.Real{}, &json.UnmarshalTypeError{Value: "number " + string(b), Type: want}
		}
		return sqlnum.RealOf(f), nil
	}
	kind := map[byte]string{'t': "bool", 'f': "bool", '[': "array", '{': "object"}[b[0]]
	return sqlnum.Real{}, &json.UnmarshalTypeError{Value: kind, Type: want}
}
