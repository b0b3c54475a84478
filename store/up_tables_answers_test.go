package store

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// upstreamAnswersNow are the times upstream's answers for the fixtures were
// recorded at (its recorder freezes time.time() at the newest started_at
// plus 60 s): the same answers as testdata/upstream/answers/*.json.
var upstreamAnswersNow = map[string]float64{
	"state-v21.db":          1796284058.6271734,
	"state-v21-from-v16.db": 1796284058.0970733,
}

// answersStore opens a copy of upstream fixture name with the clock at the
// time its answers were recorded.
func answersStore(t *testing.T, name string) *Store {
	t.Helper()
	path := dbtest.CopyFile(t, dbtest.Testdata("upstream", name), filepath.Join(t.TempDir(), "state.db"))
	return openAt(t, path, &Options{Now: newSetClock(upstreamAnswersNow[name]).Now})
}

// TestUpTablesUpstreamAnswers: on upstream's fixtures, at the time its
// answers were recorded, the v21 tables' reads give upstream c2a3b9ce5's
// answers (get_compression_lock_holder, get_compression_failure_cooldown,
// get_compression_fallback_streak, get_handoff_state, list_gateway_sessions,
// load_gateway_routing_entries, find_latest_gateway_session_for_peer,
// find_session_by_origin, list_pending_handoffs) for every session or
// gateway peer the recorder asked about.
func TestUpTablesUpstreamAnswers(t *testing.T) {
	t.Parallel()
	t.Run("state-v21", func(t *testing.T) {
		t.Parallel()
		s := answersStore(t, "state-v21.db")
		ids := dbtest.Values[string](t, s.w, "SELECT id FROM sessions ORDER BY rowid")
		for _, id := range ids {
			holder := map[string]string{"fx21-locked": "4242:140001:live-nonce"}[id]
			wantHolder(t, s, id, holder)
			cooldown, err := s.CompressionFailureCooldown(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			if id == "fx21-locked" {
				// upstream: {cooldown_until: 1796287598.5410123, remaining_seconds: 3539.913838863373, error: "summary model timed out"}
				if cooldown == nil || cooldown.Until != 1796287598.5410123 || cooldown.Error != "summary model timed out" ||
					math.Abs(cooldown.Remaining.Seconds()-3539.913838863373) > 1e-6 {
					t.Errorf("cooldown of %s = %+v", id, cooldown)
				}
			} else if cooldown != nil {
				t.Errorf("cooldown of %s = %+v, want none", id, cooldown)
			}
			streak, err := s.CompressionFallbackStreak(t.Context(), id)
			if want := map[string]int64{"fx21-locked": 2}[id]; streak != want || err != nil {
				t.Errorf("streak of %s = %d, %v; want %d", id, streak, err, want)
			}
			want := map[string]Handoff{"fx21-gw": {State: HandoffPending, Platform: "discord"}}[id]
			wantHandoff(t, s, id, want)
		}
		for _, tt := range []struct {
			opts GatewayListOptions
			want []string
		}{
			{GatewayListOptions{}, []string{"fx21-gw"}},
			{GatewayListOptions{IncludeEnded: true}, []string{"fx21-gw"}},
			{GatewayListOptions{Platform: "telegram"}, []string{"fx21-gw"}},
		} {
			if diff := cmp.Diff(tt.want, listIDs(t, s, tt.opts)); diff != "" {
				t.Errorf("ListGatewaySessions(%+v) (-want +got):\n%s", tt.opts, diff)
			}
		}
		for scope, want := range map[string]map[string]string{
			"":                         {"agent:main:discord:dm:55": `{"session_id": "fx21-gw-old"}`},
			"profile-default/sessions": {"agent:main:telegram:group:-1001:7": `{"session_id": "fx21-gw", "platform": "telegram"}`},
			"missing":                  {},
		} {
			if diff := cmp.Diff(want, load(t, s, scope)); diff != "" {
				t.Errorf("LoadGatewayRoutingEntries(%q) (-want +got):\n%s", scope, diff)
			}
		}
		thread := "7"
		if got := findPeer(t, s, GatewayPeer{Source: "telegram", UserID: "u-77", SessionKey: "agent:main:telegram:group:-1001:7", ChatID: "-1001", ChatType: "group", ThreadID: "7"}); got != "fx21-gw" {
			t.Errorf("FindLatestGatewaySessionForPeer = %q, want fx21-gw", got)
		}
		if got := findOrigin(t, s, Origin{Platform: "telegram", ChatID: "-1001", ThreadID: &thread, UserID: "u-77"}); got != "fx21-gw" {
			t.Errorf("FindSessionByOrigin = %q, want fx21-gw", got)
		}
		pending, err := s.ListPendingHandoffs(t.Context())
		if err != nil || len(pending) != 1 || pending[0].ID != "fx21-gw" {
			t.Errorf("ListPendingHandoffs = %v, %v; want [fx21-gw]", pending, err)
		}
	})

	t.Run("state-v21-from-v16", func(t *testing.T) {
		t.Parallel()
		s := answersStore(t, "state-v21-from-v16.db")
		for _, id := range dbtest.Values[string](t, s.w, "SELECT id FROM sessions ORDER BY rowid") {
			wantHolder(t, s, id, map[string]string{"fx16-main": "99:1:v16-nonce"}[id])
			if c, err := s.CompressionFailureCooldown(t.Context(), id); c != nil || err != nil {
				t.Errorf("cooldown of %s = %+v, %v; want none", id, c, err)
			}
			wantHandoff(t, s, id, Handoff{})
		}
		for _, tt := range []struct {
			opts GatewayListOptions
			want []string
		}{
			{GatewayListOptions{}, []string{}},
			{GatewayListOptions{IncludeEnded: true}, []string{"fx16-old"}},
			{GatewayListOptions{Platform: "telegram"}, []string{}},
		} {
			if diff := cmp.Diff(tt.want, listIDs(t, s, tt.opts)); diff != "" {
				t.Errorf("ListGatewaySessions(%+v) (-want +got):\n%s", tt.opts, diff)
			}
		}
		for _, scope := range []string{"", "profile-default/sessions", "missing"} {
			if got := load(t, s, scope); len(got) != 0 {
				t.Errorf("LoadGatewayRoutingEntries(%q) = %v, want none", scope, got)
			}
		}
		// fx16-old ended (archived): neither lookup finds it.
		if got := findPeer(t, s, GatewayPeer{Source: "telegram", UserID: "u-5", SessionKey: "agent:main:telegram:dm:5", ChatID: "5", ChatType: "dm"}); got != "" {
			t.Errorf("FindLatestGatewaySessionForPeer = %q, want none", got)
		}
		if got := findOrigin(t, s, Origin{Platform: "telegram", ChatID: "5", UserID: "u-5"}); got != "" {
			t.Errorf("FindSessionByOrigin = %q, want none", got)
		}
		if pending, err := s.ListPendingHandoffs(t.Context()); err != nil || len(pending) != 0 {
			t.Errorf("ListPendingHandoffs = %v, %v; want none", pending, err)
		}
		// The v16 file's lock survived the migration and still excludes ours.
		if ok, err := s.TryAcquireCompressionLock(t.Context(), "fx16-main", "go", time.Minute); ok || err != nil {
			t.Errorf("acquire of the migrated live lock = %v, %v; want false", ok, err)
		}
	})
}
