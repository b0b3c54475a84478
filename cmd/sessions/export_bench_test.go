package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

// BenchmarkExport runs "sessions export" in this process on a file of
// 5,000 sessions / 50,000 messages and on one ten times that size,
// 50,000 / 500,000, and reports the peak heap of each: the same for both
// when the export streams in bounded memory.
//
// Each file is built once per process and exported once, whatever b.N, so
// that the CI's -benchtime 20x costs no more than one run; ns/op is
// therefore reported as 0 and the figures are the custom metrics:
// peak-heap-MB, s/export, sessions/s and MB-written.
func BenchmarkExport(b *testing.B) {
	for _, size := range []struct{ sessions, perSession int }{{5000, 10}, {50000, 10}} {
		b.Run(fmt.Sprintf("Sessions%dMessages%d", size.sessions, size.sessions*size.perSession), func(b *testing.B) {
			r := exportBenchResult(b, size.sessions, size.perSession)
			for range b.N {
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(float64(r.peakHeap)/(1<<20), "peak-heap-MB")
			b.ReportMetric(r.export.Seconds(), "s/export")
			b.ReportMetric(float64(size.sessions)/r.export.Seconds(), "sessions/s")
			b.ReportMetric(float64(r.written)/(1<<20), "MB-written")
			r.log.Do(func() {
				b.Logf("%d sessions, %d messages: built in %v, exported in %v, %.1f MB written, peak heap %.1f MB",
					size.sessions, size.sessions*size.perSession, r.build.Round(time.Millisecond),
					r.export.Round(time.Millisecond), float64(r.written)/(1<<20), float64(r.peakHeap)/(1<<20))
			})
		})
	}
}

// exportBench is the outcome of one size's build and export.
type exportBench struct {
	build, export time.Duration
	written       int64
	peakHeap      uint64
	err           error
	log           sync.Once
}

var exportBenches struct {
	sync.Mutex
	done map[int]*exportBench
}

// exportBenchResult builds the file of n sessions and exports it, once per
// process.
func exportBenchResult(b *testing.B, n, perSession int) *exportBench {
	b.Helper()
	exportBenches.Lock()
	defer exportBenches.Unlock()
	if r := exportBenches.done[n]; r != nil {
		if r.err != nil {
			b.Fatal(r.err)
		}
		return r
	}
	if exportBenches.done == nil {
		exportBenches.done = map[int]*exportBench{}
	}
	r := &exportBench{}
	exportBenches.done[n] = r
	path := filepath.Join(b.TempDir(), "state.db")
	start := time.Now()
	if r.err = buildExportBenchFile(path, n, perSession); r.err != nil {
		b.Fatal(r.err)
	}
	r.build = time.Since(start)

	runtime.GC()
	out := &countingWriter{}
	stop := sampleHeap(&r.peakHeap)
	start = time.Now()
	// Drawn on a "terminal" that discards it: the progress bar's cost is
	// part of the figure.
	e := &env{stdout: out, stderr: io.Discard, stderrIsTerminal: true}
	r.err = run(context.Background(), []string{"-db", path, "export"}, e)
	r.export = time.Since(start)
	stop()
	r.written = out.n
	if r.err != nil {
		b.Fatal(r.err)
	}
	return r
}

// countingWriter discards what it is given and counts the bytes.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// sampleHeap records the largest heap (live and not yet collected objects)
// seen every millisecond into peak, until the returned stop is called.
func sampleHeap(peak *uint64) (stop func()) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() {
		metrics.Read(sample)
		*peak = max(*peak, sample[0].Value.Uint64())
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				read()
				return
			case <-t.C:
				read()
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// benchWords are the vocabulary of the benchmark's messages.
var benchWords = strings.Fields(`the a to of and in for with on is it this that server client request
	response database query index table session message agent tool call result error retry timeout
	build test release deploy docker container cluster memory context token model prompt search`)

// buildExportBenchFile writes n sessions of perSession messages each:
// store.Open creates the schema, then one transaction of plain INSERTs
// fills it. The transaction first drops the full-text indexes' insert
// triggers: the export never reads the indexes, and indexing 500,000
// messages twice would take the CI a minute and a half.
func buildExportBenchFile(path string, n, perSession int) error {
	ctx := context.Background()
	s, err := store.Open(ctx, path, nil)
	if err != nil {
		return err
	}
	if err := s.Close(); err != nil {
		return err
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?_txlock=immediate")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, trigger := range []string{"messages_fts_insert", "messages_fts_trigram_insert"} {
		if _, err := tx.ExecContext(ctx, "DROP TRIGGER "+trigger); err != nil {
			return err
		}
	}
	// Plain SQL, not the store: the store writes one session or message a
	// transaction, and the benchmark needs half a million rows in seconds.
	sessionInsert, err := tx.PrepareContext(ctx, `INSERT INTO sessions
		(id, source, model, system_prompt, started_at, ended_at, end_reason, message_count, input_tokens, output_tokens, title)
		VALUES (?, ?, ?, ?, ?, ?, 'user_exit', ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	messageInsert, err := tx.PrepareContext(ctx, `INSERT INTO messages (session_id, role, content, timestamp, token_count)
		VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	sources := []string{"cli", "telegram", "discord", "slack"}
	models := []string{"claude-sonnet-4", "gpt-5", "claude-haiku"}
	base := float64(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Unix())
	var words []string
	for i := range n {
		id := fmt.Sprintf("bench_%07d", i)
		started := base + float64(i)*60
		var title any
		if i%10 == 0 {
			title = fmt.Sprintf("Bench session %d", i)
		}
		if _, err := sessionInsert.ExecContext(ctx, id, sources[i%len(sources)], models[i%len(models)],
			"You are Hermes.", started, started+50, perSession, rng.IntN(5000), rng.IntN(2000), title); err != nil {
			return err
		}
		for j := range perSession {
			words = words[:0]
			for range 8 + rng.IntN(16) {
				words = append(words, benchWords[rng.IntN(len(benchWords))])
			}
			role := "user"
			if j%2 == 1 {
				role = "assistant"
			}
			if _, err := messageInsert.ExecContext(ctx, id, role, strings.Join(words, " "), started+float64(j)+0.25, len(words)); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}
