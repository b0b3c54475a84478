package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	register(
		group{"errors/closed", testClosed},
		group{"errors/nul", testNULInText},
		group{"errors/canceled", testCanceled},
	)
}

func testClosed(t *testing.T, h Harness) {
	ctx := t.Context()
	s := h.Open(t)
	create(t, s, cli("a"))
	say(t, s, "a", "user", "x")
	ok(t, s.Close())
	ok(t, s.Close()) // a second Close is no error
	noop := func(store.Message) error { return nil }
	for name, call := range map[string]func() error{
		"CreateSession":             func() error { _, err := s.CreateSession(ctx, cli("b")); return err },
		"CreateSessionIfAbsent":     func() error { _, err := s.CreateSessionIfAbsent(ctx, cli("b")); return err },
		"UpsertSession":             func() error { _, err := s.UpsertSession(ctx, cli("b")); return err },
		"EnsureSession":             func() error { return s.EnsureSession(ctx, "b", "cli", "") },
		"EndSession":                func() error { return s.EndSession(ctx, "a", "x") },
		"ReopenSession":             func() error { return s.ReopenSession(ctx, "a") },
		"UpdateSystemPrompt":        func() error { return s.UpdateSystemPrompt(ctx, "a", "p") },
		"GetSession":                func() error { _, err := s.GetSession(ctx, "a"); return err },
		"ResolveSessionID":          func() error { _, err := s.ResolveSessionID(ctx, "a"); return err },
		"UpdateSessionModel":        func() error { return s.UpdateSessionModel(ctx, "a", "m") },
		"UpdateSessionBillingRoute": func() error { return s.UpdateSessionBillingRoute(ctx, "a", store.BillingRoute{}) },
		"UpdateSessionMeta":         func() error { return s.UpdateSessionMeta(ctx, "a", nil, "") },
		"SetSessionTitle":           func() error { return s.SetSessionTitle(ctx, "a", "t") },
		"SessionTitle":              func() error { _, err := s.SessionTitle(ctx, "a"); return err },
		"SessionByTitle":            func() error { _, err := s.SessionByTitle(ctx, "t"); return err },
		"ResolveSessionByTitle":     func() error { _, err := s.ResolveSessionByTitle(ctx, "t"); return err },
		"NextTitleInLineage":        func() error { _, err := s.NextTitleInLineage(ctx, "t"); return err },
		"UpdateTokenCounts":         func() error { return s.UpdateTokenCounts(ctx, "a", store.TokenUpdate{InputTokens: 1}) },
		"ModelUsage":                func() error { _, err := s.ModelUsage(ctx, "a"); return err },
		"UsageByModel":              func() error { _, err := s.UsageByModel(ctx, store.UsageOptions{}); return err },
		"AppendMessage":             func() error { _, err := s.AppendMessage(ctx, "a", store.NewMessage{Role: "user"}); return err },
		"ReplaceMessages":           func() error { return s.ReplaceMessages(ctx, "a", nil) },
		"ReplaceActiveMessages":     func() error { return s.ReplaceActiveMessages(ctx, "a", nil) },
		"ClearMessages":             func() error { return s.ClearMessages(ctx, "a") },
		"GetMessages":               func() error { _, err := s.GetMessages(ctx, "a"); return err },
		"GetMessagesWith":           func() error { _, err := s.GetMessagesWith(ctx, "a", store.MessageOptions{}); return err },
		"EachMessage":               func() error { return s.EachMessage(ctx, "a", noop) },
		"MessageCount":              func() error { _, err := s.MessageCount(ctx, ""); return err },
		"HasPlatformMessageID":      func() error { _, err := s.HasPlatformMessageID(ctx, "a", "p"); return err },
		"Conversation":              func() error { _, err := s.Conversation(ctx, "a", true); return err },
		"ConversationWith":          func() error { _, err := s.ConversationWith(ctx, "a", store.ConversationOptions{}); return err },
		"CompressionTip":            func() error { _, err := s.CompressionTip(ctx, "a"); return err },
		"ResolveResumeSessionID":    func() error { _, err := s.ResolveResumeSessionID(ctx, "a"); return err },
		"CompressionLineage":        func() error { _, err := s.CompressionLineage(ctx, "a"); return err },
		"Lineage":                   func() error { _, err := s.Lineage(ctx, "a"); return err },
		"Ancestors":                 func() error { _, err := s.Ancestors(ctx, "a"); return err },
		"Descendants":               func() error { _, err := s.Descendants(ctx, "a"); return err },
		"ListSessionsRich":          func() error { _, err := s.ListSessionsRich(ctx, store.ListOptions{}); return err },
		"SearchSessions":            func() error { _, err := s.SearchSessions(ctx, "", 0, 0); return err },
		"SessionCount":              func() error { _, err := s.SessionCount(ctx, ""); return err },
		"CountSessions":             func() error { _, err := s.CountSessions(ctx, store.CountOptions{}); return err },
		"ExportSession":             func() error { _, err := s.ExportSession(ctx, "a"); return err },
		"ExportAll":                 func() error { _, err := s.ExportAll(ctx, ""); return err },
		"ExportJSONL":               func() error { _, err := s.ExportJSONL(ctx, io.Discard, store.ExportOptions{}); return err },
		"ExportCount":               func() error { _, err := s.ExportCount(ctx, store.ExportOptions{}); return err },
		"ImportJSONL": func() error {
			_, err := s.ImportJSONL(ctx, strings.NewReader(`{"id":"b","source":"cli","started_at":1.0,"messages":[]}`), store.ImportOptions{})
			return err
		},
	} {
		isErr(t, name, call(), store.ErrClosed)
	}
}

// testNULInText writes text holding U+0000 through every kind of write:
// SQLite (Caps.NULInText) stores and returns it; PostgreSQL refuses it
// with ErrInvalidText and writes nothing.
func testNULInText(t *testing.T, h Harness) {
	ctx := t.Context()
	const nul = "a\x00b"
	s, _ := openClocked(t, h)
	create(t, s, cli("s"))
	for _, c := range []struct {
		name  string
		write func() error
		read  func() string
	}{
		{"CreateSession", func() error {
			_, err := s.CreateSession(ctx, store.NewSession{ID: "n", Source: "cli", SystemPrompt: nul})
			return err
		},
			func() string { return *get(t, s, "n").SystemPrompt }},
		{"SessionID", func() error { _, err := s.CreateSession(ctx, cli(nul)); return err },
			func() string { return get(t, s, nul).ID }},
		{"UpdateSessionModel", func() error { return s.UpdateSessionModel(ctx, "s", nul) },
			func() string { return *get(t, s, "s").Model }},
		{"EndSession", func() error { return s.EndSession(ctx, "s", nul) },
			func() string { return *get(t, s, "s").EndReason }},
		{"AppendMessage", func() error {
			_, err := s.AppendMessage(ctx, "s", store.NewMessage{Role: "user", Content: ptr(nul)})
			return err
		},
			func() string {
				msgs, err := s.GetMessages(ctx, "s")
				ok(t, err)
				return *msgs[len(msgs)-1].Content
			}},
		{"UpdateTokenCounts", func() error {
			return s.UpdateTokenCounts(ctx, "s", store.TokenUpdate{InputTokens: 1, CostSource: nul})
		}, func() string { return *get(t, s, "s").CostSource }},
		{"ImportJSONL", func() error {
			line, _ := json.Marshal(map[string]any{"id": "imp", "source": "cli", "started_at": 1.0, "title": nul, "messages": []any{}})
			_, err := s.ImportJSONL(ctx, bytes.NewReader(line), store.ImportOptions{})
			return err
		}, func() string { return *get(t, s, "imp").Title }},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := state(t, s)
			err := c.write()
			if !h.Caps.NULInText {
				isErr(t, "write", err, store.ErrInvalidText)
				unchanged(t, "a refused NUL", s, before)
				return
			}
			ok(t, err)
			equal(t, "read back", c.read(), nul)
		})
	}
}

// testCanceled calls methods with a context that has ended: each returns
// an error matching context.Canceled, and no write happens.
func testCanceled(t *testing.T, h Harness) {
	s, _ := openClocked(t, h)
	create(t, s, cli("a"))
	say(t, s, "a", "user", "x")
	before := state(t, s)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for name, call := range map[string]func() error{
		"CreateSession":     func() error { _, err := s.CreateSession(ctx, cli("b")); return err },
		"AppendMessage":     func() error { _, err := s.AppendMessage(ctx, "a", store.NewMessage{Role: "user"}); return err },
		"ReplaceMessages":   func() error { return s.ReplaceMessages(ctx, "a", nil) },
		"UpdateTokenCounts": func() error { return s.UpdateTokenCounts(ctx, "a", store.TokenUpdate{InputTokens: 1}) },
		"SetSessionTitle":   func() error { return s.SetSessionTitle(ctx, "a", "t") },
		"ImportJSONL": func() error {
			_, err := s.ImportJSONL(ctx, strings.NewReader(`{"id":"b","source":"cli","started_at":1.0,"messages":[]}`), store.ImportOptions{})
			return err
		},
		"GetSession":       func() error { _, err := s.GetSession(ctx, "a"); return err },
		"GetMessages":      func() error { _, err := s.GetMessages(ctx, "a"); return err },
		"ListSessionsRich": func() error { _, err := s.ListSessionsRich(ctx, store.ListOptions{}); return err },
		"ListByQuery":      func() error { _, err := s.ListSessionsRich(ctx, store.ListOptions{SearchQuery: "a"}); return err },
		"Conversation":     func() error { _, err := s.Conversation(ctx, "a", true); return err },
		"ExportJSONL":      func() error { _, err := s.ExportJSONL(ctx, io.Discard, store.ExportOptions{}); return err },
	} {
		isErr(t, name, call(), context.Canceled)
	}
	unchanged(t, "calls with an ended context", s, before)
}
