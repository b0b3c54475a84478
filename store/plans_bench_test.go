package store

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
)

// The plan benchmarks run a rewritten statement and the statement it
// replaced alternately in one run over one populated file (the plan corpus
// at 3,000 top-level sessions and about 100,000 messages, built once per
// process in sharedDir), check before timing that both return the same
// rows, and report old-ns/op, new-ns/op and their ratio new/old.

var plansBench struct {
	once  sync.Once
	store *Store
	rows  planCorpusRows
	err   error
}

// plansBenchStore returns the shared plan-benchmark store, building it on
// first use.
func plansBenchStore(b *testing.B) *Store {
	b.Helper()
	plansBench.once.Do(func() {
		start := time.Now()
		s, err := Open(context.Background(), filepath.Join(sharedDir, "plans.db"), nil)
		if err != nil {
			plansBench.err = err
			return
		}
		plansBench.store = s
		plansBench.rows = buildPlanCorpus(b, s, planCorpus{Sessions: 3000, MeanMessages: 33, Seed: 21})
		plansBench.err = s.write(context.Background(), func(ctx context.Context, tx backend.Tx) error {
			return writeLongTranscript(ctx, tx, "long", 5000)
		})
		b.Logf("plan corpus: %d sessions, %d messages, built in %v", plansBench.rows.sessions, plansBench.rows.messages, time.Since(start).Round(time.Millisecond))
	})
	if plansBench.err != nil {
		b.Fatalf("building the plan corpus: %v", plansBench.err)
	}
	return plansBench.store
}

// writeLongTranscript writes session id with n messages shaped like an
// agent's: a user turn, an assistant turn with a tool call, and a tool
// result of 2 KB, over and over.
func writeLongTranscript(ctx context.Context, tx backend.Tx, id string, n int) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, source, started_at) VALUES (?, 'cli', 1.8e9)`, id); err != nil {
		return err
	}
	result := strings.Repeat("total 48 drwxr-xr-x  5 user staff  160 Dec  3 build.log ", 36)
	for i := range n {
		role, content, calls := "user", any("please run the build again and tell me what failed"), any(nil)
		switch i % 3 {
		case 1:
			role, content, calls = "assistant", "running it now", `[{"id":"c","type":"function","function":{"name":"terminal","arguments":"{\"command\":\"make\"}"}}]`
		case 2:
			role, content = "tool", result
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO messages (session_id, role, content, tool_calls, timestamp) VALUES (?, ?, ?, ?, ?)`,
			id, role, content, calls, 1.8e9+float64(i)); err != nil {
			return err
		}
	}
	return nil
}

// scanAll runs query on q and scans every row into interface values, as
// a caller reading the rows does; it returns how many there were.
func scanAll(ctx context.Context, q db.DBTX, query string, args ...any) (int, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, err
		}
		n++
	}
	return n, rows.Err()
}

// rowsOf runs query on q and returns its rows shown with their Go types,
// to compare two statements' answers.
func rowsOf(ctx context.Context, q db.DBTX, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []string
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("%#v", vals))
	}
	return out, rows.Err()
}

// compareSQL checks that oldSQL and newSQL return the same rows for args,
// then runs them alternately b.N times each (scanning every row, and
// checking the count) and reports their mean times and the ratio new/old.
func compareSQL(b *testing.B, q db.DBTX, oldSQL, newSQL string, args ...any) {
	b.Helper()
	compareSQLRows(b, q, rowCheck{}, oldSQL, newSQL, args...)
}

// rowCheck says how compareSQLRows compares the two statements' rows.
type rowCheck struct {
	// unordered compares them as sets, for statements that promise no
	// order.
	unordered bool
	// none expects no row (else at least one, so that the comparison
	// means something).
	none bool
}

// compareSQLRows is compareSQL with the rows compared as check says.
func compareSQLRows(b *testing.B, q db.DBTX, check rowCheck, oldSQL, newSQL string, args ...any) {
	b.Helper()
	ctx := context.Background()
	want, err := rowsOf(ctx, q, oldSQL, args...)
	if err != nil {
		b.Fatal(err)
	}
	got, err := rowsOf(ctx, q, newSQL, args...)
	if err != nil {
		b.Fatal(err)
	}
	if check.unordered {
		sort.Strings(want)
		sort.Strings(got)
	}
	if (len(want) == 0) != check.none || !reflect.DeepEqual(got, want) {
		b.Fatalf("%d rows, the old statement %d: %s", len(got), len(want), firstDiff(got, want))
	}
	var oldTime, newTime time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		first, second, t1, t2 := oldSQL, newSQL, &oldTime, &newTime
		if i%2 == 1 {
			first, second, t1, t2 = newSQL, oldSQL, &newTime, &oldTime
		}
		start := time.Now()
		n1, err := scanAll(ctx, q, first, args...)
		if err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		n2, err := scanAll(ctx, q, second, args...)
		if err != nil {
			b.Fatal(err)
		}
		*t1 += mid.Sub(start)
		*t2 += time.Since(mid)
		if n1 != len(want) || n2 != len(want) {
			b.Fatalf("%d and %d rows, want %d", n1, n2, len(want))
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(oldTime.Nanoseconds())/n, "old-ns/op")
	b.ReportMetric(float64(newTime.Nanoseconds())/n, "new-ns/op")
	b.ReportMetric(float64(newTime)/float64(oldTime), "new/old")
}

// BenchmarkPlansSessionBrowse is search_sessions (SessionBrowse) against
// upstream's GROUP BY form: the default page of 20, one source's page, and
// every session.
func BenchmarkPlansSessionBrowse(b *testing.B) {
	s := plansBenchStore(b)
	newSQL := sqlcStatements(b)["SessionBrowse"]
	for _, c := range []struct {
		name   string
		source any
		limit  int
	}{{"All20", nil, 20}, {"Telegram20", "telegram", 20}, {"AllSessions", nil, -1}} {
		b.Run(c.name, func(b *testing.B) {
			compareSQL(b, s.r, oldSessionBrowseSQL, newSQL, c.source, 0, c.limit)
		})
	}
}

// BenchmarkPlansExportOrder is the export's session order against
// upstream's GROUP BY form, read to the end.
func BenchmarkPlansExportOrder(b *testing.B) {
	s := plansBenchStore(b)
	compareSQL(b, s.r, oldExportOrderSQL, exportOrderSQL, nil)
}

// BenchmarkPlansLineageTitles is NextTitleInLineage's statement against
// the one that read every session row for the titles.
func BenchmarkPlansLineageTitles(b *testing.B) {
	s := plansBenchStore(b)
	compareSQLRows(b, s.r, rowCheck{unordered: true}, oldLineageTitlesSQL, sqlcStatements(b)["SessionLineageTitles"], "Title 5", *likePrefix("Title 5", " #%"))
}

// BenchmarkPlansDescendants is Descendants of a compression root with a
// chain of continuations against the plain-JOIN statement.
func BenchmarkPlansDescendants(b *testing.B) {
	s := plansBenchStore(b)
	var root string
	err := s.r.QueryRowContext(context.Background(), `SELECT parent_session_id FROM sessions WHERE id LIKE 's%-c3' ORDER BY id LIMIT 1`).Scan(&root)
	if err != nil {
		b.Fatal(err)
	}
	compareSQL(b, s.r, oldDescendantsSQL, sqlcStatements(b)["SessionDescendants"], root)
}

// BenchmarkPlansLatestTitleVariant is resolve_session_by_title's variant
// lookup, for a title with variants and one without (the common case,
// where upstream's text reads every session), against the old statement.
func BenchmarkPlansLatestTitleVariant(b *testing.B) {
	s := plansBenchStore(b)
	newSQL := sqlcStatements(b)["SessionLatestTitleVariant"]
	for _, base := range []string{"Title 5", "Title 10"} {
		b.Run(strings.ReplaceAll(base, " ", ""), func(b *testing.B) {
			// "Title 10" has no variants: both answer no row.
			compareSQLRows(b, s.r, rowCheck{none: base == "Title 10"}, oldLatestTitleVariantSQL, newSQL, *likePrefix(base, " #%"))
		})
	}
}

// BenchmarkPlansResolvePrefix is the id-prefix lookup (sessions resume
// <prefix>) against the old statement.
func BenchmarkPlansResolvePrefix(b *testing.B) {
	s := plansBenchStore(b)
	compareSQL(b, s.r, oldResolvePrefixSQL, sqlcStatements(b)["SessionResolvePrefix"], *likePrefix("s0012", "%"))
}

// BenchmarkPlansReplay is conversation replay (MessageConversation) and
// get_messages (MessageList, every row) of a 5,000-message agent session
// against the statements that sorted whole rows by id.
func BenchmarkPlansReplay(b *testing.B) {
	s := plansBenchStore(b)
	stmts := sqlcStatements(b)
	b.Run("Conversation", func(b *testing.B) {
		compareSQL(b, s.r, oldMessageConversationSQL, stmts["MessageConversation"], "long", 0, 0)
	})
	b.Run("MessageList", func(b *testing.B) {
		compareSQL(b, s.r, oldMessageListSQL, stmts["MessageList"], "long", 0, 0, -1)
	})
	b.Run("MessageListPage", func(b *testing.B) {
		compareSQL(b, s.r, oldMessageListSQL, stmts["MessageList"], "long", 0, 100, 50)
	})
}
