package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/fts"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// The search benchmarks share one generated database of 100,000 messages in
// 2,000 sessions (tool calls, tool results, Chinese, Japanese and Korean
// included), built once per process in sharedDir (see TestMain) and kept
// open for the process's lifetime.

const (
	srchBenchSessions    = 2000
	srchBenchPerSession  = 50
	srchBenchCommonTerm  = "deploy"    // ~18% of messages
	srchBenchRareTerm    = "zebrafish" // 10 messages
	srchBenchTrigramTerm = "记忆断裂"      // ~1% of messages, 4 CJK characters
	srchBenchLikeTerm    = "通信"        // ~4% of messages, 2 CJK characters
)

var srchBench struct {
	once   sync.Once
	logged sync.Once
	store  *Store
	err    error
	setup  time.Duration
}

// srchBenchStore returns the shared benchmark store, building it on first
// use.
func srchBenchStore(b *testing.B) *Store {
	b.Helper()
	srchBench.once.Do(func() {
		start := time.Now()
		srchBench.store, srchBench.err = srchBenchBuild()
		srchBench.setup = time.Since(start)
	})
	if srchBench.err != nil {
		b.Fatalf("building the search benchmark database: %v", srchBench.err)
	}
	return srchBench.store
}

// srchBenchBuild writes the benchmark database into sharedDir.
func srchBenchBuild() (*Store, error) {
	dir := sharedDir
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(dir, "state.db"), &Options{Synchronous: SynchronousNormal})
	if err != nil {
		return nil, err
	}
	err = s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		for _, p := range srchBenchRows() {
			if p.session != nil {
				if _, err := s.q.SessionCreate(ctx, tx, *p.session); err != nil {
					return err
				}
				continue
			}
			if _, err := s.q.MessageInsert(ctx, tx, *p.message); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

type srchBenchRow struct {
	session *db.SessionCreateParams
	message *db.MessageInsertParams
}

var (
	srchBenchWords = strings.Fields(`the a to of and in for with on is it this that be we you
		server client request response database query index table column row schema migration
		session message agent tool call result error retry timeout lock busy write read cache
		build test release version branch commit merge review patch config file path directory
		docker kubernetes container image cluster node pod service gateway proxy network port
		python golang rust typescript javascript sqlite postgres redis queue worker job cron
		memory context token model prompt reply summary title search rank snippet trigram
		fix bug issue feature refactor rename update check verify run start stop restart log
		metrics latency throughput benchmark profile trace debug warning info user team plan`)
	srchBenchChinese = []string{
		"昨天和其他Agent的聊天记录，记忆断裂问题复现了",
		"今天讨论A2A通信协议的实现细节",
		"数据库迁移脚本已经完成，请检查一下",
		"这个函数的性能优化需要重新设计缓存层",
		"广西是个好地方，去过桂林和阳朔",
		"部署到生产环境之前需要跑完所有测试",
		"消息队列的通信延迟有点高，需要排查",
		"请帮我总结一下这次会议的要点",
		"日志里有很多超时错误，可能是网络问题",
		"用户反馈搜索结果不准确，需要调整排序",
	}
	srchBenchOther = []string{
		"こんにちは、データベースの移行が完了しました",
		"カタカナのテストメッセージです、よろしくお願いします",
		"안녕하세요, 데이터베이스 마이그레이션이 완료되었습니다",
		"API 호출 로그를 보여주세요, 기억이 안 나요",
		"Agent通信のテスト：記憶の断裂はありません",
	}
)

// srchBenchRows generates the benchmark data, deterministically.
func srchBenchRows() []srchBenchRow {
	rng := rand.New(rand.NewPCG(11, 7))
	sources := []string{"cli", "telegram", "discord", "cron", "tool"}
	sentence := func(min, max int, common bool) string {
		n := min + rng.IntN(max-min+1)
		words := make([]string, n)
		for i := range words {
			words[i] = srchBenchWords[rng.IntN(len(srchBenchWords))]
		}
		if common {
			words[rng.IntN(n)] = srchBenchCommonTerm
		}
		words[0] = strings.ToUpper(words[0][:1]) + words[0][1:]
		return strings.Join(words, " ") + "."
	}
	rows := make([]srchBenchRow, 0, srchBenchSessions*(srchBenchPerSession+1))
	for si := range srchBenchSessions {
		id := fmt.Sprintf("bench-%04d", si)
		started := 1.7e9 + float64(si)*3600
		rows = append(rows, srchBenchRow{session: &db.SessionCreateParams{ID: id, Source: sources[si%len(sources)], Model: new("claude-bench"), StartedAt: sqlnum.RealOf(started)}})
		for mi := range srchBenchPerSession {
			g := si*srchBenchPerSession + mi
			m := db.MessageInsertParams{SessionID: id, Timestamp: sqlnum.RealOf(started + float64(mi)*10)}
			switch g % 10 {
			case 0, 1, 2, 3:
				m.Role, m.Content = "user", new(sentence(8, 20, rng.IntN(10) < 3))
			case 4, 5:
				m.Role, m.Content = "assistant", new(sentence(20, 40, rng.IntN(10) < 3))
			case 6:
				m.Role = "assistant"
				if rng.IntN(2) == 0 {
					m.Content = new("Let me look at that file.")
				}
				m.ToolCalls = new(fmt.Sprintf(`[{"id": "call_%d", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"src/pkg%d/file_%d.go\"}"}}]`, g, g%37, g%101))
			case 7:
				m.Role, m.ToolName = "tool", new("read_file")
				m.Content = new(fmt.Sprintf("package pkg%d\n\nfunc Handle%d(ctx context.Context, req *Request) (*Response, error) {\n\treturn nil, errTimeout\n}", g%37, g))
			case 8:
				// One sentence in ten has the trigram term, two the LIKE term.
				m.Role, m.Content = "user", new(srchBenchChinese[rng.IntN(len(srchBenchChinese))])
			case 9:
				m.Role, m.Content = "assistant", new(srchBenchOther[rng.IntN(len(srchBenchOther))]+" "+sentence(3, 8, false))
			}
			if g%10007 == 3 && m.Content != nil {
				m.Content = new(*m.Content + " " + srchBenchRareTerm)
			}
			rows = append(rows, srchBenchRow{message: &m})
		}
	}
	return rows
}

// srchBareStatement is what SearchMessages runs for query and opts: the
// search builder's statement and its named arguments.
func srchBareStatement(b *testing.B, query string, opts SearchOptions) (string, []any) {
	b.Helper()
	st, ok := searchStatement(query, opts)
	if !ok {
		b.Fatalf("query %q has nothing to search", query)
	}
	return st.SQL(), st.Named()
}

// srchDrain runs stmt on q and reads every row's columns, returning the
// number of rows.
func srchDrain(ctx context.Context, q db.DBTX, stmt string, args ...any) (int, error) {
	rows, err := q.QueryContext(ctx, stmt, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

// BenchmarkSearch is SearchMessages (plan, read transaction, the statement,
// the context of every hit, result shaping) against the same hand-written
// statement run bare on the read pool with the same arguments: the store's
// overhead, mostly the context step (one query per hit).
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	s := srchBenchStore(b)
	for _, bc := range []struct {
		name  string
		query string
		opts  SearchOptions
		route fts.Route
	}{
		{"EnglishCommon", srchBenchCommonTerm, SearchOptions{}, fts.RouteUnicode61},
		{"EnglishRare", srchBenchRareTerm, SearchOptions{}, fts.RouteUnicode61},
		{"EnglishFiltered", srchBenchCommonTerm, SearchOptions{Sources: []string{"telegram"}, Roles: []string{"assistant"}}, fts.RouteUnicode61},
		{"Trigram", srchBenchTrigramTerm, SearchOptions{}, fts.RouteTrigram},
		{"LikePath", srchBenchLikeTerm, SearchOptions{}, fts.RouteLike},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srchBench.logged.Do(func() {
				b.Logf("benchmark database: %d sessions, %d messages, built in %v",
					srchBenchSessions, srchBenchSessions*srchBenchPerSession, srchBench.setup.Round(time.Millisecond))
			})
			if r := fts.Parse(bc.query).Route; r != bc.route {
				b.Fatalf("%q routes to %v, want %v", bc.query, r, bc.route)
			}
			stmt, args := srchBareStatement(b, bc.query, bc.opts)
			res, err := s.SearchMessages(ctx, bc.query, bc.opts)
			if err != nil {
				b.Fatal(err)
			}
			n, err := srchDrain(ctx, s.r, stmt, args...)
			if err != nil {
				b.Fatal(err)
			}
			if n != len(res) || n == 0 {
				b.Fatalf("%q: store %d hits, bare %d", bc.query, len(res), n)
			}
			compare(b,
				func() error { _, err := s.SearchMessages(ctx, bc.query, bc.opts); return err },
				func() error { _, err := srchDrain(ctx, s.r, stmt, args...); return err })
			b.ReportMetric(float64(n), "hits")
		})
	}
}

// BenchmarkSearchContext is the context step alone: MessageContext for
// each of 20 hits of a common term, on the bare read pool.
func BenchmarkSearchContext(b *testing.B) {
	ctx := context.Background()
	s := srchBenchStore(b)
	res, err := s.SearchMessages(ctx, srchBenchCommonTerm, SearchOptions{Limit: 20})
	if err != nil {
		b.Fatal(err)
	}
	if len(res) != 20 {
		b.Fatalf("%d hits, want 20", len(res))
	}
	ids := srchIDs(res)
	b.ResetTimer()
	for b.Loop() {
		for _, id := range ids {
			if _, err := s.q.MessageContext(ctx, backend.SQLiteTx(s.r), db.MessageContextParams{ID: id}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ids)), "ns/hit")
}

// srchNaiveSQL is the original's English-path statement (reference-spec
// §9.3) with the original's filters spliced in: it also selects m.content
// for every hit of the page.
func srchNaiveSQL(filters string) string {
	return `
SELECT
    m.id,
    m.session_id,
    m.role,
    snippet(messages_fts, 0, '>>>', '<<<', '...', 40) AS snippet,
    m.content,
    m.timestamp,
    m.tool_name,
    s.source,
    s.model,
    s.started_at AS session_started
FROM messages_fts
JOIN messages m ON m.id = messages_fts.rowid
JOIN sessions s ON s.id = m.session_id
WHERE messages_fts MATCH ?` + filters + `
ORDER BY rank
LIMIT ? OFFSET ?`
}

var (
	// srchNaiveUnfilteredSQL has no filters.
	srchNaiveUnfilteredSQL = srchNaiveSQL("")
	// srchNaiveFilteredSQL has a source and a role filter, as the original
	// appends them.
	srchNaiveFilteredSQL = srchNaiveSQL(" AND s.source IN (?) AND m.role IN (?)")
)

// BenchmarkRankedSearchNaive is the original's statement against the
// builder's unicode61 statement, both bare on the read pool, for a common term (about
// 18,000 matches, first page of 20), without and with filters. It reports
// both times and naive/ours. FTS5 takes ORDER BY rank itself (SCAN
// messages_fts VIRTUAL TABLE INDEX 32:M1, no temporary b-tree), so in both
// statements LIMIT stops the join after the page and snippet() runs for the
// page only; both pay the bm25 ranking of every match. The ratio shows what
// leaving m.content out of the result saves, which is little at this
// message size.
func BenchmarkRankedSearchNaive(b *testing.B) {
	ctx := context.Background()
	s := srchBenchStore(b)
	query := srchBenchCommonTerm
	matches := srchBenchCount(b, s, "SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH ?", query)
	for _, bc := range []struct {
		name      string
		naiveSQL  string
		naiveArgs []any
		opts      SearchOptions
	}{
		{"Common", srchNaiveUnfilteredSQL, []any{query, 20, 0}, SearchOptions{}},
		{"CommonFiltered", srchNaiveFilteredSQL, []any{query, "telegram", "assistant", 20, 0},
			SearchOptions{Sources: []string{"telegram"}, Roles: []string{"assistant"}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			oursSQL, oursArgs := srchBareStatement(b, query, bc.opts)
			// Both find the same page.
			ourIDs := srchBenchIDs(b, s, oursSQL, oursArgs...)
			naiveIDs := srchBenchIDs(b, s, bc.naiveSQL, bc.naiveArgs...)
			if len(ourIDs) != 20 || fmt.Sprint(ourIDs) != fmt.Sprint(naiveIDs) {
				b.Fatalf("pages differ: ours %v, naive %v", ourIDs, naiveIDs)
			}
			ours := func() error { _, err := srchDrain(ctx, s.r, oursSQL, oursArgs...); return err }
			naive := func() error { _, err := srchDrain(ctx, s.r, bc.naiveSQL, bc.naiveArgs...); return err }
			var oursTime, naiveTime time.Duration
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				fns := []func() error{ours, naive}
				times := []*time.Duration{&oursTime, &naiveTime}
				if i%2 == 1 {
					fns[0], fns[1], times[0], times[1] = naive, ours, &naiveTime, &oursTime
				}
				for j, fn := range fns {
					start := time.Now()
					if err := fn(); err != nil {
						b.Fatal(err)
					}
					*times[j] += time.Since(start)
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(matches), "matches")
			b.ReportMetric(float64(oursTime.Nanoseconds())/n, "ours-ns/op")
			b.ReportMetric(float64(naiveTime.Nanoseconds())/n, "naive-ns/op")
			b.ReportMetric(float64(naiveTime)/float64(oursTime), "naive/ours")
		})
	}
}

// srchBenchIDs returns the first column of every row as an id.
func srchBenchIDs(b *testing.B, s *Store, stmt string, args ...any) []int64 {
	b.Helper()
	var ids []int64
	for _, row := range dbtest.Rows(b, s.r, stmt, args...) {
		ids = append(ids, row[0].(int64))
	}
	return ids
}

func srchBenchCount(b *testing.B, s *Store, stmt string, args ...any) int64 {
	b.Helper()
	var n int64
	if err := s.r.QueryRowContext(context.Background(), stmt, args...).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}

// srchSplit is SearchMessages split into exactly k ranges (k = 1: one
// range, the split's own statements without the parallelism), whatever
// the thresholds.
func srchSplit(ctx context.Context, s *Store, query string, opts SearchOptions, k int) ([]SearchResult, error) {
	st, ok := searchStatement(query, opts)
	if !ok {
		return nil, fmt.Errorf("query %q has nothing to search", query)
	}
	if err := s.acquire(); err != nil {
		return nil, err
	}
	defer s.release()
	return s.searchSplit(ctx, query, opts, st, k, true)
}

// srchSingle is SearchMessages as the single statement.
func srchSingle(ctx context.Context, s *Store, query string, opts SearchOptions) ([]SearchResult, error) {
	st, ok := searchStatement(query, opts)
	if !ok {
		return nil, fmt.Errorf("query %q has nothing to search", query)
	}
	return s.search(ctx, query, opts, st, 1)
}

// srchInterleaved times fns in one interleaved run, each round starting
// with the next one, and reports each one's ns/op under names[i] and its
// ratio to fns[0] as names[i]/names[0]; and the process's CPU time during
// each (names[i]-cpu-ns/op, and names[i]-cpu/names[0]-cpu): the work a
// split does in all, which on idle cores bounds its wall time from below
// (cpu/cores), whatever other processes do to the wall times. It returns
// each one's total time.
func srchInterleaved(b *testing.B, names []string, fns []func() error) []time.Duration {
	b.Helper()
	times := make([]time.Duration, len(fns))
	cpus := make([]time.Duration, len(fns))
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		for j := range fns {
			f := (i + j) % len(fns)
			cpu, start := processCPU(), time.Now()
			if err := fns[f](); err != nil {
				b.Fatal(err)
			}
			times[f] += time.Since(start)
			cpus[f] += processCPU() - cpu
		}
	}
	n := float64(b.N)
	for i, name := range names {
		b.ReportMetric(float64(times[i].Nanoseconds())/n, name+"-ns/op")
		b.ReportMetric(float64(cpus[i].Nanoseconds())/n, name+"-cpu-ns/op")
		if i > 0 {
			b.ReportMetric(float64(times[i])/float64(times[0]), name+"/"+names[0])
			if cpus[0] > 0 {
				b.ReportMetric(float64(cpus[i])/float64(cpus[0]), name+"-cpu/"+names[0]+"-cpu")
			}
		}
	}
	return times
}

// srchSame fails the benchmark unless every answer equals want.
func srchSame(b *testing.B, label string, want []SearchResult, got ...[]SearchResult) {
	b.Helper()
	if len(want) == 0 {
		b.Fatalf("%s: no hits", label)
	}
	for i, g := range got {
		if diff := cmp.Diff(want, g); diff != "" {
			b.Fatalf("%s: answer %d differs from the single statement (-single +got):\n%s", label, i, diff)
		}
	}
}

// BenchmarkSearchSplit is a search split into 1, 2 and 4 rowid ranges
// (the split's statements, each range on its own read connection at the
// same time) against the single statement (the original's), all through
// the store (page, snippets, contexts), in one interleaved run, with the
// answers asserted identical first. It also runs the whole search in its
// top form unsplit (top, search_top.go: what the ranges of a search by
// rank run, so ranges2/top is the split's own share) and SearchMessages
// itself (auto: the probe and the thresholds decide). The target
// is ranges2/single <= 0.55 for the common word on 2 cores. EnglishRare
// shows what the probe costs a search the thresholds leave unsplit
// (auto/single).
func BenchmarkSearchSplit(b *testing.B) {
	ctx := context.Background()
	s := srchBenchStore(b)
	for _, bc := range []struct {
		name  string
		query string
		opts  SearchOptions
	}{
		{"EnglishCommon", srchBenchCommonTerm, SearchOptions{}},
		{"EnglishCommonNewest", srchBenchCommonTerm, SearchOptions{Order: SearchNewest}},
		{"EnglishCommonFiltered", srchBenchCommonTerm, SearchOptions{Sources: []string{"telegram"}, Roles: []string{"assistant"}}},
		{"EnglishRare", srchBenchRareTerm, SearchOptions{}},
		{"Trigram", srchBenchTrigramTerm, SearchOptions{}},
		{"LikePath", srchBenchLikeTerm, SearchOptions{}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			q, o := bc.query, bc.opts
			single := func() ([]SearchResult, error) { return srchSingle(ctx, s, q, o) }
			top := func() ([]SearchResult, error) { return topSearch(s, ctx, q, o) }
			auto := func() ([]SearchResult, error) { return s.SearchMessages(ctx, q, o) }
			split := func(k int) func() ([]SearchResult, error) {
				return func() ([]SearchResult, error) { return srchSplit(ctx, s, q, o, k) }
			}
			fns := []func() ([]SearchResult, error){single, top, split(1), split(2), split(4), auto}
			answers := make([][]SearchResult, len(fns))
			for i, fn := range fns {
				var err error
				if answers[i], err = fn(); err != nil {
					b.Fatal(err)
				}
			}
			srchSame(b, bc.name, answers[0], answers[1:]...)
			timed := make([]func() error, len(fns))
			for i, fn := range fns {
				timed[i] = func() error { _, err := fn(); return err }
			}
			times := srchInterleaved(b, []string{"single", "top", "ranges1", "ranges2", "ranges4", "auto"}, timed)
			// The split's own share: 2 ranges against the same top form
			// unsplit (search_top.go).
			b.ReportMetric(float64(times[3])/float64(times[1]), "ranges2/top")
			b.ReportMetric(float64(len(answers[0])), "hits")
		})
	}
}

// BenchmarkSearchSplitThreshold measures where splitting starts to pay:
// for MATCH expressions of about 10 to 18,000 matches in the benchmark
// corpus, the single statement against 2 ranges (ranges2/single, below 1
// when splitting pays), with the match count (the probe's count, uncapped).
// splitMinMatches comes from it.
func BenchmarkSearchSplitThreshold(b *testing.B) {
	ctx := context.Background()
	s := srchBenchStore(b)
	for _, query := range []string{
		srchBenchRareTerm,
		"docker kubernetes python rust",
		"docker kubernetes python",
		"docker kubernetes",
		"docker kubernetes OR python rust",
		"docker OR kubernetes",
		srchBenchCommonTerm,
	} {
		b.Run(strings.ReplaceAll(query, " ", "_"), func(b *testing.B) {
			st, _ := searchStatement(query, SearchOptions{})
			matches := srchBenchCount(b, s, "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?", st.Args.Match)
			one, err := srchSingle(ctx, s, query, SearchOptions{})
			if err != nil {
				b.Fatal(err)
			}
			two, err := srchSplit(ctx, s, query, SearchOptions{}, 2)
			if err != nil {
				b.Fatal(err)
			}
			srchSame(b, query, one, two)
			srchInterleaved(b, []string{"single", "ranges2"}, []func() error{
				func() error { _, err := srchSingle(ctx, s, query, SearchOptions{}); return err },
				func() error { _, err := srchSplit(ctx, s, query, SearchOptions{}, 2); return err },
			})
			b.ReportMetric(float64(matches), "matches")
		})
	}
}

// BenchmarkSearchSplitLikeThreshold is BenchmarkSearchSplitThreshold for
// the LIKE scan, whose cost is the rows it scans: the single statement
// against 2 ranges over the first n rowids (a rowid bound on both, so the
// same rows), n from 2,500 to 100,000. splitMinRows comes from it.
func BenchmarkSearchSplitLikeThreshold(b *testing.B) {
	ctx := context.Background()
	s := srchBenchStore(b)
	for _, n := range []int64{2500, 5000, 10000, 20000, 50000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			st, _ := searchStatement(srchBenchLikeTerm, SearchOptions{})
			stmt := st.RangeSQL()
			whole := func() error {
				_, err := read(s, ctx, func(ctx context.Context, q backend.Tx) (int, error) {
					return srchDrain(ctx, q, stmt, st.RangeNamed(0, n, 20)...)
				})
				return err
			}
			halves := func() error {
				var wg sync.WaitGroup
				errs := make([]error, 2)
				for i, r := range [][2]int64{{0, n / 2}, {n/2 + 1, n}} {
					wg.Go(func() {
						_, errs[i] = read(s, ctx, func(ctx context.Context, q backend.Tx) (int, error) {
							return srchDrain(ctx, q, stmt, st.RangeNamed(r[0], r[1], 20)...)
						})
					})
				}
				wg.Wait()
				return errors.Join(errs...)
			}
			srchInterleaved(b, []string{"single", "ranges2"}, []func() error{whole, halves})
		})
	}
}
