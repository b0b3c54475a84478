package store

import (
	"os"
	"testing"
)

// knownBug skips the rest of t unless HERMESSTATE_KNOWN_BUGS is set: what
// follows asserts documented behaviour that a bug, reported with a
// suggested fix, breaks today. Run with HERMESSTATE_KNOWN_BUGS=1 to see
// the failure; delete the call together with the fix.
func knownBug(t *testing.T, bug string) {
	t.Helper()
	if os.Getenv("HERMESSTATE_KNOWN_BUGS") == "" {
		t.Skipf("known bug: %s (HERMESSTATE_KNOWN_BUGS=1 runs this check)", bug)
	}
}
