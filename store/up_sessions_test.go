package store

// Ports of upstream c2a3b9ce5's tests/test_hermes_state.py
// TestSessionLifecycle (the tests new at v21; those unchanged since v11 are
// in ref_lifecycle_test.go) and TestCounts::test_session_count_by_cwd_prefix,
// plus this port's own tests of the same methods. docs/upstream-tests/
// sessions.md maps every upstream test.

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// mustUpsert is create_session(...) at v21: UpsertSession.
func mustUpsert(t testing.TB, s *Store, n NewSession) bool {
	t.Helper()
	created, err := s.UpsertSession(t.Context(), n)
	if err != nil {
		t.Fatalf("UpsertSession(%q): %v", n.ID, err)
	}
	return created
}

// mustTokens is update_token_counts(id, ...).
func mustTokens(t testing.TB, s *Store, id string, u TokenUpdate) {
	t.Helper()
	if err := s.UpdateTokenCounts(t.Context(), id, u); err != nil {
		t.Fatalf("UpdateTokenCounts(%q, %+v): %v", id, u, err)
	}
}

// mustCwd is update_session_cwd(id, w.Cwd, git_branch=..., git_repo_root=...).
func mustCwd(t testing.TB, s *Store, id string, w Workspace) {
	t.Helper()
	if err := s.UpdateSessionCwd(t.Context(), id, w); err != nil {
		t.Fatalf("UpdateSessionCwd(%q, %+v): %v", id, w, err)
	}
}

// mustUsage returns session id's usage rows.
func mustUsage(t testing.TB, s *Store, id string) []ModelUsage {
	t.Helper()
	rows, err := s.ModelUsage(t.Context(), id)
	if err != nil {
		t.Fatalf("ModelUsage(%q): %v", id, err)
	}
	return rows
}

// route is the (model, provider, base URL, mode) of a session row, each
// "<nil>" when NULL.
func route(sess *Session) [4]string {
	str := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	return [4]string{str(sess.Model), str(sess.BillingProvider), str(sess.BillingBaseURL), str(sess.BillingMode)}
}

// str returns a pointer's text or "<nil>".
func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func TestUpSessionLifecycle(t *testing.T) {
	t.Parallel()

	// upstream: TestSessionLifecycle::test_create_session_enriches_null_metadata_on_conflict
	t.Run("CreateSessionEnrichesNullMetadataOnConflict", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		if !mustUpsert(t, s, NewSession{ID: "s1", Source: "telegram", UserID: "u1", ChatID: "c1"}) {
			t.Error("first UpsertSession reported no creation")
		}
		if m := mustSession(t, s, "s1").Model; m != nil {
			t.Errorf("bare row's model = %q, want None", *m)
		}
		if mustUpsert(t, s, NewSession{ID: "s1", Source: "cli", Model: "claude-opus-4-6",
			ModelConfig: json.RawMessage(`{"max_iterations": 90}`), SystemPrompt: "SYS"}) {
			t.Error("second UpsertSession reported a creation")
		}
		sess := mustSession(t, s, "s1")
		got := []string{str(sess.Model), str(sess.SystemPrompt), sess.Source, str(sess.UserID), str(sess.ChatID), string(sess.ModelConfig)}
		want := []string{"claude-opus-4-6", "SYS", "telegram", "u1", "c1", `{"max_iterations": 90}`}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("model, system_prompt, source, user_id, chat_id, model_config (-want +got):\n%s", diff)
		}
	})

	// upstream: TestSessionLifecycle::test_create_session_does_not_overwrite_existing_metadata
	t.Run("CreateSessionDoesNotOverwriteExistingMetadata", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustUpsert(t, s, NewSession{ID: "s1", Source: "cli", Model: "real-model"})
		mustUpsert(t, s, NewSession{ID: "s1", Source: "unknown", Model: "should-not-win"})
		sess := mustSession(t, s, "s1")
		if str(sess.Model) != "real-model" || sess.Source != "cli" {
			t.Errorf("model, source = %s, %s; want real-model, cli", str(sess.Model), sess.Source)
		}
	})

	// upstream: TestSessionLifecycle::test_update_session_cwd_persists_git_branch
	t.Run("UpdateSessionCwdPersistsGitBranch", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		mustCwd(t, s, "s1", Workspace{Cwd: "/work/repo", GitBranch: "pets-feature"})
		sess := mustSession(t, s, "s1")
		if str(sess.Cwd) != "/work/repo" || str(sess.GitBranch) != "pets-feature" {
			t.Errorf("cwd, git_branch = %s, %s; want /work/repo, pets-feature", str(sess.Cwd), str(sess.GitBranch))
		}
	})

	// upstream: TestSessionLifecycle::test_update_session_cwd_empty_branch_does_not_clobber
	t.Run("UpdateSessionCwdEmptyBranchDoesNotClobber", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		mustCwd(t, s, "s1", Workspace{Cwd: "/work/repo", GitBranch: "main"})
		mustCwd(t, s, "s1", Workspace{Cwd: "/work/repo", GitBranch: ""})
		if b := str(mustSession(t, s, "s1").GitBranch); b != "main" {
			t.Errorf("git_branch = %s, want main", b)
		}
	})

	// upstream: TestSessionLifecycle::test_update_session_cwd_without_branch_arg
	t.Run("UpdateSessionCwdWithoutBranchArg", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		mustCwd(t, s, "s1", Workspace{Cwd: "/work/repo"})
		sess := mustSession(t, s, "s1")
		if str(sess.Cwd) != "/work/repo" || sess.GitBranch != nil {
			t.Errorf("cwd, git_branch = %s, %s; want /work/repo, <nil>", str(sess.Cwd), str(sess.GitBranch))
		}
	})

	// upstream: TestSessionLifecycle::test_update_session_cwd_persists_git_repo_root
	t.Run("UpdateSessionCwdPersistsGitRepoRoot", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		mustCwd(t, s, "s1", Workspace{Cwd: "/work/repo/src", GitRepoRoot: "/work/repo"})
		if r := str(mustSession(t, s, "s1").GitRepoRoot); r != "/work/repo" {
			t.Errorf("git_repo_root = %s, want /work/repo", r)
		}
	})

	// upstream: TestSessionLifecycle::test_update_session_cwd_empty_repo_root_does_not_clobber
	t.Run("UpdateSessionCwdEmptyRepoRootDoesNotClobber", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		mustCwd(t, s, "s1", Workspace{Cwd: "/work/repo", GitRepoRoot: "/work/repo"})
		mustCwd(t, s, "s1", Workspace{Cwd: "/work/repo", GitRepoRoot: ""})
		if r := str(mustSession(t, s, "s1").GitRepoRoot); r != "/work/repo" {
			t.Errorf("git_repo_root = %s, want /work/repo", r)
		}
	})

	// upstream: TestSessionLifecycle::test_distinct_session_cwds_aggregates_history
	t.Run("DistinctSessionCwdsAggregatesHistory", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, &Options{Now: stepClock(time.Unix(1_800_000_000, 0), time.Second)})
		mustUpsert(t, s, NewSession{ID: "s1", Source: "cli", Cwd: "/repo"})
		mustUpsert(t, s, NewSession{ID: "s2", Source: "cli", Cwd: "/repo"})
		mustUpsert(t, s, NewSession{ID: "s3", Source: "cli", Cwd: "/other"})
		mustUpsert(t, s, NewSession{ID: "s4", Source: "cli"})
		got, err := s.DistinctSessionCwds(t.Context(), false)
		if err != nil {
			t.Fatal(err)
		}
		// s2 started at +1 s, s3 at +2 s: their last activity (not ended).
		want := []CwdUsage{{"/other", 1, 1_800_000_002}, {"/repo", 2, 1_800_000_001}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("DistinctSessionCwds (-want +got):\n%s", diff)
		}
	})

	// upstream: TestSessionLifecycle::test_backfill_repo_roots_fills_only_empty
	t.Run("BackfillRepoRootsFillsOnlyEmpty", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustUpsert(t, s, NewSession{ID: "s1", Source: "cli", Cwd: "/repo/a"})
		mustUpsert(t, s, NewSession{ID: "s2", Source: "cli", Cwd: "/repo/b"})
		mustCwd(t, s, "s2", Workspace{Cwd: "/repo/b", GitRepoRoot: "/already"})
		n, err := s.BackfillRepoRoots(t.Context(), map[string]string{"/repo/a": "/repo", "/repo/b": "/repo"})
		if err != nil || n != 1 {
			t.Errorf("BackfillRepoRoots = %d, %v; want 1 session changed", n, err)
		}
		if r := str(mustSession(t, s, "s1").GitRepoRoot); r != "/repo" {
			t.Errorf("s1 git_repo_root = %s, want /repo", r)
		}
		if r := str(mustSession(t, s, "s2").GitRepoRoot); r != "/already" {
			t.Errorf("s2 git_repo_root = %s, want /already (kept)", r)
		}
	})

	// upstream: TestSessionLifecycle::test_update_token_counts_backfills_model_when_null
	// (v21: the model arrives with tokens; see also ref_lifecycle_test.go)
	t.Run("UpdateTokenCountsBackfillsModelWhenNull", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "telegram"})
		mustTokens(t, s, "s1", TokenUpdate{InputTokens: 10, OutputTokens: 5, Model: "openai/gpt-5.4"})
		if m := str(mustSession(t, s, "s1").Model); m != "openai/gpt-5.4" {
			t.Errorf("model = %s, want openai/gpt-5.4", m)
		}
	})

	// upstream: TestSessionLifecycle::test_first_accounted_fallback_replaces_requested_primary_route
	t.Run("FirstAccountedFallbackReplacesRequestedPrimaryRoute", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustUpsert(t, s, NewSession{ID: "s1", Source: "cli", Model: "gpt-5.6-sol"})
		mustTokens(t, s, "s1", TokenUpdate{InputTokens: 10, OutputTokens: 5, Model: "glm-5.2",
			BillingProvider: "custom:zai", BillingBaseURL: "https://api.z.ai/api/coding/paas/v4/", APICallCount: 1})
		sess := mustSession(t, s, "s1")
		if diff := cmp.Diff([4]string{"glm-5.2", "custom:zai", "https://api.z.ai/api/coding/paas/v4/", "<nil>"}, route(sess)); diff != "" {
			t.Errorf("route (-want +got):\n%s", diff)
		}
		if sess.APICallCount != 1 {
			t.Errorf("api_call_count = %d, want 1", sess.APICallCount)
		}
	})

	// upstream: TestSessionLifecycle::test_accounted_primary_route_is_not_rewritten_by_later_fallback
	t.Run("AccountedPrimaryRouteIsNotRewrittenByLaterFallback", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustUpsert(t, s, NewSession{ID: "s1", Source: "cli", Model: "gpt-5.6-sol"})
		mustTokens(t, s, "s1", TokenUpdate{InputTokens: 10, OutputTokens: 5, Model: "gpt-5.6-sol", BillingProvider: "openai-codex", APICallCount: 1})
		mustTokens(t, s, "s1", TokenUpdate{InputTokens: 10, OutputTokens: 5, Model: "glm-5.2", BillingProvider: "custom:zai", APICallCount: 1})
		sess := mustSession(t, s, "s1")
		if diff := cmp.Diff([4]string{"gpt-5.6-sol", "openai-codex", "<nil>", "<nil>"}, route(sess)); diff != "" {
			t.Errorf("route (-want +got):\n%s", diff)
		}
		if sess.APICallCount != 2 {
			t.Errorf("api_call_count = %d, want 2", sess.APICallCount)
		}
		// Both routes are in the usage table, each with its own call.
		var got []string
		for _, u := range mustUsage(t, s, "s1") {
			got = append(got, u.Model+"/"+u.BillingProvider)
		}
		if diff := cmp.Diff([]string{"gpt-5.6-sol/openai-codex", "glm-5.2/custom:zai"}, got); diff != "" {
			t.Errorf("usage routes (-want +got):\n%s", diff)
		}
	})

	// upstream: TestSessionLifecycle::test_update_session_model_overwrites_existing
	t.Run("UpdateSessionModelOverwritesExisting", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustUpsert(t, s, NewSession{ID: "s1", Source: "telegram", Model: "xiaomi/mimo-v2.5-pro"})
		mustTokens(t, s, "s1", TokenUpdate{InputTokens: 10, OutputTokens: 5, Model: "xiaomi/mimo-v2.5-pro"})
		if m := str(mustSession(t, s, "s1").Model); m != "xiaomi/mimo-v2.5-pro" {
			t.Errorf("model after the token update = %s", m)
		}
		if err := s.UpdateSessionModel(t.Context(), "s1", "xiaomi/mimo-v2.5"); err != nil {
			t.Fatal(err)
		}
		if m := str(mustSession(t, s, "s1").Model); m != "xiaomi/mimo-v2.5" {
			t.Errorf("model after UpdateSessionModel = %s, want xiaomi/mimo-v2.5", m)
		}
		mustTokens(t, s, "s1", TokenUpdate{InputTokens: 10, OutputTokens: 5, Model: "xiaomi/mimo-v2.5-pro"})
		if m := str(mustSession(t, s, "s1").Model); m != "xiaomi/mimo-v2.5" {
			t.Errorf("model after a later token update = %s, want xiaomi/mimo-v2.5 (not reverted)", m)
		}
	})

	// upstream: TestSessionLifecycle::test_update_session_billing_route_overwrites_after_switch
	t.Run("UpdateSessionBillingRouteOverwritesAfterSwitch", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "telegram"})
		mustTokens(t, s, "s1", TokenUpdate{InputTokens: 10, OutputTokens: 5,
			BillingProvider: "openrouter", BillingBaseURL: "https://openrouter.ai/api/v1", BillingMode: "api_key"})
		if p := str(mustSession(t, s, "s1").BillingProvider); p != "openrouter" {
			t.Errorf("billing_provider = %s, want openrouter", p)
		}
		mustTokens(t, s, "s1", TokenUpdate{InputTokens: 10, OutputTokens: 5,
			BillingProvider: "ollama", BillingBaseURL: "http://localhost:11434/v1", BillingMode: "local"})
		if p := str(mustSession(t, s, "s1").BillingProvider); p != "openrouter" {
			t.Errorf("billing_provider after a second update = %s, want openrouter (first wins)", p)
		}
		if err := s.UpdateSystemPrompt(t.Context(), "s1", "Model: x/old\nProvider: openrouter"); err != nil {
			t.Fatal(err)
		}
		if err := s.UpdateSessionBillingRoute(t.Context(), "s1", BillingRoute{Provider: "ollama", BaseURL: "http://localhost:11434/v1", Mode: "local"}); err != nil {
			t.Fatal(err)
		}
		sess := mustSession(t, s, "s1")
		if diff := cmp.Diff([4]string{"<nil>", "ollama", "http://localhost:11434/v1", "local"}, route(sess)); diff != "" {
			t.Errorf("route after the switch (-want +got):\n%s", diff)
		}
		if sess.SystemPrompt != nil {
			t.Errorf("system_prompt = %q, want None (cleared so the next turn rebuilds Model:/Provider:)", *sess.SystemPrompt)
		}
		if err := s.UpdateSessionBillingRoute(t.Context(), "s1", BillingRoute{Provider: "openai", BaseURL: "https://api.openai.com/v1"}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([4]string{"<nil>", "openai", "https://api.openai.com/v1", "local"}, route(mustSession(t, s, "s1"))); diff != "" {
			t.Errorf("route after a switch without a mode (-want +got):\n%s", diff)
		}
	})

	// upstream: TestSessionLifecycle::test_per_model_usage_recorded_for_single_model
	t.Run("PerModelUsageRecordedForSingleModel", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		mustTokens(t, s, "s1", TokenUpdate{InputTokens: 200, OutputTokens: 100, Model: "anthropic/claude-opus-4.8", BillingProvider: "anthropic", APICallCount: 1})
		mustTokens(t, s, "s1", TokenUpdate{InputTokens: 100, OutputTokens: 50, Model: "anthropic/claude-opus-4.8", BillingProvider: "anthropic", APICallCount: 1})
		rows := mustUsage(t, s, "s1")
		if len(rows) != 1 {
			t.Fatalf("%d usage rows, want 1: %+v", len(rows), rows)
		}
		r := rows[0]
		got := []any{r.Model, r.BillingProvider, r.APICallCount, r.InputTokens, r.OutputTokens}
		if diff := cmp.Diff([]any{"anthropic/claude-opus-4.8", "anthropic", int64(2), int64(300), int64(150)}, got); diff != "" {
			t.Errorf("usage row (-want +got):\n%s", diff)
		}
	})

	// upstream: TestSessionLifecycle::test_mid_session_switch_splits_per_model_usage
	t.Run("MidSessionSwitchSplitsPerModelUsage", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustUpsert(t, s, NewSession{ID: "s1", Source: "cli", Model: "deepseek/deepseek-v4-pro"})
		mustTokens(t, s, "s1", TokenUpdate{InputTokens: 40_000, OutputTokens: 8_000, Model: "deepseek/deepseek-v4-pro", BillingProvider: "deepseek", APICallCount: 2})
		if err := s.UpdateSessionModel(t.Context(), "s1", "anthropic/claude-opus-4.8"); err != nil {
			t.Fatal(err)
		}
		mustTokens(t, s, "s1", TokenUpdate{InputTokens: 50_000, OutputTokens: 4_000, Model: "anthropic/claude-opus-4.8", BillingProvider: "openrouter", APICallCount: 3})
		var got [][]any
		for _, r := range mustUsage(t, s, "s1") {
			got = append(got, []any{r.Model, r.BillingProvider, r.InputTokens, r.OutputTokens, r.APICallCount})
		}
		want := [][]any{
			{"deepseek/deepseek-v4-pro", "deepseek", int64(40_000), int64(8_000), int64(2)},
			{"anthropic/claude-opus-4.8", "openrouter", int64(50_000), int64(4_000), int64(3)},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("usage rows (-want +got):\n%s", diff)
		}
		sess := mustSession(t, s, "s1")
		if str(sess.Model) != "anthropic/claude-opus-4.8" || sess.InputTokens != 90_000 || sess.OutputTokens != 12_000 {
			t.Errorf("session model, input, output = %s, %d, %d; want anthropic/claude-opus-4.8, 90000, 12000", str(sess.Model), sess.InputTokens, sess.OutputTokens)
		}
	})

	// upstream: TestSessionLifecycle::test_per_model_usage_falls_back_to_session_model
	t.Run("PerModelUsageFallsBackToSessionModel", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustUpsert(t, s, NewSession{ID: "s1", Source: "cli", Model: "gpt-4o"})
		mustTokens(t, s, "s1", TokenUpdate{InputTokens: 10, OutputTokens: 5})
		rows := mustUsage(t, s, "s1")
		if len(rows) != 1 || rows[0].Model != "gpt-4o" {
			t.Errorf("usage rows = %+v, want one of gpt-4o", rows)
		}
	})

	// upstream: TestSessionLifecycle::test_absolute_update_does_not_record_per_model
	t.Run("AbsoluteUpdateDoesNotRecordPerModel", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustUpsert(t, s, NewSession{ID: "s1", Source: "cli", Model: "gpt-4o"})
		mustTokens(t, s, "s1", TokenUpdate{InputTokens: 500, OutputTokens: 200, Model: "gpt-4o", Absolute: true})
		if n := dbtest.Value[int64](t, s.r, "SELECT COUNT(*) FROM session_model_usage WHERE session_id = 's1'"); n != 0 {
			t.Errorf("%d usage rows after an absolute update, want 0", n)
		}
	})

	// upstream: TestSessionLifecycle::test_per_model_usage_keeps_distinct_billing_routes
	t.Run("PerModelUsageKeepsDistinctBillingRoutes", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustUpsert(t, s, NewSession{ID: "routes", Source: "cli", Model: "shared-model"})
		mustTokens(t, s, "routes", TokenUpdate{InputTokens: 10, Model: "shared-model", BillingProvider: "custom",
			BillingBaseURL: "https://one.example/v1", BillingMode: "api_key", EstimatedCostUSD: new(0.01), APICallCount: 1})
		mustTokens(t, s, "routes", TokenUpdate{InputTokens: 20, Model: "shared-model", BillingProvider: "custom",
			BillingBaseURL: "https://two.example/v1", BillingMode: "subscription_included", EstimatedCostUSD: new(0.0),
			CostStatus: "included", APICallCount: 1})
		got := dbtest.Rows(t, s.r, "SELECT billing_base_url, billing_mode, input_tokens, estimated_cost_usd, cost_status FROM session_model_usage WHERE session_id = 'routes' ORDER BY billing_base_url")
		want := [][]any{
			{"https://one.example/v1", "api_key", int64(10), 0.01, nil},
			{"https://two.example/v1", "subscription_included", int64(20), 0.0, "included"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("usage rows (-want +got):\n%s", diff)
		}
	})

	// upstream: TestSessionLifecycle::test_metadata_only_update_does_not_replace_requested_route
	t.Run("MetadataOnlyUpdateDoesNotReplaceRequestedRoute", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustUpsert(t, s, NewSession{ID: "metadata", Source: "cli", Model: "primary"})
		mustTokens(t, s, "metadata", TokenUpdate{Model: "fallback", BillingProvider: "fallback-provider"})
		sess := mustSession(t, s, "metadata")
		if diff := cmp.Diff([4]string{"primary", "<nil>", "<nil>", "<nil>"}, route(sess)); diff != "" {
			t.Errorf("route (-want +got):\n%s", diff)
		}
		if rows := mustUsage(t, s, "metadata"); len(rows) != 0 {
			t.Errorf("usage rows = %+v, want none", rows)
		}
	})

	// upstream: TestSessionLifecycle::test_first_accounted_route_replaces_all_route_fields_atomically
	t.Run("FirstAccountedRouteReplacesAllRouteFieldsAtomically", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		mustUpsert(t, s, NewSession{ID: "route", Source: "cli", Model: "primary"})
		if err := s.UpdateSessionBillingRoute(t.Context(), "route", BillingRoute{Provider: "primary-provider", BaseURL: "https://primary.example/v1", Mode: "api_key"}); err != nil {
			t.Fatal(err)
		}
		mustTokens(t, s, "route", TokenUpdate{Model: "fallback", BillingProvider: "fallback-provider", APICallCount: 1})
		if diff := cmp.Diff([4]string{"fallback", "fallback-provider", "<nil>", "<nil>"}, route(mustSession(t, s, "route"))); diff != "" {
			t.Errorf("route (-want +got):\n%s", diff)
		}
	})
}

// TestUpSessionCounts ports TestCounts' v21 test; the others are in
// ref_export_test.go's TestCounts.
func TestUpSessionCounts(t *testing.T) {
	t.Parallel()

	// upstream: TestCounts::test_session_count_by_cwd_prefix
	t.Run("SessionCountByCwdPrefix", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, nil)
		for id, cwd := range map[string]string{"s1": "/repo", "s2": "/repo-wt-feature", "s3": "/repo/subdir"} {
			mustUpsert(t, s, NewSession{ID: id, Source: "cli", Cwd: cwd})
		}
		if n, err := s.CountSessions(t.Context(), CountOptions{CwdPrefix: "/repo"}); err != nil || n != 2 {
			t.Errorf("CountSessions(cwd /repo) = %d, %v; want 2", n, err)
		}
	})

	// The rest of session_count's filters, each against upstream's answer
	// for the same rows (checked by running c2a3b9ce5): a windows cwd, a
	// trailing separator, children, a tagged delegate, archived rows,
	// messages, sources. One difference: sub's model_config is not JSON,
	// which makes upstream's ExcludeChildren count fail ("malformed JSON");
	// here sub counts as an unmarked child (left out, as with valid JSON).
	t.Run("Filters", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, &Options{Now: stepClock(time.Unix(1_800_000_000, 0), time.Second)})
		mustUpsert(t, s, NewSession{ID: "root", Source: "cli", Cwd: `C:\repo\x`})
		mustEnd(t, s, "root", "branched")
		mustUpsert(t, s, NewSession{ID: "branch", Source: "cli", ParentSessionID: "root"})
		mustUpsert(t, s, NewSession{ID: "marked", Source: "cli", ParentSessionID: "root", ModelConfig: json.RawMessage(`{"_branched_from": "root"}`)})
		mustUpsert(t, s, NewSession{ID: "sub", Source: "tool", ParentSessionID: "marked"})
		mustUpsert(t, s, NewSession{ID: "delegate", Source: "cli", ModelConfig: json.RawMessage(`{"_delegate_from": "root"}`)})
		mustUpsert(t, s, NewSession{ID: "arch", Source: "telegram", Cwd: `C:\repo`})
		if _, err := s.SetSessionArchived(t.Context(), "arch", true); err != nil {
			t.Fatal(err)
		}
		mustAppend(t, s, "branch", NewMessage{Role: "user", Content: new("hi")})
		mustAppend(t, s, "branch", NewMessage{Role: "user", Content: new("again")})
		execSQL(t, s, "UPDATE sessions SET model_config = '{bad' WHERE id = 'sub'")
		for _, c := range []struct {
			name string
			opts CountOptions
			want int64
		}{
			{"Default", CountOptions{}, 5},
			{"IncludeArchived", CountOptions{IncludeArchived: true}, 6},
			{"ArchivedOnly", CountOptions{ArchivedOnly: true, IncludeArchived: true}, 1},
			{"CwdWindows", CountOptions{CwdPrefix: `C:\repo\`, IncludeArchived: true}, 2},
			{"ExcludeChildren", CountOptions{ExcludeChildren: true}, 3}, // root, branch, marked
			{"MinMessages", CountOptions{MinMessageCount: 2}, 1},
			{"Source", CountOptions{Source: "tool"}, 1},
			{"ExcludeSources", CountOptions{ExcludeSources: []string{"cli", "tool"}, IncludeArchived: true}, 1},
		} {
			if n, err := s.CountSessions(t.Context(), c.opts); err != nil || n != c.want {
				t.Errorf("%s: CountSessions = %d, %v; want %d", c.name, n, err, c.want)
			}
		}
		if n, err := s.SessionCount(t.Context(), "telegram"); err != nil || n != 0 {
			t.Errorf("SessionCount(telegram) = %d, %v; want 0 (its one session is archived)", n, err)
		}
	})
}

// TestUpsertSession checks the rest of upstream's create_session upsert:
// every fillable column, the columns it never changes, model_config's
// Python text with {} as NULL, and the parent's foreign key (checked
// against c2a3b9ce5: a parent already set is kept and the call's missing
// one is not checked; a missing parent that would be set fails).
func TestUpsertSession(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, _ := openStore(t, &Options{Now: stepClock(time.Unix(1_800_000_000, 0), time.Second)})
	mustCreate(t, s, NewSession{ID: "p1", Source: "cli"})
	if !mustUpsert(t, s, NewSession{ID: "s", Source: "gateway", UserID: "u1", ModelConfig: json.RawMessage(`{}`)}) {
		t.Error("UpsertSession of a new id reported no creation")
	}
	if c := mustSession(t, s, "s").ModelConfig; c != nil {
		t.Errorf("model_config of {} = %s, want NULL", c)
	}
	full := NewSession{ID: "s", Source: "cli", UserID: "u2", Model: "m", ModelConfig: json.RawMessage(`{"a":1,"b":"é"}`),
		SystemPrompt: "sys", ParentSessionID: "p1", SessionKey: "k", ChatID: "c", ChatType: "dm", ThreadID: "t", Cwd: "/w"}
	if mustUpsert(t, s, full) {
		t.Error("UpsertSession of an existing id reported a creation")
	}
	sess := mustSession(t, s, "s")
	got := []string{sess.Source, str(sess.UserID), str(sess.Model), string(sess.ModelConfig), str(sess.SystemPrompt),
		str(sess.ParentSessionID), str(sess.SessionKey), str(sess.ChatID), str(sess.ChatType), str(sess.ThreadID), str(sess.Cwd)}
	want := []string{"gateway", "u1", "m", `{"a": 1, "b": "\u00e9"}`, "sys", "p1", "k", "c", "dm", "t", "/w"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("filled row (-want +got):\n%s", diff)
	}
	if sess.StartedAt != 1_800_000_001 {
		t.Errorf("started_at = %v, want the first call's 1800000001", sess.StartedAt)
	}
	// Nothing set is overwritten, and a missing parent is not checked when
	// a parent is set already.
	other := NewSession{ID: "s", Source: "x", UserID: "x", Model: "x", ModelConfig: json.RawMessage(`{"x": 1}`),
		SystemPrompt: "x", ParentSessionID: "missing", SessionKey: "x", ChatID: "x", ChatType: "x", ThreadID: "x", Cwd: "x"}
	before := dumpTables(t, s)
	mustUpsert(t, s, other)
	if diff := cmp.Diff(before, dumpTables(t, s)); diff != "" {
		t.Errorf("a second upsert changed a filled row (-before +after):\n%s", diff)
	}
	// A missing parent that would be set fails, and writes nothing.
	mustCreate(t, s, NewSession{ID: "bare", Source: "cli"})
	before = dumpTables(t, s)
	if _, err := s.UpsertSession(ctx, NewSession{ID: "bare", Source: "cli", Model: "m", ParentSessionID: "missing"}); !errors.Is(err, ErrParentNotFound) ||
		err.Error() != `store: upsert session "bare": no such parent session` {
		t.Errorf("UpsertSession with a missing parent = %v, want ErrParentNotFound", err)
	}
	if diff := cmp.Diff(before, dumpTables(t, s)); diff != "" {
		t.Errorf("the failed upsert changed the database (-before +after):\n%s", diff)
	}
	// EnsureSession is the same upsert with a source and a model.
	if err := s.EnsureSession(ctx, "bare", "telegram", "filled"); err != nil {
		t.Fatal(err)
	}
	if sess := mustSession(t, s, "bare"); sess.Source != "cli" || str(sess.Model) != "filled" {
		t.Errorf("EnsureSession on a bare row: source, model = %s, %s; want cli, filled", sess.Source, str(sess.Model))
	}
	if err := s.EnsureSession(ctx, "new", "", ""); err != nil {
		t.Fatal(err)
	}
	if sess := mustSession(t, s, "new"); sess.Source != "unknown" || sess.Model != nil {
		t.Errorf("EnsureSession of a new id: source, model = %s, %s; want unknown, <nil>", sess.Source, str(sess.Model))
	}
	// CreateSession keeps its contract: an existing id is ErrSessionExists.
	if _, err := s.CreateSession(ctx, NewSession{ID: "s", Source: "cli"}); !errors.Is(err, ErrSessionExists) {
		t.Errorf("CreateSession of an existing id = %v, want ErrSessionExists", err)
	}
}
