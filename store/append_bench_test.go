package store

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// appendsPerRound is how many appends each appender makes per round of
// BenchmarkConcurrentAppend.
const appendsPerRound = 16

// appendRecorder appends numbered messages to one session and remembers
// every id the store returned, with its content, and every call's latency.
type appendRecorder struct {
	s       *Store
	session string
	n       int
	ids     map[int64]string
	lat     []time.Duration
}

// appendOne appends the next message and records it.
func (a *appendRecorder) appendOne(ctx context.Context) error {
	a.n++
	content := fmt.Sprintf("%s message %d about deploying the docker service", a.session, a.n)
	start := time.Now()
	id, err := a.s.AppendMessage(ctx, a.session, NewMessage{Role: "user", Content: &content})
	a.lat = append(a.lat, time.Since(start))
	if err != nil {
		return err
	}
	a.ids[id] = content
	return nil
}

// BenchmarkConcurrentAppend measures group commit at synchronous=FULL,
// the default, where every commit waits for an fsync. Each round, in an
// order that rotates, one appender appends 16 messages through the store
// (whose writes, alone, each take a transaction of their own); the same
// appender appends 16 through the direct path the store took before group
// commit (one BEGIN IMMEDIATE … COMMIT per write, sqlite.WriteTx, no
// queue); and 8 appenders, each on its own session, append 16 each at
// once. It reports:
//
//   - x8/x1: the 8 appenders' throughput over the lone appender's (the
//     target is at least 3);
//   - lone/direct: the lone appender's mean latency over the direct
//     path's (the target is 1: a lone writer never waits for company);
//   - the p50 and p99 latency of one append, lone and among 8.
//
// Afterwards every id AppendMessage returned must hold its message, and
// the file must hold no other.
func BenchmarkConcurrentAppend(b *testing.B) {
	const appenders = 8
	ctx := context.Background()
	s, _ := openStore(b, &Options{Synchronous: SynchronousFull})
	newRecorder := func(session string) *appendRecorder {
		mustCreate(b, s, NewSession{ID: session, Source: "cli"})
		return &appendRecorder{s: s, session: session, ids: map[int64]string{}}
	}
	lone, direct := newRecorder("lone"), newRecorder("direct")
	group := make([]*appendRecorder, appenders)
	for g := range group {
		group[g] = newRecorder(fmt.Sprintf("g%d", g))
	}
	var loneTime, directTime, groupTime time.Duration
	runLone := func(a *appendRecorder, directPath bool, total *time.Duration) {
		s.directWrites = directPath
		defer func() { s.directWrites = false }()
		start := time.Now()
		for range appendsPerRound {
			if err := a.appendOne(ctx); err != nil {
				b.Fatal(err)
			}
		}
		*total += time.Since(start)
	}
	runGroup := func() {
		start := time.Now()
		errs := make([]error, appenders)
		var wg sync.WaitGroup
		for g, a := range group {
			wg.Go(func() {
				for range appendsPerRound {
					if errs[g] = a.appendOne(ctx); errs[g] != nil {
						return
					}
				}
			})
		}
		wg.Wait()
		groupTime += time.Since(start)
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	phases := []func(){
		func() { runLone(lone, false, &loneTime) },
		func() { runLone(direct, true, &directTime) },
		runGroup,
	}
	rounds := 0
	for b.Loop() {
		for k := range phases {
			phases[(rounds+k)%len(phases)]()
		}
		rounds++
	}
	b.StopTimer()

	// Every acknowledged append is in the file, with its content, and
	// nothing else is.
	want := map[int64]string{}
	for _, a := range append([]*appendRecorder{lone, direct}, group...) {
		for id, c := range a.ids {
			want[id] = c
		}
	}
	got := map[int64]string{}
	for _, r := range dbtest.Rows(b, s.r, "SELECT id, content FROM messages") {
		got[r[0].(int64)] = r[1].(string)
	}
	if len(got) != len(want) || len(want) != rounds*appendsPerRound*(2+appenders) {
		b.Fatalf("the file holds %d messages, the store acknowledged %d, the benchmark made %d",
			len(got), len(want), rounds*appendsPerRound*(2+appenders))
	}
	for id, c := range want {
		if got[id] != c {
			b.Fatalf("message %d holds %q, want %q", id, got[id], c)
		}
	}

	loneRate := float64(rounds*appendsPerRound) / loneTime.Seconds()
	groupRate := float64(rounds*appendsPerRound*appenders) / groupTime.Seconds()
	var groupLat []time.Duration
	for _, a := range group {
		groupLat = append(groupLat, a.lat...)
	}
	b.ReportMetric(groupRate/loneRate, "x8/x1")
	b.ReportMetric(float64(loneTime)/float64(directTime), "lone/direct")
	b.ReportMetric(loneRate, "x1-appends/s")
	b.ReportMetric(groupRate, "x8-appends/s")
	b.ReportMetric(micros(percentileOf(lone.lat, 50)), "x1-p50-us")
	b.ReportMetric(micros(percentileOf(lone.lat, 99)), "x1-p99-us")
	b.ReportMetric(micros(percentileOf(direct.lat, 50)), "direct-p50-us")
	b.ReportMetric(micros(percentileOf(groupLat, 50)), "x8-p50-us")
	b.ReportMetric(micros(percentileOf(groupLat, 99)), "x8-p99-us")
	st := s.Stats()
	b.ReportMetric(float64(st.Writes)/float64(st.Groups), "writes/commit")
}

// percentileOf returns the p-th percentile (nearest rank) of d.
func percentileOf(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	sorted := slices.Clone(d)
	slices.Sort(sorted)
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i, 1)-1]
}

// micros is d in microseconds.
func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
