package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hermesstate/hermesstate/internal/pgtest"
)

// engineWriters is how many processes BenchmarkEnginesConcurrentWriters
// runs on each engine, each appending to a session of its own.
const engineWriters = 4

// runEngineWriter is the helper "engine-writer": it opens the store at
// HERMESSTATE_DB, says "ready", waits for "go", appends HERMESSTATE_ROWS
// messages to session HERMESSTATE_SESSION through AppendMessage (on
// SQLite synchronous FULL, durable per commit, unless HERMESSTATE_SYNC is
// "normal"; on PostgreSQL whatever synchronous_commit and fsync the server
// runs with), and prints each append's latency in nanoseconds on one line.
func runEngineWriter(ctx context.Context) int {
	rows, _ := strconv.Atoi(os.Getenv("HERMESSTATE_ROWS"))
	session := os.Getenv("HERMESSTATE_SESSION")
	var opts *Options
	if os.Getenv("HERMESSTATE_SYNC") == "normal" {
		opts = &Options{Synchronous: SynchronousNormal}
	}
	s, err := Open(ctx, os.Getenv("HERMESSTATE_DB"), opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	fmt.Println("ready")
	var cmd string
	if _, err := fmt.Scanln(&cmd); err != nil || cmd != "go" {
		fmt.Fprintln(os.Stderr, "want go, got", cmd, err)
		return 1
	}
	lat := make([]string, rows)
	for i := range rows {
		content := fmt.Sprintf("%s message %d about deploying the docker service", session, i)
		start := time.Now()
		if _, err := s.AppendMessage(ctx, session, NewMessage{Role: "user", Content: &content}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		lat[i] = strconv.FormatInt(int64(time.Since(start)), 10)
	}
	fmt.Println(strings.Join(lat, " "))
	return 0
}

// writersRun is one engine's round: wall time and every append's latency.
type writersRun struct {
	wall time.Duration
	lat  []time.Duration
}

// runWriters starts engineWriter processes on target, each with its own
// session, lets them go at once and waits for all. sync is the writers'
// HERMESSTATE_SYNC ("" or "normal"; PostgreSQL ignores it).
func runWriters(b *testing.B, target string, round, rows int, sync string) writersRun {
	b.Helper()
	ctx := context.Background()
	s, err := Open(ctx, target, nil)
	if err != nil {
		b.Fatal(err)
	}
	var helpers []*helperProcess
	for w := range engineWriters {
		id := fmt.Sprintf("w%d-r%d", w, round)
		if _, err := s.CreateSession(ctx, NewSession{ID: id, Source: "bench"}); err != nil {
			b.Fatal(err)
		}
		helpers = append(helpers, startHelper(b, "engine-writer", "HERMESSTATE_DB="+target,
			"HERMESSTATE_SESSION="+id, "HERMESSTATE_ROWS="+strconv.Itoa(rows), "HERMESSTATE_SYNC="+sync))
	}
	s.Close()
	for _, h := range helpers {
		if line := <-h.lines; line != "ready" {
			b.Fatalf("writer said %q, want ready", line)
		}
	}
	start := time.Now()
	for _, h := range helpers {
		fmt.Fprintln(h.in, "go")
	}
	var run writersRun
	for _, h := range helpers {
		line, ok := <-h.lines
		if !ok {
			b.Fatal("a writer exited without its latencies")
		}
		for _, f := range strings.Fields(line) {
			n, _ := strconv.ParseInt(f, 10, 64)
			run.lat = append(run.lat, time.Duration(n))
		}
	}
	run.wall = time.Since(start)
	for _, h := range helpers {
		h.in.Close()
		if err := h.cmd.Wait(); err != nil {
			b.Fatalf("writer: %v", err)
		}
	}
	if len(run.lat) != engineWriters*rows {
		b.Fatalf("%d latencies, want %d", len(run.lat), engineWriters*rows)
	}
	return run
}

// BenchmarkEnginesConcurrentWriters runs 4 processes, each appending to a
// session of its own, on a SQLite file and on a PostgreSQL database, in
// alternating rounds, and reports each engine's appends per second, the p50
// and p99 latency of one append, and pg/sqlite, PostgreSQL's THROUGHPUT
// over SQLite's (above 1: PostgreSQL is faster; BenchmarkEnginesReads'
// pg/sqlite is a time ratio, the other way round). SQLite serialises the
// four processes on its one write lock (group commit works within a
// process only); PostgreSQL commits them side by side over loopback TCP.
//
// Read the figure with the server's settings, which the benchmark logs
// (go test -v): SQLite runs at its default synchronous=FULL, an fsync of
// the WAL per commit, durable; PostgreSQL commits as durably as its server
// is set to. CI's server and the dev server run with fsync=off and
// synchronous_commit=off, so there PostgreSQL's commits never wait for
// the disk and the pairing favours PostgreSQL: it measures the engines'
// work, not the same durability. BenchmarkEnginesConcurrentWritersNormal
// is the fairer pairing on such a server.
func BenchmarkEnginesConcurrentWriters(b *testing.B) {
	benchEngineWriters(b, "")
}

// BenchmarkEnginesConcurrentWritersNormal is BenchmarkEnginesConcurrentWriters
// with SQLite at Options{Synchronous: SynchronousNormal} (no fsync per
// commit in WAL mode: a commit survives a crash of the process but not
// necessarily a power loss), the nearer match for a PostgreSQL server
// running with fsync=off or synchronous_commit=off.
func BenchmarkEnginesConcurrentWritersNormal(b *testing.B) {
	benchEngineWriters(b, "normal")
}

// benchEngineWriters is the writers benchmark with SQLite's writers at
// HERMESSTATE_SYNC=sync.
func benchEngineWriters(b *testing.B, sync string) {
	dsn := pgtest.NewDatabase(b)
	logServerDurability(b, dsn)
	file := filepath.Join(b.TempDir(), "state.db")
	rows := max(b.N, 10)
	var sq, pg writersRun
	for round := range 2 {
		for _, e := range []struct {
			target string
			into   *writersRun
		}{{file, &sq}, {dsn, &pg}} {
			r := runWriters(b, e.target, round, rows, sync)
			e.into.wall += r.wall
			e.into.lat = append(e.into.lat, r.lat...)
		}
	}
	total := float64(2 * engineWriters * rows)
	sqRate, pgRate := total/sq.wall.Seconds(), total/pg.wall.Seconds()
	slices.Sort(sq.lat)
	slices.Sort(pg.lat)
	b.ReportMetric(sqRate, "sqlite-appends/s")
	b.ReportMetric(pgRate, "pg-appends/s")
	b.ReportMetric(pgRate/sqRate, "pg/sqlite")
	b.ReportMetric(micros(percentileOf(sq.lat, 50)), "sqlite-p50-us")
	b.ReportMetric(micros(percentileOf(sq.lat, 99)), "sqlite-p99-us")
	b.ReportMetric(micros(percentileOf(pg.lat, 50)), "pg-p50-us")
	b.ReportMetric(micros(percentileOf(pg.lat, 99)), "pg-p99-us")
}

// logServerDurability logs the PostgreSQL server's fsync and
// synchronous_commit, which decide what its commits cost and so what the
// writers benchmark's pg figures mean.
func logServerDurability(b *testing.B, dsn string) {
	b.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	var fsync, syncCommit string
	if err := conn.QueryRow(ctx, "SELECT current_setting('fsync'), current_setting('synchronous_commit')").Scan(&fsync, &syncCommit); err != nil {
		b.Fatal(err)
	}
	b.Logf("PostgreSQL server: fsync=%s synchronous_commit=%s", fsync, syncCommit)
}
