// Package poll runs a function at a fixed interval on a goroutine of its
// own, for progress measured by looking (the size of a file SQLite is
// writing) where no progress callback exists. It does nothing else.
package poll

import (
	"sync"
	"time"
)

// Every calls fn every interval, on another goroutine, until the returned
// stop is called; stop calls fn once more, after the last periodic call
// has returned, and returns when it has. Calls never overlap.
func Every(interval time.Duration, fn func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fn()
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
		fn()
	}
}
