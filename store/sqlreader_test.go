package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPlainSQLReader writes through the API and reads every column back
// with a plain database/sql connection, as another program (or the Python
// original) would: values and SQLite storage classes must be those of
// spec §6–§8. The scenario was run against hermes_state.py at the reference
// commit with time.time() patched to the same clock; every expected value
// below is what it wrote.

// manualClock is an Options.Now whose time the test sets.
type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *manualClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *manualClock) set(sec, nsec int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = time.Unix(sec, nsec)
}

// sqlCell is one column as SQLite holds it: typeof() and the value.
type sqlCell struct {
	Type string
	Val  any
}

var sqlNull = sqlCell{"null", nil}

func sqlText(s string) sqlCell  { return sqlCell{"text", s} }
func sqlInt(n int64) sqlCell    { return sqlCell{"integer", n} }
func sqlReal(f float64) sqlCell { return sqlCell{"real", f} }

// readTable returns every row of table, keyed by key's value, as column →
// cell, read through q with no help from the store.
func readTable(t *testing.T, q *sql.DB, table, key string) map[string]map[string]sqlCell {
	t.Helper()
	cols := columns(t, q, table)
	types := make([]string, len(cols))
	for i, c := range cols {
		types[i] = "typeof(" + c + ")"
	}
	query := "SELECT " + strings.Join(cols, ", ") + ", " + strings.Join(types, ", ") + " FROM " + table
	rows, err := q.Query(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	out := map[string]map[string]sqlCell{}
	for rows.Next() {
		vals := make([]any, 2*len(cols))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := map[string]sqlCell{}
		var id string
		for i, c := range cols {
			v := vals[i]
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			row[c] = sqlCell{Type: vals[len(cols)+i].(string), Val: v}
			if c == key {
				id = fmt.Sprint(v)
			}
		}
		out[id] = row
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPlainSQLReader(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := &manualClock{}
	clk.set(1767225600, 123456000)
	s, path := openStore(t, &Options{Now: clk.now})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	create := func(n NewSession) {
		t.Helper()
		_, err := s.CreateSession(ctx, n)
		must(err)
	}
	appendMsg := func(id string, m NewMessage) {
		t.Helper()
		_, err := s.AppendMessage(ctx, id, m)
		must(err)
	}
	tc2 := json.RawMessage(`[{"id":"call_1","type":"function","function":{"name":"web_search","arguments":"{\"q\": \"go\"}"}},{"id":"call_2","type":"function","function":{"name":"read_file","arguments":"{}"}}]`)
	const tc2Py = `[{"id": "call_1", "type": "function", "function": {"name": "web_search", "arguments": "{\"q\": \"go\"}"}}, {"id": "call_2", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]`

	// Sessions (§6.1): every field, a child, and a bare one whose empty
	// model config is stored as NULL.
	create(NewSession{ID: "full", Source: "telegram", Model: "anthropic/claude-sonnet-4.6",
		ModelConfig: json.RawMessage(`{"temperature":0.5,"max_tokens":4096}`), SystemPrompt: "You are Hermes.", UserID: "u-42"})
	clk.set(1767225601, 500000000)
	create(NewSession{ID: "child", Source: "cli", ParentSessionID: "full"})
	create(NewSession{ID: "bare", Source: "cli", ModelConfig: json.RawMessage(`{}`)})

	// Token counts (§6.5).
	must(s.UpdateTokenCounts(ctx, "full", TokenUpdate{InputTokens: 100, OutputTokens: 50, CacheReadTokens: 10,
		CacheWriteTokens: 5, ReasoningTokens: 7, APICallCount: 1, Model: "other-model", BillingProvider: "openrouter",
		BillingBaseURL: "https://openrouter.ai/api/v1", BillingMode: "api", CostStatus: "estimated",
		CostSource: "pricing_table", PricingVersion: "v1"}))
	must(s.UpdateTokenCounts(ctx, "full", TokenUpdate{InputTokens: 20, OutputTokens: 5, EstimatedCostUSD: new(0.25),
		ActualCostUSD: new(0.5), BillingProvider: "anthropic", BillingMode: "sub", CostStatus: "final", APICallCount: 2}))
	must(s.UpdateTokenCounts(ctx, "bare", TokenUpdate{InputTokens: 3, Model: "gpt-5"}))
	must(s.UpdateTokenCounts(ctx, "bare", TokenUpdate{Model: "gpt-4"}))
	must(s.UpdateTokenCounts(ctx, "child", TokenUpdate{InputTokens: 5, CacheReadTokens: 3, APICallCount: 9}))
	must(s.UpdateTokenCounts(ctx, "child", TokenUpdate{InputTokens: 1000, OutputTokens: 200, ActualCostUSD: new(1.5), APICallCount: 4, Absolute: true}))
	must(s.UpdateTokenCounts(ctx, "child", TokenUpdate{InputTokens: 1500, Absolute: true}))

	// Titles (§7.2).
	must(s.SetSessionTitle(ctx, "full", "  My  Project "))
	must(s.SetSessionTitle(ctx, "child", "My Project #2"))

	// Messages (§8.1).
	clk.set(1767225602, 500000000)
	appendMsg("full", NewMessage{Role: "system", Content: new("You are Hermes.")})
	clk.set(1767225603, 0)
	appendMsg("full", NewMessage{Role: "user", Content: new("hello 通信 🚀")})
	clk.set(1767225604, 62500000)
	appendMsg("full", NewMessage{Role: "assistant", ToolCalls: tc2, TokenCount: new(int64(42)), FinishReason: "tool_calls",
		Reasoning: new("think"), ReasoningContent: new(""),
		ReasoningDetails:    json.RawMessage(`[{"type":"summary","text":"s"}]`),
		CodexReasoningItems: json.RawMessage(`[{"id":"r1","type":"reasoning"}]`),
		CodexMessageItems:   json.RawMessage(`[{"type":"message","id":"m1"}]`)})
	clk.set(1767225605, 0)
	appendMsg("full", NewMessage{Role: "tool", Content: new("result 1"), ToolCallID: "call_1", ToolName: "web_search"})
	appendMsg("full", NewMessage{Role: "tool", Content: new("result 2"), ToolCallID: "call_2", ToolName: "read_file"})
	clk.set(1767225606, 500000000)
	appendMsg("full", NewMessage{Role: "assistant", Content: new("done"), FinishReason: "stop",
		ToolCalls: json.RawMessage(`{"id":"call_3","function":{"name":"f","arguments":"{}"}}`)})
	appendMsg("full", NewMessage{Role: "assistant", Content: new("empty calls"), ToolCalls: json.RawMessage(`[]`)})

	// Ends (§6.2, §6.3): the first end wins; reopening clears it.
	clk.set(1767225700, 500000000)
	must(s.EndSession(ctx, "full", "user_exit"))
	clk.set(1767225800, 0)
	must(s.EndSession(ctx, "full", "compression"))
	must(s.EndSession(ctx, "child", "compression"))
	must(s.ReopenSession(ctx, "child"))
	clk.set(1767225900, 125000000)
	must(s.EndSession(ctx, "child", "branched"))

	// replace_messages (§8.2): reasoning fields only on assistant
	// messages; timestamps now, now+1e-6, … added one at a time.
	clk.set(1767226000, 123456000)
	appendMsg("child", NewMessage{Role: "user", Content: new("old")})
	must(s.ReplaceMessages(ctx, "child", []NewMessage{
		{Role: "user", Content: new("q1")},
		{Role: "assistant", Content: new("a1"), ToolCalls: tc2, Reasoning: new("r"), ReasoningContent: new("rc"),
			ReasoningDetails: json.RawMessage(`[{"type":"summary","text":"x"}]`), CodexReasoningItems: json.RawMessage(`[{"id":"r2"}]`),
			CodexMessageItems: json.RawMessage(`[{"id":"m2"}]`), FinishReason: "tool_calls", TokenCount: new(int64(7))},
		{Role: "tool", Content: new("t1"), ToolCallID: "call_1", ToolName: "web_search", Reasoning: new("dropped"),
			ReasoningDetails: json.RawMessage(`[{"x":1}]`)},
		{Role: "user", Content: new("q2"), Reasoning: new("dropped too")},
		{Role: "assistant", Content: new("a2"), ToolCalls: json.RawMessage(`{"id":"call_9"}`)},
	}))

	q := rawDB(t, path)

	session := func(id, source string, started float64, over map[string]sqlCell) map[string]sqlCell {
		row := map[string]sqlCell{
			"id": sqlText(id), "source": sqlText(source), "user_id": sqlNull, "model": sqlNull,
			"model_config": sqlNull, "system_prompt": sqlNull, "parent_session_id": sqlNull,
			"started_at": sqlReal(started), "ended_at": sqlNull, "end_reason": sqlNull,
			"message_count": sqlInt(0), "tool_call_count": sqlInt(0), "input_tokens": sqlInt(0),
			"output_tokens": sqlInt(0), "cache_read_tokens": sqlInt(0), "cache_write_tokens": sqlInt(0),
			"reasoning_tokens": sqlInt(0), "billing_provider": sqlNull, "billing_base_url": sqlNull,
			"billing_mode": sqlNull, "estimated_cost_usd": sqlNull, "actual_cost_usd": sqlNull,
			"cost_status": sqlNull, "cost_source": sqlNull, "pricing_version": sqlNull, "title": sqlNull,
			"api_call_count": sqlInt(0),
			// v12-v21 columns, as a fresh v21 file holds them.
			"session_key": sqlNull, "chat_id": sqlNull, "chat_type": sqlNull, "thread_id": sqlNull,
			"display_name": sqlNull, "origin_json": sqlNull, "expiry_finalized": sqlInt(0),
			"cwd": sqlNull, "git_branch": sqlNull, "git_repo_root": sqlNull,
			"handoff_state": sqlNull, "handoff_platform": sqlNull, "handoff_error": sqlNull,
			"compression_failure_cooldown_until": sqlNull, "compression_failure_error": sqlNull,
			"compression_fallback_streak": sqlInt(0), "rewind_count": sqlInt(0), "archived": sqlInt(0),
		}
		for k, v := range over {
			if _, ok := row[k]; !ok {
				t.Fatalf("unknown sessions column %q", k)
			}
			row[k] = v
		}
		return row
	}
	wantSessions := map[string]map[string]sqlCell{
		"full": session("full", "telegram", 1767225600.123456, map[string]sqlCell{
			// v21's first accounted route: the first counted call's model
			// and route replace the requested ones (c2a3b9ce5 gives the
			// same row for these calls).
			"user_id": sqlText("u-42"), "model": sqlText("other-model"),
			"model_config": sqlText(`{"temperature": 0.5, "max_tokens": 4096}`), "system_prompt": sqlText("You are Hermes."),
			"ended_at": sqlReal(1767225700.5), "end_reason": sqlText("user_exit"),
			"message_count": sqlInt(7), "tool_call_count": sqlInt(3), "input_tokens": sqlInt(120), "output_tokens": sqlInt(55),
			"cache_read_tokens": sqlInt(10), "cache_write_tokens": sqlInt(5), "reasoning_tokens": sqlInt(7),
			"billing_provider": sqlText("openrouter"), "billing_base_url": sqlText("https://openrouter.ai/api/v1"),
			"billing_mode": sqlText("api"), "estimated_cost_usd": sqlReal(0.25), "actual_cost_usd": sqlReal(0.5),
			"cost_status": sqlText("final"), "cost_source": sqlText("pricing_table"), "pricing_version": sqlText("v1"),
			"title": sqlText("My Project"), "api_call_count": sqlInt(3),
		}),
		"child": session("child", "cli", 1767225601.5, map[string]sqlCell{
			"parent_session_id": sqlText("full"), "ended_at": sqlReal(1767225900.125), "end_reason": sqlText("branched"),
			"message_count": sqlInt(5), "tool_call_count": sqlInt(3), "input_tokens": sqlInt(1500),
			"estimated_cost_usd": sqlReal(0), "actual_cost_usd": sqlReal(1.5), "title": sqlText("My Project #2"),
		}),
		"bare": session("bare", "cli", 1767225601.5, map[string]sqlCell{
			"model": sqlText("gpt-5"), "input_tokens": sqlInt(3), "estimated_cost_usd": sqlReal(0),
		}),
	}
	if diff := cmp.Diff(wantSessions, readTable(t, q, "sessions", "id")); diff != "" {
		t.Errorf("sessions table (-want +got):\n%s", diff)
	}

	message := func(id int64, session, role string, content sqlCell, ts float64, over map[string]sqlCell) map[string]sqlCell {
		row := map[string]sqlCell{
			"id": sqlInt(id), "session_id": sqlText(session), "role": sqlText(role), "content": content,
			"tool_call_id": sqlNull, "tool_calls": sqlNull, "tool_name": sqlNull, "timestamp": sqlReal(ts),
			"token_count": sqlNull, "finish_reason": sqlNull, "reasoning": sqlNull, "reasoning_content": sqlNull,
			"reasoning_details": sqlNull, "codex_reasoning_items": sqlNull, "codex_message_items": sqlNull,
			// The v21 columns: active and observed written explicitly, as
			// upstream c2a3b9ce5's INSERT does.
			"effect_disposition": sqlNull, "platform_message_id": sqlNull, "observed": sqlInt(0),
			"active": sqlInt(1), "compacted": sqlInt(0),
		}
		for k, v := range over {
			if _, ok := row[k]; !ok {
				t.Fatalf("unknown messages column %q", k)
			}
			row[k] = v
		}
		return row
	}
	wantMessages := map[string]map[string]sqlCell{
		"1": message(1, "full", "system", sqlText("You are Hermes."), 1767225602.5, nil),
		"2": message(2, "full", "user", sqlText("hello 通信 🚀"), 1767225603.0, nil),
		"3": message(3, "full", "assistant", sqlNull, 1767225604.0625, map[string]sqlCell{
			"tool_calls": sqlText(tc2Py), "token_count": sqlInt(42), "finish_reason": sqlText("tool_calls"),
			"reasoning": sqlText("think"), "reasoning_content": sqlText(""),
			"reasoning_details":     sqlText(`[{"type": "summary", "text": "s"}]`),
			"codex_reasoning_items": sqlText(`[{"id": "r1", "type": "reasoning"}]`),
			"codex_message_items":   sqlText(`[{"type": "message", "id": "m1"}]`),
		}),
		"4": message(4, "full", "tool", sqlText("result 1"), 1767225605.0, map[string]sqlCell{
			"tool_call_id": sqlText("call_1"), "tool_name": sqlText("web_search"),
		}),
		"5": message(5, "full", "tool", sqlText("result 2"), 1767225605.0, map[string]sqlCell{
			"tool_call_id": sqlText("call_2"), "tool_name": sqlText("read_file"),
		}),
		"6": message(6, "full", "assistant", sqlText("done"), 1767225606.5, map[string]sqlCell{
			"tool_calls":    sqlText(`{"id": "call_3", "function": {"name": "f", "arguments": "{}"}}`),
			"finish_reason": sqlText("stop"),
		}),
		"7": message(7, "full", "assistant", sqlText("empty calls"), 1767225606.5, nil),
		// Message 8 ("old") was replaced; AUTOINCREMENT does not reuse it.
		"9": message(9, "child", "user", sqlText("q1"), 1767226000.123456, nil),
		"10": message(10, "child", "assistant", sqlText("a1"), 1767226000.123457, map[string]sqlCell{
			"tool_calls": sqlText(tc2Py), "token_count": sqlInt(7), "finish_reason": sqlText("tool_calls"),
			"reasoning": sqlText("r"), "reasoning_content": sqlText("rc"),
			"reasoning_details":     sqlText(`[{"type": "summary", "text": "x"}]`),
			"codex_reasoning_items": sqlText(`[{"id": "r2"}]`),
			"codex_message_items":   sqlText(`[{"id": "m2"}]`),
		}),
		"11": message(11, "child", "tool", sqlText("t1"), 1767226000.123458, map[string]sqlCell{
			"tool_call_id": sqlText("call_1"), "tool_name": sqlText("web_search"),
		}),
		// The original adds 1e-6 to a running float (now_ts += 1e-6,
		// hermes_state.py replace_messages), so the fourth and fifth
		// timestamps are not start + 3e-6 / start + 4e-6.
		"12": message(12, "child", "user", sqlText("q2"), 1767226000.1234589, nil),
		"13": message(13, "child", "assistant", sqlText("a2"), 1767226000.1234598, map[string]sqlCell{
			"tool_calls": sqlText(`{"id": "call_9"}`),
		}),
	}
	if diff := cmp.Diff(wantMessages, readTable(t, q, "messages", "id")); diff != "" {
		t.Errorf("messages table (-want +got):\n%s", diff)
	}
}
