package store

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLongIDsAndTitles: ids, prefixes and titles longer than SQLite's LIKE
// pattern limit (50,000 bytes) get typed answers from every method that
// resolves them, never SQLite's "LIKE or GLOB pattern too complex": no such
// session, or the exact match when one exists. A prefix that long names
// only the session with exactly that id.
func TestLongIDsAndTitles(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, _ := openStore(t, quick(nil))
	long := strings.Repeat("x", maxLikePattern+10_000)
	wild := strings.Repeat("%_", maxLikePattern/3) // under the limit as text, over it escaped
	stored := long + "-stored"
	mustCreate(t, s, NewSession{ID: stored, Source: "cli"})
	mustAppend(t, s, stored, NewMessage{Role: "user", Content: new("hello")})
	importText(t, s, jsonLines(t, sess("titled", "", long, 5)), ImportOptions{}) // the importer keeps a title as exported

	notFound := func(name string, err error, want error) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Errorf("%s = %v; want %v", name, err, want)
		}
	}
	for _, id := range []string{long, wild} {
		_, err := s.GetSession(ctx, id)
		notFound("GetSession", err, ErrNotFound)
		_, err = s.ResolveSessionID(ctx, id)
		notFound("ResolveSessionID", err, ErrNotFound)
		_, err = s.SessionTitle(ctx, id)
		notFound("SessionTitle", err, ErrSessionNotFound)
		_, err = s.ExportSession(ctx, id)
		notFound("ExportSession", err, ErrNotFound)
		_, err = s.ExportJSONL(ctx, &strings.Builder{}, ExportOptions{IDs: []string{id}})
		notFound("ExportJSONL", err, ErrSessionNotFound)
		_, err = s.AppendMessage(ctx, id, NewMessage{Role: "user", Content: new("x")})
		notFound("AppendMessage", err, ErrSessionNotFound)
		notFound("EndSession", s.EndSession(ctx, id, "done"), ErrSessionNotFound)
		notFound("ReopenSession", s.ReopenSession(ctx, id), ErrSessionNotFound)
		notFound("UpdateSystemPrompt", s.UpdateSystemPrompt(ctx, id, "p"), ErrSessionNotFound)
		notFound("UpdateSessionModel", s.UpdateSessionModel(ctx, id, "m"), ErrSessionNotFound)
		notFound("SetSessionTitle", s.SetSessionTitle(ctx, id, "t"), ErrSessionNotFound)
		notFound("ReplaceMessages", s.ReplaceMessages(ctx, id, nil), ErrSessionNotFound)
		notFound("ClearMessages", s.ClearMessages(ctx, id), ErrSessionNotFound)
		notFound("DeleteSession", s.DeleteSession(ctx, id, ""), ErrSessionNotFound)
		notFound("SetSessionTitle(long title)", s.SetSessionTitle(ctx, stored, id), ErrTitleTooLong)
		_, err = s.SessionByTitle(ctx, id+"!")
		notFound("SessionByTitle", err, ErrNotFound)
		_, err = s.ResolveSessionByTitle(ctx, id+"!")
		notFound("ResolveSessionByTitle", err, ErrNotFound)

		var got []any
		for _, call := range []func() (any, error){
			func() (any, error) { return s.NextTitleInLineage(ctx, id+"!") },
			func() (any, error) { return s.CompressionTip(ctx, id) },
			func() (any, error) { return s.ResolveResumeSessionID(ctx, id) },
			func() (any, error) { return s.Lineage(ctx, id) },
			func() (any, error) { return s.Ancestors(ctx, id) },
			func() (any, error) { return s.Descendants(ctx, id) },
			func() (any, error) { return s.GetMessages(ctx, id) },
			func() (any, error) { return s.Conversation(ctx, id, true) },
			func() (any, error) { return s.MessageCount(ctx, id) },
		} {
			v, err := call()
			if err != nil {
				t.Errorf("call %d on a long id: %v", len(got), err)
			}
			got = append(got, v)
		}
		want := []any{id + "!", id, id, []string{id}, []LineageNode{}, []LineageNode{}, []Message{}, []ConversationMessage{}, int64(0)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("reads of a long id (-want +got):\n%s", diff)
		}
	}

	// The stored long id and title are found exactly; a long prefix of
	// the id names nothing.
	if got, err := s.ResolveSessionID(ctx, stored); err != nil || got != stored {
		t.Errorf("ResolveSessionID(the stored long id) = %d bytes, %v", len(got), err)
	}
	if _, err := s.ResolveSessionID(ctx, long); !errors.Is(err, ErrNotFound) {
		t.Errorf("ResolveSessionID(a long prefix of it) = %v, want ErrNotFound", err)
	}
	if got, err := s.ResolveSessionByTitle(ctx, long); err != nil || got != "titled" {
		t.Errorf("ResolveSessionByTitle(the stored long title) = %q, %v; want titled", got, err)
	}
	if got, err := s.NextTitleInLineage(ctx, long); err != nil || got != long+" #2" {
		t.Errorf("NextTitleInLineage(the stored long title) = %d bytes, %v; want it and \" #2\"", len(got), err)
	}
	if msgs, err := s.GetMessages(ctx, stored); err != nil || len(msgs) != 1 {
		t.Errorf("GetMessages(the stored long id) = %d messages, %v", len(msgs), err)
	}
}
