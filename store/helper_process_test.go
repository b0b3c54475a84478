package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/hermesstate/hermesstate/db"
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
	return s.write(ctx, func(ctx context.Context, tx db.DBTX) error {
		_, err := s.q.MessageInsert(ctx, tx, db.MessageInsertParams{
			SessionID: session, Role: "user", Content: &label, Timestamp: 1,
		})
		return err
	})
}

// helperProcess is a running helper: its stdout lines arrive on lines.
type helperProcess struct {
	cmd   *exec.Cmd
	lines chan string
}

// startHelper runs this test binary as helper name with env added.
func startHelper(t *testing.T, name string, env ...string) *helperProcess {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"HERMESSTATE_HELPER=" + name}, env...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &helperProcess{cmd: cmd, lines: make(chan string, 16)}
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
