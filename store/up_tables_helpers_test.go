package store

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// Helpers of the v21 tables' tests (up_locks_test.go, up_gateway_test.go,
// up_handoff_test.go, up_delegations_test.go).

// setClock is a store clock the test sets, in epoch seconds: upstream's
// tests monkeypatch time.time to fixed values (1000.0, then 1005.0, …).
type setClock struct{ ns atomic.Int64 }

// newSetClock returns a clock showing sec.
func newSetClock(sec float64) *setClock {
	c := &setClock{}
	c.Set(sec)
	return c
}

// Set moves the clock to sec.
func (c *setClock) Set(sec float64) { c.ns.Store(int64(math.Round(sec * 1e9))) }

// Now is the clock for Options.Now.
func (c *setClock) Now() time.Time { return time.Unix(0, c.ns.Load()) }

// setClockStore opens a store on a new file whose clock is c.
func setClockStore(t *testing.T, c *setClock) *Store {
	t.Helper()
	s, _ := openStore(t, &Options{Now: c.Now})
	return s
}

// newSession creates session id with source through the store API, the
// only setup most of these tests need (upstream: db.create_session(id, source)).
func newSession(t *testing.T, s *Store, id, source string) {
	t.Helper()
	mustCreate(t, s, NewSession{ID: id, Source: source})
}

// tableRows returns every row of query on the store's writer connection,
// for comparing a table with exactly what a test expects.
func tableRows(t *testing.T, s *Store, query string, args ...any) [][]any {
	t.Helper()
	return dbtest.Rows(t, s.w, query, args...)
}

// wantRows fails the test unless query returns exactly want.
func wantRows(t *testing.T, s *Store, want [][]any, query string, args ...any) {
	t.Helper()
	if diff := cmp.Diff(want, tableRows(t, s, query, args...)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", query, diff)
	}
}

// runTablesHelper is the "tables" helper process (see runHelper): it opens
// the store at path, says "ready", and runs one command per input line,
// answering each with one line:
//
//	acquire ID     TryAcquireCompressionLock(ID, holder, 0): true or false
//	dispatch ID    DispatchDelegation and CompleteDelegation of ID (owner
//	               "owner-session", parent "durable-parent", summary
//	               "after restart"): ok
//	undelivered    the events of UndeliveredDelegations, one JSON array
//	deliver ID     MarkDelegationDelivered(ID): true or false
func runTablesHelper(ctx context.Context, path, holder string) int {
	s, err := Open(ctx, path, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	fmt.Println("ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		command, arg, _ := strings.Cut(in.Text(), " ")
		answer, err := tablesCommand(ctx, s, holder, command, arg)
		if err != nil {
			fmt.Fprintf(os.Stderr, "tables helper: %s: %v\n", in.Text(), err)
			return 1
		}
		fmt.Println(answer)
	}
	return 0
}

// tablesCommand runs one command of runTablesHelper.
func tablesCommand(ctx context.Context, s *Store, holder, command, arg string) (string, error) {
	switch command {
	case "acquire":
		ok, err := s.TryAcquireCompressionLock(ctx, arg, holder, 0)
		return fmt.Sprint(ok), err
	case "dispatch":
		err := s.DispatchDelegation(ctx, DelegationDispatch{ID: arg, OriginSession: "owner-session", ParentSessionID: "durable-parent",
			OwnerPID: int64(os.Getpid()), Task: json.RawMessage(`{"goal": "restart", "context": null, "toolsets": null, "role": "leaf", "model": "m"}`)})
		if err == nil {
			err = s.CompleteDelegation(ctx, arg, DelegationCompletion{
				Event:  json.RawMessage(`{"type": "async_delegation", "delegation_id": "` + arg + `", "session_key": "owner-session", "parent_session_id": "durable-parent", "status": "completed", "summary": "after restart"}`),
				Result: json.RawMessage(`{"status": "completed", "summary": "after restart"}`),
			})
		}
		return "ok", err
	case "undelivered":
		ds, err := s.UndeliveredDelegations(ctx)
		events := []json.RawMessage{}
		for _, d := range ds {
			events = append(events, json.RawMessage(d.Event))
		}
		b, _ := json.Marshal(events)
		return string(b), err
	case "deliver":
		ok, err := s.MarkDelegationDelivered(ctx, arg)
		return fmt.Sprint(ok), err
	}
	return "", fmt.Errorf("unknown command %q", command)
}
