package main

import (
	"context"
	"fmt"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

// timeAppends runs rounds rounds of a's appends on each side, the store
// and the original alternating which goes first, each round into new
// sessions, and pools the rounds' latencies and wall times into a.
func timeAppends(ctx context.Context, s *store.Store, py *original, a *appendResult, rounds, kind int) error {
	for round := range rounds {
		prefix := fmt.Sprintf("bench-append-%d-%d", kind, round)
		var g appendRun
		goSide := func() (err error) {
			g, err = goAppend(ctx, s, a.writers, a.per, prefix)
			a.goRun.lat = append(a.goRun.lat, g.lat...)
			a.goRun.elapsed += g.elapsed
			return err
		}
		pySide := func() error {
			if py == nil {
				return nil
			}
			r, err := py.call(map[string]any{"op": "append", "writers": a.writers, "per_writer": a.per, "prefix": prefix})
			if err != nil {
				return err
			}
			a.pyRun.lat = append(a.pyRun.lat, seconds(r.Lat)...)
			a.pyRun.elapsed += seconds([]float64{r.Sec})[0]
			a.pyRun.sig = r.Sig
			return nil
		}
		first, second := goSide, pySide
		if round%2 != 0 {
			first, second = pySide, goSide
		}
		if err := first(); err != nil {
			return err
		}
		if err := second(); err != nil {
			return err
		}
		if py != nil && a.pyRun.sig != g.sig && a.mismatch == "" {
			a.mismatch = fmt.Sprintf("%d writers: message counts: store %s, original %s", a.writers, g.sig, a.pyRun.sig)
		}
	}
	return nil
}

// timeOp runs o once untimed (the warm-up, whose signatures are compared
// too), then runs times, the store and the original alternating which goes
// first; a read whose warm-up took over 0.5 s runs at most 5 times, over
// 2 s at most 3.
func timeOp(ctx context.Context, o op, py *original, runs int) (opResult, error) {
	r := opResult{name: o.name}
	warm := time.Duration(0)
	for round := -1; round < runs; round++ {
		var goD, pyD time.Duration
		var goSig, pySig string
		goSide := func() error {
			d, sig, err := o.run(ctx)
			goD, goSig = d, sig
			return err
		}
		pySide := func() error {
			if py == nil {
				return nil
			}
			rep, err := py.call(o.py)
			pyD, pySig = seconds([]float64{rep.Sec})[0], rep.Sig
			return err
		}
		first, second := goSide, pySide
		if round%2 != 0 {
			first, second = pySide, goSide
		}
		if err := first(); err != nil {
			return r, err
		}
		if err := second(); err != nil {
			return r, err
		}
		if round == -1 {
			warm = max(goD, pyD)
			switch {
			case warm > 2*time.Second:
				runs = min(runs, 3)
			case warm > 500*time.Millisecond:
				runs = min(runs, 5)
			}
			if py != nil && o.sig != nil {
				var err error
				if goSig, err = o.sig(ctx); err != nil {
					return r, err
				}
			}
		} else {
			r.goD = append(r.goD, goD)
			if py != nil {
				r.pyD = append(r.pyD, pyD)
			}
		}
		if py != nil && (round == -1 || o.sig == nil) && goSig != pySig && r.mismatch == "" {
			r.mismatch = fmt.Sprintf("store %s; original %s", clip(goSig), clip(pySig))
		}
	}
	r.runs = runs
	return r, nil
}

// clip shortens a signature for the report.
func clip(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	if s == "" {
		return `""`
	}
	return s
}

func seconds(f []float64) []time.Duration {
	d := make([]time.Duration, len(f))
	for i, x := range f {
		d[i] = time.Duration(x * float64(time.Second))
	}
	return d
}
