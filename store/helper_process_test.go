package store

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// runHelper is the body of a helper process (see TestMain). It returns the
// process's exit code.
func runHelper(name string) int {
	ctx := context.Background()
	switch name {
	case "append":
		// Open the store, say "ready", then append HERMESSTATE_ROWS messages
		// labelled HERMESSTATE_WRITER-i to session "s" through the write
		// helper, and print the store's counters.
		rows, _ := strconv.Atoi(os.Getenv("HERMESSTATE_ROWS"))
		s, err := Open(ctx, os.Getenv("HERMESSTATE_DB"), nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer s.Close()
		fmt.Println("ready")
		for i := range rows {
			if err := appendLabelled(ctx, s, fmt.Sprintf("%s-%d", os.Getenv("HERMESSTATE_WRITER"), i)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		st := s.Stats()
		fmt.Printf("writes=%d retries=%d\n", st.Writes, st.Retries)
		return 0
	case "lock-holder":
		return runLockHolder(ctx, os.Getenv("HERMESSTATE_DB"))
	case "lock-probe":
		return runLockProbe(ctx, os.Getenv("HERMESSTATE_DB"))
	case "tables":
		return runTablesHelper(ctx, os.Getenv("HERMESSTATE_DB"), os.Getenv("HERMESSTATE_HOLDER"))
	case "engine-writer":
		return runEngineWriter(ctx)
	}
	fmt.Fprintf(os.Stderr, "unknown helper %q\n", name)
	return 2
}

// appendLabelled appends one user message with content label to session "s".
func appendLabelled(ctx context.Context, s *Store, label string) error {
	return appendLabelledTo(ctx, s, "s", label)
}

// appendLabelledTo appends one user message with content label to session.
func appendLabelledTo(ctx context.Context, s *Store, session, label string) error {
	return s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		_, err := s.q.MessageInsert(ctx, tx, db.MessageInsertParams{
			SessionID: session, Role: "user", Content: &label, Timestamp: sqlnum.RealOf(1),
		})
		return err
	})
}

// helperProcess is a running helper: its stdout lines arrive on lines, and
// in takes the commands of helpers that read them (one per line).
type helperProcess struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
}

// helperReplyTimeout bounds the wait for one line from a helper, so a hung
// helper fails its test instead of stalling the run.
const helperReplyTimeout = 30 * time.Second

// send writes one command line to the helper.
func (h *helperProcess) send(t *testing.T, command string) {
	t.Helper()
	if _, err := io.WriteString(h.in, command+"\n"); err != nil {
		t.Fatalf("send %q to helper: %v", command, err)
	}
}

// next returns the helper's next output line.
func (h *helperProcess) next(t *testing.T) string {
	t.Helper()
	select {
	case line, ok := <-h.lines:
		if !ok {
			t.Fatal("helper exited before answering")
		}
		return line
	case <-time.After(helperReplyTimeout):
		t.Fatalf("no answer from helper within %v", helperReplyTimeout)
	}
	return ""
}

// ask sends command and returns the helper's one-line answer.
func (h *helperProcess) ask(t *testing.T, command string) string {
	t.Helper()
	h.send(t, command)
	return h.next(t)
}

// finish closes the helper's input, which tells a command-reading helper
// to clean up and exit, and fails the test unless it exits with status 0
// without printing anything more.
func (h *helperProcess) finish(t *testing.T) {
	t.Helper()
	h.in.Close()
	deadline := time.After(helperReplyTimeout)
	for open := true; open; {
		select {
		case line, ok := <-h.lines:
			if ok {
				t.Errorf("helper printed %q while exiting", line)
			}
			open = ok
		case <-deadline:
			t.Fatalf("helper did not exit within %v", helperReplyTimeout)
		}
	}
	if err := h.cmd.Wait(); err != nil {
		t.Fatalf("helper process: %v", err)
	}
}

// startHelper runs this test binary as helper name with env added.
func startHelper(t testing.TB, name string, env ...string) *helperProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"HERMESSTATE_HELPER=" + name}, env...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &helperProcess{cmd: cmd, in: in, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			h.lines <- sc.Text()
		}
		close(h.lines)
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return h
}
