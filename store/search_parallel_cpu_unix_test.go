//go:build unix

package store

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) the process has used,
// for benchmarks that report the work a split search does besides its wall
// time.
func processCPU() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
