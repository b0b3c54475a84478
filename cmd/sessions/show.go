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
	args:    "[--raw] [--all] ID|PREFIX|TITLE",
	summary: "Show one session (by id, unique id prefix or title) and its conversation",
	setup: func(fs *flag.FlagSet) action {
		raw := fs.Bool("raw", false, "show the stored messages, every column, instead of the conversation")
		all := fs.Bool("all", false, "include the hidden messages, rewound and compacted ones, each marked")
		return func(ctx context.Context, e *env, args []string) error {
			return withSession(ctx, e, args, func(s *store.Store, id string) error {
				if *raw {
					return showRaw(ctx, e, s, id, *all)
				}
				return showConversation(ctx, e, s, id, *all)
			})
		}
	},
}

// Message states other than live, as show marks them: upstream's two
// kinds of inactive row.
const (
	// stateRewound is a message taken back by a rewind (active = 0,
	// compacted = 0): hidden everywhere, search included.
	stateRewound = "rewound"
	// stateCompacted is a message summarised away by an in-place
	// compaction (active = 0, compacted = 1): left out of the conversation,
	// still found by search.
	stateCompacted = "compacted"
)

// messageState is "" for a live message, else stateRewound or
// stateCompacted.
func messageState(m store.Message) string {
	switch {
	case m.Active != 0:
		return ""
	case m.Compacted != 0:
		return stateCompacted
	}
	return stateRewound
}

// hiddenCounts counts the rewound and the compacted messages among rows.
type hiddenCounts struct{ rewound, compacted int64 }

// countHidden counts rows' hidden messages.
func countHidden(rows []store.Message) hiddenCounts {
	var h hiddenCounts
	for _, m := range rows {
		switch messageState(m) {
		case stateRewound:
			h.rewound++
		case stateCompacted:
			h.compacted++
		}
	}
	return h
}

// text describes the counts ("2 rewound, 9 compacted") and whether the
// messages are shown; "" when there are none.
func (h hiddenCounts) text(shown bool) string {
	var parts []string
	if h.rewound > 0 {
		parts = append(parts, formatInt(h.rewound)+" rewound")
	}
	if h.compacted > 0 {
		parts = append(parts, formatInt(h.compacted)+" compacted")
	}
	if len(parts) == 0 {
		return ""
	}
	if shown {
		return strings.Join(parts, ", ") + " (shown, marked)"
	}
	return strings.Join(parts, ", ") + " (not shown; --all shows them)"
}

// sessionView is what show prints about a session before its messages.
type sessionView struct {
	session *store.Session
	// parent is the session's parent, nil when it has none or it is gone.
	parent *store.Session
	usage  []store.ModelUsage
	hidden hiddenCounts
	// shown tells whether the hidden messages are shown.
	shown bool
}

// readSessionView reads session id and what its header says: its parent,
// its per-model usage and the hidden messages among rows.
func readSessionView(ctx context.Context, s *store.Store, id string, rows []store.Message, shown bool) (*sessionView, error) {
	sess, err := s.GetSession(ctx, id)
	if err != nil {
		return nil, err
	}
	parents, err := parentsOf(ctx, s, []*store.Session{sess}, nil)
	if err != nil {
		return nil, err
	}
	usage, err := s.ModelUsage(ctx, id)
	if err != nil {
		return nil, err
	}
	return &sessionView{session: sess, parent: parentOf(sess, parents), usage: usage, hidden: countHidden(rows), shown: shown}, nil
}

// conversationJSON is show's --json output: the session's columns and its
// conversation, as get_session and get_messages_as_conversation return them.
type conversationJSON struct {
	store.Session
	Messages []store.ConversationMessage `json:"messages"`
}

// showConversation prints the session and its messages shaped for replay:
// the live ones, or with all every one, each hidden one marked.
func showConversation(ctx context.Context, e *env, s *store.Store, id string, all bool) error {
	msgs, err := s.ConversationWith(ctx, id, store.ConversationOptions{IncludeInactive: all})
	if err != nil {
		return err
	}
	if e.json {
		sess, err := s.GetSession(ctx, id)
		if err != nil {
			return err
		}
		return writeJSON(e.stdout, conversationJSON{Session: *sess, Messages: msgs})
	}
	rows, err := s.GetMessagesWith(ctx, id, store.MessageOptions{IncludeInactive: true})
	if err != nil {
		return err
	}
	view, err := readSessionView(ctx, s, id, rows, all)
	if err != nil {
		return err
	}
	if err := printSessionHeader(e.stdout, view); err != nil {
		return err
	}
	if !all {
		rows = liveRows(rows)
	}
	states := conversationStates(msgs, rows)
	for i, m := range msgs {
		head := m.Role
		if m.ToolName != "" {
			head += ": " + m.ToolName
		}
		fmt.Fprintf(e.stdout, "\n%s\n", strings.Join(append([]string{head}, markers(states[i], m.Observed)...), "  "))
		printContent(e.stdout, m.Content, m.ContentJSON)
		for _, call := range toolCalls(m.ToolCalls) {
			fmt.Fprintf(e.stdout, "  → %s\n", call)
		}
	}
	return nil
}

// liveRows returns the live messages of rows.
func liveRows(rows []store.Message) []store.Message {
	live := make([]store.Message, 0, len(rows))
	for _, m := range rows {
		if m.Active != 0 {
			live = append(live, m)
		}
	}
	return live
}

// conversationStates returns the state of each conversation message: the
// conversation is rows (in id order) less the messages the replay leaves
// out, so each message is the next row of its role and timestamp.
// A message without one (written after rows were read) is live.
func conversationStates(msgs []store.ConversationMessage, rows []store.Message) []string {
	states := make([]string, len(msgs))
	next := 0
	for i, m := range msgs {
		for k := next; k < len(rows); k++ {
			if rows[k].Role == m.Role && rows[k].Timestamp == m.Timestamp {
				states[i], next = messageState(rows[k]), k+1
				break
			}
		}
	}
	return states
}

// markers are the bracketed words after a message's head: its state, and
// whether it was group-chat context the agent only observed.
func markers(state string, observed bool) []string {
	var out []string
	if state != "" {
		out = append(out, "["+state+"]")
	}
	if observed {
		out = append(out, "[observed]")
	}
	return out
}

// printContent prints a message's content indented: its text, or the parts
// of structured content, a text part as its text and any other as its type
// in brackets ([image_url]); structured content of another shape is shown
// as its JSON.
func printContent(w io.Writer, content *string, structured json.RawMessage) {
	if structured != nil {
		var parts []struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		if json.Unmarshal(structured, &parts) != nil {
			indent(w, "  ", string(structured))
			return
		}
		for _, p := range parts {
			if p.Type == "text" && p.Text != nil {
				indent(w, "  ", *p.Text)
			} else {
				indent(w, "  ", "["+cell(p.Type)+"]")
			}
		}
		return
	}
	if content != nil && *content != "" {
		indent(w, "  ", *content)
	}
}

// showRaw prints the session's stored messages, every column: --json as the
// original's export_session (with all, its messages as get_messages
// include_inactive=True returns them).
func showRaw(ctx context.Context, e *env, s *store.Store, id string, all bool) error {
	if e.json {
		exp, err := s.ExportSession(ctx, id)
		if err != nil {
			return err
		}
		if all {
			if exp.Messages, err = s.GetMessagesWith(ctx, id, store.MessageOptions{IncludeInactive: true}); err != nil {
				return err
			}
		}
		return writeJSON(e.stdout, exp)
	}
	rows, err := s.GetMessagesWith(ctx, id, store.MessageOptions{IncludeInactive: true})
	if err != nil {
		return err
	}
	view, err := readSessionView(ctx, s, id, rows, all)
	if err != nil {
		return err
	}
	if err := printSessionHeader(e.stdout, view); err != nil {
		return err
	}
	if !all {
		rows = liveRows(rows)
	}
	for _, m := range rows {
		printStoredMessage(e.stdout, m)
	}
	return nil
}

// printStoredMessage prints one stored message: its id, time, role and the
// columns that are set, then its content, reasoning and tool calls.
func printStoredMessage(w io.Writer, m store.Message) {
	attrs := []string{"#" + strconv.FormatInt(m.ID, 10), localTime(m.Timestamp, secondLayout), m.Role}
	for _, a := range []struct {
		key string
		val *string
	}{{"tool_name", m.ToolName}, {"tool_call_id", m.ToolCallID}, {"finish_reason", m.FinishReason},
		{"effect_disposition", m.EffectDisposition}, {"platform_message_id", m.PlatformMessageID}} {
		if a.val != nil {
			attrs = append(attrs, a.key+"="+*a.val)
		}
	}
	if m.TokenCount != nil {
		attrs = append(attrs, "token_count="+strconv.FormatInt(*m.TokenCount, 10))
	}
	attrs = append(attrs, markers(messageState(m), deref64(m.Observed) != 0)...)
	fmt.Fprintf(w, "\n%s\n", strings.Join(attrs, "  "))
	if m.ContentJSON != nil {
		// Structured content as stored, after its "\x00json:" prefix.
		indent(w, "  ", string(m.ContentJSON))
	} else if m.Content != nil && *m.Content != "" {
		indent(w, "  ", *m.Content)
	}
	if m.Reasoning != nil && *m.Reasoning != "" {
		fmt.Fprintln(w, "  reasoning:")
		indent(w, "    ", *m.Reasoning)
	}
	if m.ToolCalls != nil {
		fmt.Fprintf(w, "  tool_calls: %s\n", m.ToolCalls)
	}
}

// deref64 returns *p, or 0 for nil.
func deref64(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// printSessionHeader prints a session's columns as aligned "Name  value"
// lines; the lines of what is not set (an end, a workspace, a gateway
// peer, a handoff, rewinds, hidden messages, usage rows, costs, a
// compression failure) are left out.
func printSessionHeader(w io.Writer, v *sessionView) error {
	s := v.session
	var t table
	line := func(name, value string) { t.row(name, value) }
	line("ID", s.ID)
	line("Title", cell(deref(s.Title)))
	line("Source", cell(s.Source))
	line("Model", routeText(deref(s.Model), deref(s.BillingProvider), deref(s.BillingMode)))
	line("Parent", cell(deref(s.ParentSessionID)))
	if flags := sessionFlags(s, v.parent); len(flags) > 0 {
		line("Flags", strings.Join(flags, ", "))
	}
	line("Started", localTime(s.StartedAt, secondLayout))
	if s.EndedAt != nil {
		line("Ended", fmt.Sprintf("%s (%s)", localTime(*s.EndedAt, secondLayout), cell(deref(s.EndReason))))
	}
	if s.Cwd != nil {
		line("Cwd", cell(*s.Cwd))
	}
	if s.GitBranch != nil || s.GitRepoRoot != nil {
		git := cell(deref(s.GitBranch))
		if s.GitRepoRoot != nil {
			git += " (" + cell(*s.GitRepoRoot) + ")"
		}
		line("Git", git)
	}
	if s.SessionKey != nil {
		key := cell(*s.SessionKey)
		if deref64(s.ExpiryFinalized) != 0 {
			key += ", expiry finalized"
		}
		line("Gateway", key)
	}
	if chat := chatText(s); chat != "" {
		line("Chat", chat)
	}
	if s.UserID != nil {
		line("User", cell(*s.UserID))
	}
	if s.HandoffState != nil {
		handoff := cell(*s.HandoffState)
		if s.HandoffPlatform != nil {
			handoff += " to " + cell(*s.HandoffPlatform)
		}
		if s.HandoffError != nil {
			handoff += ": " + cell(*s.HandoffError)
		}
		line("Handoff", handoff)
	}
	line("Messages", fmt.Sprintf("%s, %s", plural(s.MessageCount, "message"), plural(s.ToolCallCount, "tool call")))
	if hidden := v.hidden.text(v.shown); hidden != "" {
		line("Hidden", hidden)
	}
	if s.RewindCount != 0 {
		line("Rewinds", formatInt(s.RewindCount))
	}
	tokens := fmt.Sprintf("%s in, %s out", formatInt(s.InputTokens), formatInt(s.OutputTokens))
	tokens += tokenExtras(s.CacheReadTokens, s.CacheWriteTokens, s.ReasoningTokens)
	line("Tokens", tokens)
	// One line a route when the session used more than one (a /model
	// switch): what each got of the totals above.
	for i, u := range v.usage {
		if len(v.usage) < 2 {
			break
		}
		name := ""
		if i == 0 {
			name = "Usage"
		}
		line(name, usageText(u))
	}
	if cost := costText(s.EstimatedCostUSD, s.ActualCostUSD); cost != "" {
		line("Cost", cost)
	}
	if s.CompressionFailureCooldownUntil != nil || s.CompressionFailureError != nil {
		cooldown := "compression failed"
		if s.CompressionFailureError != nil {
			cooldown += ": " + cell(*s.CompressionFailureError)
		}
		if s.CompressionFailureCooldownUntil != nil {
			cooldown += "; no retry before " + localTime(*s.CompressionFailureCooldownUntil, secondLayout)
		}
		line("Cooldown", cooldown)
	}
	if s.CompressionFallbackStreak != 0 {
		line("Fallback", plural(s.CompressionFallbackStreak, "compression fallback")+" in a row")
	}
	return t.write(w)
}

// chatText describes a gateway session's chat: its display name, chat
// type and id, and thread ("Team chat / topic 7: group -1001, thread 7");
// "" when none is set.
func chatText(s *store.Session) string {
	var where []string
	if s.ChatType != nil || s.ChatID != nil {
		where = append(where, strings.TrimSpace(deref(s.ChatType)+" "+deref(s.ChatID)))
	}
	if s.ThreadID != nil {
		where = append(where, "thread "+*s.ThreadID)
	}
	text := strings.Join(where, ", ")
	if s.DisplayName != nil {
		if text == "" {
			return cell(*s.DisplayName)
		}
		return cell(*s.DisplayName + ": " + text)
	}
	if text == "" {
		return ""
	}
	return cell(text)
}

// tokenExtras is ", N cache read, N cache write, N reasoning" for the
// counts that are not 0.
func tokenExtras(cacheRead, cacheWrite, reasoning int64) string {
	var b strings.Builder
	for _, t := range []struct {
		n    int64
		name string
	}{{cacheRead, "cache read"}, {cacheWrite, "cache write"}, {reasoning, "reasoning"}} {
		if t.n != 0 {
			fmt.Fprintf(&b, ", %s %s", formatInt(t.n), t.name)
		}
	}
	return b.String()
}

// usageText describes one route's usage: "beta-2 via prov-b (metered):
// 2 calls, 210 in, 95 out, 50 cache read, $0.0030 estimated" (the costs
// that are not 0).
func usageText(u store.ModelUsage) string {
	text := fmt.Sprintf("%s: %s, %s in, %s out", routeText(u.Model, u.BillingProvider, u.BillingMode), plural(u.APICallCount, "call"),
		formatInt(u.InputTokens), formatInt(u.OutputTokens))
	text += tokenExtras(u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens)
	// A usage row's costs are never NULL: 0 is "none recorded".
	var estimated, actual *float64
	if u.EstimatedCostUSD != 0 {
		estimated = &u.EstimatedCostUSD
	}
	if u.ActualCostUSD != 0 {
		actual = &u.ActualCostUSD
	}
	if cost := costText(estimated, actual); cost != "" {
		text += ", " + cost
	}
	return text
}

// routeText is a model with the billing provider and mode it was billed
// through: "beta-2 via prov-b (metered)"; "-" for no model.
func routeText(model, provider, mode string) string {
	route := cell(model)
	if provider != "" {
		route += " via " + cell(provider)
	}
	if mode != "" {
		route += " (" + cell(mode) + ")"
	}
	return route
}

// costText describes a session's costs, "" when neither is known.
func costText(estimated, actual *float64) string {
	var parts []string
	if estimated != nil {
		parts = append(parts, dollars(*estimated)+" estimated")
	}
	if actual != nil {
		parts = append(parts, dollars(*actual)+" actual")
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
