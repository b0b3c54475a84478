package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

// appendRun is one round of durable appends: every append's latency and
// the round's wall time.
type appendRun struct {
	lat     []time.Duration
	elapsed time.Duration
	sig     string
}

// goAppend runs writers goroutines, each appending per messages to a new
// session of its own (prefix-W) on s, which is open at synchronous FULL.
// The signature is each session's message_count, as original.py's.
func goAppend(ctx context.Context, s *store.Store, writers, per int, prefix string) (appendRun, error) {
	ids := make([]string, writers)
	for w := range ids {
		ids[w] = fmt.Sprintf("%s-%d", prefix, w)
		if _, err := s.CreateSession(ctx, store.NewSession{ID: ids[w], Source: "cli"}); err != nil {
			return appendRun{}, err
		}
	}
	lat := make([][]time.Duration, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range writers {
		wg.Go(func() {
			for i := range per {
				c := fmt.Sprintf("benchmark append %d of writer %d", i, w)
				t := time.Now()
				_, err := s.AppendMessage(ctx, ids[w], store.NewMessage{Role: "user", Content: &c})
				lat[w] = append(lat[w], time.Since(t))
				if err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	run := appendRun{elapsed: time.Since(start)}
	for w := range writers {
		if errs[w] != nil {
			return run, errs[w]
		}
		run.lat = append(run.lat, lat[w]...)
	}
	counts := make([]string, writers)
	for w, id := range ids {
		sess, err := s.GetSession(ctx, id)
		if err != nil {
			return run, err
		}
		counts[w] = strconv.FormatInt(sess.MessageCount, 10)
	}
	run.sig = strings.Join(counts, ",")
	return run, nil
}
