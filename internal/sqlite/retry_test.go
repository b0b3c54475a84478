package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mattn/go-sqlite3"
)

var (
	errBusy   = sqlite3.Error{Code: sqlite3.ErrBusy, ExtendedCode: sqlite3.ErrBusySnapshot}
	errLocked = sqlite3.Error{Code: sqlite3.ErrLocked}
	errFK     = sqlite3.Error{Code: sqlite3.ErrConstraint, ExtendedCode: sqlite3.ErrConstraintForeignKey}
)

func TestRetryDo(t *testing.T) {
	t.Parallel()
	quick := Retry{Attempts: 3, MinDelay: time.Microsecond, MaxDelay: 2 * time.Microsecond}
	tests := []struct {
		name      string
		errs      []error // what each call returns; the last repeats
		wantCalls int
		wantBusy  bool  // errors.Is(err, ErrBusy)
		wantIs    error // errors.Is(err, wantIs)
		wantRetry []int // attempts passed to OnRetry
	}{
		{name: "SucceedsFirstTime", errs: []error{nil}, wantCalls: 1},
		{name: "BusyThenSuccess", errs: []error{errBusy, nil}, wantCalls: 2, wantRetry: []int{1}},
		{name: "LockedThenSuccess", errs: []error{errLocked, errLocked, nil}, wantCalls: 3, wantRetry: []int{1, 2}},
		{name: "ConstraintNotRetried", errs: []error{errFK}, wantCalls: 1, wantIs: errFK},
		{name: "PlainErrorNotRetried", errs: []error{context.Canceled}, wantCalls: 1, wantIs: context.Canceled},
		{name: "BusyEveryTime", errs: []error{errBusy}, wantCalls: 3, wantBusy: true, wantIs: errBusy, wantRetry: []int{1, 2}},
		{name: "WrappedBusyIsRecognised", errs: []error{errors.Join(errors.New("commit"), errBusy), nil}, wantCalls: 2, wantRetry: []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := quick
			var retried []int
			r.OnRetry = func(attempt int, err error) { retried = append(retried, attempt) }
			calls := 0
			err := r.Do(context.Background(), func(context.Context) error {
				e := tt.errs[min(calls, len(tt.errs)-1)]
				calls++
				return e
			})
			if calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", calls, tt.wantCalls)
			}
			if got := errors.Is(err, ErrBusy); got != tt.wantBusy {
				t.Errorf("errors.Is(%v, ErrBusy) = %v, want %v", err, got, tt.wantBusy)
			}
			if tt.wantIs == nil && !tt.wantBusy && err != nil {
				t.Errorf("err = %v, want nil", err)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("err = %v, want it to match %v", err, tt.wantIs)
			}
			if diff := cmp.Diff(tt.wantRetry, retried); diff != "" {
				t.Errorf("OnRetry attempts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRetryStopsWhenContextEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	r := Retry{Attempts: 100, MinDelay: time.Hour, MaxDelay: time.Hour}
	calls := 0
	err := r.Do(ctx, func(context.Context) error {
		calls++
		cancel() // ends the context before the first sleep
		return errBusy
	})
	if !errors.Is(err, context.Canceled) || !errors.Is(err, errBusy) {
		t.Errorf("err = %v, want context.Canceled wrapping the busy error", err)
	}
	if calls != 1 {
		t.Errorf("calls = %d, want 1", calls)
	}
}

func TestRetryJitterStaysInBounds(t *testing.T) {
	t.Parallel()
	r := DefaultRetry()
	seenLow, seenHigh := false, false
	for range 10_000 {
		d := r.jitter()
		if d < DefaultMinDelay || d > DefaultMaxDelay {
			t.Fatalf("jitter %v outside [%v, %v]", d, DefaultMinDelay, DefaultMaxDelay)
		}
		seenLow = seenLow || d < 40*time.Millisecond
		seenHigh = seenHigh || d > 130*time.Millisecond
	}
	if !seenLow || !seenHigh {
		t.Errorf("10,000 draws never reached both ends of the range (low %v, high %v)", seenLow, seenHigh)
	}
}

func TestDefaultRetryIsTheOriginals(t *testing.T) {
	t.Parallel()
	want := Retry{Attempts: 15, MinDelay: 20 * time.Millisecond, MaxDelay: 150 * time.Millisecond}
	got := DefaultRetry()
	if got.Attempts != want.Attempts || got.MinDelay != want.MinDelay || got.MaxDelay != want.MaxDelay {
		t.Errorf("DefaultRetry() = %+v, want %+v", got, want)
	}
}
