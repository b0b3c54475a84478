package storetest

import (
	"encoding/json"
	"testing"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	groups = append(groups, group{"SessionMetaUpdates", bSessionMetaUpdates})
}

// bSessionMetaUpdates checks UpdateSessionModel, UpdateSessionBillingRoute
// and UpdateSessionMeta, field by field, and their refusals.
func bSessionMetaUpdates(t *testing.T, h Harness) {
	s := h.Open(t)
	ctx := t.Context()
	bCreate(t, s, "m", "cli", func(n *store.NewSession) {
		n.Model, n.SystemPrompt = "first", "You are Model: first"
		n.ModelConfig = json.RawMessage(`{"temperature":0.5}`)
	})
	type fields struct {
		Model, SystemPrompt                          *string
		ModelConfig                                  string
		BillingProvider, BillingBaseURL, BillingMode *string
	}
	str := func(v string) *string { return &v }
	of := func() fields {
		sess := bGet(t, s, "m")
		return fields{sess.Model, sess.SystemPrompt, string(sess.ModelConfig), sess.BillingProvider, sess.BillingBaseURL, sess.BillingMode}
	}
	bEq(t, "created", of(), fields{str("first"), str("You are Model: first"), `{"temperature": 0.5}`, nil, nil, nil})
	for _, st := range []struct {
		name string
		call func() error
		want fields
	}{
		{"Model", func() error { return s.UpdateSessionModel(ctx, "m", "second") },
			fields{str("second"), str("You are Model: first"), `{"temperature": 0.5}`, nil, nil, nil}},
		{"ModelCleared", func() error { return s.UpdateSessionModel(ctx, "m", "") },
			fields{nil, str("You are Model: first"), `{"temperature": 0.5}`, nil, nil, nil}},
		{"Billing", func() error {
			return s.UpdateSessionBillingRoute(ctx, "m", store.BillingRoute{Provider: "openrouter", BaseURL: "https://x", Mode: "api"})
		}, fields{nil, nil, `{"temperature": 0.5}`, str("openrouter"), str("https://x"), str("api")}},
		{"BillingKeepsMode", func() error {
			return s.UpdateSessionBillingRoute(ctx, "m", store.BillingRoute{Provider: "anthropic"})
		}, fields{nil, nil, `{"temperature": 0.5}`, str("anthropic"), nil, str("api")}},
		{"Meta", func() error { return s.UpdateSessionMeta(ctx, "m", json.RawMessage(`{"b":[1,"é"]}`), "third") },
			fields{str("third"), nil, `{"b": [1, "\u00e9"]}`, str("anthropic"), nil, str("api")}},
		{"MetaEmptyObjectKeptModelKept", func() error { return s.UpdateSessionMeta(ctx, "m", json.RawMessage(`{}`), "") },
			fields{str("third"), nil, `{}`, str("anthropic"), nil, str("api")}},
		{"MetaNilIsNull", func() error { return s.UpdateSessionMeta(ctx, "m", nil, "") },
			fields{str("third"), nil, ``, str("anthropic"), nil, str("api")}},
	} {
		bErr(t, st.name, st.call(), nil)
		bEq(t, st.name, of(), st.want)
	}
	before := of()
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"ModelUnknown", s.UpdateSessionModel(ctx, "nope", "x"), store.ErrSessionNotFound},
		{"ModelBadText", s.UpdateSessionModel(ctx, "m", bBadUTF8), store.ErrInvalidText},
		{"BillingUnknown", s.UpdateSessionBillingRoute(ctx, "nope", store.BillingRoute{}), store.ErrSessionNotFound},
		{"BillingBadText", s.UpdateSessionBillingRoute(ctx, "m", store.BillingRoute{Mode: bBadUTF8}), store.ErrInvalidText},
		{"MetaUnknown", s.UpdateSessionMeta(ctx, "nope", nil, "x"), store.ErrSessionNotFound},
		{"MetaBadJSON", s.UpdateSessionMeta(ctx, "m", json.RawMessage(`{"a":`), "x"), store.ErrInvalidJSON},
		{"MetaBadText", s.UpdateSessionMeta(ctx, "m", nil, bBadUTF8), store.ErrInvalidText},
	} {
		bErr(t, tc.name, tc.err, tc.want)
	}
	bEq(t, "after the refusals", of(), before)
}
