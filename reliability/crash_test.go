package reliability

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/store"
)

// TestKilledWriterLosesNothing kills a child process with SIGKILL at a
// random moment while it appends messages, replaces transcripts, prunes
// sessions or vacuums, again and again on the same file (each kill leaves a
// WAL for the next opener to recover). The child reports each step to the
// parent before it starts ("begin N") and after the store acknowledged it
// ("ack N"). After each kill the file is reopened with store.Open and must
// hold exactly the acknowledged steps, plus at most the step in flight,
// whole (a replaced transcript is the old or the new one, never a mix; a
// prune took all of its sessions or none), and pass every check: integrity,
// foreign keys, both FTS indexes, counters, and a v21 schema.
func TestKilledWriterLosesNothing(t *testing.T) {
	t.Parallel()
	for _, name := range slices.Sorted(maps.Keys(crashScenarios)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runCrashScenario(t, name, crashScenarios[name])
		})
	}
}

// runCrashScenario is one subtest of TestKilledWriterLosesNothing.
func runCrashScenario(t *testing.T, name string, sc crashScenario) {
	ctx := context.Background()
	rng := testRand(t)
	path := filepath.Join(t.TempDir(), "state.db")
	want := model{}
	s, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range sc.setup {
		if _, err := op.run(ctx, s); err != nil {
			t.Fatalf("setup %s %s: %v", op.Kind, op.Session, err)
		}
		want.apply(op)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	iterations := pick(sc.iterations[0], sc.iterations[1])
	inFlight := map[string]int{}  // the kind of step each kill interrupted
	took := 50 * time.Millisecond // how long the last target step took
	committed, acked := 0, 0
	for iter := range iterations {
		c := startChild(t, "crash", "RELIABILITY_DB="+path, "RELIABILITY_SCENARIO="+name,
			"RELIABILITY_ITERATION="+strconv.Itoa(iter))
		c.expect("ready")
		lines := waitForTarget(c, sc, iter, 1+rng.IntN(sc.upTo), &took)
		time.Sleep(time.Duration(rng.Int64N(max(int64(took)*5/4, 1))))
		c.kill()
		done, begun, msgIDs := parseSteps(t, append(lines, c.finish(true)...))
		acked += done
		for step := range done {
			want.apply(sc.op(iter, step))
		}
		alt := model(nil) // the file if the step in flight committed
		if begun {
			op := sc.op(iter, done)
			inFlight[op.Kind]++
			alt = maps.Clone(want)
			alt.apply(op)
		} else {
			inFlight["between steps"]++
		}

		got, ids := reopenAfterCrash(t, path)
		for step, id := range msgIDs {
			if content := sc.op(iter, step).Msgs[0].Content; ids[content] != id {
				t.Errorf("iteration %d: message %q has id %d, the store acknowledged it as %d", iter, content, ids[content], id)
			}
		}
		switch {
		case cmp.Equal(want.state(), got):
		case alt != nil && cmp.Equal(alt.state(), got):
			committed++
			want = alt
		default:
			t.Fatalf("iteration %d, killed after %d acknowledged steps: the file holds neither the acknowledged writes (-) nor those plus the step in flight; diff against the acknowledged ones:\n%s",
				iter, done, cmp.Diff(want.state(), got))
		}
	}
	t.Logf("%s: %d kills, %d steps acknowledged, all present; the kills interrupted: %v; after %d of them the interrupted step "+
		"was found committed (a VACUUM never shows)", name, iterations, acked, inFlight, committed)
}

// waitForTarget reads the child's lines until the nth step of the
// scenario's target kind begins, and returns them. took is set to how long
// the last target step the child finished took, from its "begin" line to its
// "ack" line.
func waitForTarget(c *child, sc crashScenario, iter, nth int, took *time.Duration) []string {
	c.t.Helper()
	var lines []string
	var began time.Time
	for seen := 0; seen < nth; {
		l := c.next()
		lines = append(lines, l)
		kind, num, _ := strings.Cut(l, " ")
		n, err := strconv.Atoi(num)
		if err != nil || sc.op(iter, n).Kind != sc.target {
			continue
		}
		switch kind {
		case "begin":
			seen, began = seen+1, time.Now()
		case "ack":
			*took = time.Since(began)
		}
	}
	return lines
}

// parseSteps reads a crash child's output: the number of steps acknowledged
// (they must be 0, 1, 2, … in order), whether the next one had begun, and
// the message id the store returned for each acknowledged append.
func parseSteps(t *testing.T, lines []string) (acked int, begun bool, msgIDs map[int]int64) {
	t.Helper()
	msgIDs = map[int]int64{}
	for _, l := range lines {
		f := strings.Fields(l)
		n, err := strconv.Atoi(f[min(1, len(f)-1)])
		switch {
		case err != nil || len(f) > 3:
			t.Fatalf("crash child wrote %q", l)
		case f[0] == "begin" && len(f) == 2 && n == acked && !begun:
			begun = true
		case f[0] == "ack" && n == acked && begun:
			if len(f) == 3 {
				if msgIDs[n], err = strconv.ParseInt(f[2], 10, 64); err != nil {
					t.Fatalf("crash child wrote %q", l)
				}
			}
			acked, begun = acked+1, false
		default:
			t.Fatalf("crash child wrote %q after %d acknowledged steps (begun: %v)", l, acked, begun)
		}
	}
	return acked, begun, msgIDs
}

// reopenAfterCrash opens the file with store.Open, which recovers the WAL
// the killed child left, checks it, and returns its sessions and its
// messages' ids by content (see readSessions).
func reopenAfterCrash(t *testing.T, path string) (map[string]fileSession, map[string]int64) {
	t.Helper()
	s := openCurrent(t, path)
	defer s.Close()
	q := openPlain(t, path)
	defer q.Close()
	checkCurrent(t, q)
	checkSchemaIsVersion(t, q)
	got, ids := readSessions(t, q)
	// The store reads the same file the checks read.
	n, err := s.MessageCount(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if total := countMessages(got); n != total {
		t.Errorf("store.MessageCount = %d, the file holds %d", n, total)
	}
	if t.Failed() {
		t.FailNow()
	}
	return got, ids
}

// openCurrent opens path with store.Open, as the next agent does after a
// crash (recovering the WAL, finishing a migration), and fails the test
// unless the store reports schema version 21. The caller closes the store.
func openCurrent(t *testing.T, path string) *store.Store {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, path, nil)
	if err != nil {
		t.Fatalf("store.Open after the kill: %v", err)
	}
	if v, err := s.SchemaVersion(ctx); err != nil || v != 21 {
		s.Close()
		t.Fatalf("SchemaVersion after store.Open = %d, %v; want 21", v, err)
	}
	return s
}

// countMessages is the number of messages of sessions.
func countMessages(sessions map[string]fileSession) int64 {
	var n int64
	for _, s := range sessions {
		n += int64(len(s.Contents))
	}
	return n
}

// runCrashChild is the "crash" helper: it opens the store, says "ready",
// and runs the scenario's steps until it is killed, writing "begin N"
// before step N and "ack N" once the store acknowledged it ("ack N ID" for
// an append, with the message id the store returned). Each line is one
// write(2) on the pipe to the parent, so a line written is a line the parent
// reads, whenever the kill comes. It stops by itself after childTimeout.
func runCrashChild() error {
	ctx := context.Background()
	sc, ok := crashScenarios[os.Getenv("RELIABILITY_SCENARIO")]
	if !ok {
		return fmt.Errorf("unknown scenario %q", os.Getenv("RELIABILITY_SCENARIO"))
	}
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
	for step := 0; time.Now().Before(deadline); step++ {
		fmt.Printf("begin %d\n", step)
		op := sc.op(iter, step)
		id, err := op.run(ctx, s)
		if err != nil {
			return fmt.Errorf("step %d (%s %s): %w", step, op.Kind, op.Session, err)
		}
		if op.Kind == "append" {
			fmt.Printf("ack %d %d\n", step, id)
		} else {
			fmt.Printf("ack %d\n", step)
		}
	}
	return nil
}
