package main

import (
	"io"
	"strings"
	"testing"
)

// TestProgress draws a bar only on a terminal and only for long work, on
// standard error; it counts to the total and clears itself at the end.
func TestProgress(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		terminal     bool
		total, least int64
		drawn        bool
	}{
		{"TerminalMany", true, 1000, manySessions, true},
		{"TerminalFew", true, 999, manySessions, false},
		{"NotTerminal", false, 100000, manySessions, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stderr, stdout strings.Builder
			e := &env{stdout: &stdout, stderr: &stderr, stderrIsTerminal: tt.terminal}
			p := startProgress(e, tt.total, tt.least, "exporting", false)
			p.set(tt.total / 2)
			p.set(tt.total)
			p.finish()
			if got := stderr.Len() > 0; got != tt.drawn {
				t.Errorf("bar drawn = %v, want %v: %q", got, tt.drawn, stderr.String())
			}
			if tt.drawn && !strings.Contains(stderr.String(), "exporting") {
				t.Errorf("the bar does not say what it counts: %q", stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("the bar wrote to standard output: %q", stdout.String())
			}
		})
	}
	t.Run("Reader", func(t *testing.T) {
		t.Parallel()
		var stderr strings.Builder
		e := &env{stdout: io.Discard, stderr: &stderr, stderrIsTerminal: true}
		p := startProgress(e, manyBytes, manyBytes, "importing", true)
		n, err := io.Copy(io.Discard, p.reader(strings.NewReader(strings.Repeat("x", manyBytes))))
		p.finish()
		if err != nil || n != manyBytes || !strings.Contains(stderr.String(), "importing") {
			t.Errorf("read %d bytes (%v) through the bar; stderr %q", n, err, stderr.String())
		}
	})
}
