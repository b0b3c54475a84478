package main

// The tests run the real command: TestMain builds it once (with and without
// the sqlite_fts5 tag) and every test executes the binary against files in
// t.TempDir(), as goose's goose_cli_test.go does. The test binary doubles as
// a helper process for the concurrency tests (see helperMain).

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"

	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/store"
)

// The binaries TestMain builds.
var (
	migrateBin      string // go build -tags sqlite_fts5
	migrateNoFTSBin string // go build, no tags: SQLite without FTS5
)

// Helper-process protocol: the test binary re-executed with helperEnv set
// prints "ready", waits until its standard input is closed (the start
// barrier), then does its job on the database at helperDBEnv.
const (
	helperEnv        = "HERMESSTATE_HELPER"  // "open" or "migrate"
	helperDBEnv      = "HERMESSTATE_DB"      // the database path
	helperMigrateEnv = "HERMESSTATE_MIGRATE" // the migrate binary, for "migrate"
	helperReady      = "ready"
	// openJitter bounds the random delay of the store.Open helpers.
	openJitter = 300 * time.Millisecond
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helperMain(mode))
	}
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "migrate-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	// Every run sees an empty HERMES_HOME unless its test sets one: the v18
	// step must never read the sessions.json of the user running the tests.
	if err := os.Setenv("HERMES_HOME", filepath.Join(dir, "hermes-home")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	migrateBin = filepath.Join(dir, "migrate"+exe)
	migrateNoFTSBin = filepath.Join(dir, "migrate-nofts5"+exe)
	builds := [][]string{
		{"build", "-tags", "sqlite_fts5", "-o", migrateBin, "."},
		{"build", "-o", migrateNoFTSBin, "."},
	}
	errs := make([]error, len(builds))
	var wg sync.WaitGroup
	for i, args := range builds {
		wg.Go(func() { errs[i] = goCmd(args) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// goCmd runs the go command in the package directory.
func goCmd(args []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// helperMain is the helper process: it signals it is ready, waits for the
// start barrier (standard input closed), then opens or migrates the database
// and exits 0 on success, 1 (with one line on standard error) on failure.
func helperMain(mode string) int {
	fmt.Println(helperReady)
	if _, err := io.Copy(io.Discard, os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "helper: wait for start:", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	path := os.Getenv(helperDBEnv)
	switch mode {
	case "open":
		// This process is already running; the migrate binaries are only
		// now exec'd and have to start up, which takes 100 ms and more with
		// eight processes on two cores. Without a random head start for
		// them the store.Open helpers would win the write lock every time;
		// with it, either kind wins, from run to run.
		time.Sleep(rand.N(openJitter))
		s, err := store.Open(ctx, path, nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper: open:", err)
			return 1
		}
		v, err := s.SchemaVersion(ctx)
		if err := errors.Join(err, s.Close()); err != nil {
			fmt.Fprintln(os.Stderr, "helper: open:", err)
			return 1
		}
		fmt.Printf("schema version %d\n", v)
		return 0
	case "migrate":
		// Become the migrate binary, so that it starts as soon as the
		// store.Open helpers do; where exec is unsupported (Windows), run
		// it as a child instead.
		bin := os.Getenv(helperMigrateEnv)
		args := []string{bin, "-db", path, "up"}
		_ = syscall.Exec(bin, args, os.Environ())
		cmd := exec.CommandContext(ctx, bin, args[1:]...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper: migrate:", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(os.Stderr, "helper: unknown mode %q\n", mode)
	return 1
}

// result is how one run of a process ended.
type result struct {
	code           int
	stdout, stderr string
}

// runBin runs bin with args and env (nil: the test's environment) and waits
// at most timeout for it to exit.
func runBin(t *testing.T, timeout time.Duration, env []string, bin string, args ...string) result {
	t.Helper()
	return runBinDir(t, timeout, env, "", bin, args...)
}

// runBinIn runs bin with args in the working directory dir.
func runBinIn(t *testing.T, dir, bin string, args ...string) result {
	t.Helper()
	return runBinDir(t, 30*time.Second, nil, dir, bin, args...)
}

func runBinDir(t *testing.T, timeout time.Duration, env []string, dir, bin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	cmd.Dir = dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %s: no exit within %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(bin), strings.Join(args, " "), timeout, &stdout, &stderr)
	}
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("%s %s: %v", filepath.Base(bin), strings.Join(args, " "), err)
	}
	return r
}

// migrate runs the migrate binary with args in the test's environment.
func migrate(t *testing.T, args ...string) result {
	t.Helper()
	return runBin(t, 30*time.Second, nil, migrateBin, args...)
}

// mustMigrate runs the migrate binary, which must exit 0 with nothing on
// standard error, and returns its standard output, normalised.
func mustMigrate(t *testing.T, args ...string) string {
	t.Helper()
	r := migrate(t, args...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("migrate %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return normalize(r.stdout)
}

// failureLine checks that r is a failure with exit status code, nothing on
// standard output and exactly one line on standard error, starting with
// "migrate: ", and returns that line.
func failureLine(t *testing.T, r result, code int) string {
	t.Helper()
	if r.code != code {
		t.Errorf("exit status %d, want %d", r.code, code)
	}
	if r.stdout != "" {
		t.Errorf("stdout = %q, want nothing", r.stdout)
	}
	line, ok := strings.CutSuffix(r.stderr, "\n")
	if !ok || strings.Contains(line, "\n") || !strings.HasPrefix(line, "migrate: ") {
		t.Errorf("stderr is not one line starting with %q:\n%s", "migrate: ", r.stderr)
	}
	return line
}

// durationRE matches the duration that ends a result line, e.g. "(1.4ms)".
var durationRE = regexp.MustCompile(`(?m)\(\S+\)$`)

// normalize replaces the durations in migrate's output with "(…)".
func normalize(out string) string {
	return durationRE.ReplaceAllString(out, "(…)")
}

// Result verbs as migrate prints them.
const (
	applied       = "applied    "
	rolledBack    = "rolled back"
	wouldApply    = "would apply"
	wouldRollBack = "would roll back"
)

// createdSchema is the line of an up that gave a file without a schema the
// v21 one.
const createdSchema = "created      schema version 21  (…)"

// createdFile is the line of an up that created the file at path.
func createdFile(path string) string { return "created new database " + path }

// upgraded returns the lines of an up from version from: the summary, then
// each change.
func upgraded(from int, changes ...[]string) []string {
	out := []string{fmt.Sprintf("upgraded     schema version %d to 21  (…)", from)}
	for _, part := range changes {
		for _, c := range part {
			out = append(out, "             "+c)
		}
	}
	return out
}

// steps returns the normalised result lines for versions from…to (counting
// down when from > to) with verb.
func steps(verb string, from, to int) []string {
	var out []string
	for v := from; ; {
		out = append(out, fmt.Sprintf("%s  %s  (…)", verb, dbtest.MigrationNames[v-1]))
		if v == to {
			return out
		}
		if from < to {
			v++
		} else {
			v--
		}
	}
}

// text joins lines (and nested line lists) into the output they make.
func text(parts ...any) string {
	var b strings.Builder
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			b.WriteString(p + "\n")
		case []string:
			for _, l := range p {
				b.WriteString(l + "\n")
			}
		default:
			panic(fmt.Sprintf("text: %T", p))
		}
	}
	return b.String()
}

// statusText is migrate status's output for a database at version v (and
// "schema version v", or last when given).
func statusText(v int, last string) string {
	var b strings.Builder
	b.WriteString("VERSION  STATE    MIGRATION\n")
	for i, name := range dbtest.MigrationNames {
		state := "pending"
		if i+1 <= v {
			state = "applied"
		}
		fmt.Fprintf(&b, "%-7d  %s  %s\n", i+1, state, name)
	}
	if last == "" {
		last = fmt.Sprintf("schema version %d", v)
	}
	b.WriteString(last + "\n")
	return b.String()
}

// fileURI is path as an SQLite file: URI.
func fileURI(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// openDB opens path with database/sql on one connection (query is appended
// to the file URI, e.g. "mode=ro") and closes it when the test ends.
func openDB(t *testing.T, path, query string) *sql.DB {
	t.Helper()
	dsn := fileURI(t, path)
	if query != "" {
		dsn += "?" + query
	}
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	return db
}

// schemaVersion reads the version rows of the file at path, read-only.
func schemaVersion(t *testing.T, path string) []int64 {
	t.Helper()
	db := openDB(t, path, "mode=ro")
	defer db.Close()
	return dbtest.Values[int64](t, db, "SELECT version FROM schema_version")
}

// objectsOf returns sqlite_master of the file at path, read-only.
func objectsOf(t *testing.T, path string) []schemaObject {
	t.Helper()
	db := openDB(t, path, "mode=ro")
	defer db.Close()
	return schemaObjects(t, db)
}

// schemaObject is one sqlite_master row.
type schemaObject struct {
	Type, Name, Table, SQL string
}

// schemaObjects returns sqlite_master ordered by type and name.
func schemaObjects(t *testing.T, db *sql.DB) []schemaObject {
	t.Helper()
	rows, err := db.Query("SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master ORDER BY type, name")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []schemaObject
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.Type, &o.Name, &o.Table, &o.SQL); err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// objectNames returns "type name" for each object.
func objectNames(objs []schemaObject) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.Type+" "+o.Name)
	}
	return out
}

// freshObjects is sqlite_master of a fresh v21 database, upstream-v21.md
// §1.1, as "type name" ordered by type and name.
var freshObjects = []string{
	"index idx_async_delegations_delivery",
	"index idx_compression_locks_expires",
	"index idx_messages_active_null",
	"index idx_messages_platform_msg_id",
	"index idx_messages_session",
	"index idx_messages_session_active",
	"index idx_session_model_usage_model",
	"index idx_session_model_usage_session",
	"index idx_sessions_gateway_peer",
	"index idx_sessions_handoff_state",
	"index idx_sessions_parent",
	"index idx_sessions_session_key",
	"index idx_sessions_source",
	"index idx_sessions_source_id",
	"index idx_sessions_started",
	"index idx_sessions_title_unique",
	"index sqlite_autoindex_async_delegations_1",
	"index sqlite_autoindex_compression_locks_1",
	"index sqlite_autoindex_gateway_routing_1",
	"index sqlite_autoindex_session_model_usage_1",
	"index sqlite_autoindex_sessions_1",
	"index sqlite_autoindex_state_meta_1",
	"table async_delegations",
	"table compression_locks",
	"table gateway_routing",
	"table messages",
	"table messages_fts",
	"table messages_fts_config",
	"table messages_fts_content",
	"table messages_fts_data",
	"table messages_fts_docsize",
	"table messages_fts_idx",
	"table messages_fts_trigram",
	"table messages_fts_trigram_config",
	"table messages_fts_trigram_content",
	"table messages_fts_trigram_data",
	"table messages_fts_trigram_docsize",
	"table messages_fts_trigram_idx",
	"table schema_version",
	"table session_model_usage",
	"table sessions",
	"table sqlite_sequence",
	"table state_meta",
	"trigger messages_fts_delete",
	"trigger messages_fts_insert",
	"trigger messages_fts_trigram_delete",
	"trigger messages_fts_trigram_insert",
	"trigger messages_fts_trigram_update",
	"trigger messages_fts_update",
}

// envWithout returns the test's environment without the named variables,
// plus extra.
func envWithout(names []string, extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			drop = drop || name == n
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}

// startHelpers starts one helper process per mode against path and returns
// once every one of them is ready and waiting at the start barrier. release
// lets them all go at once; wait collects how each ended.
func startHelpers(t *testing.T, ctx context.Context, path string, modes []string) (release func(), wait func() []result) {
	t.Helper()
	type proc struct {
		cmd    *exec.Cmd
		stdin  io.Closer
		stdout *bufio.Reader
		stderr *strings.Builder
	}
	procs := make([]*proc, 0, len(modes))
	t.Cleanup(func() {
		for _, p := range procs {
			p.stdin.Close()
			if p.cmd.ProcessState == nil {
				p.cmd.Process.Kill()
				p.cmd.Wait()
			}
		}
	})
	for _, mode := range modes {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperDBEnv+"="+path, helperMigrateEnv+"="+migrateBin)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		p := &proc{cmd: cmd, stdin: stdin, stdout: bufio.NewReader(stdout), stderr: &strings.Builder{}}
		cmd.Stderr = p.stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
	}
	for i, p := range procs {
		line, err := p.stdout.ReadString('\n')
		if line != helperReady+"\n" {
			t.Fatalf("helper %d (%s): first line %q, %v; stderr:\n%s", i, modes[i], line, err, p.stderr)
		}
	}
	release = func() {
		for _, p := range procs {
			p.stdin.Close()
		}
	}
	wait = func() []result {
		t.Helper()
		out := make([]result, len(procs))
		for i, p := range procs {
			rest, err := io.ReadAll(p.stdout)
			if err != nil {
				t.Fatalf("helper %d: read stdout: %v", i, err)
			}
			err = p.cmd.Wait()
			if ctx.Err() != nil {
				t.Fatalf("helper %d (%s): no exit in time", i, modes[i])
			}
			out[i] = result{stdout: string(rest), stderr: p.stderr.String()}
			var exit *exec.ExitError
			switch {
			case errors.As(err, &exit):
				out[i].code = exit.ExitCode()
			case err != nil:
				t.Fatalf("helper %d: %v", i, err)
			}
		}
		return out
	}
	return release, wait
}
