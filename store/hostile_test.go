package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// hostileStrings are values that are code in one of the languages the
// store speaks (SQL, LIKE patterns, FTS5 queries, JSON, Go's %q), or bytes
// that end strings in C. Stored as ids, titles, sources, roles, models and
// contents, each must come back exactly as written.
var hostileStrings = []string{
	`'); DROP TABLE sessions;--`,
	`" OR 1=1 --`,
	`' OR '1'='1`,
	`x'); DELETE FROM messages WHERE ('1'='1`,
	`%`, `_`, `\`, `%%`, `a%b_c\d`, `\%`, `100%_`,
	`"`, `""`, `*`, `NEAR(`, `NEAR(a b, 1)`, `^`, `:`, `content:`, `content:x`, `-x`, `a OR b`, `(`, `)`, `{a b}:c`, `+`,
	"\x00", "a\x00b", "\x00'); DROP TABLE messages;--",
	`[1, {"a": "b"}]`, `\u0000`, `%s%d%q`,
	"🙂", "\u202e\u200b", "通信", "记忆断裂", " ", "\t\n",
}

// TestHostileTextIsData: every hostile string, used as a session's id,
// source, model, user id, system prompt and title, and as a message's
// role, content, tool name, tool call id and finish reason, reads back
// exactly, filters exactly (a source or role filter keeps that one row, a
// prefix lookup treats % _ \ literally) and leaves the schema and the
// indexes intact.
func TestHostileTextIsData(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, _ := openStore(t, &Options{Now: stepClock(time.Unix(1_700_000_000, 0), time.Millisecond)})
	schemaBefore := schemaRows(t, s.r)
	titles := map[string]string{} // sanitised title → the session holding it

	for _, h := range hostileStrings {
		mustCreate(t, s, NewSession{ID: h, Source: h, Model: h, UserID: h, SystemPrompt: h})
		content := "canary " + h
		mustAppend(t, s, h, NewMessage{Role: h, Content: &content, ToolName: h, ToolCallID: h, FinishReason: h})
		if err := s.UpdateTokenCounts(ctx, h, TokenUpdate{InputTokens: 1, Model: h, BillingProvider: h}); err != nil {
			t.Fatalf("UpdateTokenCounts(%q): %v", h, err)
		}

		clean, err := SanitizeTitle(h)
		if err != nil {
			t.Fatalf("SanitizeTitle(%q): %v", h, err)
		}
		err = s.SetSessionTitle(ctx, h, h)
		if owner, taken := titles[clean]; taken && clean != "" {
			var inUse *TitleInUseError
			if !errors.As(err, &inUse) || inUse.SessionID != owner {
				t.Errorf("SetSessionTitle(%q) = %v; want the title in use by %q", h, err, owner)
			}
			clean = "" // the title stayed unset
		} else if err != nil {
			t.Fatalf("SetSessionTitle(%q): %v", h, err)
		} else if clean != "" {
			titles[clean] = h
		}

		sess := mustSession(t, s, h)
		wantTitle := nullable(clean)
		got := []any{sess.ID, sess.Source, sess.Model, sess.UserID, sess.SystemPrompt, sess.Title, sess.BillingProvider}
		want := []any{h, h, &h, &h, &h, wantTitle, &h}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("GetSession(%q) id, source, model, user id, prompt, title, billing provider (-want +got):\n%s", h, diff)
		}
		msgs, err := s.GetMessages(ctx, h)
		if err != nil || len(msgs) != 1 {
			t.Fatalf("GetMessages(%q) = %d messages, %v", h, len(msgs), err)
		}
		m := msgs[0]
		if diff := cmp.Diff([]any{h, &content, &h, &h, &h}, []any{m.Role, m.Content, m.ToolName, m.ToolCallID, m.FinishReason}); diff != "" {
			t.Errorf("GetMessages(%q) role, content, tool name, tool call id, finish reason (-want +got):\n%s", h, diff)
		}
		conv, err := s.Conversation(ctx, h, true)
		if diff := cmp.Diff([]ConversationMessage{{Role: h, Content: &content, Timestamp: m.Timestamp, ToolCallID: h, ToolName: h}}, conv); err != nil || diff != "" {
			t.Errorf("Conversation(%q) err %v (-want +got):\n%s", h, err, diff)
		}
		checkHostileLookups(t, s, h, clean)
	}

	n := int64(len(hostileStrings))
	if got, err := s.SessionCount(ctx, ""); err != nil || got != n {
		t.Errorf("SessionCount = %d, %v; want %d", got, err, n)
	}
	if got, err := s.MessageCount(ctx, ""); err != nil || got != n {
		t.Errorf("MessageCount = %d, %v; want %d", got, err, n)
	}
	// The prefix lookup is literal: no id starts with the two characters %_.
	if got, err := s.ResolveSessionID(ctx, `%_`); !errors.Is(err, ErrNotFound) || errors.Is(err, ErrAmbiguous) {
		t.Errorf(`ResolveSessionID("%%_") = %q, %v; want ErrNotFound, not ambiguous`, got, err)
	}
	checkExportedIDs(t, s, hostileStrings)
	checkIntact(t, s, schemaBefore)
}

// checkHostileLookups checks the lookups that take h as a key or a filter
// on the store TestHostileTextIsData fills: each finds exactly session h.
func checkHostileLookups(t *testing.T, s *Store, h, title string) {
	t.Helper()
	ctx := t.Context()
	if got, err := s.ResolveSessionID(ctx, h); err != nil || got != h {
		t.Errorf("ResolveSessionID(%q) = %q, %v", h, got, err)
	}
	if got, err := s.Lineage(ctx, h); err != nil || !slices.Equal(got, []string{h}) {
		t.Errorf("Lineage(%q) = %q, %v", h, got, err)
	}
	if got, err := s.SessionCount(ctx, h); err != nil || got != 1 {
		t.Errorf("SessionCount(%q) = %d, %v; want 1", h, got, err)
	}
	rich, err := s.ListSessionsRich(ctx, ListOptions{Source: h})
	if ids := richIDs(rich); err != nil || !slices.Equal(ids, []string{h}) {
		t.Errorf("ListSessionsRich(source %q) = %q, %v", h, ids, err)
	}
	for name, opts := range map[string]SearchOptions{"sources": {Sources: []string{h}}, "roles": {Roles: []string{h}}} {
		res, err := s.SearchMessages(ctx, "canary", opts)
		if ids := srchSessionIDs(res); err != nil || !slices.Equal(ids, []string{h}) {
			t.Errorf("SearchMessages(canary, %s [%q]) sessions = %q, %v", name, h, ids, err)
		}
	}
	if title == "" {
		return
	}
	if sess, err := s.SessionByTitle(ctx, title); err != nil || sess.ID != h {
		t.Errorf("SessionByTitle(%q) = %v, %v; want %q", title, sess, err, h)
	}
	if got, err := s.ResolveSessionByTitle(ctx, title); err != nil || got != h {
		t.Errorf("ResolveSessionByTitle(%q) = %q, %v; want %q", title, got, err, h)
	}
	if got, err := s.NextTitleInLineage(ctx, title); err != nil || got != title+" #2" {
		t.Errorf("NextTitleInLineage(%q) = %q, %v; want %q", title, got, err, title+" #2")
	}
}

// checkExportedIDs checks that ExportJSONL writes one JSON line per
// session and the ids decode to exactly ids.
func checkExportedIDs(t *testing.T, s *Store, ids []string) {
	t.Helper()
	var buf bytes.Buffer
	n, err := s.ExportJSONL(t.Context(), &buf, ExportOptions{})
	if err != nil || n != len(ids) {
		t.Fatalf("ExportJSONL = %d, %v; want %d sessions", n, err, len(ids))
	}
	var got []string
	for line := range strings.Lines(buf.String()) {
		var e SessionExport
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("export line %q: %v", line, err)
		}
		got = append(got, e.ID)
	}
	if diff := cmp.Diff(srchSet(ids), srchSet(got)); diff != "" {
		t.Errorf("exported ids (-want +got):\n%s", diff)
	}
}

// checkIntact fails t unless the file passes integrity_check, both FTS
// indexes agree with their content, and the schema is still schemaBefore.
func checkIntact(t *testing.T, s *Store, schemaBefore []string) {
	t.Helper()
	if got := dbtest.Values[string](t, s.r, "PRAGMA integrity_check"); !slices.Equal(got, []string{"ok"}) {
		t.Errorf("integrity_check = %q", got)
	}
	// Hand-written: FTS5's own check of an index against its content.
	execSQL(t, s, "INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')")
	execSQL(t, s, "INSERT INTO messages_fts_trigram(messages_fts_trigram) VALUES ('integrity-check')")
	if diff := cmp.Diff(schemaBefore, schemaRows(t, s.r)); diff != "" {
		t.Errorf("schema changed (-before +after):\n%s", diff)
	}
}

// TestHostileQueries: search queries made of SQL, LIKE wildcards, FTS5
// syntax and NUL bytes are searched as text: no error, and exactly the
// messages that hold the literal text (as literally as each index reads
// text) are found. A 1 MB single-token message and query, and queries of
// 10,000 terms, work the same way; a query the index makes slow is
// stopped by the caller's context. The file is intact afterwards.
func TestHostileQueries(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, _ := openStore(t, &Options{Now: stepClock(time.Unix(1_700_000_000, 0), time.Millisecond)})
	schemaBefore := schemaRows(t, s.r)
	mustCreate(t, s, NewSession{ID: "q", Source: "cli"})
	say := func(text string) int64 { return mustAppend(t, s, "q", NewMessage{Role: "user", Content: &text}) }

	drop := say("please don't '); DROP TABLE sessions;-- me")
	orOne := say(`he typed " OR 1=1 -- into the login form`)
	percent := say("100% done")
	plain := say("100 done")
	cjkPercent, _ := say("通%信"), say("通信")
	cjkUnderscore, cjkBackslash := say("通_信"), say(`通\信`)
	near := say("NEAR( is FTS5 syntax")
	colon := say("content: colon")
	nul := say("null\x00byte here")

	cases := []struct {
		query string
		want  []int64
	}{
		{`'); DROP TABLE sessions;--`, []int64{drop}},
		{`" OR 1=1 --`, []int64{orOne}},
		{`100%`, []int64{percent, plain}}, // % is no token of the word index
		{`通%`, []int64{cjkPercent}},       // the LIKE scan reads % literally
		{`通_`, []int64{cjkUnderscore}},
		{`通\`, []int64{cjkBackslash}},
		{`NEAR(`, []int64{near}},
		{`content:colon`, []int64{colon}},
		{"null\x00byte", []int64{nul}},
		{`content:`, []int64{colon}}, // no filter left: the word itself
		{`%`, nil}, {`_`, nil}, {`\`, nil}, {`^`, nil}, {`:`, nil}, {`*`, nil}, {`"`, nil},
		{"\x00", nil}, {"\xff\xfe", nil}, {`secret:x`, nil}, {`{a b}:c`, nil},
	}
	for _, c := range cases {
		res, err := s.SearchMessages(ctx, c.query, SearchOptions{Limit: 100})
		if err != nil {
			t.Errorf("SearchMessages(%q): %v", c.query, err)
			continue
		}
		if diff := cmp.Diff(srchSet64(c.want), srchSet64(srchIDs(res))); diff != "" {
			t.Errorf("SearchMessages(%q) ids (-want +got):\n%s", c.query, diff)
		}
	}
	checkIntact(t, s, schemaBefore)
}

// srchSet64 sorts ids, nil for none.
func srchSet64(ids []int64) []int64 {
	if len(ids) == 0 {
		return nil
	}
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}
