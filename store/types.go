package store

import (
	"encoding/json"
	"errors"
	"math"
	"time"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/transfer"
)

// Timestamp is a point in time as the state database stores it: seconds
// since the Unix epoch as a REAL, with the sub-microsecond fraction Python's
// time.time() gives. The store never rounds it, so a value read back equals
// the value written.
type Timestamp float64

// TimestampOf converts t to a Timestamp.
func TimestampOf(t time.Time) Timestamp {
	return Timestamp(float64(t.UnixNano()) / 1e9)
}

// MarshalJSON writes ts as Python's json.dumps writes the float
// (1750000000.0, not 1750000000, which Python would read as an int), and
// an infinite timestamp as ±1e999, which Python reads back as inf. NaN is
// an error, as for any float.
func (ts Timestamp) MarshalJSON() (_ []byte, err error) {
	defer wrap(&err, "marshal timestamp")
	if math.IsNaN(float64(ts)) {
		return nil, errNaN
	}
	return transfer.AppendFloat(nil, float64(ts))
}

// errNaN is a NaN Timestamp's MarshalJSON error.
var errNaN = errors.New("NaN has no JSON form")

// Time converts ts to a time.Time in the local zone.
func (ts Timestamp) Time() time.Time {
	sec, frac := math.Modf(float64(ts))
	return time.Unix(int64(sec), int64(math.Round(frac*1e9)))
}

// Session is one row of the sessions table: the 45 columns of schema v21,
// in the order of a file upstream Hermes created (its dict(row), so JSON
// keys come out in the order of its own exports of such a file). NULL text
// columns are nil pointers; NULL counters (possible in rows an old Hermes
// wrote) read as 0. A numeric column holding a value of another storage
// class reads as SQLite's CAST to the column's type gives it (see Stored).
type Session struct {
	ID     string  `json:"id"`
	Source string  `json:"source"`
	UserID *string `json:"user_id"`
	// SessionKey, ChatID, ChatType and ThreadID are the gateway's routing
	// key and peer (v17); DisplayName, OriginJSON and ExpiryFinalized its
	// presentation metadata (v18). OriginJSON is JSON text as stored.
	SessionKey      *string  `json:"session_key"`
	ChatID          *string  `json:"chat_id"`
	ChatType        *string  `json:"chat_type"`
	ThreadID        *string  `json:"thread_id"`
	DisplayName     *string  `json:"display_name"`
	OriginJSON      JSONText `json:"origin_json"`
	ExpiryFinalized *int64   `json:"expiry_finalized"`

	Model           *string    `json:"model"`
	ModelConfig     JSONText   `json:"model_config"` // JSON text as stored; nil when NULL
	SystemPrompt    *string    `json:"system_prompt"`
	ParentSessionID *string    `json:"parent_session_id"`
	StartedAt       Timestamp  `json:"started_at"`
	EndedAt         *Timestamp `json:"ended_at"`
	EndReason       *string    `json:"end_reason"`
	MessageCount    int64      `json:"message_count"`
	ToolCallCount   int64      `json:"tool_call_count"`
	InputTokens     int64      `json:"input_tokens"`
	OutputTokens    int64      `json:"output_tokens"`

	CacheReadTokens  int64 `json:"cache_read_tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens"`
	ReasoningTokens  int64 `json:"reasoning_tokens"`
	// Cwd, GitBranch and GitRepoRoot are the frontend's workspace.
	Cwd              *string  `json:"cwd"`
	GitBranch        *string  `json:"git_branch"`
	GitRepoRoot      *string  `json:"git_repo_root"`
	BillingProvider  *string  `json:"billing_provider"`
	BillingBaseURL   *string  `json:"billing_base_url"`
	BillingMode      *string  `json:"billing_mode"`
	EstimatedCostUSD *float64 `json:"estimated_cost_usd"`
	ActualCostUSD    *float64 `json:"actual_cost_usd"`
	CostStatus       *string  `json:"cost_status"`
	CostSource       *string  `json:"cost_source"`
	PricingVersion   *string  `json:"pricing_version"`
	Title            *string  `json:"title"`
	APICallCount     int64    `json:"api_call_count"`

	// HandoffState (pending, running, completed, failed), HandoffPlatform
	// and HandoffError are the /handoff state machine.
	HandoffState    *string `json:"handoff_state"`
	HandoffPlatform *string `json:"handoff_platform"`
	HandoffError    *string `json:"handoff_error"`
	// CompressionFailureCooldownUntil (epoch seconds) and
	// CompressionFailureError record the last failed compression;
	// CompressionFallbackStreak counts fallbacks in a row.
	CompressionFailureCooldownUntil *Timestamp `json:"compression_failure_cooldown_until"`
	CompressionFailureError         *string    `json:"compression_failure_error"`
	CompressionFallbackStreak       int64      `json:"compression_fallback_streak"`
	// RewindCount counts RewindToMessage calls; Archived is 1 for an
	// archived session (its whole compression lineage is archived at once).
	RewindCount int64 `json:"rewind_count"`
	Archived    int64 `json:"archived"`

	// Stored is nil unless a numeric column of the row holds what its Go
	// field cannot carry as stored: a REAL, TEXT or BLOB in an INTEGER
	// column, TEXT or a BLOB in a REAL one, or an infinite REAL. It maps
	// the column's JSON key to the value as stored (float64, string or
	// []byte); the field holds CAST(value AS INTEGER) or CAST(value AS
	// REAL), an infinity the largest float64 of its sign. Exports write
	// the stored value, as the original's export does; an import writes
	// it back.
	Stored map[string]any `json:"-"`
}

// sessionFromDB converts a generated row.
func sessionFromDB(r db.Session) Session {
	var st storedValues
	sess := Session{
		ID:                              r.ID,
		Source:                          r.Source,
		UserID:                          r.UserID,
		SessionKey:                      r.SessionKey,
		ChatID:                          r.ChatID,
		ChatType:                        r.ChatType,
		ThreadID:                        r.ThreadID,
		DisplayName:                     r.DisplayName,
		OriginJSON:                      rawJSON(r.OriginJSON),
		ExpiryFinalized:                 st.optionalInt("expiry_finalized", r.ExpiryFinalized),
		Model:                           r.Model,
		ModelConfig:                     rawJSON(r.ModelConfig),
		SystemPrompt:                    r.SystemPrompt,
		ParentSessionID:                 r.ParentSessionID,
		StartedAt:                       Timestamp(st.real("started_at", r.StartedAt)),
		EndedAt:                         (*Timestamp)(st.optionalReal("ended_at", r.EndedAt)),
		EndReason:                       r.EndReason,
		MessageCount:                    st.count("message_count", r.MessageCount),
		ToolCallCount:                   st.count("tool_call_count", r.ToolCallCount),
		InputTokens:                     st.count("input_tokens", r.InputTokens),
		OutputTokens:                    st.count("output_tokens", r.OutputTokens),
		CacheReadTokens:                 st.count("cache_read_tokens", r.CacheReadTokens),
		CacheWriteTokens:                st.count("cache_write_tokens", r.CacheWriteTokens),
		ReasoningTokens:                 st.count("reasoning_tokens", r.ReasoningTokens),
		Cwd:                             r.Cwd,
		GitBranch:                       r.GitBranch,
		GitRepoRoot:                     r.GitRepoRoot,
		BillingProvider:                 r.BillingProvider,
		BillingBaseURL:                  r.BillingBaseURL,
		BillingMode:                     r.BillingMode,
		EstimatedCostUSD:                st.optionalReal("estimated_cost_usd", r.EstimatedCostUSD),
		ActualCostUSD:                   st.optionalReal("actual_cost_usd", r.ActualCostUSD),
		CostStatus:                      r.CostStatus,
		CostSource:                      r.CostSource,
		PricingVersion:                  r.PricingVersion,
		Title:                           r.Title,
		APICallCount:                    st.count("api_call_count", r.APICallCount),
		HandoffState:                    r.HandoffState,
		HandoffPlatform:                 r.HandoffPlatform,
		HandoffError:                    r.HandoffError,
		CompressionFailureCooldownUntil: (*Timestamp)(st.optionalReal("compression_failure_cooldown_until", r.CompressionFailureCooldownUntil)),
		CompressionFailureError:         r.CompressionFailureError,
		CompressionFallbackStreak:       st.count("compression_fallback_streak", r.CompressionFallbackStreak),
		RewindCount:                     st.count("rewind_count", r.RewindCount),
		Archived:                        st.count("archived", r.Archived),
	}
	sess.Stored = st
	return sess
}

// Message is one row of the messages table, as GetMessages returns it
// (get_messages upstream), its fields in the column order of a file
// upstream created. Its JSON form (MarshalJSON) is upstream's get_messages
// row: every column, structured content decoded.
type Message struct {
	ID        int64  `json:"id"`
	SessionID string `json:"session_id"`
	Role      string `json:"role"`
	// Content is the message's text (nil when NULL, or when the message
	// holds structured content).
	Content *string `json:"content"`
	// ContentJSON is the message's structured content (a multimodal list
	// of parts, a dict): what upstream stores as "\x00json:" and the JSON
	// text, decoded as upstream decodes it on every read. Stored text that
	// starts with the prefix but does not decode stays in Content, as
	// upstream returns it; a prefixed JSON string reads as Content.
	ContentJSON json.RawMessage `json:"-"`
	ToolCallID  *string         `json:"tool_call_id"`
	// ToolCalls is the stored JSON, or [] when the stored text does not
	// decode (the original's fallback); nil when NULL.
	ToolCalls json.RawMessage `json:"tool_calls"`
	ToolName  *string         `json:"tool_name"`
	// EffectDisposition is what a tool call's side effect came to, as the
	// agent recorded it.
	EffectDisposition *string   `json:"effect_disposition"`
	Timestamp         Timestamp `json:"timestamp"`
	TokenCount        *int64    `json:"token_count"`
	FinishReason      *string   `json:"finish_reason"`
	Reasoning         *string   `json:"reasoning"`
	// ReasoningContent is the provider-native scratchpad; "" is kept.
	ReasoningContent *string `json:"reasoning_content"`
	// ReasoningDetails, CodexReasoningItems and CodexMessageItems are the
	// stored JSON text, unchanged (nil when NULL); get_messages leaves them
	// undecoded too.
	ReasoningDetails    JSONText `json:"reasoning_details"`
	CodexReasoningItems JSONText `json:"codex_reasoning_items"`
	CodexMessageItems   JSONText `json:"codex_message_items"`
	// PlatformMessageID is the platform's own id of the message (v12).
	PlatformMessageID *string `json:"platform_message_id"`
	// Observed is 1 for group-chat context the agent saw but was not
	// addressed with (v13; nullable). Active is 0 for a row taken back by a
	// rewind or summarised away by a compaction; Compacted is 1 for the
	// latter.
	Observed  *int64 `json:"observed"`
	Active    int64  `json:"active"`
	Compacted int64  `json:"compacted"`

	// Stored is Session.Stored for the message's numeric columns.
	Stored map[string]any `json:"-"`
}

// messageFromDB converts a generated row.
func messageFromDB(r db.Message) Message {
	var st storedValues
	m := Message{
		ID:                  r.ID,
		SessionID:           r.SessionID,
		Role:                r.Role,
		ToolCallID:          r.ToolCallID,
		ToolName:            r.ToolName,
		EffectDisposition:   r.EffectDisposition,
		Timestamp:           Timestamp(st.real("timestamp", r.Timestamp)),
		TokenCount:          st.optionalInt("token_count", r.TokenCount),
		ToolCalls:           toolCallsJSON(r.ToolCalls),
		FinishReason:        r.FinishReason,
		Reasoning:           r.Reasoning,
		ReasoningContent:    r.ReasoningContent,
		ReasoningDetails:    rawJSON(r.ReasoningDetails),
		CodexReasoningItems: rawJSON(r.CodexReasoningItems),
		CodexMessageItems:   rawJSON(r.CodexMessageItems),
		PlatformMessageID:   r.PlatformMessageID,
		Observed:            st.optionalInt("observed", r.Observed),
		Active:              st.count("active", r.Active),
		Compacted:           st.count("compacted", r.Compacted),
	}
	m.Content, m.ContentJSON = decodeContent(r.Content)
	m.Stored = st
	return m
}

// deref returns *p, or the zero value for nil.
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// nullable returns nil for the zero value, else a pointer to v: the store's
// "empty means NULL" rule for optional text arguments.
func nullable[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}
