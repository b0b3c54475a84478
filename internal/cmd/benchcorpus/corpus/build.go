package corpus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

// MetaKey is the state_meta key under which Build records the corpus's
// Stats (JSON); the benchmark report reads its sessions from there.
const MetaKey = "bench_corpus"

// Build writes the corpus cfg chooses into a new schema v21 file at path
// through the public store API: Write's JSON Lines streamed into
// Store.ImportJSONL (at synchronous NORMAL: a corpus that a crash cut short
// is rebuilt, so the build need not sync every batch), the Stats recorded
// under MetaKey, the full-text indexes merged (OptimizeFTS, as the store's
// periodic maintenance leaves a long-lived file), and the store closed
// (a TRUNCATE checkpoint: the file has no -wal). The file is built under
// path+".tmp" and renamed into place only when complete.
//
// When log is not nil, Build writes to it how long the import and the
// merge took.
//
// It returns the Stats, or the first error of writing, importing or
// renaming; it refuses to overwrite an existing path.
func Build(ctx context.Context, path string, cfg Config, log io.Writer) (Stats, error) {
	if _, err := os.Stat(path); err == nil {
		return Stats{}, fmt.Errorf("corpus: %s exists", path)
	}
	tmp := path + ".tmp"
	// Side files left by an earlier file of that name (or by a build cut
	// short) must not be taken for the new file's.
	for _, f := range []string{tmp, tmp + "-wal", tmp + "-shm", path + "-wal", path + "-shm"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return Stats{}, err
		}
	}
	s, err := store.Open(ctx, tmp, &store.Options{Synchronous: store.SynchronousNormal})
	if err != nil {
		return Stats{}, err
	}
	pr, pw := io.Pipe()
	stats := make(chan Stats, 1)
	go func() {
		st, err := Write(pw, cfg)
		stats <- st
		pw.CloseWithError(err)
	}()
	began := time.Now()
	_, err = s.ImportJSONL(ctx, pr, store.ImportOptions{})
	pr.CloseWithError(io.ErrClosedPipe) // stops the writer if the import failed early
	st := <-stats
	if err == nil {
		var meta []byte
		meta, err = json.Marshal(st)
		if err == nil {
			err = s.SetMeta(ctx, MetaKey, string(meta))
		}
	}
	imported := time.Now()
	if err == nil {
		_, err = s.OptimizeFTS(ctx)
	}
	optimized := time.Now()
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if log != nil && err == nil {
		fmt.Fprintf(log, "%s: imported in %s, indexes merged in %s, closed in %s\n", path,
			imported.Sub(began).Round(100*time.Millisecond), optimized.Sub(imported).Round(100*time.Millisecond),
			time.Since(optimized).Round(100*time.Millisecond))
	}
	if err != nil {
		return st, err
	}
	return st, os.Rename(tmp, path)
}

// ReadStats returns the Stats Build recorded in the file s has open, and
// false when the file holds none (not a benchmark corpus).
func ReadStats(ctx context.Context, s *store.Store) (Stats, bool, error) {
	v, ok, err := s.GetMeta(ctx, MetaKey)
	if err != nil || !ok {
		return Stats{}, false, err
	}
	var st Stats
	if err := json.Unmarshal([]byte(v), &st); err != nil {
		return Stats{}, false, fmt.Errorf("corpus: %s in state_meta: %w", MetaKey, err)
	}
	return st, true, nil
}
