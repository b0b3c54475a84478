package reliability

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// childTimeout bounds every wait for a helper process: a line it should
// write, or its exit once told to stop (a child that works for a set time
// gets that time on top, see child.busy). Reaching it fails the test
// instead of hanging it.
const childTimeout = 2 * time.Minute

// child is a helper process (see TestMain). Each line it writes to stdout
// arrives on lines; stderr is kept, and must stay empty: helpers write there
// only when something went wrong, and a data race report lands there too.
type child struct {
	t      *testing.T
	name   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr bytes.Buffer
	done   bool
	// busy is how long the child works before it exits by itself; finish
	// waits that long on top of childTimeout.
	busy time.Duration
}

// startChild runs this test binary as helper with env added to its
// environment. The child is killed and reaped when the test ends, if the
// test did not finish it.
func startChild(t *testing.T, helper string, env ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{helperEnv + "=" + helper}, env...)...)
	c := &child{t: t, name: helper, cmd: cmd, lines: make(chan string, 1024)}
	cmd.Stderr = &c.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		if !c.done {
			_ = cmd.Process.Kill()
			for range c.lines {
			}
			_ = cmd.Wait()
		}
	})
	return c
}

// next returns the child's next line. The test fails when the child exits
// first or stays silent for childTimeout.
func (c *child) next() string {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("helper %s exited early; stderr:\n%s", c.name, c.waitStderr())
		}
		return l
	case <-time.After(childTimeout):
		c.t.Fatalf("helper %s wrote nothing for %v", c.name, childTimeout)
	}
	return ""
}

// expect fails the test unless the child's next line is want.
func (c *child) expect(want string) {
	c.t.Helper()
	if got := c.next(); got != want {
		c.t.Fatalf("helper %s said %q, want %q", c.name, got, want)
	}
}

// send writes one line to the child's stdin.
func (c *child) send(line string) {
	c.t.Helper()
	if _, err := fmt.Fprintln(c.stdin, line); err != nil {
		c.t.Fatalf("write to helper %s: %v", c.name, err)
	}
}

// kill sends SIGKILL: the child gets no chance to clean up, roll back or
// close anything, as when the OS or a user kills an agent.
func (c *child) kill() {
	c.t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		c.t.Fatalf("kill helper %s: %v", c.name, err)
	}
}

// finish closes the child's stdin, reads its remaining lines and reaps it.
// killed says how it must have ended: by SIGKILL, or by exiting 0. Any other
// end, or anything on its stderr, fails the test.
func (c *child) finish(killed bool) []string {
	c.t.Helper()
	_ = c.stdin.Close() // a helper that waits for its stdin to close exits now
	var rest []string
	deadline := time.After(c.busy + childTimeout)
	for open := true; open; {
		select {
		case l, ok := <-c.lines:
			if ok {
				rest = append(rest, l)
			}
			open = ok
		case <-deadline:
			c.t.Fatalf("helper %s did not exit within %v", c.name, c.busy+childTimeout)
		}
	}
	err := c.cmd.Wait()
	c.done = true
	var exit *exec.ExitError
	switch {
	case killed && errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL:
	case !killed && err == nil:
	default:
		c.t.Errorf("helper %s ended with %v, want killed=%v", c.name, err, killed)
	}
	if c.stderr.Len() > 0 {
		c.t.Errorf("helper %s wrote to stderr:\n%s", c.name, c.stderr.String())
	}
	return rest
}

// waitStderr reaps a child that exited on its own and returns its stderr.
func (c *child) waitStderr() string {
	for range c.lines {
	}
	_ = c.cmd.Wait()
	c.done = true
	return c.stderr.String()
}
