package store

// The rest of upstream's recorded answers: every call in
// testdata/upstream/answers/state-v21.json, state-v16.json and
// state-v21-from-v16.json that TestUpstreamAnswersForMessages does not
// replay (the message reads) is replayed here, through the public API,
// and compared exactly with upstream c2a3b9ce5's result: the sessions,
// listings, lineage, titles, counts, gateway, handoff, compression state,
// prune candidates, meta and, for the recorder's raw table dumps, what the
// API reads of those tables. search_messages is replayed by
// TestUpstreamAnswersForSearch (see upstreamAnswerOwners). Where the store differs from upstream on purpose,
// the call's entry in answerDecisions holds our answer and names the
// decision; the test asserts that answer and that upstream's still
// differs, so a decision that stops mattering is noticed.
//
// The comparison is of values with their JSON types: a Python float is
// a Go float (1.0 is not 1), an int an int, None nil. Dict key order is not
// compared here: the store's rows are Go structs (the exports, whose key
// order follows the file as upstream's dict(row) does, are compared in
// order by TestUpstreamAnswersForMessages).

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// pyInt and pyFloat are a JSON number as Python typed it: an int, or a
// float (written with a point or an exponent).
type (
	pyInt   int64
	pyFloat float64
)

// answerWithNow is an answers file with the time its calls were made at.
type answerWithNow struct {
	answerFile
	Now float64 `json:"now"`
}

// loadAnswers reads testdata/upstream/answers/name.json.
func loadAnswers(t *testing.T, name string) answerWithNow {
	t.Helper()
	raw, err := os.ReadFile(dbtest.Testdata("upstream", "answers", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var a answerWithNow
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// typedJSON decodes upstream's JSON text with its numbers typed.
func typedJSON(t testing.TB, raw []byte) any {
	t.Helper()
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	var walk func(any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case json.Number:
			if strings.ContainsAny(v.String(), ".eE") || strings.Contains(v.String(), "Infinity") {
				f, err := v.Float64()
				if err != nil {
					t.Fatalf("number %s: %v", v, err)
				}
				return pyFloat(f)
			}
			n, err := v.Int64()
			if err != nil {
				t.Fatalf("number %s: %v", v, err)
			}
			return pyInt(n)
		case map[string]any:
			for k, x := range v {
				v[k] = walk(x)
			}
		case []any:
			for i, x := range v {
				v[i] = walk(x)
			}
		}
		return v
	}
	return walk(v)
}

// typedGo is v as typedJSON would decode upstream's JSON of it: structs
// as maps of their JSON keys (embedded structs merged, omitempty
// honoured), nil pointers, slices and JSONText as nil (a nil slice of
// rows as an empty list), Go ints as pyInt, Go floats and Timestamps as
// pyFloat.
func typedGo(v any) any { return typedValue(reflect.ValueOf(v)) }

func typedValue(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	switch v.Type() {
	case reflect.TypeFor[Timestamp]():
		return pyFloat(v.Float())
	case reflect.TypeFor[JSONText](), reflect.TypeFor[json.RawMessage]():
		if v.IsNil() {
			return nil
		}
		return string(v.Bytes())
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return typedValue(v.Elem())
	case reflect.Struct:
		out := map[string]any{}
		typedFields(v, out)
		return out
	case reflect.Slice:
		out := []any{}
		for i := range v.Len() {
			out = append(out, typedValue(v.Index(i)))
		}
		return out
	case reflect.Map:
		out := map[string]any{}
		for _, k := range v.MapKeys() {
			out[k.String()] = typedValue(v.MapIndex(k))
		}
		return out
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return pyInt(v.Int())
	case reflect.Float32, reflect.Float64:
		return pyFloat(v.Float())
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	}
	panic(fmt.Sprintf("typedGo: %s", v.Type()))
}

// typedFields adds the JSON fields of struct v to out.
func typedFields(v reflect.Value, out map[string]any) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case !f.IsExported() || name == "-":
			continue
		case f.Anonymous && name == "":
			typedFields(v.Field(i), out)
			continue
		case name == "":
			name = f.Name
		}
		if strings.Contains(opts, "omitempty") && v.Field(i).IsZero() {
			continue
		}
		out[name] = typedValue(v.Field(i))
	}
}

// upstreamAnswerOwners are the calls this test leaves to another test.
var upstreamAnswerOwners = map[string]string{
	"search_messages": "TestUpstreamAnswersForSearch (up_answers_search_test.go)",
}

// answerDecision is our answer to a recorded call where the store differs
// from upstream on purpose, and the decision.
type answerDecision struct {
	ours     any // typedGo of the store's answer
	decision string
}

// answerDecisions are the recorded calls the store answers otherwise, by
// fixture and call (as answerKey writes it).
var answerDecisions = func() map[string]map[string]answerDecision {
	// The recorder asks for id_query and search_query without
	// order_by_last_active, which upstream then ignores (it lists as
	// without them); the store applies them. No id of a listed (not
	// archived) session contains "arch", and no id or title "summary".
	query := answerDecision{[]any{}, "id_query / search_query without order_by_last_active: upstream ignores them, " +
		"the store applies them in either order (docs/upstream-tests/listing.md; ListOptions.SearchQuery)"}
	out := map[string]map[string]answerDecision{}
	for _, name := range []string{"state-v21", "state-v21-from-v16", "state-v16"} {
		out[name] = map[string]answerDecision{
			`list_sessions_rich[]{"id_query":"arch"}`:        query,
			`list_sessions_rich[]{"search_query":"summary"}`: query,
		}
	}
	return out
}()

// answerKey names a recorded call: its name and arguments.
func answerKey(c answerCall) string {
	kw, _ := json.Marshal(c.Kwargs)
	args, _ := json.Marshal(c.Args)
	return c.Call + string(args) + string(kw)
}

// TestUpstreamAnswersForReads replays, on each upstream fixture with the
// clock at the recording's now, every recorded call no other replay
// covers, and checks that no recorded call is left unreplayed.
// state-v21.db and state-v21-from-v16.db are read as they are
// (read-only); state-v16.db is migrated by this build first, as upstream
// migrated it before answering (HERMES_HOME without a sessions.json on
// both sides).
func TestUpstreamAnswersForReads(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"state-v21", "state-v21-from-v16", "state-v16"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			answers := loadAnswers(t, name)
			clock := newSetClock(answers.Now)
			s := openAt(t, upstreamFixture(t, answers.Fixture), &Options{ReadOnly: name != "state-v16", Now: clock.Now})
			replayed, elsewhere, decided := 0, 0, 0
			for i, c := range answers.Calls {
				if _, ok := upstreamAnswerOwners[c.Call]; ok {
					elsewhere++
					continue
				}
				if _, _, ok := replayMessageCall(t, s, c); ok {
					elsewhere++ // TestUpstreamAnswersForMessages compares it
					continue
				}
				ours, ok := replayReadCall(t, s, c, clock)
				if !ok {
					t.Errorf("call %d %s: no replay; add one here or name its owner in upstreamAnswerOwners", i, c.Call)
					continue
				}
				replayed++
				want := typedJSON(t, c.Result)
				if d, ok := answerDecisions[name][answerKey(c)]; ok {
					decided++
					if diff := cmp.Diff(d.ours, ours); diff != "" {
						t.Errorf("call %d %s%v %v, decided (%s) (-decided +ours):\n%s", i, c.Call, c.Args, c.Kwargs, d.decision, diff)
					}
					if cmp.Equal(want, ours) {
						t.Errorf("call %d %s%v %v: upstream now answers as we do; drop the decision %q", i, c.Call, c.Args, c.Kwargs, d.decision)
					}
					continue
				}
				if diff := cmp.Diff(want, ours); diff != "" {
					t.Errorf("call %d %s%v %v (-upstream +ours):\n%s", i, c.Call, c.Args, c.Kwargs, diff)
				}
			}
			t.Logf("%d calls replayed (%d of them decided otherwise), %d replayed elsewhere", replayed, decided, elsewhere)
			if replayed+elsewhere != len(answers.Calls) {
				t.Errorf("%d + %d calls of %d accounted for", replayed, elsewhere, len(answers.Calls))
			}
			if replayed < 50 {
				t.Errorf("%d calls replayed, want the reads of the file (50 or more)", replayed)
			}
		})
	}
}

// replayReadCall makes call c with s and returns our answer as typedGo
// writes it, or false for a call it does not know.
func replayReadCall(t *testing.T, s *Store, c answerCall, clock *setClock) (any, bool) {
	t.Helper()
	ctx := t.Context()
	arg := func(i int) string {
		if i < len(c.Args) {
			v, _ := c.Args[i].(string)
			return v
		}
		return ""
	}
	str := func(key string) string { v, _ := c.Kwargs[key].(string); return v }
	must := func(v any, err error) any {
		t.Helper()
		if err != nil {
			t.Fatalf("%s%v %v: %v", c.Call, c.Args, c.Kwargs, err)
		}
		return typedGo(v)
	}
	orNil := func(v string, ok bool, err error) any {
		t.Helper()
		if err != nil {
			t.Fatalf("%s%v %v: %v", c.Call, c.Args, c.Kwargs, err)
		}
		if !ok {
			return nil
		}
		return v
	}
	id := arg(0)
	switch c.Call {
	case "get_session":
		return must(s.GetSession(ctx, id)), true
	case "get_compression_tip":
		return must(s.CompressionTip(ctx, id)), true
	case "resolve_resume_session_id":
		return must(s.ResolveResumeSessionID(ctx, id)), true
	case "get_compression_lineage":
		return must(s.CompressionLineage(ctx, id)), true
	case "get_session_title":
		title, err := s.SessionTitle(ctx, id)
		return orNil(title, title != "", err), true
	case "get_compression_lock_holder":
		holder, ok, err := s.CompressionLockHolder(ctx, id)
		return orNil(holder, ok, err), true
	case "get_compression_failure_cooldown":
		cd, err := s.CompressionFailureCooldown(ctx, id)
		if err != nil || cd == nil {
			return must(cd, err), true
		}
		// remaining_seconds is a Duration here: nanoseconds, from a clock
		// set to the nanosecond nearest upstream's float now.
		remaining := pyFloat(cd.Remaining.Seconds())
		if up, ok := typedJSON(t, c.Result).(map[string]any)["remaining_seconds"].(pyFloat); ok &&
			time.Duration(float64(up)*1e9-float64(cd.Remaining)).Abs() <= 2 {
			remaining = up
		}
		return map[string]any{"cooldown_until": pyFloat(cd.Until), "remaining_seconds": remaining, "error": nilIfEmpty(cd.Error)}, true
	case "get_compression_fallback_streak":
		return must(s.CompressionFallbackStreak(ctx, id)), true
	case "get_handoff_state":
		h, err := s.HandoffState(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return map[string]any{"state": nilIfEmpty(h.State), "platform": nilIfEmpty(h.Platform), "error": nilIfEmpty(h.Error)}, true
	case "list_sessions_rich":
		opts := ListOptions{
			Source: str("source"), CwdPrefix: str("cwd_prefix"), Limit: c.num("limit"), Offset: c.num("offset"),
			IncludeChildren: c.flag("include_children"), MinMessageCount: c.num("min_message_count"),
			OrderByLastActive: c.flag("order_by_last_active"), IncludeArchived: c.flag("include_archived"),
			ArchivedOnly: c.flag("archived_only"), IDQuery: str("id_query"), SearchQuery: str("search_query"),
			CompactRows: c.flag("compact_rows"),
		}
		if v, ok := c.Kwargs["project_compression_tips"].(bool); ok && !v {
			opts.RawCompressionRoots = true
		}
		for _, x := range anyList(c.Kwargs["exclude_sources"]) {
			opts.ExcludeSources = append(opts.ExcludeSources, x.(string))
		}
		rows, err := s.ListSessionsRich(ctx, opts)
		out := must(rows, err).([]any)
		if opts.CompactRows {
			// Upstream's compact row has no system_prompt key; ours has
			// the field, nil (docs/upstream-tests/listing.md, TestCompactRows).
			for _, r := range out {
				m := r.(map[string]any)
				if m["system_prompt"] != nil {
					t.Errorf("compact row %s has a system prompt", m["id"])
				}
				delete(m, "system_prompt")
			}
		}
		return out, true
	case "session_count":
		return must(s.CountSessions(ctx, CountOptions{Source: str("source"), IncludeArchived: c.flag("include_archived")})), true
	case "search_sessions":
		return must(s.SearchSessions(ctx, str("source"), c.num("limit"), c.num("offset"))), true
	case "search_sessions_by_id":
		return must(s.SearchSessionsByID(ctx, id, IDSearchOptions{})), true
	case "list_gateway_sessions":
		v, _ := c.Kwargs["active_only"].(bool)
		_, given := c.Kwargs["active_only"]
		return must(s.ListGatewaySessions(ctx, GatewayListOptions{Platform: str("platform"), IncludeEnded: given && !v})), true
	case "load_gateway_routing_entries":
		return must(s.LoadGatewayRoutingEntries(ctx, str("scope"))), true
	case "find_latest_gateway_session_for_peer":
		found, err := s.FindLatestGatewaySessionForPeer(ctx, GatewayPeer{
			Source: str("source"), SessionKey: str("session_key"), UserID: str("user_id"),
			ChatID: str("chat_id"), ChatType: str("chat_type"), ThreadID: str("thread_id"),
		})
		if errors.Is(err, ErrNotFound) { // upstream's None
			return nil, true
		}
		return must(found, err), true
	case "find_session_by_origin":
		o := Origin{Platform: str("platform"), ChatID: str("chat_id"), UserID: str("user_id")}
		if th, ok := c.Kwargs["thread_id"].(string); ok {
			o.ThreadID = &th
		}
		found, err := s.FindSessionByOrigin(ctx, o)
		if errors.Is(err, ErrNotFound) { // upstream's None
			return nil, true
		}
		return must(found, err), true
	case "list_pending_handoffs":
		return must(s.ListPendingHandoffs(ctx)), true
	case "distinct_session_cwds":
		return must(s.DistinctSessionCwds(ctx, c.flag("include_archived"))), true
	case "list_cron_job_runs":
		return must(s.ListCronJobRuns(ctx, id, c.num("limit"), c.num("offset"))), true
	case "count_empty_sessions":
		return must(s.CountEmptySessions(ctx)), true
	case "list_prune_candidates":
		opts := PruneOptions{Before: clock.Now().Add(-time.Duration(c.num("older_than_days")) * 24 * time.Hour)}
		if v, ok := c.Kwargs["archived"].(bool); ok {
			opts.Archived = &v
		}
		rows, err := s.PruneCandidates(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		out := []any{}
		for _, r := range rows {
			out = append(out, map[string]any{"id": r.ID, "source": r.Source, "title": typedGo(r.Title), "model": typedGo(r.Model),
				"started_at": typedGo(r.StartedAt), "ended_at": typedGo(r.EndedAt), "message_count": typedGo(r.MessageCount),
				"archived": typedGo(r.Archived)})
		}
		return out, true
	case "get_meta":
		return orNil(s.GetMeta(ctx, id)), true
	case "table":
		return replayTable(t, s, id, typedJSON(t, c.Result).([]any), clock)
	}
	return nil, false
}

// replayTable answers the recorder's dump of table (upstream's rows, in
// rowid order, given as want) with what the store's API reads of it: every
// usage row with ModelUsage, every delegation with ListDelegations, the
// routing entries of each scope with LoadGatewayRoutingEntries (without
// updated_at, which no reader returns), each live lock's holder with
// CompressionLockHolder (the times of locks and routing entries have no
// reader: they are copied from want; a lock past its expiry must be one
// the reader does not report), the version with SchemaVersion. The rows of want are the
// shape ours are compared with, so only the fields the API has are kept
// from them (see the caller, which compares the whole dump).
func replayTable(t *testing.T, s *Store, table string, want []any, clock *setClock) (any, bool) {
	t.Helper()
	ctx := t.Context()
	out := []any{}
	switch table {
	case "session_model_usage":
		var ids []string
		for _, r := range want {
			if id := r.(map[string]any)["session_id"].(string); !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		for _, id := range dbtest.Values[string](t, s.r, "SELECT DISTINCT session_id FROM session_model_usage ORDER BY session_id") {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		for _, id := range ids {
			rows, err := s.ModelUsage(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, typedGo(rows).([]any)...)
		}
	case "async_delegations":
		rows, err := s.ListDelegations(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out = typedGo(rows).([]any)
	case "gateway_routing":
		// One row per entry, in the dump's order, as the API has it.
		for _, r := range want {
			m := r.(map[string]any)
			entries, err := s.LoadGatewayRoutingEntries(ctx, m["scope"].(string))
			if err != nil {
				t.Fatal(err)
			}
			key := m["session_key"].(string)
			row := map[string]any{"scope": m["scope"], "session_key": key, "entry_json": typedGo(entries[key]), "updated_at": m["updated_at"]}
			out = append(out, row)
		}
	case "compression_locks":
		for _, r := range want {
			m := r.(map[string]any)
			holder, ok, err := s.CompressionLockHolder(ctx, m["session_id"].(string))
			if err != nil {
				t.Fatal(err)
			}
			row := map[string]any{"session_id": m["session_id"], "holder": nil, "acquired_at": m["acquired_at"], "expires_at": m["expires_at"]}
			switch {
			case ok:
				row["holder"] = holder
			case float64(m["expires_at"].(pyFloat)) < float64(TimestampOf(clock.Now())):
				// Expired: the reader does not report it, as upstream's
				// get_compression_lock_holder does not (trap 15).
				row["holder"] = m["holder"]
			}
			out = append(out, row)
		}
	case "schema_version":
		v, err := s.SchemaVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, map[string]any{"version": pyInt(v)})
	default:
		return nil, false
	}
	return out, true
}

// nilIfEmpty is nil for "", else s.
func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// anyList is v as a list (nil when it is not one).
func anyList(v any) []any { l, _ := v.([]any); return l }
