package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hermesstate/hermesstate/store"
)

// showCommand is "sessions show": one session and its conversation.
var showCommand = command{
	name:    "show",
	args:    "[--raw] ID|PREFIX|TITLE",
	summary: "Show one session (by id, unique id prefix or title) and its conversation",
	setup: func(fs *flag.FlagSet) action {
		raw := fs.Bool("raw", false, "show the stored messages, every column, instead of the conversation")
		return func(ctx context.Context, e *env, args []string) error {
			return withSession(ctx, e, args, func(s *store.Store, id string) error {
				if *raw {
					return showRaw(ctx, e, s, id)
				}
				return showConversation(ctx, e, s, id)
			})
		}
	},
}

// conversationJSON is show's --json output: the session's columns and its
// conversation, as get_session and get_messages_as_conversation return them.
type conversationJSON struct {
	store.Session
	Messages []store.ConversationMessage `json:"messages"`
}

// showConversation prints the session and its messages shaped for replay.
func showConversation(ctx context.Context, e *env, s *store.Store, id string) error {
	sess, err := s.GetSession(ctx, id)
	if err != nil {
		return err
	}
	msgs, err := s.Conversation(ctx, id, false)
	if err != nil {
		return err
	}
	if e.json {
		return writeJSON(e.stdout, conversationJSON{Session: *sess, Messages: msgs})
	}
	if err := printSessionHeader(e.stdout, sess); err != nil {
		return err
	}
	for _, m := range msgs {
		head := m.Role
		if m.ToolName != "" {
			head += ": " + m.ToolName
		}
		fmt.Fprintf(e.stdout, "\n%s\n", head)
		if m.Content != nil && *m.Content != "" {
			indent(e.stdout, "  ", *m.Content)
		}
		for _, call := range toolCalls(m.ToolCalls) {
			fmt.Fprintf(e.stdout, "  → %s\n", call)
		}
	}
	return nil
}

// showRaw prints the session's stored messages, every column: --json as the
// original's export_session, otherwise streamed one message at a time.
func showRaw(ctx context.Context, e *env, s *store.Store, id string) error {
	if e.json {
		exp, err := s.ExportSession(ctx, id)
		if err != nil {
			return err
		}
		return writeJSON(e.stdout, exp)
	}
	sess, err := s.GetSession(ctx, id)
	if err != nil {
		return err
	}
	if err := printSessionHeader(e.stdout, sess); err != nil {
		return err
	}
	return s.EachMessage(ctx, id, func(m store.Message) error {
		attrs := []string{"#" + strconv.FormatInt(m.ID, 10), localTime(m.Timestamp, secondLayout), m.Role}
		for _, a := range []struct {
			key string
			val *string
		}{{"tool_name", m.ToolName}, {"tool_call_id", m.ToolCallID}, {"finish_reason", m.FinishReason}} {
			if a.val != nil {
				attrs = append(attrs, a.key+"="+*a.val)
			}
		}
		if m.TokenCount != nil {
			attrs = append(attrs, "token_count="+strconv.FormatInt(*m.TokenCount, 10))
		}
		fmt.Fprintf(e.stdout, "\n%s\n", strings.Join(attrs, "  "))
		if m.Content != nil && *m.Content != "" {
			indent(e.stdout, "  ", *m.Content)
		}
		if m.Reasoning != nil && *m.Reasoning != "" {
			fmt.Fprintln(e.stdout, "  reasoning:")
			indent(e.stdout, "    ", *m.Reasoning)
		}
		if m.ToolCalls != nil {
			_, err := fmt.Fprintf(e.stdout, "  tool_calls: %s\n", m.ToolCalls)
			return err
		}
		return nil
	})
}

// printSessionHeader prints a session's columns as aligned "Name  value"
// lines.
func printSessionHeader(w io.Writer, s *store.Session) error {
	var t table
	line := func(name, value string) { t.row(name, value) }
	line("ID", s.ID)
	line("Title", cell(deref(s.Title)))
	line("Source", cell(s.Source))
	line("Model", cell(deref(s.Model)))
	line("Parent", cell(deref(s.ParentSessionID)))
	line("Started", localTime(s.StartedAt, secondLayout))
	if s.EndedAt != nil {
		line("Ended", fmt.Sprintf("%s (%s)", localTime(*s.EndedAt, secondLayout), cell(deref(s.EndReason))))
	}
	line("Messages", fmt.Sprintf("%s, %s", plural(s.MessageCount, "message"), plural(s.ToolCallCount, "tool call")))
	tokens := fmt.Sprintf("%s in, %s out", formatInt(s.InputTokens), formatInt(s.OutputTokens))
	for _, t := range []struct {
		n    int64
		name string
	}{{s.CacheReadTokens, "cache read"}, {s.CacheWriteTokens, "cache write"}, {s.ReasoningTokens, "reasoning"}} {
		if t.n != 0 {
			tokens += fmt.Sprintf(", %s %s", formatInt(t.n), t.name)
		}
	}
	line("Tokens", tokens)
	if cost := costText(s.EstimatedCostUSD, s.ActualCostUSD); cost != "" {
		line("Cost", cost)
	}
	return t.write(w)
}

// costText describes a session's costs, "" when neither is known.
func costText(estimated, actual *float64) string {
	var parts []string
	if estimated != nil {
		parts = append(parts, fmt.Sprintf("$%.4f estimated", *estimated))
	}
	if actual != nil {
		parts = append(parts, fmt.Sprintf("$%.4f actual", *actual))
	}
	return strings.Join(parts, ", ")
}

// toolCalls describes each call in an OpenAI-style tool_calls array as
// "name arguments"; JSON of another shape is shown as it is.
func toolCalls(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var calls []struct {
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	if err := json.Unmarshal(raw, &calls); err != nil {
		return []string{string(raw)}
	}
	out := make([]string, 0, len(calls))
	for _, c := range calls {
		out = append(out, strings.TrimSpace(c.Function.Name+" "+c.Function.Arguments))
	}
	return out
}
