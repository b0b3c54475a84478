package main

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// originalScript drives upstream Hermes's SessionDB (see original.py).
//
//go:embed original.py
var originalScript []byte

// original is a running original.py: one SessionDB on its own copy of a
// corpus, answering one request at a time.
type original struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Scanner
	Python string // the interpreter's version
	SQLite string // the sqlite3 module's SQLite version
}

// reply is original.py's answer to one request.
type reply struct {
	Sec    float64   `json:"sec"`
	Sig    string    `json:"sig"`
	Lat    []float64 `json:"lat"`
	Error  string    `json:"error"`
	Python string    `json:"python"`
	SQLite string    `json:"sqlite"`
}

// startOriginal starts original.py from src (a hermes-agent checkout) with
// python3, HERMES_HOME a directory of its own under work (upstream writes
// there), and opens db.
func startOriginal(src, work, db string) (*original, error) {
	script := filepath.Join(work, "original.py")
	if err := os.WriteFile(script, originalScript, 0o644); err != nil {
		return nil, err
	}
	home := filepath.Join(work, "hermes-home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	cmd := exec.Command("python3", script)
	cmd.Env = append(os.Environ(), "HERMES_SRC="+src, "HERMES_HOME="+home)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("python3 %s: %w", script, err)
	}
	o := &original{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	o.out.Buffer(make([]byte, 1<<20), 1<<30)
	r, err := o.call(map[string]any{"op": "open", "db": db})
	if err != nil {
		o.close()
		return nil, err
	}
	o.Python, o.SQLite = r.Python, r.SQLite
	return o, nil
}

// call sends one request and returns its reply; an error the script
// reported is returned as an error.
func (o *original) call(req map[string]any) (reply, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return reply{}, err
	}
	if _, err := o.in.Write(append(b, '\n')); err != nil {
		return reply{}, fmt.Errorf("original.py: %w", err)
	}
	if !o.out.Scan() {
		if err := o.out.Err(); err != nil {
			return reply{}, fmt.Errorf("original.py: %w", err)
		}
		return reply{}, errors.New("original.py exited")
	}
	var r reply
	if err := json.Unmarshal(o.out.Bytes(), &r); err != nil {
		return reply{}, fmt.Errorf("original.py: %w", err)
	}
	if r.Error != "" {
		return r, fmt.Errorf("original.py %v: %s", req["op"], r.Error)
	}
	return r, nil
}

// close ends the script (closing its stdin closes its SessionDB) and
// waits for it.
func (o *original) close() error {
	o.in.Close()
	return o.cmd.Wait()
}
