package main

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

// The fixture: seven sessions on 1 March 2025 (UTC), written through the
// store with a clock the builder sets before every call, so every timestamp
// is known exactly.
//
//	deploy (cli, titled, 4 messages, a tool call, tokens and cost, ended)
//	├── subA (cli subagent, 1 message, tokens)
//	│   └── subA1 (no messages)
//	└── subB (no messages)
//	refactor (telegram, titled, ended by compression)
//	└── refactor2 (its compression continuation, "Refactor plan #2", tokens,
//	    cache reads, API calls, estimated and actual cost)
//	cjk (discord, no model, one Chinese message)
const (
	idDeploy    = "20250301_090000_a1a1a1"
	idSubA      = "20250301_090200_b2b2b2"
	idSubB      = "20250301_090300_c3c3c3"
	idSubA1     = "20250301_090400_d4d4d4"
	idRefactor  = "20250301_100000_e5e5e5"
	idRefactor2 = "20250301_103000_f6f6f6"
	idCJK       = "20250301_110000_0a0a0a"
)

// fixtureDay is the day every fixture timestamp falls on.
var fixtureDay = time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)

// at returns the fixture time h:m:s, e.g. at(9, 0, 10).
func at(h, m, s int) time.Time {
	return fixtureDay.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second)
}

// ts returns at(h, m, s) as the JSON number the store writes for it.
func ts(h, m, s int) float64 {
	return float64(at(h, m, s).Unix())
}

// fixtureWriter writes through a store whose clock it sets before each
// call; the first error sticks and later calls do nothing.
type fixtureWriter struct {
	ctx context.Context
	s   *store.Store
	now time.Time
	err error
}

// do runs fn at time t unless an earlier call failed.
func (w *fixtureWriter) do(t time.Time, fn func() error) {
	if w.err == nil {
		w.now = t
		w.err = fn()
	}
}

// session creates a session at t.
func (w *fixtureWriter) session(t time.Time, n store.NewSession) {
	w.do(t, func() error {
		_, err := w.s.CreateSession(w.ctx, n)
		return err
	})
}

// message appends a message at t.
func (w *fixtureWriter) message(t time.Time, id string, m store.NewMessage) {
	w.do(t, func() error {
		_, err := w.s.AppendMessage(w.ctx, id, m)
		return err
	})
}

// say appends a plain message with content at t.
func (w *fixtureWriter) say(t time.Time, id, role, content string) {
	w.message(t, id, store.NewMessage{Role: role, Content: &content})
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// deployToolCalls is the assistant's tool call in the deploy session.
const deployToolCalls = `[{"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"docker ps\"}"}}]`

// buildFixture writes the fixture database at path.
func buildFixture(path string) error {
	w := &fixtureWriter{ctx: context.Background()}
	s, err := store.Open(w.ctx, path, &store.Options{Now: func() time.Time { return w.now }})
	if err != nil {
		return err
	}
	w.s = s

	w.session(at(9, 0, 0), store.NewSession{ID: idDeploy, Source: "cli", Model: "claude-sonnet-4", SystemPrompt: "You are Hermes."})
	w.do(at(9, 0, 1), func() error { return s.SetSessionTitle(w.ctx, idDeploy, "Deploy notes") })
	w.say(at(9, 0, 10), idDeploy, "user", "How do I deploy with Docker?")
	w.message(at(9, 0, 20), idDeploy, store.NewMessage{Role: "assistant", Content: ptr("Let me check the containers."),
		ToolCalls: json.RawMessage(deployToolCalls), FinishReason: "tool_calls", TokenCount: ptr[int64](42)})
	w.message(at(9, 0, 25), idDeploy, store.NewMessage{Role: "tool", Content: ptr("CONTAINER ID   IMAGE\nabc123         web:latest"),
		ToolName: "terminal", ToolCallID: "call_1"})
	w.message(at(9, 0, 30), idDeploy, store.NewMessage{Role: "assistant", Content: ptr("Use docker compose up."), FinishReason: "stop"})
	w.do(at(9, 4, 0), func() error {
		return s.UpdateTokenCounts(w.ctx, idDeploy, store.TokenUpdate{InputTokens: 1200, OutputTokens: 340, EstimatedCostUSD: ptr(0.0123)})
	})
	w.session(at(9, 2, 0), store.NewSession{ID: idSubA, Source: "cli", Model: "claude-haiku", ParentSessionID: idDeploy})
	w.say(at(9, 2, 5), idSubA, "user", "Subtask: check the logs")
	w.do(at(9, 2, 50), func() error {
		return s.UpdateTokenCounts(w.ctx, idSubA, store.TokenUpdate{InputTokens: 300, OutputTokens: 100, EstimatedCostUSD: ptr(0.001)})
	})
	w.session(at(9, 3, 0), store.NewSession{ID: idSubB, Source: "cli", ParentSessionID: idDeploy})
	w.session(at(9, 4, 0), store.NewSession{ID: idSubA1, Source: "cli", ParentSessionID: idSubA})
	w.do(at(9, 5, 0), func() error { return s.EndSession(w.ctx, idDeploy, "user_exit") })

	w.session(at(10, 0, 0), store.NewSession{ID: idRefactor, Source: "telegram", Model: "gpt-5"})
	w.do(at(10, 0, 1), func() error { return s.SetSessionTitle(w.ctx, idRefactor, "Refactor plan") })
	w.say(at(10, 0, 5), idRefactor, "user", "Plan the refactor of <store> & search")
	w.say(at(10, 0, 10), idRefactor, "assistant", "First, split the files.")
	w.do(at(10, 30, 0), func() error { return s.EndSession(w.ctx, idRefactor, "compression") })
	w.session(at(10, 30, 0), store.NewSession{ID: idRefactor2, Source: "telegram", Model: "gpt-5", ParentSessionID: idRefactor})
	w.do(at(10, 30, 1), func() error { return s.SetSessionTitle(w.ctx, idRefactor2, "Refactor plan #2") })
	w.say(at(10, 30, 5), idRefactor2, "user", "Continue the refactor")
	w.say(at(10, 31, 0), idRefactor2, "assistant", "Done: store and search are split.")
	w.do(at(10, 31, 1), func() error {
		return s.UpdateTokenCounts(w.ctx, idRefactor2, store.TokenUpdate{InputTokens: 500, OutputTokens: 250,
			CacheReadTokens: 30, APICallCount: 2, EstimatedCostUSD: ptr(0.002), ActualCostUSD: ptr(0.0019)})
	})

	w.session(at(11, 0, 0), store.NewSession{ID: idCJK, Source: "discord"})
	w.say(at(11, 0, 5), idCJK, "user", "今天讨论A2A通信协议的实现细节")

	return errors.Join(w.err, s.Close())
}

// obj is a decoded JSON object.
type obj = map[string]any

// with returns a copy of base with fields set.
func with(base obj, fields obj) obj {
	out := obj{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range fields {
		out[k] = v
	}
	return out
}

// sessionColumns is a session's JSON object with every one of the 45
// columns of schema v21 at the value a new session has: the keys and types
// of the original's get_session.
var sessionColumns = obj{
	"id": "", "source": "", "user_id": nil, "model": nil, "model_config": nil, "system_prompt": nil,
	"parent_session_id": nil, "started_at": 0.0, "ended_at": nil, "end_reason": nil,
	"message_count": 0.0, "tool_call_count": 0.0, "input_tokens": 0.0, "output_tokens": 0.0, "title": nil,
	"cache_read_tokens": 0.0, "cache_write_tokens": 0.0, "reasoning_tokens": 0.0,
	"billing_provider": nil, "billing_base_url": nil, "billing_mode": nil,
	"estimated_cost_usd": nil, "actual_cost_usd": nil, "cost_status": nil, "cost_source": nil,
	"pricing_version": nil, "api_call_count": 0.0,
	// v12–v21: workspace, gateway peer and presentation, handoff,
	// compression failures, rewinds, archive.
	"cwd": nil, "git_branch": nil, "git_repo_root": nil,
	"session_key": nil, "chat_id": nil, "chat_type": nil, "thread_id": nil,
	"display_name": nil, "origin_json": nil, "expiry_finalized": 0.0,
	"handoff_state": nil, "handoff_platform": nil, "handoff_error": nil,
	"compression_failure_cooldown_until": nil, "compression_failure_error": nil, "compression_fallback_streak": 0.0,
	"rewind_count": 0.0, "archived": 0.0,
}

// messageColumns is a message's JSON object with every one of the 20
// columns of schema v21 at the value a new live message has: the keys and
// types of the original's get_messages.
var messageColumns = obj{
	"id": 0.0, "session_id": "", "role": "", "content": nil, "tool_call_id": nil, "tool_name": nil,
	"timestamp": 0.0, "token_count": nil, "tool_calls": nil, "finish_reason": nil, "reasoning": nil,
	"reasoning_content": nil, "reasoning_details": nil, "codex_reasoning_items": nil, "codex_message_items": nil,
	"effect_disposition": nil, "platform_message_id": nil, "observed": 0.0, "active": 1.0, "compacted": 0.0,
}

// wantSessions are the fixture's sessions as get_session returns them.
var wantSessions = map[string]obj{
	idDeploy: with(sessionColumns, obj{"id": idDeploy, "source": "cli", "model": "claude-sonnet-4",
		"system_prompt": "You are Hermes.", "started_at": ts(9, 0, 0), "ended_at": ts(9, 5, 0), "end_reason": "user_exit",
		"message_count": 4.0, "tool_call_count": 1.0, "input_tokens": 1200.0, "output_tokens": 340.0,
		"title": "Deploy notes", "estimated_cost_usd": 0.0123}),
	idSubA: with(sessionColumns, obj{"id": idSubA, "source": "cli", "model": "claude-haiku", "parent_session_id": idDeploy,
		"started_at": ts(9, 2, 0), "message_count": 1.0, "input_tokens": 300.0, "output_tokens": 100.0, "estimated_cost_usd": 0.001}),
	idSubB:  with(sessionColumns, obj{"id": idSubB, "source": "cli", "parent_session_id": idDeploy, "started_at": ts(9, 3, 0)}),
	idSubA1: with(sessionColumns, obj{"id": idSubA1, "source": "cli", "parent_session_id": idSubA, "started_at": ts(9, 4, 0)}),
	idRefactor: with(sessionColumns, obj{"id": idRefactor, "source": "telegram", "model": "gpt-5", "started_at": ts(10, 0, 0),
		"ended_at": ts(10, 30, 0), "end_reason": "compression", "message_count": 2.0, "title": "Refactor plan"}),
	idRefactor2: with(sessionColumns, obj{"id": idRefactor2, "source": "telegram", "model": "gpt-5", "parent_session_id": idRefactor,
		"started_at": ts(10, 30, 0), "message_count": 2.0, "title": "Refactor plan #2",
		"input_tokens": 500.0, "output_tokens": 250.0, "cache_read_tokens": 30.0, "api_call_count": 2.0,
		"estimated_cost_usd": 0.002, "actual_cost_usd": 0.0019}),
	idCJK: with(sessionColumns, obj{"id": idCJK, "source": "discord", "started_at": ts(11, 0, 0), "message_count": 1.0}),
}

// wantMessages are the fixture's messages as get_messages returns them,
// by session.
var wantMessages = map[string][]any{
	idDeploy: {
		with(messageColumns, obj{"id": 1.0, "session_id": idDeploy, "role": "user", "content": "How do I deploy with Docker?", "timestamp": ts(9, 0, 10)}),
		with(messageColumns, obj{"id": 2.0, "session_id": idDeploy, "role": "assistant", "content": "Let me check the containers.",
			"timestamp": ts(9, 0, 20), "token_count": 42.0, "tool_calls": decodeJSON(deployToolCalls), "finish_reason": "tool_calls"}),
		with(messageColumns, obj{"id": 3.0, "session_id": idDeploy, "role": "tool", "content": "CONTAINER ID   IMAGE\nabc123         web:latest",
			"tool_call_id": "call_1", "tool_name": "terminal", "timestamp": ts(9, 0, 25)}),
		with(messageColumns, obj{"id": 4.0, "session_id": idDeploy, "role": "assistant", "content": "Use docker compose up.",
			"timestamp": ts(9, 0, 30), "finish_reason": "stop"}),
	},
	idSubA: {with(messageColumns, obj{"id": 5.0, "session_id": idSubA, "role": "user", "content": "Subtask: check the logs", "timestamp": ts(9, 2, 5)})},
	idSubB: {}, idSubA1: {},
	idRefactor: {
		with(messageColumns, obj{"id": 6.0, "session_id": idRefactor, "role": "user", "content": "Plan the refactor of <store> & search", "timestamp": ts(10, 0, 5)}),
		with(messageColumns, obj{"id": 7.0, "session_id": idRefactor, "role": "assistant", "content": "First, split the files.", "timestamp": ts(10, 0, 10)}),
	},
	idRefactor2: {
		with(messageColumns, obj{"id": 8.0, "session_id": idRefactor2, "role": "user", "content": "Continue the refactor", "timestamp": ts(10, 30, 5)}),
		with(messageColumns, obj{"id": 9.0, "session_id": idRefactor2, "role": "assistant", "content": "Done: store and search are split.", "timestamp": ts(10, 31, 0)}),
	},
	idCJK: {with(messageColumns, obj{"id": 10.0, "session_id": idCJK, "role": "user", "content": "今天讨论A2A通信协议的实现细节", "timestamp": ts(11, 0, 5)})},
}

// decodeJSON decodes s, which must be valid JSON.
func decodeJSON(s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	return v
}
