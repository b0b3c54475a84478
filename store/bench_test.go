package store

import (
	"context"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/db"
)

// BenchmarkWriteHelper measures what the write helper costs per committed
// transaction against the same INSERT in a bare database/sql transaction on
// the same file and connection, alternating the two in one run so disk and
// cache state are shared. It reports helper-ns/op, bare-ns/op and their
// ratio, once with synchronous=FULL (the default: one fsync per commit, which
// dominates) and once with NORMAL (no fsync per commit, so the helper's own
// overhead shows: retry wrapper, close guard, counters, and the PASSIVE
// checkpoint every 50 writes).
func BenchmarkWriteHelper(b *testing.B) {
	for _, bc := range []struct {
		name string
		sync Synchronous
	}{{"Full", SynchronousFull}, {"Normal", SynchronousNormal}} {
		b.Run(bc.name, func(b *testing.B) { benchmarkWriteHelper(b, bc.sync) })
	}
}

func benchmarkWriteHelper(b *testing.B, sync Synchronous) {
	ctx := context.Background()
	s, _ := openStore(b, &Options{Synchronous: sync})
	addSession(b, s, "s", nil, 1)
	content := "a message of ordinary length, indexed by both FTS tables"
	params := db.MessageInsertParams{SessionID: "s", Role: "user", Content: &content, Timestamp: 1}

	bare := func() error {
		tx, err := s.w.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := s.q.MessageInsert(ctx, tx, params); err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit()
	}
	helper := func() error {
		return s.write(ctx, func(ctx context.Context, tx db.DBTX) error {
			_, err := s.q.MessageInsert(ctx, tx, params)
			return err
		})
	}
	var helperTime, bareTime time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		// Alternate which goes first so neither always follows a checkpoint.
		first, second, t1, t2 := helper, bare, &helperTime, &bareTime
		if i%2 == 1 {
			first, second, t1, t2 = bare, helper, &bareTime, &helperTime
		}
		start := time.Now()
		if err := first(); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if err := second(); err != nil {
			b.Fatal(err)
		}
		*t1 += mid.Sub(start)
		*t2 += time.Since(mid)
	}
	n := float64(b.N)
	b.ReportMetric(float64(helperTime.Nanoseconds())/n, "helper-ns/op")
	b.ReportMetric(float64(bareTime.Nanoseconds())/n, "bare-ns/op")
	b.ReportMetric(float64(helperTime)/float64(bareTime), "helper/bare")
}
