package store

// Tests of the v21 session setters and workspace reads beyond the upstream
// ports; each expected value is what c2a3b9ce5 gives for the same calls.

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestBillingRouteClearsPromptModelDoesNot is upstream's suspected defect 5
// (§8.5), followed: update_session_billing_route clears the cached system
// prompt (its Model:/Provider: header is stale after a provider switch;
// upstream's own test asserts it), update_session_model keeps it although
// the billing route's docstring says it does the same.
func TestBillingRouteClearsPromptModelDoesNot(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, _ := openStore(t, nil)
	mustUpsert(t, s, NewSession{ID: "s", Source: "cli", Model: "m0", SystemPrompt: "SYS"})
	if err := s.UpdateSessionModel(ctx, "s", "m1"); err != nil {
		t.Fatal(err)
	}
	if p := str(mustSession(t, s, "s").SystemPrompt); p != "SYS" {
		t.Errorf("system_prompt after UpdateSessionModel = %s, want SYS (kept)", p)
	}
	if err := s.UpdateSessionBillingRoute(ctx, "s", BillingRoute{Provider: "p", BaseURL: "u"}); err != nil {
		t.Fatal(err)
	}
	sess := mustSession(t, s, "s")
	if sess.SystemPrompt != nil {
		t.Errorf("system_prompt after UpdateSessionBillingRoute = %q, want NULL", *sess.SystemPrompt)
	}
	if diff := cmp.Diff([4]string{"m1", "p", "u", "<nil>"}, route(sess)); diff != "" {
		t.Errorf("route (-want +got):\n%s", diff)
	}
}

// TestUpdateSessionMeta: model_config is replaced with Python's json.dumps
// text ({} kept as "{}", unlike the upsert's NULL), the model only when
// given; bad JSON and unknown sessions are refused without writing.
func TestUpdateSessionMeta(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, _ := openStore(t, nil)
	mustUpsert(t, s, NewSession{ID: "s", Source: "cli", Model: "m1"})
	for _, c := range []struct {
		cfg       json.RawMessage
		model     string
		wantCfg   string
		wantModel string
	}{
		{json.RawMessage(`{}`), "", "{}", "m1"},
		{json.RawMessage(`{"cwd":"/é","n":[1,2]}`), "m2", `{"cwd": "/\u00e9", "n": [1, 2]}`, "m2"},
		{nil, "", "<nil>", "m2"},
	} {
		if err := s.UpdateSessionMeta(ctx, "s", c.cfg, c.model); err != nil {
			t.Fatal(err)
		}
		sess := mustSession(t, s, "s")
		cfg := "<nil>"
		if sess.ModelConfig != nil {
			cfg = string(sess.ModelConfig)
		}
		if cfg != c.wantCfg || str(sess.Model) != c.wantModel {
			t.Errorf("UpdateSessionMeta(%s, %q): model_config, model = %s, %s; want %s, %s", c.cfg, c.model, cfg, str(sess.Model), c.wantCfg, c.wantModel)
		}
	}
	before := dumpTables(t, s)
	if err := s.UpdateSessionMeta(ctx, "s", json.RawMessage(`{bad`), ""); !errors.Is(err, ErrInvalidJSON) {
		t.Errorf("UpdateSessionMeta(bad JSON) = %v, want ErrInvalidJSON", err)
	}
	for name, err := range map[string]error{
		"UpdateSessionMeta":         s.UpdateSessionMeta(ctx, "nope", nil, "m"),
		"UpdateSessionModel":        s.UpdateSessionModel(ctx, "nope", "m"),
		"UpdateSessionBillingRoute": s.UpdateSessionBillingRoute(ctx, "nope", BillingRoute{Provider: "p"}),
		"UpdateSessionCwd":          s.UpdateSessionCwd(ctx, "nope", Workspace{Cwd: "/w"}),
	} {
		if !errors.Is(err, ErrSessionNotFound) {
			t.Errorf("%s(nope) = %v, want ErrSessionNotFound", name, err)
		}
	}
	if diff := cmp.Diff(before, dumpTables(t, s)); diff != "" {
		t.Errorf("the refused calls changed the database (-before +after):\n%s", diff)
	}
}

// TestWorkspace: WorkspaceKey prefers the stripped repo root, then the
// stripped cwd; UpdateSessionCwd strips branch and root but not the cwd and
// ignores an empty cwd; DistinctSessionCwds leaves out cwds of spaces only
// (a tab is not blank to SQLite's TRIM) and archived sessions unless
// asked; BackfillRepoRoots skips empty pairs.
func TestWorkspace(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	for _, c := range []struct {
		root, cwd *string
		want      string
	}{
		{new("  /r "), new("/c"), "/r"},
		{new("  "), new(" /c\t"), "/c"},
		{nil, new("   "), ""},
		{nil, nil, ""},
	} {
		if got := WorkspaceKey(Session{GitRepoRoot: c.root, Cwd: c.cwd}); got != c.want {
			t.Errorf("WorkspaceKey(root %s, cwd %s) = %q, want %q", str(c.root), str(c.cwd), got, c.want)
		}
	}

	s, _ := openStore(t, &Options{Now: stepClock(time.Unix(1_800_000_000, 0), time.Second)})
	for id, cwd := range map[string]string{"a": "  ", "b": " /x", "c": "\t", "z": "/z"} {
		mustUpsert(t, s, NewSession{ID: id, Source: "cli", Cwd: cwd})
	}
	mustEnd(t, s, "z", "done")
	if _, err := s.SetSessionArchived(ctx, "z", true); err != nil {
		t.Fatal(err)
	}
	cwds := func(includeArchived bool) []string {
		got, err := s.DistinctSessionCwds(ctx, includeArchived)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range got {
			out = append(out, c.Cwd)
		}
		return out
	}
	if diff := cmp.Diff([]string{"\t", " /x"}, cwds(false)); diff != "" {
		t.Errorf("DistinctSessionCwds (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"\t", " /x", "/z"}, cwds(true)); diff != "" {
		t.Errorf("DistinctSessionCwds(include archived) (-want +got):\n%s", diff)
	}

	mustCwd(t, s, "a", Workspace{Cwd: " /w ", GitBranch: " main\n", GitRepoRoot: "\t/w"})
	mustCwd(t, s, "a", Workspace{Cwd: "", GitBranch: "other"})
	sess := mustSession(t, s, "a")
	if got := []string{str(sess.Cwd), str(sess.GitBranch), str(sess.GitRepoRoot)}; !cmp.Equal(got, []string{" /w ", "main", "/w"}) {
		t.Errorf("cwd, branch, root = %q, want [\" /w \" main /w]", got)
	}
	n, err := s.BackfillRepoRoots(ctx, map[string]string{" /x": "", "": "/r", "/z": "/zr", "\t": "/t"})
	if err != nil || n != 2 {
		t.Errorf("BackfillRepoRoots = %d, %v; want 2", n, err)
	}
	if got := []string{str(mustSession(t, s, "b").GitRepoRoot), str(mustSession(t, s, "c").GitRepoRoot), str(mustSession(t, s, "z").GitRepoRoot)}; !cmp.Equal(got, []string{"<nil>", "/t", "/zr"}) {
		t.Errorf("repo roots of b, c, z = %q, want [<nil> /t /zr]", got)
	}
}
