package store

import (
	"fmt"
	"os"
	"testing"
)

// sharedDir holds files that several benchmarks share within one run of the
// test binary (the search benchmarks' 100,000-message database, built once);
// TestMain creates it and removes it when the run ends.
var sharedDir string

// TestMain lets the test binary double as a helper process: tests re-run it
// with HERMESSTATE_HELPER set to act as a second OS process on the same file.
func TestMain(m *testing.M) {
	if name := os.Getenv("HERMESSTATE_HELPER"); name != "" {
		os.Exit(runHelper(name))
	}
	dir, err := os.MkdirTemp("", "hermesstate-store-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sharedDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
