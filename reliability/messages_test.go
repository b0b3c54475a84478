package reliability

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/store"
)

// vocabulary is what message texts are made of and what the workloads
// search for: English words for the unicode61 index, and CJK words of three
// or more characters, which the store routes to the trigram index.
var vocabulary = []string{
	"docker", "kubernetes", "deploy", "rollback", "migration", "database",
	"latency", "checkpoint", "部署服务", "数据库迁移", "検索エンジン", "로그분석",
}

// genMsg is one generated message: what a workload writes and what the
// parent expects to read back. Its content is never empty, so a message is
// identified by it.
type genMsg struct {
	Role    string `json:"r"`
	Content string `json:"c"`
	// Calls is the number of tool calls in an assistant message's
	// tool_calls array (0: no tool_calls).
	Calls int `json:"k,omitempty"`
}

// messageFor returns message j of a conversation whose contents start with
// label: user, then assistant with 1–3 tool calls, then the tool's reply,
// and again. Different labels or j give different contents; the content is
// label followed by what messageFor("", j) holds.
func messageFor(label string, j int) genMsg {
	text := fmt.Sprintf("%s m%d %s %s", label, j, vocabulary[j%len(vocabulary)], vocabulary[(j*7+3)%len(vocabulary)])
	switch j % 3 {
	case 1:
		return genMsg{Role: "assistant", Content: text, Calls: 1 + j/3%3}
	case 2:
		return genMsg{Role: "tool", Content: text}
	}
	return genMsg{Role: "user", Content: text}
}

// conversation returns messages 0…n-1 of the conversation labelled label.
func conversation(label string, n int) []genMsg {
	out := make([]genMsg, n)
	for j := range out {
		out[j] = messageFor(label, j)
	}
	return out
}

// toolCalls returns a tool_calls array of n calls in the OpenAI shape the
// agent stores.
func toolCalls(n int) json.RawMessage {
	calls := make([]string, n)
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"id": "call_%d", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"ls %d\"}"}}`, i, i)
	}
	return json.RawMessage("[" + strings.Join(calls, ", ") + "]")
}

// newMessage returns m as the store's input.
func (m genMsg) newMessage() store.NewMessage {
	content := m.Content
	n := store.NewMessage{Role: m.Role, Content: &content}
	switch {
	case m.Calls > 0:
		n.ToolCalls = toolCalls(m.Calls)
		n.FinishReason = "tool_calls"
	case m.Role == "tool":
		n.ToolName, n.ToolCallID = "terminal", "call_0"
	}
	return n
}

// newMessages returns ms as the store's input.
func newMessages(ms []genMsg) []store.NewMessage {
	out := make([]store.NewMessage, len(ms))
	for i, m := range ms {
		out[i] = m.newMessage()
	}
	return out
}

// fileSession is a session as the tests compare it: what a model of the
// acknowledged writes expects, and what the file holds.
type fileSession struct {
	Ended                       bool
	Title                       string
	InputTokens, OutputTokens   int64
	MessageCount, ToolCallCount int64
	// Contents are the session's messages' contents in id order.
	Contents []string
}

// readSessions returns every session in the database as a fileSession, and the
// id of every message by its content. A content found twice (a message
// written twice) fails the test: every workload writes unique contents.
// The SQL is PostgreSQL's too (postgres_test.go reads through pgx's
// database/sql driver).
func readSessions(t *testing.T, q dbtest.Queryer) (map[string]fileSession, map[string]int64) {
	t.Helper()
	got := map[string]fileSession{}
	for _, r := range dbtest.Rows(t, q, `SELECT id, CASE WHEN ended_at IS NOT NULL THEN 1 ELSE 0 END, COALESCE(title, ''), COALESCE(input_tokens, 0),
		COALESCE(output_tokens, 0), COALESCE(message_count, 0), COALESCE(tool_call_count, 0) FROM sessions`) {
		got[r[0].(string)] = fileSession{Ended: r[1].(int64) == 1, Title: r[2].(string), InputTokens: r[3].(int64),
			OutputTokens: r[4].(int64), MessageCount: r[5].(int64), ToolCallCount: r[6].(int64), Contents: []string{}}
	}
	ids := map[string]int64{}
	for _, r := range dbtest.Rows(t, q, "SELECT id, session_id, COALESCE(content, '<NULL>') FROM messages ORDER BY id") {
		id, session, content := r[0].(int64), r[1].(string), r[2].(string)
		s := got[session]
		s.Contents = append(s.Contents, content)
		got[session] = s
		if first, dup := ids[content]; dup {
			t.Errorf("message %q is in the file twice (ids %d and %d)", content, first, id)
		}
		ids[content] = id
	}
	return got, ids
}
