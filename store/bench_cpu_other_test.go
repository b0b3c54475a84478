//go:build !linux

package store

import "time"

// threadCPU reports false: per-thread CPU time is read on Linux only.
func threadCPU() (time.Duration, bool) { return 0, false }

// lockThread does nothing where threadCPU does not measure.
func lockThread() func() { return func() {} }
