package sqlite

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/mattn/go-sqlite3"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	plain := errors.New("plain")
	tests := []struct {
		name string
		in   error
		want error // sentinel the result must match; nil: returned unchanged
	}{
		{"Busy", sqlite3.Error{Code: sqlite3.ErrBusy}, ErrBusy},
		{"BusySnapshot", sqlite3.Error{Code: sqlite3.ErrBusy, ExtendedCode: sqlite3.ErrBusySnapshot}, ErrBusy},
		{"Locked", sqlite3.Error{Code: sqlite3.ErrLocked}, ErrBusy},
		{"NotADB", sqlite3.Error{Code: sqlite3.ErrNotADB}, ErrNotDatabase},
		{"ReadOnly", sqlite3.Error{Code: sqlite3.ErrReadonly, ExtendedCode: sqlite3.ErrReadonlyDbMoved}, ErrReadOnly},
		{"CantOpen", sqlite3.Error{Code: sqlite3.ErrCantOpen}, ErrCantOpen},
		{"WrappedNotADB", fmt.Errorf("open: %w", sqlite3.Error{Code: sqlite3.ErrNotADB}), ErrNotDatabase},
		{"Constraint", sqlite3.Error{Code: sqlite3.ErrConstraint}, nil},
		// A full disk, by extended code and the errno the driver reports.
		{"Full", sqlite3.Error{Code: sqlite3.ErrFull}, ErrDiskFull},
		{"ShmSizeENOSPC", sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: sqlite3.ErrIoErrSHMSize, SystemErrno: syscall.ENOSPC}, ErrDiskFull},
		{"ShmSizeNoErrno", sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: sqlite3.ErrIoErrSHMSize}, ErrDiskFull},
		{"WriteENOSPC", sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: sqlite3.ErrIoErrWrite, SystemErrno: syscall.ENOSPC}, ErrDiskFull},
		{"FsyncEDQUOT", sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: sqlite3.ErrIoErrFsync, SystemErrno: syscall.EDQUOT}, ErrDiskFull},
		{"ShmSizeEIO", sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: sqlite3.ErrIoErrSHMSize, SystemErrno: syscall.EIO}, nil},
		{"WriteNoErrno", sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: sqlite3.ErrIoErrWrite}, nil},
		{"ReadEIO", sqlite3.Error{Code: sqlite3.ErrIoErr, ExtendedCode: sqlite3.ErrIoErrRead, SystemErrno: syscall.EIO}, nil},
		{"NotSQLite", plain, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Classify(tt.in)
			if tt.want == nil {
				if got != tt.in {
					t.Errorf("Classify(%v) = %v, want it unchanged", tt.in, got)
				}
				return
			}
			if !errors.Is(got, tt.want) {
				t.Errorf("Classify(%v) = %v, want it to match %v", tt.in, got, tt.want)
			}
			var se sqlite3.Error
			if !errors.As(got, &se) {
				t.Errorf("Classify(%v) lost the driver error", tt.in)
			}
		})
	}
	if Classify(nil) != nil {
		t.Error("Classify(nil) != nil")
	}
}

func TestIsBusy(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{sqlite3.Error{Code: sqlite3.ErrBusy, ExtendedCode: sqlite3.ErrBusyRecovery}, true},
		{sqlite3.Error{Code: sqlite3.ErrLocked, ExtendedCode: sqlite3.ErrLockedSharedCache}, true},
		{sqlite3.Error{Code: sqlite3.ErrConstraint}, false},
		{sqlite3.Error{Code: sqlite3.ErrInterrupt}, false},
		{errors.New("database is locked"), false}, // message text is never read
		{nil, false},
	} {
		if got := IsBusy(tt.err); got != tt.want {
			t.Errorf("IsBusy(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
