package dbtest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
	"time"
)

// RequirePythonEnv names the environment variable under which a test that
// needs python3 fails instead of skipping when it is missing. CI sets it
// (.ci/run installs python3), so a cross-check against the original can
// never pass by not running.
const RequirePythonEnv = "HERMESSTATE_REQUIRE_PYTHON"

// Python3 returns the path of python3. Without one on PATH the test is
// skipped, or fails when RequirePythonEnv is set.
func Python3(t testing.TB) string {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err == nil {
		return python
	}
	if os.Getenv(RequirePythonEnv) != "" {
		t.Fatalf("python3 is not on PATH and %s is set: this cross-check against the Python original must run", RequirePythonEnv)
	}
	t.Skip("python3 not on PATH (set " + RequirePythonEnv + "=1 to make this a failure)")
	return ""
}

// Python runs a Python 3 script with in, JSON-encoded, on its standard
// input, and decodes what it prints as JSON into out. The cross-checks
// against Python's own behaviour use it; see [Python3] for a missing
// python3.
func Python(t testing.TB, script string, in, out any) {
	t.Helper()
	python := Python3(t)
	stdin, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-c", script)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v: %s", err, stderr.String())
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("decoding python3 output %q: %v", stdout, err)
	}
}
