package reliability

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/store"
)

// TestManyWritersManyProcesses runs 4 writer processes × 4 goroutines on one
// file for a fixed time (short form 10 s, long form 4 minutes), as SQLite's
// mptest does: each goroutine creates sessions, appends messages, replaces
// transcripts, ends sessions, sets titles, adds tokens and prunes its ended
// sessions, and searches and lists while the others write. Each logs every
// call and its outcome. Replaying the logs gives the exact expected file:
// every acknowledged write is there exactly once (message ids included),
// every failed one is absent, counters equal the rows, both FTS indexes
// hold exactly the message rows, and the integrity checks pass. Searches
// for a message just appended found it (read after write across
// connections), and no read failed. Throughput and write latency are
// logged; writes that ran out of retries (store.ErrBusy) are counted, and
// must match the stores' own counters.
func TestManyWritersManyProcesses(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.db")
	runManyWriters(t, path, func(t *testing.T) (map[string]fileSession, map[string]int64) {
		q := openPlain(t, path)
		checkCurrent(t, q)
		if v := checkSchemaIsVersion(t, q); v != 21 {
			t.Errorf("schema version %d, want 21", v)
		}
		return readSessions(t, q)
	})
}

// runManyWriters is TestManyWritersManyProcesses on the database at target
// (a file, or a PostgreSQL URL): the writer processes run their mix on it,
// then read, which checks the engine's own invariants, returns what the
// database holds for the comparison with the replay of the logs.
func runManyWriters(t *testing.T, target string, read func(t *testing.T) (map[string]fileSession, map[string]int64)) {
	t.Helper()
	const procs, goroutines = 4, 4
	duration := pick(10*time.Second, 4*time.Minute)
	ctx := context.Background()
	rng := testRand(t)
	logs := filepath.Join(t.TempDir(), "logs")
	if err := os.Mkdir(logs, 0o700); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(ctx, target, nil) // the writers find a v21 database
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	children := make([]*child, procs)
	for p := range children {
		children[p] = startChild(t, "writer", "RELIABILITY_DB="+target, "RELIABILITY_LOGS="+logs,
			"RELIABILITY_PROC="+strconv.Itoa(p), "RELIABILITY_GOROUTINES="+strconv.Itoa(goroutines),
			"RELIABILITY_DURATION="+duration.String(), "RELIABILITY_SEED="+strconv.FormatUint(rng.Uint64(), 10))
	}
	for _, c := range children {
		c.expect("ready")
	}
	for _, c := range children {
		c.busy = duration
		c.send("go")
	}
	var stats store.Stats
	for _, c := range children {
		lines := c.finish(false)
		var st store.Stats
		if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &st) != nil {
			t.Fatalf("writer printed %q, want its Stats as JSON", lines)
		}
		stats.Writes += st.Writes
		stats.Retries += st.Retries
		stats.BusyFailures += st.BusyFailures
		stats.Checkpoints += st.Checkpoints
	}

	r := replayLogs(t, logs, procs, goroutines)
	got, ids := read(t)
	if diff := cmp.Diff(r.want, got); diff != "" {
		if len(diff) > 20000 {
			diff = diff[:20000] + "\n…"
		}
		t.Errorf("the database differs from the replay of the acknowledged writes (-want +got):\n%s", diff)
	}
	for content, id := range r.appended {
		if got, ok := ids[content]; ok && got != id {
			t.Errorf("message %q has id %d, the store acknowledged it as %d", content, got, id)
		}
	}
	for _, content := range r.failed {
		if id, ok := ids[content]; ok {
			t.Errorf("message %q of a failed write is in the database (id %d)", content, id)
		}
	}
	// Every committed write was acknowledged and logged, and every busy
	// failure the stores counted is in the logs.
	if stats.Writes != uint64(r.acked) || stats.BusyFailures != uint64(r.busy) {
		t.Errorf("the stores counted %d writes and %d busy failures; the logs hold %d acknowledged writes and %d busy failures",
			stats.Writes, stats.BusyFailures, r.acked, r.busy)
	}

	lat := r.latencies
	slices.Sort(lat)
	t.Logf("%d processes × %d goroutines for %v: %d writes acknowledged (%.0f writes/s), %d failed busy, %d reads; "+
		"write latency p50 %v, p99 %v, max %v; %d retries, %d periodic checkpoints; %d sessions, %d messages in the database; writes by kind %v",
		procs, goroutines, duration, r.acked, float64(r.acked)/duration.Seconds(), r.busy, r.reads,
		percentile(lat, 50), percentile(lat, 99), percentile(lat, 100), stats.Retries, stats.Checkpoints,
		len(got), len(ids), r.kinds)
}

// replay is what the writers' logs say the file must hold.
type replay struct {
	want     map[string]fileSession
	appended map[string]int64 // content → id, for each acknowledged append
	failed   []string         // contents of appends and replaces that failed
	acked    int              // acknowledged writes
	busy     int              // writes that failed with store.ErrBusy
	reads    int
	kinds    map[string]int // acknowledged writes by op
	// latencies of the acknowledged writes
	latencies []time.Duration
}

// replayLogs reads every worker's log in order and applies its
// acknowledged writes to the expected state. Failures other than
// store.ErrBusy, failed reads and prunes that deleted other sessions than
// the replay expects fail the test.
func replayLogs(t *testing.T, logs string, procs, goroutines int) replay {
	t.Helper()
	r := replay{want: map[string]fileSession{}, appended: map[string]int64{}, kinds: map[string]int{}}
	for p := range procs {
		for g := range goroutines {
			name := fmt.Sprintf("p%dg%d", p, g)
			for _, rec := range readLog(t, filepath.Join(logs, name+".jsonl")) {
				r.apply(t, name, rec)
			}
		}
	}
	return r
}

// apply adds one record of worker name to the replay.
func (r *replay) apply(t *testing.T, name string, rec writeRecord) {
	t.Helper()
	if !rec.isWrite() {
		r.reads++
		if !rec.OK {
			t.Errorf("%s: %s failed: %s", name, rec.Op, rec.Err)
		}
		return
	}
	if !rec.OK {
		if !rec.Busy {
			t.Errorf("%s: %s %s failed: %s", name, rec.Op, rec.Session, rec.Err)
		}
		r.busy++
		for _, m := range rec.Msgs {
			r.failed = append(r.failed, m.Content)
		}
		return
	}
	r.acked++
	r.kinds[rec.Op]++
	r.latencies = append(r.latencies, time.Duration(rec.Micros)*time.Microsecond)
	s := r.want[rec.Session]
	switch rec.Op {
	case "create":
		s = fileSession{Contents: []string{}}
	case "append":
		r.appended[rec.Msgs[0].Content] = rec.ID
		s.Contents = append(slices.Clip(s.Contents), rec.Msgs[0].Content)
		s.MessageCount++
		s.ToolCallCount += int64(rec.Msgs[0].Calls)
	case "replace":
		s.Contents, s.MessageCount, s.ToolCallCount = []string{}, 0, 0
		for _, m := range rec.Msgs {
			s.Contents = append(s.Contents, m.Content)
			s.MessageCount++
			s.ToolCallCount += int64(m.Calls)
		}
	case "end":
		s.Ended = true
	case "title":
		s.Title = rec.Title
	case "tokens":
		s.InputTokens += rec.In
		s.OutputTokens += rec.Out
	case "prune":
		var ended []string
		for id, ws := range r.want {
			if ws.Ended && sourceOf(id) == name {
				ended = append(ended, id)
			}
		}
		slices.Sort(ended)
		if !slices.Equal(ended, rec.Pruned) || rec.Count != len(ended) {
			t.Errorf("%s: prune deleted %d sessions, the worker expected %q, the replay %q", name, rec.Count, rec.Pruned, ended)
		}
		for _, id := range ended {
			delete(r.want, id)
		}
		return
	default:
		t.Fatalf("%s: unknown op %q", name, rec.Op)
	}
	r.want[rec.Session] = s
}

// sourceOf returns the worker that owns a session id ("p1g2-s3" → "p1g2").
func sourceOf(id string) string {
	for i, c := range id {
		if c == '-' {
			return id[:i]
		}
	}
	return id
}

// readLog returns the records of one worker's log, in order.
func readLog(t *testing.T, path string) []writeRecord {
	t.Helper()
	f, err := os.Open(path) // a log file, not a database
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []writeRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var rec writeRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// percentile returns the p-th percentile of sorted durations (nearest
// rank).
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[(len(sorted)*p+99)/100-1]
}
