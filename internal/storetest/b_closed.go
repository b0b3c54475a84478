package storetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	groups = append(groups, group{"ClosedStoreB", bClosedStore})
}

// bClosedStore checks that every method of the b groups' areas returns
// ErrClosed on a closed store.
func bClosedStore(t *testing.T, h Harness) {
	s := h.Open(t)
	bCreate(t, s, "s", "cli")
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ev := json.RawMessage(`{}`)
	alive := func(int64, *int64) bool { return true }
	calls := map[string]func(ctx context.Context) error{
		"SearchMessages": func(ctx context.Context) error {
			_, err := s.SearchMessages(ctx, "x", store.SearchOptions{})
			return err
		},
		"SearchMessagesTrigram": func(ctx context.Context) error {
			_, err := s.SearchMessages(ctx, "记忆系统", store.SearchOptions{})
			return err
		},
		"SearchMessagesLike": func(ctx context.Context) error {
			_, err := s.SearchMessages(ctx, "记忆", store.SearchOptions{})
			return err
		},
		"SearchSessionsByID": func(ctx context.Context) error {
			_, err := s.SearchSessionsByID(ctx, "s", store.IDSearchOptions{})
			return err
		},
		"DispatchDelegation": func(ctx context.Context) error { return s.DispatchDelegation(ctx, store.DelegationDispatch{ID: "d"}) },
		"CompleteDelegation": func(ctx context.Context) error {
			return s.CompleteDelegation(ctx, "d", store.DelegationCompletion{Event: ev})
		},
		"DeleteDelegation": func(ctx context.Context) error { return s.DeleteDelegation(ctx, "d") },
		"PruneDelegations": func(ctx context.Context) error {
			_, err := s.PruneDelegations(ctx, store.DelegationRetention{})
			return err
		},
		"GetDelegation":           func(ctx context.Context) error { _, err := s.GetDelegation(ctx, "d"); return err },
		"ListDelegations":         func(ctx context.Context) error { _, err := s.ListDelegations(ctx); return err },
		"UndeliveredDelegations":  func(ctx context.Context) error { _, err := s.UndeliveredDelegations(ctx); return err },
		"ClaimDelegationDelivery": func(ctx context.Context) error { _, err := s.ClaimDelegationDelivery(ctx, "d", "c"); return err },
		"ReleaseDelegationDelivery": func(ctx context.Context) error {
			_, err := s.ReleaseDelegationDelivery(ctx, "d", "c")
			return err
		},
		"CompleteDelegationDelivery": func(ctx context.Context) error {
			_, err := s.CompleteDelegationDelivery(ctx, "d", "c")
			return err
		},
		"MarkDelegationDelivered":     func(ctx context.Context) error { _, err := s.MarkDelegationDelivered(ctx, "d"); return err },
		"RecoverAbandonedDelegations": func(ctx context.Context) error { _, err := s.RecoverAbandonedDelegations(ctx, alive); return err },
		"RecordGatewaySessionPeer": func(ctx context.Context) error {
			return s.RecordGatewaySessionPeer(ctx, "s", store.GatewayPeer{Source: "x", SessionKey: "k"})
		},
		"SetExpiryFinalized": func(ctx context.Context) error { return s.SetExpiryFinalized(ctx, "s", true) },
		"ListGatewaySessions": func(ctx context.Context) error {
			_, err := s.ListGatewaySessions(ctx, store.GatewayListOptions{})
			return err
		},
		"FindSessionByOrigin": func(ctx context.Context) error {
			_, err := s.FindSessionByOrigin(ctx, store.Origin{Platform: "x", ChatID: "c"})
			return err
		},
		"FindLatestGatewaySessionForPeer": func(ctx context.Context) error {
			_, err := s.FindLatestGatewaySessionForPeer(ctx, store.GatewayPeer{Source: "x", SessionKey: "k"})
			return err
		},
		"SaveGatewayRoutingEntry":      func(ctx context.Context) error { return s.SaveGatewayRoutingEntry(ctx, "", "k", ev) },
		"ReplaceGatewayRoutingEntries": func(ctx context.Context) error { return s.ReplaceGatewayRoutingEntries(ctx, "", nil) },
		"LoadGatewayRoutingEntries":    func(ctx context.Context) error { _, err := s.LoadGatewayRoutingEntries(ctx, ""); return err },
		"DeleteGatewayRoutingEntries":  func(ctx context.Context) error { return s.DeleteGatewayRoutingEntries(ctx, "", []string{"k"}) },
		"RequestHandoff":               func(ctx context.Context) error { _, err := s.RequestHandoff(ctx, "s", "x"); return err },
		"ClaimHandoff":                 func(ctx context.Context) error { _, err := s.ClaimHandoff(ctx, "s"); return err },
		"CompleteHandoff":              func(ctx context.Context) error { return s.CompleteHandoff(ctx, "s") },
		"FailHandoff":                  func(ctx context.Context) error { return s.FailHandoff(ctx, "s", "x") },
		"HandoffState":                 func(ctx context.Context) error { _, err := s.HandoffState(ctx, "s"); return err },
		"ListPendingHandoffs":          func(ctx context.Context) error { _, err := s.ListPendingHandoffs(ctx); return err },
		"TryAcquireCompressionLock": func(ctx context.Context) error {
			_, err := s.TryAcquireCompressionLock(ctx, "s", "h", time.Minute)
			return err
		},
		"RefreshCompressionLock": func(ctx context.Context) error {
			_, err := s.RefreshCompressionLock(ctx, "s", "h", time.Minute)
			return err
		},
		"ReleaseCompressionLock": func(ctx context.Context) error { return s.ReleaseCompressionLock(ctx, "s", "h") },
		"CompressionLockHolder":  func(ctx context.Context) error { _, _, err := s.CompressionLockHolder(ctx, "s"); return err },
		"RecordCompressionFailureCooldown": func(ctx context.Context) error {
			return s.RecordCompressionFailureCooldown(ctx, "s", 1, "x")
		},
		"ClearCompressionFailureCooldown": func(ctx context.Context) error { return s.ClearCompressionFailureCooldown(ctx, "s") },
		"CompressionFailureCooldown":      func(ctx context.Context) error { _, err := s.CompressionFailureCooldown(ctx, "s"); return err },
		"CompressionFallbackStreak":       func(ctx context.Context) error { _, err := s.CompressionFallbackStreak(ctx, "s"); return err },
		"SetCompressionFallbackStreak":    func(ctx context.Context) error { return s.SetCompressionFallbackStreak(ctx, "s", 1) },
		"PruneSessions":                   func(ctx context.Context) error { _, err := s.PruneSessions(ctx, store.PruneOptions{}); return err },
		"PruneSessionsDryRun": func(ctx context.Context) error {
			_, err := s.PruneSessions(ctx, store.PruneOptions{DryRun: true})
			return err
		},
		"PruneCandidates":         func(ctx context.Context) error { _, err := s.PruneCandidates(ctx, store.PruneOptions{}); return err },
		"PruneEmptyGhostSessions": func(ctx context.Context) error { _, err := s.PruneEmptyGhostSessions(ctx, ""); return err },
		"FinalizeOrphanedCompressionSessions": func(ctx context.Context) error {
			_, err := s.FinalizeOrphanedCompressionSessions(ctx)
			return err
		},
		"DeleteSession":  func(ctx context.Context) error { return s.DeleteSession(ctx, "s", "") },
		"DeleteSessions": func(ctx context.Context) error { return s.DeleteSessions(ctx, []string{"s"}, "") },
		"DeleteExistingSessions": func(ctx context.Context) error {
			_, err := s.DeleteExistingSessions(ctx, []string{"s"}, "")
			return err
		},
		"DeleteSessionIfEmpty": func(ctx context.Context) error { _, err := s.DeleteSessionIfEmpty(ctx, "s", ""); return err },
		"CountEmptySessions":   func(ctx context.Context) error { _, err := s.CountEmptySessions(ctx); return err },
		"DeleteEmptySessions":  func(ctx context.Context) error { _, err := s.DeleteEmptySessions(ctx, ""); return err },
		"RewindToMessage":      func(ctx context.Context) error { _, err := s.RewindToMessage(ctx, "s", 1); return err },
		"RestoreRewound":       func(ctx context.Context) error { _, err := s.RestoreRewound(ctx, "s", 1); return err },
		"ListRecentUserMessages": func(ctx context.Context) error {
			_, err := s.ListRecentUserMessages(ctx, "s", store.RecentUserMessagesOptions{})
			return err
		},
		"ArchiveAndCompact":   func(ctx context.Context) error { _, err := s.ArchiveAndCompact(ctx, "s", nil); return err },
		"HasArchivedMessages": func(ctx context.Context) error { _, err := s.HasArchivedMessages(ctx, "s"); return err },
		"SetSessionArchived":  func(ctx context.Context) error { _, err := s.SetSessionArchived(ctx, "s", true); return err },
		"ArchiveSessions":     func(ctx context.Context) error { _, err := s.ArchiveSessions(ctx, store.PruneOptions{}); return err },
		"MessagesAround":      func(ctx context.Context) error { _, err := s.MessagesAround(ctx, "s", 1, 1); return err },
		"AnchoredView": func(ctx context.Context) error {
			_, err := s.AnchoredView(ctx, "s", 1, store.DefaultAnchoredView())
			return err
		},
		"TokenStatsByModel":   func(ctx context.Context) error { _, err := s.TokenStatsByModel(ctx); return err },
		"TokenStatsBySource":  func(ctx context.Context) error { _, err := s.TokenStatsBySource(ctx); return err },
		"TopSessionsByTokens": func(ctx context.Context) error { _, err := s.TopSessionsByTokens(ctx, 1); return err },
		"GetMeta":             func(ctx context.Context) error { _, _, err := s.GetMeta(ctx, "k"); return err },
		"SetMeta":             func(ctx context.Context) error { return s.SetMeta(ctx, "k", "v") },
		"UpdateSessionCwd":    func(ctx context.Context) error { return s.UpdateSessionCwd(ctx, "s", store.Workspace{Cwd: "/x"}) },
		"BackfillRepoRoots": func(ctx context.Context) error {
			_, err := s.BackfillRepoRoots(ctx, map[string]string{"/x": "/r"})
			return err
		},
		"DistinctSessionCwds":       func(ctx context.Context) error { _, err := s.DistinctSessionCwds(ctx, true); return err },
		"ListCronJobRuns":           func(ctx context.Context) error { _, err := s.ListCronJobRuns(ctx, "j", 0, 0); return err },
		"UpdateSessionModel":        func(ctx context.Context) error { return s.UpdateSessionModel(ctx, "s", "m") },
		"UpdateSessionBillingRoute": func(ctx context.Context) error { return s.UpdateSessionBillingRoute(ctx, "s", store.BillingRoute{}) },
		"UpdateSessionMeta":         func(ctx context.Context) error { return s.UpdateSessionMeta(ctx, "s", nil, "m") },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			bErr(t, name, call(t.Context()), store.ErrClosed)
		})
	}
}
