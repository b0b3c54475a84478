package store

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// benchMessages is the number of messages BenchmarkSearchIndexCheck's file
// holds: HERMESSTATE_BENCH_MESSAGES, else 100,000 (the README's figure is
// from 1,000,000).
func benchMessages(b *testing.B) int {
	if v := os.Getenv("HERMESSTATE_BENCH_MESSAGES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	return 100_000
}

// BenchmarkSearchIndexCheck is the empty-index check Open runs
// (emptySearchIndexes), on a file of benchMessages messages with both
// indexes full and with both empty, against counting the rows, the check
// one would write first.
func BenchmarkSearchIndexCheck(b *testing.B) {
	ctx := context.Background()
	n := benchMessages(b)
	for _, empty := range []bool{false, true} {
		name := "Indexed"
		if empty {
			name = "Empty"
		}
		b.Run(name, func(b *testing.B) {
			s, _ := openStore(b, quick(nil))
			if empty {
				// Why: messages without their index rows, as the original's
				// migration leaves them, written fast.
				dbtest.Exec(b, s.w, "DROP TRIGGER messages_fts_insert", "DROP TRIGGER messages_fts_trigram_insert")
			}
			dbtest.Exec(b, s.w, "INSERT INTO sessions (id, source, started_at) VALUES ('s', 'cli', 1)",
				`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < `+strconv.Itoa(n)+`)
				 INSERT INTO messages (session_id, role, content, timestamp) SELECT 's', 'user', 'message number ' || i, i FROM n`)
			got, err := emptySearchIndexes(ctx, backend.SQLiteTx(s.r))
			if err != nil || (len(got) == 2) != empty {
				b.Fatalf("emptySearchIndexes = %v, %v", got, err)
			}
			compare(b,
				func() error { _, err := emptySearchIndexes(ctx, backend.SQLiteTx(s.r)); return err },
				func() error {
					var m, f, g int64
					return s.r.QueryRowContext(ctx, "SELECT (SELECT COUNT(*) FROM messages), (SELECT COUNT(*) FROM messages_fts), (SELECT COUNT(*) FROM messages_fts_trigram)").Scan(&m, &f, &g)
				})
		})
	}
}
