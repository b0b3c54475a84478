package reliability

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/store"
)

// TestKilledMigrationIsAllOrNothing kills a child with SIGKILL while
// store.Open migrates a v6 file holding 50,000 messages to v21 (v11's
// columns added and both FTS indexes rebuilt, then the v12–v21 columns,
// tables and indexes and the v16 and v20 data steps, all in one write
// transaction, where upstream commits step by step). Whatever the moment, the
// file the kill leaves is at v6 or v21 with exactly that version's schema
// (compared with a file migrated to exactly that version), intact
// (integrity check, FTS integrity check, every row as written), and the
// next store.Open brings it to a complete v21. A first run, not killed,
// measures how long the migration takes; the kills fall at random moments
// within 1.2 times that (or within 1.2 times the last migration a kill came
// too late for).
func TestKilledMigrationIsAllOrNothing(t *testing.T) {
	t.Parallel()
	rng := testRand(t)
	dir := t.TempDir()
	legacy := filepath.Join(dir, "v6.db")
	want := buildV6(t, legacy)

	path := dbtest.CopyFile(t, legacy, filepath.Join(dir, "calibration.db"))
	c := startChild(t, "migrate", "RELIABILITY_DB="+path)
	c.expect("opening")
	took, ok := openDuration(c.next())
	if !ok {
		t.Fatal("the migrate helper did not say ready")
	}
	c.finish(false)
	// Each kill below checks a whole v21 file once; this run needs only
	// its time.
	checkMigrated(t, path, want, false)
	removeDatabase(t, path)
	t.Logf("store.Open migrated %d messages from v6 to v21 in %v", want.Messages, took)

	iterations := pick(3, 12)
	versions := map[int64]int{} // the version each kill left
	var delays []time.Duration
	for iter := range iterations {
		path := dbtest.CopyFile(t, legacy, filepath.Join(dir, fmt.Sprintf("kill%d.db", iter)))
		c := startChild(t, "migrate", "RELIABILITY_DB="+path)
		c.expect("opening")
		delay := time.Duration(rng.Int64N(int64(took) * 6 / 5))
		delays = append(delays, delay.Round(time.Millisecond))
		time.Sleep(delay)
		c.kill()
		finished := false
		for _, l := range c.finish(true) {
			d, ok := openDuration(l)
			if !ok {
				t.Fatalf("the migrate helper wrote %q", l)
			}
			// The kill came after Open returned: aim the next ones by the
			// time this migration took (the first may have run on a
			// busier machine).
			finished, took = true, d
		}

		// What the kill left, read before anything migrates it further.
		q := openPlain(t, path)
		v := checkSchemaIsVersionFrom(t, q, 6)
		versions[v]++
		switch v {
		case 6:
			checkStructure(t, q)
		case 21:
			checkCurrent(t, q)
		default:
			t.Errorf("iteration %d: the kill left version %d, want 6 or 21", iter, v)
		}
		if finished && v != 21 {
			t.Errorf("iteration %d: Open returned, yet the file is at v%d", iter, v)
		}
		checkRows(t, q, want, fmt.Sprintf("iteration %d, after the kill:", iter))
		q.Close()
		// A file the kill left at v21 was checked whole just now.
		checkMigrated(t, path, want, v != 21)
		removeDatabase(t, path)
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("%d kills, %v after the child said it was opening the file, left these versions: %v", iterations, delays, versions)
}

// checkMigrated opens the file with store.Open and checks that it is at v21
// and that the store finds the legacy rows; full checks all of the file as
// well: schema, integrity, indexes and rows.
func checkMigrated(t *testing.T, path string, want rowsDigest, full bool) {
	t.Helper()
	ctx := context.Background()
	s := openCurrent(t, path)
	defer s.Close()
	if full {
		q := openPlain(t, path)
		defer q.Close()
		checkSchemaIsVersionFrom(t, q, 6)
		checkCurrent(t, q)
		checkRows(t, q, want, "after store.Open")
	}
	// Message 42 of session 17 is the only one with these words in a row,
	// and the search goes through the rebuilt index.
	res, err := s.SearchMessages(ctx, `"legacy s17 m42"`, store.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if wantID := int64(17*legacyPerSession + 42 + 1); len(res) != 1 || res[0].ID != wantID {
		t.Errorf("search for message 42 of session 17 found %d results (first id %v), want exactly id %d", len(res), firstID(res), wantID)
	}
}

func firstID(res []store.SearchResult) any {
	if len(res) == 0 {
		return nil
	}
	return res[0].ID
}

// openDuration reads the migrate helper's "ready" line: how long Open took.
func openDuration(line string) (time.Duration, bool) {
	ms, ok := strings.CutPrefix(line, "ready ")
	n, err := strconv.ParseInt(ms, 10, 64)
	return time.Duration(n) * time.Millisecond, ok && err == nil && n > 0
}

// runMigrateChild is the "migrate" helper: it says "opening", opens (and so
// migrates) the store, says "ready N" (N: milliseconds Open took), and
// closes the store when its stdin closes.
func runMigrateChild() error {
	fmt.Println("opening")
	start := time.Now()
	s, err := openChildStore(context.Background())
	if err != nil {
		return err
	}
	fmt.Printf("ready %d\n", max(time.Since(start).Milliseconds(), 1))
	_, _ = io.Copy(io.Discard, os.Stdin)
	return s.Close()
}
