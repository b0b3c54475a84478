package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hermesstate/hermesstate/internal/pgtest"
	"github.com/hermesstate/hermesstate/store"
)

// The tests of this file race writers on PostgreSQL the way separate hosts
// would: every goroutine has a Store of its own (its own pool, so its own
// connections and transactions) on one database, and nothing but the
// server orders them. Without SQLite's one write lock, the store's row and
// advisory locks (internal/backend/locks.go) must keep every invariant.

// pgWriters is how many Stores race in each test.
const pgWriters = 8

// openPG opens n Stores on one freshly migrated database, each with a small
// pool of its own, closed at cleanup. query, when not empty, is added to
// the URL (runtime parameters for every connection).
func openPG(t *testing.T, n int, query url.Values) []*store.Store {
	t.Helper()
	_, stores := openPGAt(t, n, query)
	return stores
}

// openPGAt is openPG that also returns the database's URL.
func openPGAt(t *testing.T, n int, query url.Values) (string, []*store.Store) {
	t.Helper()
	dsn := pgtest.Migrated(t)
	if query != nil {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		for k, v := range query {
			q[k] = v
		}
		u.RawQuery = q.Encode()
		dsn = u.String()
	}
	stores := make([]*store.Store, n)
	for i := range stores {
		s, err := store.Open(context.Background(), dsn, &store.Options{ReadConnections: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		})
		stores[i] = s
	}
	return dsn, stores
}

// race runs fn(i) for i in [0, n) in goroutines released together, and
// waits for them.
func race(n int, fn func(i int)) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			fn(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
}

// mustCreate creates sessions with the given ids on s.
func mustCreate(t *testing.T, s *store.Store, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if _, err := s.CreateSession(context.Background(), store.NewSession{ID: id, Source: "cli"}); err != nil {
			t.Fatal(err)
		}
	}
}

// checkCounters fails unless the session's counters equal its rows:
// message_count the live messages, tool_call_count their calls (each
// message of these tests carries ToolCalls of n calls where its content
// says so, see msgWithCalls).
func checkCounters(t *testing.T, s *store.Store, id string, wantCalls int64) []store.Message {
	t.Helper()
	ctx := context.Background()
	sess, err := s.GetSession(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := s.GetMessages(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if sess.MessageCount != int64(len(msgs)) {
		t.Errorf("session %s: message_count %d, %d rows", id, sess.MessageCount, len(msgs))
	}
	if sess.ToolCallCount != wantCalls {
		t.Errorf("session %s: tool_call_count %d, want %d", id, sess.ToolCallCount, wantCalls)
	}
	return msgs
}

// checkHealth fails when Check finds a counter that disagrees with the
// rows or an orphan message anywhere in the database.
func checkHealth(t *testing.T, s *store.Store) {
	t.Helper()
	h, err := s.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Counters) != 0 || h.OrphanMessages != 0 {
		t.Fatalf("Check: counters %+v, %d orphan messages", h.Counters, h.OrphanMessages)
	}
}

// msgWithCalls is a user message with content text, or an assistant one
// carrying calls tool calls when calls > 0.
func msgWithCalls(text string, calls int) store.NewMessage {
	m := store.NewMessage{Role: "user", Content: &text}
	if calls > 0 {
		var tc []map[string]string
		for i := range calls {
			tc = append(tc, map[string]string{"id": fmt.Sprintf("c%d", i)})
		}
		b, _ := json.Marshal(tc)
		m.Role, m.ToolCalls = "assistant", b
	}
	return m
}

func sumRetries(stores []*store.Store) uint64 {
	var n uint64
	for _, s := range stores {
		n += s.Stats().Retries
	}
	return n
}

// TestPostgresConcurrentSameTitle: eight sessions take the same title at
// once, each from its own Store. Exactly one wins; every other gets a
// *TitleInUseError naming the winner; the winner holds the title and the
// losers none.
func TestPostgresConcurrentSameTitle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	stores := openPG(t, pgWriters, nil)
	ids := make([]string, pgWriters)
	for i := range ids {
		ids[i] = fmt.Sprintf("s%d", i)
	}
	mustCreate(t, stores[0], ids...)
	errs := make([]error, pgWriters)
	race(pgWriters, func(i int) { errs[i] = stores[i].SetSessionTitle(ctx, ids[i], "same") })
	winner := -1
	for i, err := range errs {
		if err == nil {
			if winner >= 0 {
				t.Fatalf("sessions %s and %s both took the title", ids[winner], ids[i])
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatalf("no session took the title: %v", errs)
	}
	for i, err := range errs {
		if i == winner {
			continue
		}
		var inUse *store.TitleInUseError
		if !errors.Is(err, store.ErrTitleInUse) || !errors.As(err, &inUse) {
			t.Fatalf("session %s: err = %v, want a *TitleInUseError", ids[i], err)
		}
		if inUse.Title != "same" || inUse.SessionID != ids[winner] {
			t.Fatalf("session %s: %+v, want the title held by %s", ids[i], inUse, ids[winner])
		}
		if got, err := stores[0].SessionTitle(ctx, ids[i]); err != nil || got != "" {
			t.Fatalf("loser %s has title %q (%v)", ids[i], got, err)
		}
	}
	got, err := stores[0].SessionByTitle(ctx, "same")
	if err != nil || got.ID != ids[winner] {
		t.Fatalf("SessionByTitle = %v, %v; want %s", got, err, ids[winner])
	}
}

// TestPostgresConcurrentLineageTitles: eight Stores allocate lineage titles
// for five sessions each (NextTitleInLineage, then SetSessionTitle, again
// on ErrTitleInUse). The forty titles are exactly "t", "t #2" … "t #40":
// no two sessions share one and none is skipped.
func TestPostgresConcurrentLineageTitles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const perWriter = 5
	stores := openPG(t, pgWriters, nil)
	var all []string
	for w := range pgWriters {
		for k := range perWriter {
			all = append(all, fmt.Sprintf("w%d-%d", w, k))
		}
	}
	mustCreate(t, stores[0], all...)
	errs := make([]error, pgWriters)
	conflicts := make([]int, pgWriters)
	race(pgWriters, func(w int) {
		s := stores[w]
		for k := range perWriter {
			id := fmt.Sprintf("w%d-%d", w, k)
			for {
				title, err := s.NextTitleInLineage(ctx, "t")
				if err != nil {
					errs[w] = err
					return
				}
				err = s.SetSessionTitle(ctx, id, title)
				if errors.Is(err, store.ErrTitleInUse) {
					conflicts[w]++
					continue
				}
				if err != nil {
					errs[w] = err
					return
				}
				break
			}
		}
	})
	for w, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", w, err)
		}
	}
	var titles []string
	for _, id := range all {
		title, err := stores[0].SessionTitle(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		titles = append(titles, title)
	}
	want := []string{"t"}
	for n := 2; n <= len(all); n++ {
		want = append(want, fmt.Sprintf("t #%d", n))
	}
	sort.Strings(titles)
	sort.Strings(want)
	if !slices.Equal(titles, want) {
		t.Fatalf("titles = %q\nwant %q", titles, want)
	}
	t.Logf("%d lost races retried", sumInts(conflicts))
}

func sumInts(v []int) int {
	n := 0
	for _, x := range v {
		n += x
	}
	return n
}

// TestPostgresConcurrentAppends: eight Stores append fifty messages each
// to one session (every third with two tool calls). The counters equal the
// rows, every acknowledged id is there exactly once, and the transcript's
// ids increase strictly in the order GetMessages returns it.
func TestPostgresConcurrentAppends(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const each = 50
	stores := openPG(t, pgWriters+1, nil)
	mustCreate(t, stores[0], "one")
	acked := make([][]int64, pgWriters)
	errs := make([]error, pgWriters+1)
	// A ninth Store tails the session while the appends run: every
	// transcript it reads must be a prefix of the final one (ids are taken
	// under the session's lock, so they commit in order and a reader never
	// sees a message before an earlier one has committed).
	var seen [][]int64
	stop := make(chan struct{})
	var appending sync.WaitGroup
	appending.Add(pgWriters)
	go func() { appending.Wait(); close(stop) }()
	race(pgWriters+1, func(w int) {
		if w == pgWriters {
			for {
				msgs, err := stores[w].GetMessages(ctx, "one")
				if err != nil {
					errs[w] = err
					return
				}
				ids := make([]int64, len(msgs))
				for i, m := range msgs {
					ids[i] = m.ID
				}
				seen = append(seen, ids)
				select {
				case <-stop:
					return
				default:
				}
			}
		}
		defer appending.Done()
		for k := range each {
			calls := 0
			if k%3 == 0 {
				calls = 2
			}
			id, err := stores[w].AppendMessage(ctx, "one", msgWithCalls(fmt.Sprintf("w%d-%d", w, k), calls))
			if err != nil {
				errs[w] = err
				return
			}
			acked[w] = append(acked[w], id)
		}
	})
	for w, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", w, err)
		}
	}
	callsPerWriter := int64(2 * ((each + 2) / 3)) // k = 0, 3, …, 48: 17 messages
	msgs := checkCounters(t, stores[0], "one", pgWriters*callsPerWriter)
	if len(msgs) != pgWriters*each {
		t.Fatalf("%d messages, want %d", len(msgs), pgWriters*each)
	}
	final := make([]int64, len(msgs))
	for i, m := range msgs {
		final[i] = m.ID
	}
	for _, ids := range seen {
		if !slices.Equal(ids, final[:len(ids)]) {
			t.Fatalf("a reader saw %d messages that are not the transcript's first %d", len(ids), len(ids))
		}
	}
	if len(seen) < 2 {
		t.Fatalf("the reader read %d times while appends ran", len(seen))
	}
	t.Logf("the reader checked %d transcripts", len(seen))
	byID := map[int64]string{}
	for i, m := range msgs {
		if i > 0 && m.ID <= msgs[i-1].ID {
			t.Fatalf("message %d has id %d after %d", i, m.ID, msgs[i-1].ID)
		}
		byID[m.ID] = *m.Content
	}
	for w, ids := range acked {
		for k, id := range ids {
			if want := fmt.Sprintf("w%d-%d", w, k); byID[id] != want {
				t.Fatalf("acknowledged id %d holds %q, want %q", id, byID[id], want)
			}
			delete(byID, id)
		}
	}
	if len(byID) != 0 {
		t.Fatalf("%d messages nobody acknowledged", len(byID))
	}
	checkHealth(t, stores[0])
}

// TestPostgresReplaceVersusAppend: seven Stores append to one session while
// another replaces its transcript ten times. Afterwards the session holds
// the last replace's three messages and exactly the acknowledged appends
// that came after it (their ids are larger: ids are taken under the
// session's lock), the counters equal the rows, and no append acknowledged
// after the last replace is lost.
func TestPostgresReplaceVersusAppend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const appends, replaces = 30, 10
	stores := openPG(t, pgWriters, nil)
	mustCreate(t, stores[0], "one")
	type ack struct {
		id   int64
		text string
	}
	acked := make([][]ack, pgWriters)
	errs := make([]error, pgWriters)
	race(pgWriters, func(w int) {
		s := stores[w]
		if w == 0 {
			for r := range replaces {
				set := []store.NewMessage{
					msgWithCalls(fmt.Sprintf("r%d-0", r), 0),
					msgWithCalls(fmt.Sprintf("r%d-1", r), 3),
					msgWithCalls(fmt.Sprintf("r%d-2", r), 0),
				}
				if err := s.ReplaceMessages(ctx, "one", set); err != nil {
					errs[w] = err
					return
				}
			}
			return
		}
		for k := range appends {
			text := fmt.Sprintf("a%d-%d", w, k)
			id, err := s.AppendMessage(ctx, "one", msgWithCalls(text, 1))
			if err != nil {
				errs[w] = err
				return
			}
			acked[w] = append(acked[w], ack{id, text})
		}
	})
	for w, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", w, err)
		}
	}
	msgs, err := stores[0].GetMessages(ctx, "one")
	if err != nil {
		t.Fatal(err)
	}
	// The last replace's rows, and the smallest id among them.
	last := fmt.Sprintf("r%d-", replaces-1)
	var replaceIDs []int64
	got := map[int64]string{}
	for _, m := range msgs {
		got[m.ID] = *m.Content
		if len(*m.Content) > len(last) && (*m.Content)[:len(last)] == last {
			replaceIDs = append(replaceIDs, m.ID)
		}
	}
	if len(replaceIDs) != 3 {
		t.Fatalf("%d rows of the last replace, want 3: %v", len(replaceIDs), got)
	}
	floor := slices.Min(replaceIDs)
	want := map[int64]string{}
	for _, id := range replaceIDs {
		want[id] = got[id]
	}
	var after int64
	for _, acks := range acked {
		for _, a := range acks {
			if a.id > floor {
				want[a.id] = a.text
				after++
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d (3 replaced + %d appended after)", len(got), len(want), after)
	}
	for id, text := range want {
		if got[id] != text {
			t.Fatalf("id %d holds %q, want %q", id, got[id], text)
		}
	}
	checkCounters(t, stores[0], "one", 3+after)
	checkHealth(t, stores[0])
}

// TestPostgresPruneVersusAppend: four Stores append to sixteen ended
// sessions round robin while two others prune them one at a time. Every
// append either succeeded or failed with ErrSessionNotFound (only for a
// pruned session); a surviving session holds exactly its acknowledged
// appends; a pruned one is gone with its messages (no orphan rows), and
// appending to it fails. Two prunes run one after the other (each begins
// with the exclusive lock, TestPostgresConcurrentPrunesSerialised); an
// append that meets a prune's row locks may still be retried (logged from
// Stats().Retries here).
func TestPostgresPruneVersusAppend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const sessions, appenders, rounds = 16, 4, 10
	// The deadlock detector runs after deadlock_timeout: 50 ms instead
	// of 1 s, so any deadlock is broken quickly.
	stores := openPG(t, appenders+2, url.Values{"deadlock_timeout": {"50ms"}})
	ids := make([]string, sessions)
	for i := range ids {
		ids[i] = fmt.Sprintf("old%02d", i)
		mustCreate(t, stores[0], ids[i])
		if err := stores[0].EndSession(ctx, ids[i], "user_exit"); err != nil {
			t.Fatal(err)
		}
	}
	// Sessions 0–11 are pruned (pruner 0 the even ones, pruner 1 the odd),
	// 12–15 survive.
	pruned := map[string]bool{}
	type ack struct {
		session string
		id      int64
	}
	acked := make([][]ack, appenders)
	notFound := make([]map[string]bool, appenders)
	errs := make([]error, appenders+2)
	race(appenders+2, func(w int) {
		s := stores[w]
		if w >= appenders {
			p := w - appenders
			for i := p; i < 12; i += 2 {
				n, err := s.PruneSessions(ctx, store.PruneOptions{AnyAge: true, IDs: []string{ids[i]}})
				if err != nil || n != 1 {
					errs[w] = fmt.Errorf("prune %s: %d, %w", ids[i], n, err)
					return
				}
				time.Sleep(2 * time.Millisecond)
			}
			return
		}
		notFound[w] = map[string]bool{}
		for r := range rounds {
			for _, sid := range ids {
				id, err := s.AppendMessage(ctx, sid, msgWithCalls(fmt.Sprintf("%s-%d-%d", sid, w, r), 0))
				switch {
				case errors.Is(err, store.ErrSessionNotFound):
					notFound[w][sid] = true
				case err != nil:
					errs[w] = err
					return
				default:
					if notFound[w][sid] {
						errs[w] = fmt.Errorf("append to %s succeeded after one failed with ErrSessionNotFound", sid)
						return
					}
					acked[w] = append(acked[w], ack{sid, id})
				}
			}
		}
	})
	for w, err := range errs {
		if err != nil {
			t.Fatalf("writer %d: %v", w, err)
		}
	}
	for i := range 12 {
		pruned[ids[i]] = true
	}
	for w := range appenders {
		for sid := range notFound[w] {
			if !pruned[sid] {
				t.Fatalf("append to surviving %s failed with ErrSessionNotFound", sid)
			}
		}
	}
	wantRows := map[string]map[int64]bool{}
	for _, acks := range acked {
		for _, a := range acks {
			if wantRows[a.session] == nil {
				wantRows[a.session] = map[int64]bool{}
			}
			wantRows[a.session][a.id] = true
		}
	}
	s := stores[0]
	for _, sid := range ids {
		if pruned[sid] {
			if _, err := s.GetSession(ctx, sid); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("pruned %s: GetSession err = %v", sid, err)
			}
			if msgs, err := s.GetMessages(ctx, sid); err != nil || len(msgs) != 0 {
				t.Fatalf("pruned %s still has %d messages (%v)", sid, len(msgs), err)
			}
			if _, err := s.AppendMessage(ctx, sid, msgWithCalls("late", 0)); !errors.Is(err, store.ErrSessionNotFound) {
				t.Fatalf("append to pruned %s: %v", sid, err)
			}
			continue
		}
		msgs := checkCounters(t, s, sid, 0)
		if len(msgs) != appenders*rounds || len(msgs) != len(wantRows[sid]) {
			t.Fatalf("survivor %s: %d rows, %d acknowledged, want %d", sid, len(msgs), len(wantRows[sid]), appenders*rounds)
		}
		for _, m := range msgs {
			if !wantRows[sid][m.ID] {
				t.Fatalf("survivor %s: id %d nobody acknowledged", sid, m.ID)
			}
		}
	}
	checkHealth(t, s)
	if n := stores[appenders].Stats().Retries + stores[appenders+1].Stats().Retries; n == 0 {
		t.Logf("the pruners were never retried; appenders %d times", sumRetries(stores[:appenders]))
	} else {
		t.Logf("pruners retried %d times; appenders %d", n, sumRetries(stores[:appenders]))
	}
}

// TestPostgresConcurrentPrunesSerialised: two prunes, each a write of
// many sessions (writeAll), begin with the exclusive form of the advisory
// lock every write begins with shared (7235102001), so they run one after
// the other and never deadlock (as they did when each took the shared lock
// first and then asked for the exclusive one). To make both BEGINs meet for
// certain, another host's exclusive holder of that lock (a prune of its
// own, here a raw transaction) holds them off until both wait, then lets
// them go. Both prunes return without error, the ten ended sessions are
// deleted exactly once between them, and no retry is counted.
func TestPostgresConcurrentPrunesSerialised(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn, stores := openPGAt(t, 2, url.Values{"deadlock_timeout": {"50ms"}})
	for i := range 10 {
		id := fmt.Sprintf("old%d", i)
		mustCreate(t, stores[0], id)
		if err := stores[0].EndSession(ctx, id, "user_exit"); err != nil {
			t.Fatal(err)
		}
	}
	other, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	holder, err := other.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback(ctx)
	// Hand-written: what a write of many sessions begins with (store/postgres.go).
	if _, err := holder.Exec(ctx, "SELECT pg_advisory_xact_lock(7235102001)"); err != nil {
		t.Fatal(err)
	}
	counts := make([]int, 2)
	errs := make([]error, 2)
	done := make(chan struct{})
	go func() {
		defer close(done)
		race(2, func(i int) {
			counts[i], errs[i] = stores[i].PruneSessions(ctx, store.PruneOptions{AnyAge: true})
		})
	}()
	for waiting := 0; waiting < 2; {
		// Hand-written: the two BEGINs waiting for the exclusive lock.
		if err := other.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'
			AND NOT granted AND mode = 'ExclusiveLock' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := holder.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	<-done
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if counts[0]+counts[1] != 10 {
		t.Fatalf("pruned %v, want 10 in all", counts)
	}
	if n := sumRetries(stores); n != 0 {
		t.Fatalf("%d retries counted, want 0 (no deadlock)", n)
	}
	for _, s := range stores {
		if st := s.Stats(); st.BusyFailures != 0 {
			t.Fatalf("BusyFailures = %d", st.BusyFailures)
		}
	}
}

// TestPostgresConcurrentCompressionLock: eight Stores try to take one
// session's compression lock at once. Exactly one gets it; the others are
// told no, without an error; only the winner can refresh it.
func TestPostgresConcurrentCompressionLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	stores := openPG(t, pgWriters, nil)
	mustCreate(t, stores[0], "one")
	got := make([]bool, pgWriters)
	errs := make([]error, pgWriters)
	race(pgWriters, func(i int) {
		got[i], errs[i] = stores[i].TryAcquireCompressionLock(ctx, "one", fmt.Sprintf("h%d", i), time.Minute)
	})
	winner := -1
	for i := range got {
		if errs[i] != nil {
			t.Fatalf("store %d: %v", i, errs[i])
		}
		if got[i] {
			if winner >= 0 {
				t.Fatalf("h%d and h%d both hold the lock", winner, i)
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatal("nobody got the lock")
	}
	for i := range pgWriters {
		ok, err := stores[0].RefreshCompressionLock(ctx, "one", fmt.Sprintf("h%d", i), time.Minute)
		if err != nil || ok != (i == winner) {
			t.Fatalf("refresh by h%d = %v, %v; the holder is h%d", i, ok, err, winner)
		}
	}
}

// TestPostgresConcurrentClaims: eight Stores claim one pending handoff, and
// one completed delegation's delivery, at once. Each claim is one
// conditional UPDATE, which PostgreSQL re-checks on the row a concurrent
// claimant committed (READ COMMITTED), so exactly one claimant wins each.
func TestPostgresConcurrentClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	stores := openPG(t, pgWriters, nil)
	mustCreate(t, stores[0], "one")
	if ok, err := stores[0].RequestHandoff(ctx, "one", "telegram"); err != nil || !ok {
		t.Fatalf("RequestHandoff = %v, %v", ok, err)
	}
	if err := stores[0].DispatchDelegation(ctx, store.DelegationDispatch{
		ID: "d1", OriginSession: "one", DispatchedAt: 1, Task: json.RawMessage(`{"goal":"x"}`),
	}); err != nil {
		t.Fatal(err)
	}
	if err := stores[0].CompleteDelegation(ctx, "d1", store.DelegationCompletion{CompletedAt: 2, Event: json.RawMessage(`{"type":"done"}`), Result: json.RawMessage(`{"ok":true}`)}); err != nil {
		t.Fatal(err)
	}
	handoff := make([]bool, pgWriters)
	delivery := make([]bool, pgWriters)
	errs := make([]error, pgWriters)
	race(pgWriters, func(i int) {
		var err1, err2 error
		handoff[i], err1 = stores[i].ClaimHandoff(ctx, "one")
		delivery[i], err2 = stores[i].ClaimDelegationDelivery(ctx, "d1", fmt.Sprintf("c%d", i))
		errs[i] = errors.Join(err1, err2)
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("store %d: %v", i, err)
		}
	}
	for name, won := range map[string][]bool{"handoff": handoff, "delegation delivery": delivery} {
		if n := len(slices.DeleteFunc(slices.Clone(won), func(b bool) bool { return !b })); n != 1 {
			t.Fatalf("%d claimants won the %s, want 1: %v", n, name, won)
		}
	}
	h, err := stores[0].HandoffState(ctx, "one")
	if err != nil || h.State != "running" {
		t.Fatalf("handoff = %+v, %v; want running", h, err)
	}
	d, err := stores[0].GetDelegation(ctx, "d1")
	if err != nil {
		t.Fatal(err)
	}
	winner := slices.Index(delivery, true)
	if d.DeliveryClaim == nil || *d.DeliveryClaim != fmt.Sprintf("c%d", winner) || d.DeliveryAttempts != 1 {
		t.Fatalf("delegation claim %v, attempts %d; want c%d and 1", d.DeliveryClaim, d.DeliveryAttempts, winner)
	}
}

// TestPostgresIdleConnectionsTerminated: the server ends every connection
// of the database while they idle in the Stores' pools (a restart, a
// failover, idle_session_timeout). The next write and the next read of each
// Store must take fresh connections, not fail with the FATAL 57P01 the dead
// ones answer with.
func TestPostgresIdleConnectionsTerminated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.Migrated(t)
	s, err := store.Open(ctx, dsn, &store.Options{ReadConnections: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustCreate(t, s, "one")
	if _, err := s.GetSession(ctx, "one"); err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, pgtest.ServerDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	terminate := func() {
		t.Helper()
		var n int
		// Hand-written: end the Store's idle connections (every backend
		// of the test's own database but none of the admin's) and wait
		// until they are gone.
		if err := admin.QueryRow(ctx, `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 5000))
			FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, u.Path[1:]).Scan(&n); err != nil || n == 0 {
			t.Fatalf("terminated %d connections: %v", n, err)
		}
	}
	terminate()
	if _, err := s.AppendMessage(ctx, "one", msgWithCalls("after", 0)); err != nil {
		t.Fatalf("write after the server ended the idle connections: %v", err)
	}
	terminate()
	if _, err := s.GetSession(ctx, "one"); err != nil {
		t.Fatalf("single-statement read after the server ended the idle connections: %v", err)
	}
	terminate()
	if title, err := s.NextTitleInLineage(ctx, "t"); err != nil || title != "t" {
		t.Fatalf("read transaction after the server ended the idle connections: %q, %v", title, err)
	}
	terminate()
	if msgs, err := s.GetMessages(ctx, "one"); err != nil || len(msgs) != 1 {
		t.Fatalf("GetMessages after the server ended the idle connections: %d, %v", len(msgs), err)
	}
}

// TestPostgresConcurrentFirstAccountedRoute: the first call that accounts
// usage on a session records its route (model, billing provider); later
// ones do not. Two such calls race: A reads the session (no call counted
// yet), then B does, before either commits. As SQLite runs them one after
// the other, the session must end with the route of the one that
// committed first (A) and both calls counted. The interleaving is made
// certain by another host holding the session row (a write of its own,
// here a raw transaction) until both wait on it, A first. What keeps it
// right: UpdateTokenCounts's first statement, SessionUpsert, is an INSERT
// … ON CONFLICT DO UPDATE, which locks the existing row until the
// transaction ends, so B reads the session only after A committed (a
// DO NOTHING there would let B read the uncounted row and overwrite A's
// route).
func TestPostgresConcurrentFirstAccountedRoute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn, stores := openPGAt(t, 2, nil)
	mustCreate(t, stores[0], "one")
	other, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	holder, err := other.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback(ctx)
	// Hand-written: hold the session row as a write of another host does.
	if _, err := holder.Exec(ctx, "SELECT 1 FROM sessions WHERE id = 'one' FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	waitFor := func(n int) {
		t.Helper()
		for w := 0; w < n; {
			// Hand-written: the backends of this database waiting on a lock.
			if err := other.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&w); err != nil {
				t.Fatal(err)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	errs := make(chan error, 2)
	call := func(s *store.Store, model, provider string) {
		errs <- s.UpdateTokenCounts(ctx, "one", store.TokenUpdate{
			InputTokens: 10, APICallCount: 1, Model: model, BillingProvider: provider,
		})
	}
	go call(stores[0], "model-a", "provider-a")
	waitFor(1)
	go call(stores[1], "model-b", "provider-b")
	waitFor(2)
	if err := holder.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	sess, err := stores[0].GetSession(ctx, "one")
	if err != nil {
		t.Fatal(err)
	}
	if sess.APICallCount != 2 || sess.InputTokens != 20 {
		t.Fatalf("api calls %d, input tokens %d; want 2 and 20", sess.APICallCount, sess.InputTokens)
	}
	if deref(sess.Model) != "model-a" || deref(sess.BillingProvider) != "provider-a" {
		t.Fatalf("route %q/%q, want model-a/provider-a (the first call to commit)", deref(sess.Model), deref(sess.BillingProvider))
	}
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}
