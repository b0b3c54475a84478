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
//   - x8/x1: the 8 appenders' throughput over the lone appender's, the
//     median of the rounds' ratios (the target is at least 3);
//   - lone/direct: the lone appender's time over the direct path's, the
//     median of the rounds' ratios (the target is 1: a lone writer never
//     waits for company), lone/direct-total, the ratio of the sums, and
//     lone/direct-p50, the ratio of the median latencies (the rounds'
//     ratios also carry the periodic checkpoint, about one a round, in
//     whichever phase its transaction falls);
//   - the p50 and p99 latency of one append, lone, direct and among 8, and
//     each side's appends per second.
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
	// The time of each phase in each round: per-round ratios, of which
	// the median is reported, resist the stalls a loaded machine puts
	// into some rounds.
	var loneTimes, directTimes, groupTimes []time.Duration
	runLone := func(a *appendRecorder, directPath bool, times *[]time.Duration) {
		s.directWrites = directPath
		defer func() { s.directWrites = false }()
		start := time.Now()
		for range appendsPerRound {
			if err := a.appendOne(ctx); err != nil {
				b.Fatal(err)
			}
		}
		*times = append(*times, time.Since(start))
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
		groupTimes = append(groupTimes, time.Since(start))
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	phases := []func(){
		func() { runLone(lone, false, &loneTimes) },
		func() { runLone(direct, true, &directTimes) },
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

	// Throughput ratio of one round: (8×16 appends / its 8-appender
	// time) / (16 appends / its lone time).
	speedups, loneOverDirect := make([]float64, rounds), make([]float64, rounds)
	for r := range rounds {
		speedups[r] = appenders * float64(loneTimes[r]) / float64(groupTimes[r])
		loneOverDirect[r] = float64(loneTimes[r]) / float64(directTimes[r])
	}
	var groupLat []time.Duration
	for _, a := range group {
		groupLat = append(groupLat, a.lat...)
	}
	b.ReportMetric(median(speedups), "x8/x1")
	b.ReportMetric(median(loneOverDirect), "lone/direct")
	b.ReportMetric(float64(sum(loneTimes))/float64(sum(directTimes)), "lone/direct-total")
	b.ReportMetric(float64(percentileOf(lone.lat, 50))/float64(percentileOf(direct.lat, 50)), "lone/direct-p50")
	b.ReportMetric(float64(rounds*appendsPerRound)/sum(loneTimes).Seconds(), "x1-appends/s")
	b.ReportMetric(float64(rounds*appendsPerRound*appenders)/sum(groupTimes).Seconds(), "x8-appends/s")
	b.ReportMetric(micros(percentileOf(lone.lat, 50)), "x1-p50-us")
	b.ReportMetric(micros(percentileOf(lone.lat, 99)), "x1-p99-us")
	b.ReportMetric(micros(percentileOf(direct.lat, 50)), "direct-p50-us")
	b.ReportMetric(micros(percentileOf(direct.lat, 99)), "direct-p99-us")
	b.ReportMetric(micros(percentileOf(groupLat, 50)), "x8-p50-us")
	b.ReportMetric(micros(percentileOf(groupLat, 99)), "x8-p99-us")
}

// median returns the median of v (the mean of the middle two for an even
// count).
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	sorted := slices.Clone(v)
	slices.Sort(sorted)
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// sum returns the total of d.
func sum(d []time.Duration) time.Duration {
	var t time.Duration
	for _, x := range d {
		t += x
	}
	return t
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
