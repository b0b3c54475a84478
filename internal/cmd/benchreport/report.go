package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// writeReport writes the Markdown report: the machine, the corpora, the
// reads' table and the appends' table.
func writeReport(w io.Writer, m machine, cfg config, rs []*corpusResult) {
	withPy := cfg.hermesSrc != ""
	fmt.Fprintf(w, "## Benchmark report\n\n")
	fmt.Fprintf(w, "- Machine: %s, %d CPUs (%s); load average %s at the start, %s at the end\n", m.platform, m.cpus, m.cpuModel, m.loadStart, m.loadEnd)
	fmt.Fprintf(w, "- Store: %s, SQLite %s (mattn/go-sqlite3, bundled)\n", m.goVersion, m.sqlite)
	if withPy {
		fmt.Fprintf(w, "- Original: %s\n", m.original)
	}
	for _, r := range rs {
		st := r.stats
		fmt.Fprintf(w, "- Corpus %s: %s, %.0f MB, %d messages in %d sessions (seed %d, generator v%d); typical session %d messages, longest %d\n",
			r.label, r.path, float64(r.size)/1e6, st.Messages, st.Sessions, st.Seed, st.Version, st.TypicalMessages, st.LongestMessages)
	}
	fmt.Fprintf(w, "- Reads: median and p95 of %d timed runs after one warm-up run (at most 5 runs for a read whose warm-up took over 0.5 s, 3 over 2 s)", cfg.runs)
	if withPy {
		fmt.Fprintf(w, "; store and original alternate round by round, each on its own copy of the file; Go/original < 1 means the store is faster")
	}
	fmt.Fprintf(w, ". Report took %s.\n\n", m.took.Round(time.Second))

	// The reads.
	head := []string{"operation"}
	for _, r := range rs {
		if withPy {
			head = append(head, r.label+" median", r.label+" p95", r.label+" original", r.label+" Go/original")
		} else {
			head = append(head, r.label+" median", r.label+" p95")
		}
	}
	growth := len(rs) > 1
	if growth {
		head = append(head, fmt.Sprintf("%s/%s", rs[len(rs)-1].label, rs[0].label))
	}
	table(w, head, func(row func(...string)) {
		for i := range rs[0].ops {
			cells := []string{rs[0].ops[i].name}
			for _, r := range rs {
				o := r.ops[i]
				cells = append(cells, dur(median(o.goD)), dur(percentile(o.goD, 95)))
				if withPy {
					cells = append(cells, dur(median(o.pyD)), ratio(median(o.goD), median(o.pyD)))
				}
			}
			if growth {
				cells = append(cells, fmt.Sprintf("%.1f×", float64(median(rs[len(rs)-1].ops[i].goD))/float64(max(1, median(rs[0].ops[i].goD)))))
			}
			row(cells...)
		}
	})

	// The appends.
	fmt.Fprintf(w, "\nDurable appends (AppendMessage at synchronous FULL, each writer its own new session), %d rounds pooled: one writer %d appends a round; 8 writers %d appends each a round, at once.\n\n",
		cfg.appendRounds, rs[0].one.per, rs[0].eight.per)
	head = []string{"append"}
	for _, r := range rs {
		if withPy {
			head = append(head, r.label, r.label+" original", r.label+" Go/original")
		} else {
			head = append(head, r.label)
		}
	}
	type line struct {
		name string
		cell func(a appendRun) string
		val  func(a appendRun) float64 // for the ratio; lower is better
		pick func(r *corpusResult) *appendResult
	}
	lat := func(p float64) func(a appendRun) float64 {
		return func(a appendRun) float64 { return float64(percentile(a.lat, p)) }
	}
	latCell := func(p float64) func(a appendRun) string {
		return func(a appendRun) string { return dur(percentile(a.lat, p)) }
	}
	rate := func(a appendRun) float64 { return float64(len(a.lat)) / max(1e-9, a.elapsed.Seconds()) }
	rateCell := func(a appendRun) string { return fmt.Sprintf("%.0f/s", rate(a)) }
	inverse := func(a appendRun) float64 { return 1 / max(1e-9, rate(a)) }
	one := func(r *corpusResult) *appendResult { return &r.one }
	eight := func(r *corpusResult) *appendResult { return &r.eight }
	lines := []line{
		{"1 writer: latency p50", latCell(50), lat(50), one},
		{"1 writer: latency p95", latCell(95), lat(95), one},
		{"1 writer: throughput", rateCell, inverse, one},
		{"8 writers: latency p50", latCell(50), lat(50), eight},
		{"8 writers: latency p99", latCell(99), lat(99), eight},
		{"8 writers: throughput", rateCell, inverse, eight},
	}
	table(w, head, func(row func(...string)) {
		for _, l := range lines {
			cells := []string{l.name}
			for _, r := range rs {
				a := l.pick(r)
				cells = append(cells, l.cell(a.goRun))
				if withPy {
					cells = append(cells, l.cell(a.pyRun), fmt.Sprintf("%.2f", l.val(a.goRun)/max(1e-12, l.val(a.pyRun))))
				}
			}
			row(cells...)
		}
		cells := []string{"8 writers / 1 writer throughput"}
		for _, r := range rs {
			cells = append(cells, fmt.Sprintf("%.2f×", rate(r.eight.goRun)/max(1e-9, rate(r.one.goRun))))
			if withPy {
				cells = append(cells, fmt.Sprintf("%.2f×", rate(r.eight.pyRun)/max(1e-9, rate(r.one.pyRun))), "")
			}
		}
		row(cells...)
	})
	if withPy {
		fmt.Fprintf(w, "\nGo/original of a throughput row is the inverse ratio of the rates (time per append), so below 1 is faster there too.\n")
	}

	var bad []string
	for _, r := range rs {
		for _, o := range r.ops {
			if o.mismatch != "" {
				bad = append(bad, fmt.Sprintf("- %s, %s: %s", r.label, o.name, o.mismatch))
			}
		}
		for _, a := range []*appendResult{&r.one, &r.eight} {
			if a.mismatch != "" {
				bad = append(bad, fmt.Sprintf("- %s, appends: %s", r.label, a.mismatch))
			}
		}
	}
	switch {
	case len(bad) > 0:
		fmt.Fprintf(w, "\n**MISMATCH: the original returned other results than the store:**\n\n%s\n", strings.Join(bad, "\n"))
	case withPy:
		fmt.Fprintf(w, "\nEvery operation returned the same ids in the same order from the store and the original.\n")
	}
}

// table writes a Markdown table; body calls row once per row.
func table(w io.Writer, head []string, body func(row func(...string))) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(head, " | "))
	seps := make([]string, len(head))
	for i := range seps {
		seps[i] = "---:"
	}
	seps[0] = "---"
	fmt.Fprintf(w, "|%s|\n", strings.Join(seps, "|"))
	body(func(cells ...string) { fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | ")) })
}

// median is the 50th percentile.
func median(d []time.Duration) time.Duration { return percentile(d, 50) }

// percentile is the nearest-rank percentile p of d (0 for no samples).
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	k := int(float64(len(s))*p/100+0.999999) - 1
	return s[min(max(k, 0), len(s)-1)]
}

// dur writes a duration with three significant digits.
func dur(d time.Duration) string {
	switch {
	case d == 0:
		return "–"
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", float64(d)/1e3)
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// ratio writes a/b.
func ratio(a, b time.Duration) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}
