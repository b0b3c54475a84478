package main

import (
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// manySessions is the export size from which a progress bar is drawn.
const manySessions = 1000

// manyBytes is the import size from which a progress bar is drawn.
const manyBytes = 8 << 20

// progress is a progress bar on standard error, or nothing: it is drawn
// only there, only on a terminal and only for long work, so standard output
// stays clean data and scripts see no bar.
type progress struct {
	bar *progressbar.ProgressBar
}

// startProgress returns a bar counting to total (in units of what) when
// stderr is a terminal and total reaches least; otherwise a progress that
// draws nothing. bytes shows the counts as sizes.
func startProgress(e *env, total, least int64, what string, bytes bool) progress {
	if !e.stderrIsTerminal || total < least {
		return progress{}
	}
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(e.stderr),
		progressbar.OptionSetDescription(what),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
	}
	if bytes {
		opts = append(opts, progressbar.OptionShowBytes(true))
	} else {
		opts = append(opts, progressbar.OptionShowCount())
	}
	return progress{bar: progressbar.NewOptions64(total, opts...)}
}

// set moves the bar to n.
func (p progress) set(n int64) {
	if p.bar != nil {
		p.bar.Set64(n)
	}
}

// reader returns r counting into the bar as it is read.
func (p progress) reader(r io.Reader) io.Reader {
	if p.bar == nil {
		return r
	}
	pr := progressbar.NewReader(r, p.bar)
	return &pr
}

// finish completes the bar and clears it from the terminal.
func (p progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}
