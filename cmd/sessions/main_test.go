package main

// The tests run the real command: TestMain builds it once and every test
// executes the binary against copies of one fixture database (built once,
// through the store API, with a fixed clock) or against files of its own in
// t.TempDir(), as goose's goose_cli_test.go and cmd/migrate's tests do. The
// children run with TZ=UTC, so the human output's local times are exact. The
// test binary doubles as a helper process for the backup test (see
// helperMain).

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	_ "github.com/mattn/go-sqlite3"

	"github.com/hermesstate/hermesstate/store"
)

var (
	// sessionsBin is the command, built with -tags sqlite_fts5.
	sessionsBin string
	// fixturePath is the shared fixture database; tests use copies.
	fixturePath string
)

// Helper-process protocol: the test binary re-executed with helperEnv set
// runs helperMain with the database at helperDBEnv.
const (
	helperEnv   = "HERMESSTATE_SESSIONS_HELPER"
	helperDBEnv = "HERMESSTATE_DB"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helperMain(mode, os.Getenv(helperDBEnv)))
	}
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "sessions-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	sessionsBin = filepath.Join(dir, "sessions")
	fixturePath = filepath.Join(dir, "fixture", "state.db")
	// store.Open creates directories only for the default location.
	if err := os.Mkdir(filepath.Dir(fixturePath), 0o700); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	wg.Go(func() { errs[0] = goBuild(sessionsBin) })
	wg.Go(func() { errs[1] = buildFixture(fixturePath) })
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// goBuild builds the command into bin.
func goBuild(bin string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "build", "-tags", "sqlite_fts5", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	return nil
}

// result is how one run of the command ended.
type result struct {
	code           int
	stdout, stderr string
}

// runSessions runs the command with args, TZ=UTC and the extra environment
// variables env, with HERMES_HOME and HOME pointing nowhere useful unless
// env sets them, and waits at most 30 s for it.
func runSessions(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return runSessionsInput(t, env, "", args...)
}

// runSessionsInput is runSessions with stdin on standard input.
func runSessionsInput(t *testing.T, env []string, stdin string, args ...string) result {
	t.Helper()
	return runProgram(t, env, stdin, sessionsBin, args...)
}

// runProgram runs program (the command, or one that runs it) as
// runSessionsInput runs the command.
func runProgram(t *testing.T, env []string, stdin, program string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append([]string{"TZ=UTC", "PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(t.TempDir(), "home")}, env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("sessions %s: no exit within 30s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), &stdout, &stderr)
	}
	return result{code: exitCode(t, err, args), stdout: stdout.String(), stderr: stderr.String()}
}

// exitCode is the exit status of a run of the command with args that
// ended with err (from Wait); a failure to run it fails the test.
func exitCode(t *testing.T, err error, args []string) int {
	t.Helper()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode()
	case err != nil:
		t.Fatalf("sessions %s: %v", strings.Join(args, " "), err)
	}
	return 0
}

// sessions runs the command with args, which must exit 0 with nothing on
// standard error, and returns its standard output.
func sessions(t *testing.T, args ...string) string {
	t.Helper()
	r := runSessions(t, nil, args...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("sessions %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// sessionsJSON runs the command with --json and args and decodes its
// output, one JSON document, into a value of type T.
func sessionsJSON[T any](t *testing.T, args ...string) T {
	t.Helper()
	out := sessions(t, append([]string{"--json"}, args...)...)
	var v T
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("sessions --json %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if dec.More() {
		t.Fatalf("sessions --json %s: more than one JSON document:\n%s", strings.Join(args, " "), out)
	}
	if !strings.HasSuffix(out, "}\n") && !strings.HasSuffix(out, "]\n") || strings.Count(out, "\n") != 1 {
		t.Fatalf("sessions --json %s: not one line:\n%s", strings.Join(args, " "), out)
	}
	return v
}

// failure runs the command, which must exit with code, print nothing on
// standard output and exactly the lines want on standard error.
func failure(t *testing.T, code int, want []string, args ...string) {
	t.Helper()
	r := runSessions(t, nil, args...)
	if r.code != code {
		t.Errorf("sessions %s: exit %d, want %d", strings.Join(args, " "), r.code, code)
	}
	if r.stdout != "" {
		t.Errorf("sessions %s: stdout = %q, want nothing", strings.Join(args, " "), r.stdout)
	}
	if diff := cmp.Diff(want, lines(r.stderr)); diff != "" {
		t.Errorf("sessions %s: stderr (-want +got):\n%s", strings.Join(args, " "), diff)
	}
}

// lines splits output into its lines.
func lines(out string) []string {
	if out == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

// text joins lines into the output they make.
func text(lines ...string) string {
	return strings.Join(lines, "\n") + "\n"
}

// outputCase is one run of a command on the fixture and its exact output.
type outputCase struct {
	name string
	args []string
	want string
}

// checkOutputs runs each case as a parallel subtest: sessions -db FIXTURE
// command args... must print exactly want.
func checkOutputs(t *testing.T, command string, cases []outputCase) {
	t.Helper()
	checkOutputsOn(t, fixturePath, command, cases)
}

// checkOutputsOn is checkOutputs on the database at path.
func checkOutputsOn(t *testing.T, path, command string, cases []outputCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := sessions(t, append([]string{"-db", path, command}, tt.args...)...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("sessions %s %q (-want +got):\n%s", command, tt.args, diff)
			}
		})
	}
}

// fixtureCopy copies the shared fixture database into a new directory and
// returns its path.
func fixtureCopy(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(fixturePath + suffix)
		if errors.Is(err, os.ErrNotExist) && suffix != "" {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// openTestStore opens path with the store (test-side setup and checks) and
// closes it when the test ends.
func openTestStore(t *testing.T, path string, opts *store.Options) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// openDB opens path read-only with database/sql, for checks the store API
// does not make, and closes it when the test ends.
func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// helperMain is the helper process. Mode "append": open the store, append
// 100 messages ("message 1", "message 2", …) to session "writer", print
// "ready", then go on appending one write at a time until standard input is
// closed, and print how many it appended. Mode "fsize": run a program
// under a file size limit (see execLimited).
func helperMain(mode, path string) int {
	switch mode {
	case "append":
		return appendUntilClosed(path)
	case "fsize":
		return execLimited()
	}
	fmt.Fprintf(os.Stderr, "helper: unknown mode %q\n", mode)
	return 1
}

// fsizeEnv is the "fsize" helper's file size limit, in bytes.
const fsizeEnv = "HERMESSTATE_FSIZE"

// execLimited is the "fsize" helper: it sets RLIMIT_FSIZE to $fsizeEnv
// bytes and executes the program and arguments that follow "--" on its
// command line, which inherits the limit: a write past it fails with
// EFBIG (the Go runtime ignores SIGXFSZ).
func execLimited() int {
	n, err := strconv.ParseUint(os.Getenv(fsizeEnv), 10, 64)
	i := slices.Index(os.Args, "--")
	if err != nil || i < 0 || i+1 >= len(os.Args) {
		fmt.Fprintln(os.Stderr, "helper: fsize needs", fsizeEnv, "and -- PROGRAM ARGS")
		return 1
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	err = syscall.Exec(os.Args[i+1], os.Args[i+1:], os.Environ())
	fmt.Fprintln(os.Stderr, "helper:", err)
	return 1
}

// appendUntilClosed is the "append" helper.
func appendUntilClosed(path string) int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := store.Open(ctx, path, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	defer s.Close()
	if err := s.EnsureSession(ctx, "writer", "cli", ""); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	stop := make(chan struct{})
	go func() {
		io.Copy(io.Discard, os.Stdin)
		close(stop)
	}()
	for n := 0; ; n++ {
		if n == 100 {
			fmt.Println("ready")
		}
		if n >= 100 {
			select {
			case <-stop:
				fmt.Println(n)
				return 0
			default:
			}
		}
		content := fmt.Sprintf("message %d", n+1)
		if _, err := s.AppendMessage(ctx, "writer", store.NewMessage{Role: "user", Content: &content}); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
	}
}
