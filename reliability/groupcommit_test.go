package reliability

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/store"
)

// groupAppenders is the number of goroutines of a group-commit child, each
// appending to a session of its own through one store.
const groupAppenders = 8

// groupOp is step step of appender g in iteration iter of
// TestKilledGroupCommitLosesNothing: it creates the appender's session,
// then appends one message to it per step.
func groupOp(iter, g, step int) crashOp {
	sid := fmt.Sprintf("i%dg%d", iter, g)
	if step == 0 {
		return crashOp{Kind: "create", Session: sid, Source: "cli"}
	}
	return crashOp{Kind: "append", Session: sid, Msgs: []genMsg{messageFor(sid, step)}}
}

// groupSession is what appender g's session holds after its first n steps
// committed, and whether it exists.
func groupSession(iter, g, n int) (fileSession, bool) {
	m := model{}
	for step := range n {
		m.apply(groupOp(iter, g, step))
	}
	s, ok := m.state()[fmt.Sprintf("i%dg%d", iter, g)]
	return s, ok
}

// appenderLog is what a group-commit child said about one appender: how
// many of its steps the store acknowledged (always its first ones), whether
// the next one had begun, and the id returned for each acknowledged append.
type appenderLog struct {
	acked  int
	begun  bool
	msgIDs map[int]int64
}

// TestKilledGroupCommitLosesNothing kills, with SIGKILL at a random moment,
// a child whose 8 goroutines append at synchronous=FULL through one store,
// so that their writes share transactions (group commit), again and again
// on the same file. Each goroutine reports a step before it starts ("begin
// G N") and once the store acknowledged it ("ack G N ID"). Reopened, the
// file must hold every acknowledged write of every goroutine, with the id
// the store returned, in each goroutine's order; of the writes in flight
// at the kill (up to one per goroutine) each is whole or absent; and the
// file passes every check (integrity, both FTS indexes, counters, v21).
// The child's Stats show that its writes did share commits.
func TestKilledGroupCommitLosesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rng := testRand(t)
	path := t.TempDir() + "/state.db"
	s, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want := map[string]fileSession{}
	iterations := pick(5, 40)
	var shared, acked, inFlight, committed int
	for iter := range iterations {
		c := startChild(t, "group-append", "RELIABILITY_DB="+path, "RELIABILITY_ITERATION="+strconv.Itoa(iter))
		c.expect("ready")
		var lines []string
		for acks := 20 + rng.IntN(300); acks > 0; {
			l := c.next()
			lines = append(lines, l)
			if strings.HasPrefix(l, "ack ") {
				acks--
			}
		}
		time.Sleep(time.Duration(rng.Int64N(int64(2 * time.Millisecond))))
		c.kill()
		logs, stats := parseGroupLines(t, append(lines, c.finish(true)...))
		if stats[0] > stats[1] {
			shared++
		}

		got, ids := reopenAfterCrash(t, path)
		for g, l := range logs {
			acked += l.acked
			sid := fmt.Sprintf("i%dg%d", iter, g)
			for step, id := range l.msgIDs {
				if content := groupOp(iter, g, step).Msgs[0].Content; ids[content] != id {
					t.Errorf("iteration %d: message %q has id %d, the store acknowledged it as %d", iter, content, ids[content], id)
				}
			}
			base, baseOK := groupSession(iter, g, l.acked)
			gotS, gotOK := got[sid]
			switch {
			case gotOK == baseOK && (!gotOK || cmp.Equal(base, gotS)):
			case l.begun:
				alt, altOK := groupSession(iter, g, l.acked+1)
				if gotOK != altOK || (gotOK && !cmp.Equal(alt, gotS)) {
					t.Fatalf("iteration %d, appender %d, killed after %d acknowledged steps with one in flight: session %s holds neither the acknowledged writes nor those plus the one in flight:\n%s",
						iter, g, l.acked, sid, cmp.Diff(base, gotS))
				}
				committed++
			default:
				t.Fatalf("iteration %d, appender %d, killed after %d acknowledged steps: session %s (-acknowledged +file):\n%s",
					iter, g, l.acked, sid, cmp.Diff(base, gotS))
			}
			if l.begun {
				inFlight++
			}
			if gotOK {
				want[sid] = gotS
			}
		}
		// No session is lost or added: earlier iterations' are unchanged.
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("iteration %d: the file's sessions differ from every earlier acknowledged state (-want +got):\n%s", iter, diff)
		}
	}
	if shared == 0 {
		t.Errorf("in none of %d runs did the child's writes share a commit (Stats.Writes > Stats.Groups)", iterations)
	}
	t.Logf("%d kills, %d steps acknowledged, all present; %d writes in flight at the kills, %d of them found committed; writes shared commits in %d runs",
		iterations, acked, inFlight, committed, shared)
}

// parseGroupLines reads a group-commit child's output: per appender, its
// acknowledged steps (in order, each begun before), the step in flight and
// the ids; and the last "stats WRITES GROUPS" line.
func parseGroupLines(t *testing.T, lines []string) ([groupAppenders]appenderLog, [2]uint64) {
	t.Helper()
	var logs [groupAppenders]appenderLog
	for g := range logs {
		logs[g].msgIDs = map[int]int64{}
	}
	var stats [2]uint64
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 3 && f[0] == "stats" {
			w, err1 := strconv.ParseUint(f[1], 10, 64)
			g, err2 := strconv.ParseUint(f[2], 10, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("group child wrote %q", l)
			}
			stats = [2]uint64{w, g}
			continue
		}
		if len(f) < 3 {
			t.Fatalf("group child wrote %q", l)
		}
		g, err1 := strconv.Atoi(f[1])
		n, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || g < 0 || g >= groupAppenders {
			t.Fatalf("group child wrote %q", l)
		}
		a := &logs[g]
		switch {
		case f[0] == "begin" && len(f) == 3 && n == a.acked && !a.begun:
			a.begun = true
		case f[0] == "ack" && n == a.acked && a.begun && (len(f) == 3) == (n == 0) && len(f) <= 4:
			if len(f) == 4 {
				id, err := strconv.ParseInt(f[3], 10, 64)
				if err != nil {
					t.Fatalf("group child wrote %q", l)
				}
				a.msgIDs[n] = id
			}
			a.acked, a.begun = a.acked+1, false
		default:
			t.Fatalf("group child wrote %q after appender %d's %d acknowledged steps (begun: %v)", l, g, a.acked, a.begun)
		}
	}
	return logs, stats
}

// runGroupChild is the "group-append" helper: it opens the store with the
// default options (synchronous=FULL), says "ready", and runs 8 goroutines
// that each create a session and append to it (groupOp) until the child is
// killed, writing "begin G N" before step N of goroutine G and "ack G N"
// ("ack G N ID" for an append) once the store acknowledged it, each line
// one write(2). Goroutine 0 also writes "stats WRITES GROUPS" after each
// of its acknowledged steps. It stops by itself after childTimeout.
func runGroupChild() error {
	ctx := context.Background()
	iter, err := strconv.Atoi(os.Getenv("RELIABILITY_ITERATION"))
	if err != nil {
		return err
	}
	s, err := openChildStore(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Println("ready")
	deadline := time.Now().Add(childTimeout)
	errs := make([]error, groupAppenders)
	var wg sync.WaitGroup
	for g := range groupAppenders {
		wg.Go(func() {
			for step := 0; time.Now().Before(deadline); step++ {
				fmt.Printf("begin %d %d\n", g, step)
				op := groupOp(iter, g, step)
				id, err := op.run(ctx, s)
				if err != nil {
					errs[g] = fmt.Errorf("appender %d step %d: %w", g, step, err)
					return
				}
				if op.Kind == "append" {
					fmt.Printf("ack %d %d %d\n", g, step, id)
				} else {
					fmt.Printf("ack %d %d\n", g, step)
				}
				if g == 0 {
					st := s.Stats()
					fmt.Printf("stats %d %d\n", st.Writes, st.Groups)
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
