package transfer

// The members of an export line's session object and message objects: one
// per column, each with how its value is written. The tables list the
// columns in the order of a file upstream Hermes created fresh (Session's
// and Message's field order); Order puts them in the order of the file at
// hand.

// sessionMember is one column of a session object.
type sessionMember struct {
	name  string
	write func(o *object, name string, s *Session)
}

// messageMember is one column of a message object.
type messageMember struct {
	name  string
	write func(o *object, name string, m *Message)
}

var sessionMembers = [...]sessionMember{
	{"id", func(o *object, n string, s *Session) { o.str(n, s.ID) }},
	{"source", func(o *object, n string, s *Session) { o.str(n, s.Source) }},
	{"user_id", func(o *object, n string, s *Session) { o.text(n, s.UserID) }},
	{"session_key", func(o *object, n string, s *Session) { o.text(n, s.SessionKey) }},
	{"chat_id", func(o *object, n string, s *Session) { o.text(n, s.ChatID) }},
	{"chat_type", func(o *object, n string, s *Session) { o.text(n, s.ChatType) }},
	{"thread_id", func(o *object, n string, s *Session) { o.text(n, s.ThreadID) }},
	{"display_name", func(o *object, n string, s *Session) { o.text(n, s.DisplayName) }},
	{"origin_json", func(o *object, n string, s *Session) { o.text(n, s.OriginJSON) }},
	{"expiry_finalized", func(o *object, n string, s *Session) { o.int(n, s.ExpiryFinalized, true) }},
	{"model", func(o *object, n string, s *Session) { o.text(n, s.Model) }},
	{"model_config", func(o *object, n string, s *Session) { o.text(n, s.ModelConfig) }},
	{"system_prompt", func(o *object, n string, s *Session) { o.text(n, s.SystemPrompt) }},
	{"parent_session_id", func(o *object, n string, s *Session) { o.text(n, s.ParentSessionID) }},
	{"started_at", func(o *object, n string, s *Session) { o.time(n, s.StartedAt, false) }},
	{"ended_at", func(o *object, n string, s *Session) { o.time(n, s.EndedAt, true) }},
	{"end_reason", func(o *object, n string, s *Session) { o.text(n, s.EndReason) }},
	{"message_count", func(o *object, n string, s *Session) { o.int(n, s.MessageCount, false) }},
	{"tool_call_count", func(o *object, n string, s *Session) { o.int(n, s.ToolCallCount, false) }},
	{"input_tokens", func(o *object, n string, s *Session) { o.int(n, s.InputTokens, false) }},
	{"output_tokens", func(o *object, n string, s *Session) { o.int(n, s.OutputTokens, false) }},
	{"cache_read_tokens", func(o *object, n string, s *Session) { o.int(n, s.CacheReadTokens, false) }},
	{"cache_write_tokens", func(o *object, n string, s *Session) { o.int(n, s.CacheWriteTokens, false) }},
	{"reasoning_tokens", func(o *object, n string, s *Session) { o.int(n, s.ReasoningTokens, false) }},
	{"cwd", func(o *object, n string, s *Session) { o.text(n, s.Cwd) }},
	{"git_branch", func(o *object, n string, s *Session) { o.text(n, s.GitBranch) }},
	{"git_repo_root", func(o *object, n string, s *Session) { o.text(n, s.GitRepoRoot) }},
	{"billing_provider", func(o *object, n string, s *Session) { o.text(n, s.BillingProvider) }},
	{"billing_base_url", func(o *object, n string, s *Session) { o.text(n, s.BillingBaseURL) }},
	{"billing_mode", func(o *object, n string, s *Session) { o.text(n, s.BillingMode) }},
	{"estimated_cost_usd", func(o *object, n string, s *Session) { o.cost(n, s.EstimatedCostUSD) }},
	{"actual_cost_usd", func(o *object, n string, s *Session) { o.cost(n, s.ActualCostUSD) }},
	{"cost_status", func(o *object, n string, s *Session) { o.text(n, s.CostStatus) }},
	{"cost_source", func(o *object, n string, s *Session) { o.text(n, s.CostSource) }},
	{"pricing_version", func(o *object, n string, s *Session) { o.text(n, s.PricingVersion) }},
	{"title", func(o *object, n string, s *Session) { o.text(n, s.Title) }},
	{"api_call_count", func(o *object, n string, s *Session) { o.int(n, s.APICallCount, false) }},
	{"handoff_state", func(o *object, n string, s *Session) { o.text(n, s.HandoffState) }},
	{"handoff_platform", func(o *object, n string, s *Session) { o.text(n, s.HandoffPlatform) }},
	{"handoff_error", func(o *object, n string, s *Session) { o.text(n, s.HandoffError) }},
	{"compression_failure_cooldown_until", func(o *object, n string, s *Session) { o.time(n, s.CompressionFailureCooldownUntil, true) }},
	{"compression_failure_error", func(o *object, n string, s *Session) { o.text(n, s.CompressionFailureError) }},
	{"compression_fallback_streak", func(o *object, n string, s *Session) { o.int(n, s.CompressionFallbackStreak, false) }},
	{"rewind_count", func(o *object, n string, s *Session) { o.int(n, s.RewindCount, false) }},
	{"archived", func(o *object, n string, s *Session) { o.int(n, s.Archived, false) }},
}

var messageMembers = [...]messageMember{
	{"id", func(o *object, n string, m *Message) { o.key(n); o.b = appendInt64(o.b, m.ID) }},
	{"session_id", func(o *object, n string, m *Message) { o.str(n, m.SessionID) }},
	{"role", func(o *object, n string, m *Message) { o.str(n, m.Role) }},
	{"content", func(o *object, n string, m *Message) { o.key(n); o.b = appendContent(o.b, m.Content, o.scratch) }},
	{"tool_call_id", func(o *object, n string, m *Message) { o.text(n, m.ToolCallID) }},
	{"tool_calls", func(o *object, n string, m *Message) { o.key(n); o.b = appendToolCalls(o.b, m.ToolCalls, o.scratch) }},
	{"tool_name", func(o *object, n string, m *Message) { o.text(n, m.ToolName) }},
	{"effect_disposition", func(o *object, n string, m *Message) { o.text(n, m.EffectDisposition) }},
	{"timestamp", func(o *object, n string, m *Message) { o.time(n, m.Timestamp, false) }},
	{"token_count", func(o *object, n string, m *Message) { o.int(n, m.TokenCount, true) }},
	{"finish_reason", func(o *object, n string, m *Message) { o.text(n, m.FinishReason) }},
	{"reasoning", func(o *object, n string, m *Message) { o.text(n, m.Reasoning) }},
	{"reasoning_content", func(o *object, n string, m *Message) { o.text(n, m.ReasoningContent) }},
	{"reasoning_details", func(o *object, n string, m *Message) { o.text(n, m.ReasoningDetails) }},
	{"codex_reasoning_items", func(o *object, n string, m *Message) { o.text(n, m.CodexReasoningItems) }},
	{"codex_message_items", func(o *object, n string, m *Message) { o.text(n, m.CodexMessageItems) }},
	{"platform_message_id", func(o *object, n string, m *Message) { o.text(n, m.PlatformMessageID) }},
	{"observed", func(o *object, n string, m *Message) { o.int(n, m.Observed, true) }},
	{"active", func(o *object, n string, m *Message) { o.int(n, m.Active, false) }},
	{"compacted", func(o *object, n string, m *Message) { o.int(n, m.Compacted, false) }},
}

// SessionColumns returns the sessions table's 45 columns in the order of a
// file upstream created fresh: Session's fields, and the order a zero
// Order writes.
func SessionColumns() []string {
	out := make([]string, len(sessionMembers))
	for i, m := range sessionMembers {
		out[i] = m.name
	}
	return out
}

// MessageColumns returns the messages table's 20 columns in the order of a
// file upstream created fresh (see SessionColumns).
func MessageColumns() []string {
	out := make([]string, len(messageMembers))
	for i, m := range messageMembers {
		out[i] = m.name
	}
	return out
}

// Order is the order an export line writes the columns in: that of the
// tables of the file exported. Upstream's export is its rows' dict(row),
// whose keys follow the file's physical column order, and that order
// differs between a file created fresh and one migrated from an older
// schema (ALTER TABLE appends the new columns at the end). The zero Order
// is a fresh file's.
type Order struct {
	sessions []int // indexes into sessionMembers; nil: declaration order
	messages []int // indexes into messageMembers
}

// NewOrder returns the Order of a file whose sessions and messages tables
// have the columns named, in that order (PRAGMA table_info). Names of
// columns the line does not carry are ignored; a column the line carries
// but the file lacks is written after the others, in declaration order,
// so a line always carries every column.
func NewOrder(sessionColumns, messageColumns []string) Order {
	names := func(n int, name func(int) string, cols []string) []int {
		index := make(map[string]int, n)
		for i := range n {
			index[name(i)] = i
		}
		var out []int
		seen := make([]bool, n)
		for _, c := range cols {
			if i, ok := index[c]; ok && !seen[i] {
				seen[i] = true
				out = append(out, i)
			}
		}
		for i := range n {
			if !seen[i] {
				out = append(out, i)
			}
		}
		return out
	}
	return Order{
		sessions: names(len(sessionMembers), func(i int) string { return sessionMembers[i].name }, sessionColumns),
		messages: names(len(messageMembers), func(i int) string { return messageMembers[i].name }, messageColumns),
	}
}

// Sessions returns the session columns in the order o writes them.
func (o Order) Sessions() []string {
	out := SessionColumns()
	if o.sessions == nil {
		return out
	}
	for i, m := range o.sessions {
		out[i] = sessionMembers[m].name
	}
	return out
}

// Messages returns the message columns in the order o writes them.
func (o Order) Messages() []string {
	out := MessageColumns()
	if o.messages == nil {
		return out
	}
	for i, m := range o.messages {
		out[i] = messageMembers[m].name
	}
	return out
}

// eachSession calls fn with the session members in o's order.
func (o Order) eachSession(fn func(sessionMember)) {
	if o.sessions == nil {
		for _, m := range sessionMembers {
			fn(m)
		}
		return
	}
	for _, i := range o.sessions {
		fn(sessionMembers[i])
	}
}

// eachMessage calls fn with the message members in o's order.
func (o Order) eachMessage(fn func(messageMember)) {
	if o.messages == nil {
		for _, m := range messageMembers {
			fn(m)
		}
		return
	}
	for _, i := range o.messages {
		fn(messageMembers[i])
	}
}
