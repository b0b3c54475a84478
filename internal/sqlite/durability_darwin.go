//go:build darwin

package sqlite

// hostDurability is durabilityFor on macOS: synchronous=FULL whatever was
// asked, and F_FULLFSYNC barriers at checkpoints.
func hostDurability(asked Synchronous) (Synchronous, []string) {
	return durabilityFor("darwin", asked)
}
