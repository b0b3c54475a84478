package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	register(
		group{"sessions/create", testCreate},
		group{"sessions/upsert", testUpsert},
		group{"sessions/end", testEnd},
		group{"sessions/update", testSessionUpdates},
		group{"sessions/resolve", testResolve},
	)
}

// fullSession is a NewSession with every field set.
var fullSession = store.NewSession{
	ID: "s1", Source: "telegram", Model: "anthropic/claude", ModelConfig: json.RawMessage(`{"b":[true,null],"a":1.5}`),
	SystemPrompt: "be brief", UserID: "u1", SessionKey: "agent:main:telegram:dm:42",
	ChatID: "42", ChatType: "dm", ThreadID: "t9", Cwd: "/home/u/proj",
}

// fullSessionRow is fullSession as GetSession returns it, created at epoch.
func fullSessionRow() store.Session {
	return store.Session{
		ID: "s1", Source: "telegram", UserID: ptr("u1"), ExpiryFinalized: ptr(int64(0)), SessionKey: ptr("agent:main:telegram:dm:42"),
		ChatID: ptr("42"), ChatType: ptr("dm"), ThreadID: ptr("t9"), Model: ptr("anthropic/claude"),
		ModelConfig:  store.JSONText(`{"b": [true, null], "a": 1.5}`), // json.dumps, keys in their order
		SystemPrompt: ptr("be brief"), StartedAt: at(0), Cwd: ptr("/home/u/proj"),
	}
}

func testCreate(t *testing.T, h Harness) {
	t.Run("EveryField", func(t *testing.T) {
		s, _ := openClocked(t, h)
		id, err := s.CreateSession(t.Context(), fullSession)
		ok(t, err)
		equal(t, "id", id, "s1")
		equal(t, "row", get(t, s, "s1"), fullSessionRow())
	})
	t.Run("EmptyFieldsAreNULL", func(t *testing.T) {
		s, _ := openClocked(t, h)
		for i, cfg := range []string{"", "{}", "[]", "null"} {
			id := fmt.Sprintf("e%d", i)
			create(t, s, store.NewSession{ID: id, Source: "cli", ModelConfig: json.RawMessage(cfg)})
			equal(t, "row with config "+cfg, get(t, s, id), row(id, "cli", at(0)))
		}
	})
	t.Run("Parent", func(t *testing.T) {
		s, _ := openClocked(t, h)
		create(t, s, store.NewSession{ID: "p", Source: "cli"})
		create(t, s, store.NewSession{ID: "c", Source: "cli", ParentSessionID: "p"})
		equal(t, "parent", get(t, s, "c").ParentSessionID, ptr("p"))
	})
	t.Run("Errors", func(t *testing.T) {
		s, _ := openClocked(t, h)
		create(t, s, store.NewSession{ID: "s1", Source: "cli", Model: "first"})
		before := state(t, s)
		for _, c := range []struct {
			name    string
			n       store.NewSession
			targets []error
		}{
			{"Exists", store.NewSession{ID: "s1", Source: "acp", Model: "second"}, []error{store.ErrSessionExists, store.ErrExists}},
			{"NoParent", store.NewSession{ID: "s2", Source: "cli", ParentSessionID: "nope"}, []error{store.ErrParentNotFound, store.ErrNotFound}},
			{"BadJSON", store.NewSession{ID: "s2", Source: "cli", ModelConfig: json.RawMessage(`{"a":`)}, []error{store.ErrInvalidJSON}},
			{"BadText", store.NewSession{ID: "s2", Source: "cli", SystemPrompt: "a\xffb"}, []error{store.ErrInvalidText}},
			{"BadID", store.NewSession{ID: "s\xc3", Source: "cli"}, []error{store.ErrInvalidText}},
		} {
			t.Run(c.name, func(t *testing.T) {
				_, err := s.CreateSession(t.Context(), c.n)
				isErr(t, "CreateSession", err, c.targets...)
				unchanged(t, "CreateSession", s, before)
			})
		}
		_, err := s.CreateSession(t.Context(), store.NewSession{ID: "s2", Source: "cli", ParentSessionID: "nope"})
		notErr(t, "missing parent", err, store.ErrSessionNotFound)
	})
	t.Run("IfAbsent", func(t *testing.T) {
		s, c := openClocked(t, h)
		created, err := s.CreateSessionIfAbsent(t.Context(), store.NewSession{ID: "s1", Source: "cli", Model: "first"})
		ok(t, err)
		equal(t, "first call created", created, true)
		c.Advance(time.Second)
		created, err = s.CreateSessionIfAbsent(t.Context(), store.NewSession{ID: "s1", Source: "acp", Model: "second", Cwd: "/x"})
		ok(t, err)
		equal(t, "second call created", created, false)
		want := row("s1", "cli", at(0))
		want.Model = ptr("first")
		equal(t, "first row wins", get(t, s, "s1"), want)
		before := state(t, s)
		for _, e := range []struct {
			n      store.NewSession
			target error
		}{
			{store.NewSession{ID: "s2", Source: "cli", ParentSessionID: "nope"}, store.ErrParentNotFound},
			{store.NewSession{ID: "s2", Source: "cli", ModelConfig: json.RawMessage(`[`)}, store.ErrInvalidJSON},
			{store.NewSession{ID: "s2", Source: "cli", Cwd: "\xff"}, store.ErrInvalidText},
		} {
			created, err := s.CreateSessionIfAbsent(t.Context(), e.n)
			isErr(t, "CreateSessionIfAbsent", err, e.target)
			equal(t, "created", created, false)
		}
		unchanged(t, "refused creates", s, before)
	})
}

func testUpsert(t *testing.T, h Harness) {
	t.Run("FillsOnlyNULLs", func(t *testing.T) {
		s, c := openClocked(t, h)
		create(t, s, store.NewSession{ID: "p", Source: "cli"})
		created, err := s.UpsertSession(t.Context(), store.NewSession{ID: "s1", Source: "telegram", UserID: "u1", Model: "m1"})
		ok(t, err)
		equal(t, "created", created, true)
		c.Advance(time.Second)
		n := fullSession
		n.ParentSessionID = "p"
		created, err = s.UpsertSession(t.Context(), n)
		ok(t, err)
		equal(t, "created again", created, false)
		want := fullSessionRow()
		want.Model = ptr("m1") // set before: kept
		want.ParentSessionID = ptr("p")
		equal(t, "row", get(t, s, "s1"), want)
	})
	t.Run("Parent", func(t *testing.T) {
		s, _ := openClocked(t, h)
		create(t, s, store.NewSession{ID: "p", Source: "cli"})
		create(t, s, store.NewSession{ID: "c", Source: "cli"})
		before := state(t, s)
		_, err := s.UpsertSession(t.Context(), store.NewSession{ID: "c", Source: "cli", ParentSessionID: "nope"})
		isErr(t, "unknown parent", err, store.ErrParentNotFound)
		unchanged(t, "UpsertSession", s, before)
		_, err = s.UpsertSession(t.Context(), store.NewSession{ID: "c", Source: "cli", ParentSessionID: "p"})
		ok(t, err)
		// A parent already set is kept, and the new one is not checked.
		_, err = s.UpsertSession(t.Context(), store.NewSession{ID: "c", Source: "cli", ParentSessionID: "nope"})
		ok(t, err)
		equal(t, "parent", get(t, s, "c").ParentSessionID, ptr("p"))
		_, err = s.UpsertSession(t.Context(), store.NewSession{ID: "c", Source: "cli", ModelConfig: json.RawMessage("{")})
		isErr(t, "bad config", err, store.ErrInvalidJSON)
	})
	t.Run("EnsureSession", func(t *testing.T) {
		s, c := openClocked(t, h)
		ok(t, s.EnsureSession(t.Context(), "a", "", ""))
		equal(t, "bare", get(t, s, "a"), row("a", "unknown", at(0)))
		c.Advance(time.Second)
		ok(t, s.EnsureSession(t.Context(), "a", "cli", "m1"))
		want := row("a", "unknown", at(0))
		want.Model = ptr("m1")
		equal(t, "model filled", get(t, s, "a"), want)
		ok(t, s.EnsureSession(t.Context(), "a", "cli", "m2"))
		equal(t, "model kept", get(t, s, "a").Model, ptr("m1"))
		ok(t, s.EnsureSession(t.Context(), "b", "cli", "m3"))
		want = row("b", "cli", at(time.Second))
		want.Model = ptr("m3")
		equal(t, "created", get(t, s, "b"), want)
		isErr(t, "bad text", s.EnsureSession(t.Context(), "c", "cli", "\xff"), store.ErrInvalidText)
	})
}

func testEnd(t *testing.T, h Harness) {
	s, c := openClocked(t, h)
	create(t, s, store.NewSession{ID: "s1", Source: "cli"})
	c.Set(epoch.Add(10 * time.Second))
	end(t, s, "s1", "user_exit")
	row := get(t, s, "s1")
	equal(t, "ended", [2]any{row.EndedAt, row.EndReason}, [2]any{ptr(at(10 * time.Second)), ptr("user_exit")})

	c.Set(epoch.Add(20 * time.Second))
	end(t, s, "s1", "compression")
	row = get(t, s, "s1")
	equal(t, "first end wins", [2]any{row.EndedAt, row.EndReason}, [2]any{ptr(at(10 * time.Second)), ptr("user_exit")})

	ok(t, s.ReopenSession(t.Context(), "s1"))
	row = get(t, s, "s1")
	equal(t, "reopened", [2]any{row.EndedAt, row.EndReason}, [2]any{(*store.Timestamp)(nil), (*string)(nil)})
	ok(t, s.ReopenSession(t.Context(), "s1")) // reopening a live session is no error

	end(t, s, "s1", "compression")
	row = get(t, s, "s1")
	equal(t, "ended again", [2]any{row.EndedAt, row.EndReason}, [2]any{ptr(at(20 * time.Second)), ptr("compression")})

	before := state(t, s)
	isErr(t, "EndSession unknown", s.EndSession(t.Context(), "nope", "x"), store.ErrSessionNotFound, store.ErrNotFound)
	isErr(t, "ReopenSession unknown", s.ReopenSession(t.Context(), "nope"), store.ErrSessionNotFound)
	isErr(t, "EndSession bad reason", s.EndSession(t.Context(), "s1", "\xff"), store.ErrInvalidText)
	unchanged(t, "failed ends", s, before)
}

func testSessionUpdates(t *testing.T, h Harness) {
	ctx := t.Context()
	s, _ := openClocked(t, h)
	create(t, s, fullSession)
	want := fullSessionRow()

	ok(t, s.UpdateSystemPrompt(ctx, "s1", "new prompt"))
	want.SystemPrompt = ptr("new prompt")
	equal(t, "UpdateSystemPrompt", get(t, s, "s1"), want)

	ok(t, s.UpdateSessionModel(ctx, "s1", "openai/gpt"))
	want.Model = ptr("openai/gpt") // the prompt is kept
	equal(t, "UpdateSessionModel", get(t, s, "s1"), want)
	ok(t, s.UpdateSessionModel(ctx, "s1", ""))
	want.Model = nil
	equal(t, "UpdateSessionModel empty", get(t, s, "s1"), want)

	ok(t, s.UpdateSessionBillingRoute(ctx, "s1", store.BillingRoute{Provider: "openrouter", BaseURL: "https://o.example/v1", Mode: "api"}))
	want.BillingProvider, want.BillingBaseURL, want.BillingMode = ptr("openrouter"), ptr("https://o.example/v1"), ptr("api")
	want.SystemPrompt = nil // stale after a switch
	equal(t, "UpdateSessionBillingRoute", get(t, s, "s1"), want)
	ok(t, s.UpdateSessionBillingRoute(ctx, "s1", store.BillingRoute{Provider: "anthropic"}))
	want.BillingProvider, want.BillingBaseURL = ptr("anthropic"), nil // mode kept
	equal(t, "UpdateSessionBillingRoute without mode", get(t, s, "s1"), want)

	ok(t, s.UpdateSessionMeta(ctx, "s1", json.RawMessage(`{"z":"\u00e9","y":[]}`), "m9"))
	want.ModelConfig, want.Model = store.JSONText(`{"z": "\u00e9", "y": []}`), ptr("m9")
	equal(t, "UpdateSessionMeta", get(t, s, "s1"), want)
	ok(t, s.UpdateSessionMeta(ctx, "s1", json.RawMessage(`{}`), ""))
	want.ModelConfig = store.JSONText(`{}`) // "{}" stays; the model is kept
	equal(t, "UpdateSessionMeta {}", get(t, s, "s1"), want)
	ok(t, s.UpdateSessionMeta(ctx, "s1", json.RawMessage(`null`), ""))
	want.ModelConfig = store.JSONText(`null`) // json.dumps(None), as upstream stores it
	equal(t, "UpdateSessionMeta null", get(t, s, "s1"), want)
	ok(t, s.UpdateSessionMeta(ctx, "s1", nil, ""))
	want.ModelConfig = nil
	equal(t, "UpdateSessionMeta nil", get(t, s, "s1"), want)

	before := state(t, s)
	for _, c := range []struct {
		name    string
		err     error
		targets []error
	}{
		{"UpdateSystemPrompt unknown", s.UpdateSystemPrompt(ctx, "nope", "p"), []error{store.ErrSessionNotFound}},
		{"UpdateSystemPrompt bad text", s.UpdateSystemPrompt(ctx, "s1", "\xff"), []error{store.ErrInvalidText}},
		{"UpdateSessionModel unknown", s.UpdateSessionModel(ctx, "nope", "m"), []error{store.ErrSessionNotFound}},
		{"UpdateSessionModel bad text", s.UpdateSessionModel(ctx, "s1", "\xff"), []error{store.ErrInvalidText}},
		{"UpdateSessionBillingRoute unknown", s.UpdateSessionBillingRoute(ctx, "nope", store.BillingRoute{Provider: "p"}), []error{store.ErrSessionNotFound}},
		{"UpdateSessionBillingRoute bad text", s.UpdateSessionBillingRoute(ctx, "s1", store.BillingRoute{BaseURL: "\xff"}), []error{store.ErrInvalidText}},
		{"UpdateSessionMeta unknown", s.UpdateSessionMeta(ctx, "nope", json.RawMessage(`{}`), ""), []error{store.ErrSessionNotFound}},
		{"UpdateSessionMeta bad JSON", s.UpdateSessionMeta(ctx, "s1", json.RawMessage(`{"a"}`), ""), []error{store.ErrInvalidJSON}},
		{"UpdateSessionMeta empty JSON", s.UpdateSessionMeta(ctx, "s1", json.RawMessage{}, ""), []error{store.ErrInvalidJSON}},
		{"UpdateSessionMeta bad text", s.UpdateSessionMeta(ctx, "s1", nil, "\xff"), []error{store.ErrInvalidText}},
	} {
		isErr(t, c.name, c.err, c.targets...)
	}
	unchanged(t, "failed updates", s, before)

	_, err := s.GetSession(ctx, "nope")
	isErr(t, "GetSession unknown", err, store.ErrNotFound)
	notErr(t, "GetSession unknown", err, store.ErrSessionNotFound)
}

func testResolve(t *testing.T, h Harness) {
	ctx := t.Context()
	s, c := openClocked(t, h)
	for _, id := range []string{"abc-1", "abc-2", "abd", "x%y", "x_z", "ab", "élan"} {
		create(t, s, store.NewSession{ID: id, Source: "cli"})
		c.Advance(time.Second)
	}
	for _, r := range []struct{ in, want string }{
		{"abd", "abd"},     // exact
		{"abc-1", "abc-1"}, // exact
		{"ab", "ab"},       // exact wins over the sessions it prefixes
		{"abc-2", "abc-2"},
		{"ABD", "abd"},   // ASCII case-insensitive prefix
		{"x%", "x%y"},    // % literal
		{"x_", "x_z"},    // _ literal
		{"abc-", "abc-"}, // placeholder, replaced below
	} {
		if r.in == "abc-" {
			continue
		}
		got, err := s.ResolveSessionID(ctx, r.in)
		ok(t, err)
		equal(t, "ResolveSessionID("+r.in+")", got, r.want)
	}
	for _, in := range []string{"zz", "abc-3", "%", "_", "ab-", "ÉL"} { // only ASCII letters fold
		_, err := s.ResolveSessionID(ctx, in)
		isErr(t, "ResolveSessionID("+in+")", err, store.ErrNotFound)
		notErr(t, "ResolveSessionID("+in+")", err, store.ErrAmbiguous)
	}

	_, err := s.ResolveSessionID(ctx, "abc")
	var amb *store.AmbiguousError
	if !errors.As(err, &amb) {
		t.Fatalf("ResolveSessionID(abc): %v, want an *AmbiguousError", err)
	}
	isErr(t, "ambiguous", err, store.ErrAmbiguous)
	notErr(t, "ambiguous", err, store.ErrNotFound)
	equal(t, "prefix", amb.Prefix, "abc")
	equal(t, "candidates newest first", ids(amb.Candidates, func(s store.Session) string { return s.ID }), []string{"abc-2", "abc-1"})
	equal(t, "candidate row", amb.Candidates[1], row("abc-1", "cli", at(0)))
	equal(t, "more", amb.More, false)
	equal(t, "message", amb.Error(), "ambiguous session id prefix: matches 2 sessions")

	for i := range store.MaxAmbiguousCandidates + 1 {
		create(t, s, store.NewSession{ID: fmt.Sprintf("many-%02d", i), Source: "cli"})
		c.Advance(time.Second)
	}
	_, err = s.ResolveSessionID(ctx, "many")
	if !errors.As(err, &amb) {
		t.Fatalf("ResolveSessionID(many): %v, want an *AmbiguousError", err)
	}
	equal(t, "candidates", len(amb.Candidates), store.MaxAmbiguousCandidates)
	equal(t, "newest", amb.Candidates[0].ID, "many-20")
	equal(t, "more", amb.More, true)
	equal(t, "message", amb.Error(), "ambiguous session id prefix: matches 21 or more sessions")
}
