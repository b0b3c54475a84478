package store

import (
	"runtime"
	"syscall"
	"time"
)

// rusageThread is Linux's RUSAGE_THREAD, which package syscall does not
// name.
const rusageThread = 1

// threadCPU returns the CPU time (user and system) the calling OS thread
// has used, and true; the caller has locked its goroutine to the thread.
// SQLite runs on the calling thread (cgo), so this is the work of the
// call itself, whatever else the machine runs.
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// lockThread locks the calling goroutine to its thread for threadCPU and
// returns the unlock.
func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
