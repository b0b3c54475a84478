package transfer

import "github.com/hermesstate/hermesstate/internal/sqlnum"

// Session is one sessions row: its 45 columns in the table's order, as the
// generated db.Session (and db.SessionImportParams) holds them.
type Session struct {
	ID                              string
	Source                          string
	UserID                          *string
	SessionKey                      *string
	ChatID                          *string
	ChatType                        *string
	ThreadID                        *string
	DisplayName                     *string
	OriginJSON                      *string
	ExpiryFinalized                 sqlnum.Int
	Model                           *string
	ModelConfig                     *string
	SystemPrompt                    *string
	ParentSessionID                 *string
	StartedAt                       sqlnum.Real
	EndedAt                         sqlnum.Real
	EndReason                       *string
	MessageCount                    sqlnum.Int
	ToolCallCount                   sqlnum.Int
	InputTokens                     sqlnum.Int
	OutputTokens                    sqlnum.Int
	CacheReadTokens                 sqlnum.Int
	CacheWriteTokens                sqlnum.Int
	ReasoningTokens                 sqlnum.Int
	Cwd                             *string
	GitBranch                       *string
	GitRepoRoot                     *string
	BillingProvider                 *string
	BillingBaseURL                  *string
	BillingMode                     *string
	EstimatedCostUSD                sqlnum.Real
	ActualCostUSD                   sqlnum.Real
	CostStatus                      *string
	CostSource                      *string
	PricingVersion                  *string
	Title                           *string
	APICallCount                    sqlnum.Int
	HandoffState                    *string
	HandoffPlatform                 *string
	HandoffError                    *string
	CompressionFailureCooldownUntil sqlnum.Real
	CompressionFailureError         *string
	CompressionFallbackStreak       sqlnum.Int
	RewindCount                     sqlnum.Int
	Archived                        sqlnum.Int
}

// Message is one messages row: its 20 columns in the table's order, as the
// generated db.Message (and db.MessageImportParams) holds them. An ID of 0
// is no id: the import lets the database number the row.
type Message struct {
	ID                  int64
	SessionID           string
	Role                string
	Content             *string
	ToolCallID          *string
	ToolCalls           *string
	ToolName            *string
	EffectDisposition   *string
	Timestamp           sqlnum.Real
	TokenCount          sqlnum.Int
	FinishReason        *string
	Reasoning           *string
	ReasoningContent    *string
	ReasoningDetails    *string
	CodexReasoningItems *string
	CodexMessageItems   *string
	PlatformMessageID   *string
	Observed            sqlnum.Int
	Active              sqlnum.Int
	Compacted           sqlnum.Int
}

// Entry is one export line: a session, its last activity and its messages.
type Entry struct {
	Session Session
	// LastActive is the newest message's timestamp, else the session's
	// start, as the original's export_all carries it. The line leaves it
	// out when it is NULL or zero (an export_session entry has none).
	LastActive sqlnum.Real
	Messages   []Message
}
