package main

// Running the command on a real terminal: a pseudo-terminal (creack/pty)
// is its standard input and/or standard error, standard output stays a
// pipe, so a test sees exactly what a person at the terminal sees (the
// terminal's transcript: what the command wrote, and the echo of what was
// typed) apart from what a script would read on standard output.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// onTerminal says which streams of the command are the terminal.
type onTerminal struct {
	stdin, stderr bool
}

// transcript collects what the terminal shows.
type transcript struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (t *transcript) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.Write(p)
}

// text is the transcript so far, with the terminal's "\r\n" as "\n".
func (t *transcript) text() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ReplaceAll(t.buf.String(), "\r\n", "\n")
}

// question ends the confirmation prompt the tests answer.
const question = "[y/N] "

// runTerminal runs the command with args and env (as runSessions does)
// with the streams of on connected to a new terminal. When answer is not
// "", it is typed, followed by Enter, once the terminal shows the y/N
// question. result.stderr is the terminal's transcript when stderr is on
// it, else the command's standard error.
func runTerminal(t *testing.T, on onTerminal, env []string, answer string, args ...string) result {
	t.Helper()
	return runTerminalAt(t, on, env, answer, nil, args...)
}

// runTerminalAt is runTerminal that runs atQuestion (when not nil) with
// the command's process while the question waits for its answer, before
// typing it (nothing is typed when answer is "").
func runTerminalAt(t *testing.T, on onTerminal, env []string, answer string, atQuestion func(*os.Process), args ...string) result {
	t.Helper()
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptm.Close()
	if err := pty.Setsize(tty, &pty.Winsize{Rows: 24, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sessionsBin, args...)
	cmd.Env = append([]string{"TZ=UTC", "PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(t.TempDir(), "home")}, env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if on.stdin {
		cmd.Stdin = tty
	}
	if on.stderr {
		cmd.Stderr = tty
	}
	if err := cmd.Start(); err != nil {
		tty.Close()
		t.Fatal(err)
	}
	tty.Close() // the child holds it now; the master reads EIO once it exits
	var shown transcript
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 4096)
		for {
			n, err := ptm.Read(buf)
			shown.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	if answer != "" || atQuestion != nil {
		for !strings.HasSuffix(shown.text(), question) {
			if ctx.Err() != nil {
				t.Fatalf("sessions %s: no question on the terminal; it shows:\n%s", strings.Join(args, " "), shown.text())
			}
			time.Sleep(5 * time.Millisecond)
		}
		if atQuestion != nil {
			atQuestion(cmd.Process)
		}
		if answer != "" {
			if _, err := ptm.Write([]byte(answer + "\n")); err != nil {
				t.Fatal(err)
			}
		}
	}
	err = cmd.Wait()
	<-copied
	if ctx.Err() != nil {
		t.Fatalf("sessions %s: no exit within 60s; the terminal shows:\n%s", strings.Join(args, " "), shown.text())
	}
	r := result{code: exitCode(t, err, args), stdout: stdout.String(), stderr: stderr.String()}
	if on.stderr {
		r.stderr = shown.text()
	}
	return r
}
