package store

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/dbtest"
)

func TestCloseIsIdempotentAndFinal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir()+"/state.db", nil)
	if err != nil {
		t.Fatal(err)
	}
	addSession(t, s, "s", nil, 1)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	if _, err := s.SchemaVersion(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("SchemaVersion after Close: %v, want ErrClosed", err)
	}
	if _, err := s.Checkpoint(ctx, CheckpointPassive); !errors.Is(err, ErrClosed) {
		t.Errorf("Checkpoint after Close: %v, want ErrClosed", err)
	}
	if err := appendLabelled(ctx, s, "x"); !errors.Is(err, ErrClosed) {
		t.Errorf("write after Close: %v, want ErrClosed", err)
	}
	if got := s.Stats().Writes; got != 1 {
		t.Errorf("Stats after Close: Writes = %d, want 1", got)
	}
}

// TestReopenChangesNothing: opening a current file again takes no write lock
// (it succeeds with one attempt while another connection holds the lock for
// the whole open) and leaves sqlite_master as it was.
func TestReopenChangesNothing(t *testing.T) {
	t.Parallel()
	s, path := openStore(t, nil)
	addSession(t, s, "s", nil, 1)
	before := schemaRows(t, s.r)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	lock := dbtest.HoldWriteLock(t, path)
	again := openAt(t, path, &Options{WriteAttempts: 1})
	after := schemaRows(t, again.r)
	if err := again.Close(); err != nil {
		t.Fatal(err)
	}
	lock.Release()
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("sqlite_master changed on reopen (-before +after):\n%s", diff)
	}
}

// TestCheckpointEveryNWrites: the helper runs a PASSIVE checkpoint after
// every 50th successful write, and not otherwise.
func TestCheckpointEveryNWrites(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		every  int
		writes int
		want   uint64
	}{
		{"Default", 0, 120, 2},
		{"EveryTen", 10, 35, 3},
		{"Off", -1, 60, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			logs := &recorder{}
			s, _ := openStore(t, &Options{CheckpointEvery: tt.every, Logger: slog.New(logs)})
			addSession(t, s, "s", nil, 1)
			for i := range tt.writes - 1 {
				if err := appendLabelled(context.Background(), s, "m"+string(rune('a'+i%26))); err != nil {
					t.Fatal(err)
				}
			}
			if got := s.Stats().Checkpoints; got != tt.want {
				t.Errorf("Checkpoints = %d, want %d", got, tt.want)
			}
			// Each checkpoint found frames to copy and logged them.
			if got := logs.count("wal checkpoint"); got != int(tt.want) {
				t.Errorf("%d checkpoint log records, want %d", got, tt.want)
			}
		})
	}
}

func TestCheckpointModes(t *testing.T) {
	t.Parallel()
	s, path := openStore(t, nil)
	addSession(t, s, "s", nil, 1)
	res, err := s.Checkpoint(context.Background(), CheckpointTruncate)
	if err != nil {
		t.Fatal(err)
	}
	if res != (CheckpointResult{Busy: false, LogFrames: 0, CheckpointedFrames: 0}) {
		t.Errorf("TRUNCATE result = %+v, want an empty, unbusy WAL", res)
	}
	fi, err := os.Stat(path + "-wal")
	if err != nil || fi.Size() != 0 {
		t.Errorf("WAL after TRUNCATE: %v, size %d; want 0 bytes", err, fi.Size())
	}
	if _, err := s.Checkpoint(context.Background(), CheckpointMode(9)); err == nil {
		t.Error("unknown mode accepted")
	}
	if got := CheckpointRestart.String(); got != "RESTART" {
		t.Errorf("String = %q", got)
	}
}

// recorder is a slog.Handler that keeps messages.
type recorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, rec.Message)
	return nil
}
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recorder) WithGroup(string) slog.Handler      { return r }

func (r *recorder) count(msg string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.msgs {
		if m == msg {
			n++
		}
	}
	return n
}

// TestReadsRunBesideTheWriter: while a write transaction is open on the
// writer connection, reads on the read-only pool proceed (and see the last
// committed state), unlike the original, which serialises both.
func TestReadsRunBesideTheWriter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openStore(t, nil)
	addSession(t, s, "s", nil, 1)
	inTx, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
			dbtest.Exec(t, tx, "INSERT INTO sessions (id, source, started_at) VALUES ('pending', 'cli', 2)")
			close(inTx)
			<-release
			return nil
		})
	}()
	<-inTx
	readCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	n, err := s.CountSessions(readCtx, CountOptions{IncludeArchived: true})
	close(release)
	if err != nil || n != 1 {
		t.Errorf("SessionCount during the write = %d, %v; want 1 (the committed state), no wait", n, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := dbtest.Value[int64](t, s.r, "SELECT COUNT(*) FROM sessions"); n != 2 {
		t.Errorf("after commit: %d sessions, want 2", n)
	}
}
