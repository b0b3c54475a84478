//go:build !darwin

package sqlite

import "runtime"

// hostDurability is durabilityFor on this platform (not macOS): the level
// asked, no pragma added.
func hostDurability(asked Synchronous) (Synchronous, []string) {
	return durabilityFor(runtime.GOOS, asked)
}
