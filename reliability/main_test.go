package reliability

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

var (
	long     = flag.Bool("long", false, "run the long form: minutes of load, 100+ crashes, 20,000 appends behind a reader")
	seedFlag = flag.Uint64("seed", 0, "seed of every random choice; 0 takes one from the clock (each test logs it)")
)

// helperEnv names the helper a re-run test binary acts as (see TestMain).
const helperEnv = "RELIABILITY_HELPER"

// TestMain lets the test binary double as a helper process: the tests re-run
// it with RELIABILITY_HELPER set to act as another OS process on the same
// file (a writer, a child to kill, a long reader).
func TestMain(m *testing.M) {
	if name := os.Getenv(helperEnv); name != "" {
		os.Exit(runHelper(name))
	}
	os.Exit(m.Run())
}

// runHelper is the body of a helper process. It returns the exit code.
func runHelper(name string) int {
	var err error
	switch name {
	case "writer":
		err = runWriterProcess()
	case "crash":
		err = runCrashChild()
	case "migrate":
		err = runMigrateChild()
	case "hold-read":
		err = runReadHolder()
	case "group-append":
		err = runGroupChild()
	default:
		err = fmt.Errorf("unknown helper %q", name)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "helper %s: %v\n", name, err)
		return 1
	}
	return 0
}

// openChildStore opens the store a helper process works on: the file named
// by RELIABILITY_DB, with the default options, as an agent opens it.
func openChildStore(ctx context.Context) (*store.Store, error) {
	return store.Open(ctx, os.Getenv("RELIABILITY_DB"), nil)
}

// pick returns the short or the long form of a parameter.
func pick[T any](short, longForm T) T {
	if *long {
		return longForm
	}
	return short
}

var (
	seedOnce sync.Once
	runSeed  uint64
)

// seed returns the run's seed: -seed, or one taken from the clock once.
func seed() uint64 {
	seedOnce.Do(func() {
		runSeed = *seedFlag
		if runSeed == 0 {
			runSeed = uint64(time.Now().UnixNano())
		}
	})
	return runSeed
}

// testRand returns the random source of one test: the run's seed, logged so
// that a failure can be replayed, mixed with the test's name so that tests
// running in parallel draw independent numbers.
func testRand(t *testing.T) *rand.Rand {
	t.Helper()
	t.Logf("seed %d (replay with -seed=%d)", seed(), seed())
	h := fnv.New64a()
	h.Write([]byte(t.Name()))
	return rand.New(rand.NewPCG(seed(), h.Sum64()))
}
