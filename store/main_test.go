package store

import (
	"os"
	"testing"
)

// TestMain lets the test binary double as a helper process: tests re-run it
// with HERMESSTATE_HELPER set to act as a second OS process on the same file.
func TestMain(m *testing.M) {
	if name := os.Getenv("HERMESSTATE_HELPER"); name != "" {
		os.Exit(runHelper(name))
	}
	os.Exit(m.Run())
}
