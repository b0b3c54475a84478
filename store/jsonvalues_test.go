package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// JSON columns (spec §8.1, §12): the stored text is exactly what Python's
// json.dumps writes with default arguments, and what the store returns is
// the same value, key order kept.

// jsonCase is one JSON argument: what a Go caller passes, and the text the
// original stores for it (json.dumps(json.loads(in)), checked with CPython
// 3.11).
type jsonCase struct{ in, py string }

var (
	jsonToolCalls = jsonCase{
		in: `[{"id":"call_1","type":"function","function":{"name":"web_search","arguments":"{\"q\": \"通信 🚀\"}"},"zeta":1,"alpha":{"nested":[1,2.5,-3,true,false,null,"é"]},"x-unknown":{"html":"<b>a & b</b>","esc":"tab\there \"q\" back\\slash / \u0001"}}]`,
		py: `[{"id": "call_1", "type": "function", "function": {"name": "web_search", "arguments": "{\"q\": \"\u901a\u4fe1 \ud83d\ude80\"}"}, "zeta": 1, "alpha": {"nested": [1, 2.5, -3, true, false, null, "\u00e9"]}, "x-unknown": {"html": "<b>a & b</b>", "esc": "tab\there \"q\" back\\slash / \u0001"}}]`,
	}
	jsonModelConfig = jsonCase{
		in: `{"temperature":0.5,"max_tokens":4096,"provider":{"name":"openrouter","order":["z","a"]},"notes":"日本語 ✓ <>&","emoji":"😀"}`,
		py: `{"temperature": 0.5, "max_tokens": 4096, "provider": {"name": "openrouter", "order": ["z", "a"]}, "notes": "\u65e5\u672c\u8a9e \u2713 <>&", "emoji": "\ud83d\ude00"}`,
	}
	jsonReasoningDetails = jsonCase{
		in: `[{"type":"summary","text":"step by step → 結論 🎉","signature":null,"extra":{"b":2,"a":1}}]`,
		py: `[{"type": "summary", "text": "step by step \u2192 \u7d50\u8ad6 \ud83c\udf89", "signature": null, "extra": {"b": 2, "a": 1}}]`,
	}
	jsonCodexReasoning = jsonCase{
		in: `[{"id":"r1","type":"reasoning","summary":[{"type":"summary_text","text":"Ünïcödé <&>"}],"encrypted_content":"gAAA=="}]`,
		py: `[{"id": "r1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "\u00dcn\u00efc\u00f6d\u00e9 <&>"}], "encrypted_content": "gAAA=="}]`,
	}
	jsonCodexMessages = jsonCase{
		in: `[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"héllo 👋"}],"id":"msg_1","status":"completed"}]`,
		py: `[{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "h\u00e9llo \ud83d\udc4b"}], "id": "msg_1", "status": "completed"}]`,
	}
	jsonDictToolCalls = jsonCase{
		in: `{"id":"call_single","function":{"name":"f","arguments":"{}"}}`,
		py: `{"id": "call_single", "function": {"name": "f", "arguments": "{}"}}`,
	}
	jsonPretty = jsonCase{
		in: "[ {\"b\" : 1 ,\n \"a\":[ ] , \"c\" : { } } ]",
		py: `[{"b": 1, "a": [], "c": {}}]`,
	}
)

// jsonTokens decodes raw into its token stream (strings unescaped, numbers
// as written, objects' keys in order): two texts with equal streams are the
// same JSON value with the same key order.
func jsonTokens(t *testing.T, raw []byte) []any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out []any
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("decoding %s: %v", raw, err)
		}
		out = append(out, tok)
	}
}

// wantJSON checks got against a case: the same compact text as the Python
// text, and the same token stream as the caller's input.
func wantJSON(t *testing.T, what string, c jsonCase, got json.RawMessage) {
	t.Helper()
	var want, have bytes.Buffer
	if err := json.Compact(&want, []byte(c.py)); err != nil {
		t.Fatal(err)
	}
	if err := json.Compact(&have, got); err != nil {
		t.Fatalf("%s: %s is not JSON: %v", what, got, err)
	}
	if diff := cmp.Diff(want.String(), have.String()); diff != "" {
		t.Errorf("%s compact text (-want +got):\n%s", what, diff)
	}
	if diff := cmp.Diff(jsonTokens(t, []byte(c.in)), jsonTokens(t, got)); diff != "" {
		t.Errorf("%s value or key order (-want +got):\n%s", what, diff)
	}
}

// jsonFixture is a store holding session "s" (with the model config case)
// and one assistant message carrying every JSON case, plus a second one
// whose tool calls are a single object.
func jsonFixture(t *testing.T) (*Store, string, int64) {
	t.Helper()
	ctx := context.Background()
	s, path := openStore(t, nil)
	if _, err := s.CreateSession(ctx, NewSession{ID: "s", Source: "cli", ModelConfig: json.RawMessage(jsonModelConfig.in)}); err != nil {
		t.Fatal(err)
	}
	id, err := s.AppendMessage(ctx, "s", NewMessage{
		Role:                "assistant",
		Content:             new("calling"),
		ToolCalls:           json.RawMessage(jsonToolCalls.in),
		ReasoningDetails:    json.RawMessage(jsonReasoningDetails.in),
		CodexReasoningItems: json.RawMessage(jsonCodexReasoning.in),
		CodexMessageItems:   json.RawMessage(jsonCodexMessages.in),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AppendMessage(ctx, "s", NewMessage{Role: "assistant", Content: new("one call"), ToolCalls: json.RawMessage(jsonDictToolCalls.in)}); err != nil {
		t.Fatal(err)
	}
	return s, path, id
}

// rawJSONColumns reads the message's JSON columns and the session's model
// config as SQL text.
func rawJSONColumns(t *testing.T, q dbtest.Queryer, msgID int64) map[string]string {
	t.Helper()
	cols := map[string]string{}
	for _, c := range []string{"tool_calls", "reasoning_details", "codex_reasoning_items", "codex_message_items"} {
		cols[c] = dbtest.Value[string](t, q, "SELECT "+c+" FROM messages WHERE id = ?", msgID)
	}
	cols["model_config"] = dbtest.Value[string](t, q, "SELECT model_config FROM sessions WHERE id = 's'")
	return cols
}

var wantPyColumns = map[string]string{
	"tool_calls":            jsonToolCalls.py,
	"reasoning_details":     jsonReasoningDetails.py,
	"codex_reasoning_items": jsonCodexReasoning.py,
	"codex_message_items":   jsonCodexMessages.py,
	"model_config":          jsonModelConfig.py,
}

func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("ColumnsArePythonText", func(t *testing.T) {
		t.Parallel()
		_, path, id := jsonFixture(t)
		if diff := cmp.Diff(wantPyColumns, rawJSONColumns(t, rawDB(t, path), id)); diff != "" {
			t.Errorf("stored JSON text (-want +got):\n%s", diff)
		}
		got := dbtest.Value[string](t, rawDB(t, path), "SELECT tool_calls FROM messages WHERE id = ?", id+1)
		if got != jsonDictToolCalls.py {
			t.Errorf("dict tool_calls = %s, want %s", got, jsonDictToolCalls.py)
		}
	})

	t.Run("GetMessages", func(t *testing.T) {
		t.Parallel()
		s, _, _ := jsonFixture(t)
		msgs, err := s.GetMessages(ctx, "s")
		if err != nil || len(msgs) != 2 {
			t.Fatalf("GetMessages = %v, %v", msgs, err)
		}
		m := msgs[0]
		wantJSON(t, "tool_calls", jsonToolCalls, m.ToolCalls)
		wantJSON(t, "reasoning_details", jsonReasoningDetails, json.RawMessage(m.ReasoningDetails))
		wantJSON(t, "codex_reasoning_items", jsonCodexReasoning, json.RawMessage(m.CodexReasoningItems))
		wantJSON(t, "codex_message_items", jsonCodexMessages, json.RawMessage(m.CodexMessageItems))
		wantJSON(t, "dict tool_calls", jsonDictToolCalls, msgs[1].ToolCalls)
	})

	t.Run("GetSessionAndExport", func(t *testing.T) {
		t.Parallel()
		s, _, _ := jsonFixture(t)
		sess, err := s.GetSession(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		wantJSON(t, "model_config", jsonModelConfig, json.RawMessage(sess.ModelConfig))
		export, err := s.ExportSession(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		wantJSON(t, "export model_config", jsonModelConfig, json.RawMessage(export.ModelConfig))
		wantJSON(t, "export tool_calls", jsonToolCalls, export.Messages[0].ToolCalls)
	})

	t.Run("Conversation", func(t *testing.T) {
		t.Parallel()
		s, _, _ := jsonFixture(t)
		conv, err := s.Conversation(ctx, "s", false)
		if err != nil || len(conv) != 2 {
			t.Fatalf("Conversation = %v, %v", conv, err)
		}
		m := conv[0]
		wantJSON(t, "tool_calls", jsonToolCalls, m.ToolCalls)
		wantJSON(t, "reasoning_details", jsonReasoningDetails, m.ReasoningDetails)
		wantJSON(t, "codex_reasoning_items", jsonCodexReasoning, m.CodexReasoningItems)
		wantJSON(t, "codex_message_items", jsonCodexMessages, m.CodexMessageItems)
		wantJSON(t, "dict tool_calls", jsonDictToolCalls, conv[1].ToolCalls)
	})

	t.Run("RewriteKeepsText", func(t *testing.T) {
		t.Parallel()
		// Replaying a conversation and writing it back (the gateway's
		// rewrite_transcript) stores the same text again.
		s, path, _ := jsonFixture(t)
		conv, err := s.Conversation(ctx, "s", false)
		if err != nil {
			t.Fatal(err)
		}
		msgs := make([]NewMessage, len(conv))
		for i, m := range conv {
			msgs[i] = m.NewMessage()
		}
		if err := s.ReplaceMessages(ctx, "s", msgs); err != nil {
			t.Fatal(err)
		}
		id := dbtest.Value[int64](t, rawDB(t, path), "SELECT MIN(id) FROM messages WHERE session_id = 's'")
		if diff := cmp.Diff(wantPyColumns, rawJSONColumns(t, rawDB(t, path), id)); diff != "" {
			t.Errorf("stored JSON text after rewrite (-want +got):\n%s", diff)
		}
	})

	t.Run("WhitespaceNormalised", func(t *testing.T) {
		t.Parallel()
		s, path := openStore(t, nil)
		createSessions(t, s, "s")
		id, err := s.AppendMessage(ctx, "s", NewMessage{Role: "assistant", ToolCalls: json.RawMessage(jsonPretty.in)})
		if err != nil {
			t.Fatal(err)
		}
		if got := dbtest.Value[string](t, rawDB(t, path), "SELECT tool_calls FROM messages WHERE id = ?", id); got != jsonPretty.py {
			t.Errorf("tool_calls = %s, want %s", got, jsonPretty.py)
		}
	})

	t.Run("EmptyValuesAreNull", func(t *testing.T) {
		t.Parallel()
		// json.dumps(x) if x else None: empty containers (and null) are
		// stored as NULL. The call count is 0 for None, len(list) for a
		// list and 1 for anything else, so {} still counts one call.
		s, path := openStore(t, nil)
		for _, cfg := range []string{"{}", "[]"} {
			id := "cfg" + cfg
			if _, err := s.CreateSession(ctx, NewSession{ID: id, Source: "cli", ModelConfig: json.RawMessage(cfg)}); err != nil {
				t.Fatal(err)
			}
			if got := dbtest.Value[sql.NullString](t, rawDB(t, path), "SELECT model_config FROM sessions WHERE id = ?", id); got.Valid {
				t.Errorf("model_config %s stored as %q, want NULL", cfg, got.String)
			}
		}
		createSessions(t, s, "s")
		for _, tc := range []struct {
			toolCalls string
			calls     int64
		}{{"[]", 0}, {"{}", 1}, {"null", 0}, {"", 0}} {
			before := dbtest.Value[int64](t, rawDB(t, path), "SELECT tool_call_count FROM sessions WHERE id = 's'")
			id, err := s.AppendMessage(ctx, "s", NewMessage{
				Role:                "assistant",
				Content:             new("c"),
				ToolCalls:           json.RawMessage(tc.toolCalls),
				ReasoningDetails:    json.RawMessage("[]"),
				CodexReasoningItems: json.RawMessage("{}"),
				CodexMessageItems:   json.RawMessage("[]"),
			})
			if err != nil {
				t.Fatalf("tool calls %q: %v", tc.toolCalls, err)
			}
			row := dbtest.Value[string](t, rawDB(t, path),
				"SELECT typeof(tool_calls)||typeof(reasoning_details)||typeof(codex_reasoning_items)||typeof(codex_message_items) FROM messages WHERE id = ?", id)
			if row != "nullnullnullnull" {
				t.Errorf("tool calls %q: column types %s, want all null", tc.toolCalls, row)
			}
			after := dbtest.Value[int64](t, rawDB(t, path), "SELECT tool_call_count FROM sessions WHERE id = 's'")
			if after-before != tc.calls {
				t.Errorf("tool calls %q added %d to tool_call_count, want %d", tc.toolCalls, after-before, tc.calls)
			}
			msgs, err := s.GetMessages(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			if last := msgs[len(msgs)-1]; last.ToolCalls != nil || last.ReasoningDetails != nil || last.CodexReasoningItems != nil || last.CodexMessageItems != nil {
				t.Errorf("tool calls %q: GetMessages JSON fields = %+v, want nil", tc.toolCalls, last)
			}
		}
	})

	t.Run("ToolCallCount", func(t *testing.T) {
		t.Parallel()
		s, path := openStore(t, nil)
		createSessions(t, s, "s")
		for _, tc := range []string{`[]`, jsonDictToolCalls.in, `[{"id":"a"},{"id":"b"}]`, `"x"`} {
			if _, err := s.AppendMessage(ctx, "s", NewMessage{Role: "assistant", ToolCalls: json.RawMessage(tc)}); err != nil {
				t.Fatal(err)
			}
		}
		// A tool's reply adds nothing to tool_call_count.
		if _, err := s.AppendMessage(ctx, "s", NewMessage{Role: "tool", Content: new("r"), ToolCallID: "a"}); err != nil {
			t.Fatal(err)
		}
		got := dbtest.Value[string](t, rawDB(t, path), "SELECT message_count || '/' || tool_call_count FROM sessions WHERE id = 's'")
		if got != "5/4" {
			t.Errorf("message_count/tool_call_count = %s, want 5/4 (0 + 1 + 2 + 1)", got)
		}
	})

	t.Run("InvalidJSONWritesNothing", func(t *testing.T) {
		t.Parallel()
		s, path := openStore(t, nil)
		createSessions(t, s, "s")
		for _, bad := range []NewMessage{
			{Role: "assistant", ToolCalls: json.RawMessage(`[{"a":`)},
			{Role: "assistant", ReasoningDetails: json.RawMessage(`{bad}`)},
			{Role: "assistant", CodexReasoningItems: json.RawMessage(`nope`)},
			{Role: "assistant", CodexMessageItems: json.RawMessage(`[1,]`)},
			{Role: "assistant", ToolCalls: json.RawMessage(`[1] [2]`)},
			{Role: "assistant", ToolCalls: json.RawMessage(`[NaN]`)},
		} {
			if _, err := s.AppendMessage(ctx, "s", bad); !errors.Is(err, ErrInvalidJSON) {
				t.Errorf("AppendMessage(%+v) = %v, want ErrInvalidJSON", bad, err)
			}
		}
		if _, err := s.CreateSession(ctx, NewSession{ID: "bad", Source: "cli", ModelConfig: json.RawMessage(`{"a":1}}`)}); !errors.Is(err, ErrInvalidJSON) {
			t.Errorf("CreateSession(bad model config) = %v, want ErrInvalidJSON", err)
		}
		got := dbtest.Value[string](t, rawDB(t, path), "SELECT (SELECT COUNT(*) FROM messages) || '/' || (SELECT COUNT(*) FROM sessions) || '/' || message_count FROM sessions WHERE id = 's'")
		if got != "0/1/0" {
			t.Errorf("messages/sessions/message_count = %s, want 0/1/0", got)
		}
	})

	t.Run("PythonReadsTheSameValues", func(t *testing.T) {
		t.Parallel()
		python := dbtest.Python3(t)
		_, path, id := jsonFixture(t)
		inputs := map[string]string{
			"tool_calls":            jsonToolCalls.in,
			"reasoning_details":     jsonReasoningDetails.in,
			"codex_reasoning_items": jsonCodexReasoning.in,
			"codex_message_items":   jsonCodexMessages.in,
			"model_config":          jsonModelConfig.in,
		}
		b, err := json.Marshal(inputs)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		inputsPath := filepath.Join(dir, "inputs.json")
		if err := os.WriteFile(inputsPath, b, 0o600); err != nil {
			t.Fatal(err)
		}
		// For each column: the stored text is what json.dumps writes for
		// the input, and json.loads gives the input's value with its key
		// order (dict order is compared through a second json.dumps).
		const script = `
import json, sqlite3, sys
db, inputs, msg_id = sys.argv[1], json.load(open(sys.argv[2])), int(sys.argv[3])
conn = sqlite3.connect(db)
row = conn.execute("SELECT tool_calls, reasoning_details, codex_reasoning_items, codex_message_items FROM messages WHERE id = ?", (msg_id,)).fetchone()
cols = dict(zip(["tool_calls", "reasoning_details", "codex_reasoning_items", "codex_message_items"], row))
cols["model_config"] = conn.execute("SELECT model_config FROM sessions WHERE id = 's'").fetchone()[0]
bad = []
for name, text in sorted(cols.items()):
    want = json.loads(inputs[name])
    got = json.loads(text)
    if got != want or json.dumps(got) != json.dumps(want) or text != json.dumps(want):
        bad.append(name + ": " + text)
print("\n".join(bad) if bad else "ok")
`
		scriptPath := filepath.Join(dir, "check.py")
		if err := os.WriteFile(scriptPath, []byte(script), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(python, scriptPath, path, inputsPath, "1").CombinedOutput()
		if err != nil {
			t.Fatalf("python3: %v\n%s", err, out)
		}
		if id != 1 {
			t.Fatalf("first message id = %d, want 1", id)
		}
		if got := strings.TrimSpace(string(out)); got != "ok" {
			t.Errorf("Python disagrees:\n%s", got)
		}
	})
}
