package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/pgtest"
)

// BenchmarkEnginesReads times the store's everyday reads on SQLite and on
// PostgreSQL holding the same data: one corpus (readsSessions sessions of
// readsPerSession messages: prose, tool calls and their results, titles,
// token counts and costs, compression lineages) is written once into a
// SQLite file through the public API, exported with ExportJSONL and
// imported with ImportJSONL into a fresh PostgreSQL database; both
// databases must then export byte for byte the same JSON Lines, which
// proves they hold the same data. Both are then settled by the store's own
// maintenance call, Vacuum (SQLite: FTS merge and VACUUM; PostgreSQL:
// VACUUM (ANALYZE)), before anything is timed: straight after a bulk
// import PostgreSQL has no statistics for the new rows and the GIN index
// of messages_search holds them in its pending list, so the planner scans
// messages_search whole (measured here: a rare word's search took 20-50
// ms before, 2 ms after), a state autovacuum ends within about a minute
// but at a moment no benchmark can predict.

const (
	readsSessions   = 300
	readsPerSession = 40
	// readsLineageEvery: session i with i%readsLineageEvery == 1 ends by
	// compression and session i+1 continues it, so there are a dozen
	// parent → child pairs.
	readsLineageEvery = 25
	readsCommonTerm   = "deploy"    // ~15% of the messages with text
	readsRareTerm     = "zebrafish" // readsRareHits messages
	readsRareHits     = 7
	// readsTypical is the session whose transcript is replayed and
	// exported: a middle one, 40 messages, titled, with tool calls.
	readsTypical = "r-150"
	// readsLineageChild continues r-151 (a compression child).
	readsLineageChild = "r-152"
)

// readsSources are the sessions' platforms, in turn.
var readsSources = []string{"cli", "telegram", "discord", "cron"}

// fillReadsCorpus writes the benchmark's corpus into s through the public
// API, deterministically (seeded), and returns the number of messages
// written.
func fillReadsCorpus(b *testing.B, s *Store) int {
	b.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(17, 3))
	sentence := func(min, max int, common bool) string {
		n := min + rng.IntN(max-min+1)
		words := make([]string, n)
		for i := range words {
			words[i] = srchBenchWords[rng.IntN(len(srchBenchWords))]
		}
		if common {
			words[rng.IntN(n)] = readsCommonTerm
		}
		words[0] = strings.ToUpper(words[0][:1]) + words[0][1:]
		return strings.Join(words, " ") + "."
	}
	tools := []string{"web_search", "read_file", "terminal", "write_file"}
	rare := 0
	written := 0
	for si := range readsSessions {
		id := fmt.Sprintf("r-%03d", si)
		n := NewSession{ID: id, Source: readsSources[si%len(readsSources)], Model: "claude-bench",
			SystemPrompt: "You are a helpful agent.", UserID: fmt.Sprintf("u%d", si%5),
			ModelConfig: json.RawMessage(`{"temperature": 0.7}`)}
		if si%readsLineageEvery == 2 {
			n.ParentSessionID = fmt.Sprintf("r-%03d", si-1)
		}
		mustCreate(b, s, n)
		for mi := range readsPerSession {
			var m NewMessage
			switch mi % 4 {
			case 0:
				text := sentence(6, 30, rng.IntN(100) < 15)
				if rare < readsRareHits && si%41 == 7 && mi == 4 {
					text += " The " + readsRareTerm + " genome dataset is attached."
					rare++
				}
				if si%9 == 0 && mi == 8 {
					text = srchBenchChinese[si%len(srchBenchChinese)]
				}
				m = NewMessage{Role: "user", Content: &text}
			case 1:
				if mi%8 == 1 {
					tool := tools[rng.IntN(len(tools))]
					calls := fmt.Sprintf(`[{"id": "call_%d_%d", "type": "function", "function": {"name": %q, "arguments": "{\"q\": \"%s\"}"}}]`,
						si, mi, tool, srchBenchWords[rng.IntN(len(srchBenchWords))])
					m = NewMessage{Role: "assistant", Content: new("Let me check that."), ToolCalls: json.RawMessage(calls),
						FinishReason: "tool_calls", Reasoning: new(sentence(5, 15, false))}
				} else {
					m = NewMessage{Role: "assistant", Content: new(sentence(20, 80, rng.IntN(100) < 15)), FinishReason: "stop"}
				}
			case 2:
				if mi%8 == 2 {
					m = NewMessage{Role: "tool", Content: new(`{"output": "` + sentence(10, 60, false) + `"}`),
						ToolCallID: fmt.Sprintf("call_%d_%d", si, mi-1), ToolName: tools[rng.IntN(len(tools))],
						TokenCount: new(int64(10 + rng.IntN(500)))}
				} else {
					m = NewMessage{Role: "user", Content: new(sentence(4, 20, rng.IntN(100) < 15))}
				}
			default:
				m = NewMessage{Role: "assistant", Content: new(sentence(30, 120, rng.IntN(100) < 15)), FinishReason: "stop"}
			}
			mustAppend(b, s, id, m)
			written++
		}
		if si%7 != 3 {
			if err := s.SetSessionTitle(ctx, id, fmt.Sprintf("Fix %s %s #%d",
				srchBenchWords[si%len(srchBenchWords)], srchBenchWords[(si*7)%len(srchBenchWords)], si)); err != nil {
				b.Fatal(err)
			}
		}
		err := s.UpdateTokenCounts(ctx, id, TokenUpdate{InputTokens: int64(1000 + rng.IntN(90000)), OutputTokens: int64(100 + rng.IntN(9000)),
			CacheReadTokens: int64(rng.IntN(5000)), EstimatedCostUSD: new(float64(rng.IntN(100000)) / 7919), CostStatus: "estimated",
			BillingProvider: "anthropic", APICallCount: int64(1 + rng.IntN(20))})
		if err != nil {
			b.Fatal(err)
		}
		switch {
		case si%readsLineageEvery == 1:
			mustEnd(b, s, id, "compression")
		case si%3 == 0:
			mustEnd(b, s, id, "user_exit")
		}
	}
	if rare != readsRareHits {
		b.Fatalf("corpus has %d rare-term messages, want %d", rare, readsRareHits)
	}
	return written
}

// exportAll is the store's whole ExportJSONL output.
func exportAll(b *testing.B, s *Store) []byte {
	b.Helper()
	var buf bytes.Buffer
	if _, err := s.ExportJSONL(context.Background(), &buf, ExportOptions{}); err != nil {
		b.Fatalf("ExportJSONL: %v", err)
	}
	return buf.Bytes()
}

// readsEngines builds the corpus on SQLite, copies it into PostgreSQL by
// export and import, checks both export the same bytes and returns the
// two stores (open until the benchmark ends).
func readsEngines(b *testing.B) (sq, pg *Store) {
	b.Helper()
	ctx := context.Background()
	start := time.Now()
	sq = openAt(b, filepath.Join(b.TempDir(), "state.db"),
		&Options{Synchronous: SynchronousNormal, Now: stepClock(time.Unix(1_750_000_000, 125_000_000), 1250*time.Millisecond)})
	msgs := fillReadsCorpus(b, sq)
	built := time.Since(start)
	sqExport := exportAll(b, sq)

	pg, err := Open(ctx, pgtest.NewDatabase(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { pg.Close() })
	start = time.Now()
	res, err := pg.ImportJSONL(ctx, bytes.NewReader(sqExport), ImportOptions{})
	if err != nil {
		b.Fatalf("ImportJSONL into PostgreSQL: %v (%+v)", err, res)
	}
	imported := time.Since(start)
	if pgExport := exportAll(b, pg); !bytes.Equal(sqExport, pgExport) {
		b.Fatalf("the engines export different bytes (%d vs %d):\n%s", len(sqExport), len(pgExport),
			cmp.Diff(strings.Split(string(sqExport), "\n"), strings.Split(string(pgExport), "\n")))
	}
	var vacuumed [2]time.Duration
	for i, s := range []*Store{sq, pg} {
		start := time.Now()
		if _, err := s.Vacuum(ctx); err != nil {
			b.Fatalf("Vacuum on %s: %v", []string{"SQLite", "PostgreSQL"}[i], err)
		}
		vacuumed[i] = time.Since(start)
	}
	b.Logf("corpus: %d sessions, %d messages, %d bytes of JSONL; built on SQLite in %v, imported into PostgreSQL in %v; Vacuum took %v on SQLite, %v on PostgreSQL",
		readsSessions, msgs, len(sqExport), built.Round(time.Millisecond), imported.Round(time.Millisecond),
		vacuumed[0].Round(time.Millisecond), vacuumed[1].Round(time.Millisecond))
	return sq, pg
}

// searchIDSet is the sorted ids of hits.
func searchIDSet(hits []SearchResult) []int64 {
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	slices.Sort(ids)
	return ids
}

// readOp is one read timed on both engines: run returns what the engine
// answered, in a form two engines' answers can be compared by (cmp).
type readOp struct {
	name string
	run  func(ctx context.Context, s *Store) (any, error)
}

// BenchmarkEnginesReads runs, as sub-benchmarks, each read on both
// engines in turn (alternating which goes first, so neither always
// follows the other's cache effects), fails unless the two engines answer
// the same (search: the same set of hit ids, since ts_rank_cd orders
// otherwise than bm25), and reports sqlite-ns/op, pg-ns/op and pg/sqlite,
// PostgreSQL's time over SQLite's (above 1: PostgreSQL is slower). Both
// stores are opened with their defaults; the PostgreSQL server is reached
// over loopback TCP, so pg-ns/op includes a network round trip per
// statement (and BEGIN and ROLLBACK for a read of several statements)
// that SQLite, in process, does not pay. The plain ns/op column is one
// round of both engines plus the comparison: read the named metrics.
func BenchmarkEnginesReads(b *testing.B) {
	sq, pg := readsEngines(b)
	ctx := context.Background()

	// The full hit sets of both terms, once: every page of 20 is one of
	// them, and a common term's first page depends on the ranking.
	for _, term := range []string{readsCommonTerm, readsRareTerm} {
		var sets [2][]int64
		for i, s := range []*Store{sq, pg} {
			hits, err := s.SearchMessages(ctx, term, SearchOptions{Limit: 100000})
			if err != nil {
				b.Fatalf("SearchMessages(%q) on %s: %v", term, []string{"SQLite", "PostgreSQL"}[i], err)
			}
			sets[i] = searchIDSet(hits)
		}
		if diff := cmp.Diff(sets[0], sets[1]); diff != "" {
			b.Fatalf("SearchMessages(%q): the engines find different messages (-sqlite +pg):\n%s", term, diff)
		}
		if term == readsRareTerm && len(sets[0]) != readsRareHits {
			b.Fatalf("SearchMessages(%q) finds %d messages, want %d", term, len(sets[0]), readsRareHits)
		}
		b.Logf("SearchMessages(%q): %d hits on both engines", term, len(sets[0]))
	}

	ops := []readOp{
		{"ListSessionsRich", func(ctx context.Context, s *Store) (any, error) {
			return s.ListSessionsRich(ctx, ListOptions{Limit: 20})
		}},
		{"Conversation", func(ctx context.Context, s *Store) (any, error) {
			return s.Conversation(ctx, readsTypical, false)
		}},
		{"ConversationAncestors", func(ctx context.Context, s *Store) (any, error) {
			return s.Conversation(ctx, readsLineageChild, true)
		}},
		{"ExportSession", func(ctx context.Context, s *Store) (any, error) {
			// As JSON: SessionExport keeps its columns' order unexported.
			e, err := s.ExportSession(ctx, readsTypical)
			if err != nil {
				return nil, err
			}
			line, err := json.Marshal(e)
			return string(line), err
		}},
		{"GetSession", func(ctx context.Context, s *Store) (any, error) {
			return s.GetSession(ctx, readsTypical)
		}},
		{"SearchCommon", func(ctx context.Context, s *Store) (any, error) {
			hits, err := s.SearchMessages(ctx, readsCommonTerm, SearchOptions{})
			// The first page's ids depend on the ranking; its size does not.
			return len(hits), err
		}},
		{"SearchRare", func(ctx context.Context, s *Store) (any, error) {
			hits, err := s.SearchMessages(ctx, readsRareTerm, SearchOptions{})
			return searchIDSet(hits), err
		}},
		{"SessionCount", func(ctx context.Context, s *Store) (any, error) {
			return s.SessionCount(ctx, "telegram")
		}},
		{"CountSessions", func(ctx context.Context, s *Store) (any, error) {
			return s.CountSessions(ctx, CountOptions{ExcludeChildren: true})
		}},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			var sqTime, pgTime time.Duration
			for i := 0; b.Loop(); i++ {
				engines := []struct {
					s    *Store
					took *time.Duration
					got  any
				}{{s: sq, took: &sqTime}, {s: pg, took: &pgTime}}
				if i%2 == 1 {
					engines[0], engines[1] = engines[1], engines[0]
				}
				for j := range engines {
					e := &engines[j]
					start := time.Now()
					got, err := op.run(ctx, e.s)
					*e.took += time.Since(start)
					if err != nil {
						b.Fatalf("%s: %v", op.name, err)
					}
					e.got = got
				}
				sqGot, pgGot := engines[0].got, engines[1].got
				if i%2 == 1 {
					sqGot, pgGot = pgGot, sqGot
				}
				if i == 0 {
					if err := readsWant(op.name, sqGot); err != nil {
						b.Fatal(err)
					}
				}
				if diff := cmp.Diff(sqGot, pgGot); diff != "" {
					b.Fatalf("%s: the engines answer differently (-sqlite +pg):\n%s", op.name, diff)
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(sqTime.Nanoseconds())/n, "sqlite-ns/op")
			b.ReportMetric(float64(pgTime.Nanoseconds())/n, "pg-ns/op")
			b.ReportMetric(float64(pgTime)/float64(sqTime), "pg/sqlite")
		})
	}
}

// readsWant checks SQLite's answer to op against what the corpus holds,
// so that two engines agreeing on nothing (an empty page, a zero count)
// cannot pass.
func readsWant(op string, got any) error {
	check := func(ok bool, format string, args ...any) error {
		if ok {
			return nil
		}
		return fmt.Errorf("%s: "+format, append([]any{op}, args...)...)
	}
	switch op {
	case "ListSessionsRich":
		page := got.([]RichSession)
		return check(len(page) == 20, "%d sessions listed, want 20", len(page))
	case "Conversation":
		msgs := got.([]ConversationMessage)
		return check(len(msgs) == readsPerSession, "%d messages, want %d", len(msgs), readsPerSession)
	case "ConversationAncestors":
		msgs := got.([]ConversationMessage)
		return check(len(msgs) > readsPerSession, "%d messages, want more than the child's %d", len(msgs), readsPerSession)
	case "ExportSession":
		var e SessionExport
		if err := json.Unmarshal([]byte(got.(string)), &e); err != nil {
			return err
		}
		return check(e.ID == readsTypical && len(e.Messages) == readsPerSession, "session %q with %d messages, want %q with %d",
			e.ID, len(e.Messages), readsTypical, readsPerSession)
	case "GetSession":
		se := got.(*Session)
		return check(se.ID == readsTypical && se.MessageCount == readsPerSession, "session %q with %d messages, want %q with %d",
			se.ID, se.MessageCount, readsTypical, readsPerSession)
	case "SearchCommon":
		return check(got.(int) == 20, "%d hits on the first page, want 20", got)
	case "SearchRare":
		return check(len(got.([]int64)) == readsRareHits, "%d hits, want %d", len(got.([]int64)), readsRareHits)
	case "SessionCount":
		return check(got.(int64) == int64(readsSessions/len(readsSources)), "%d telegram sessions, want %d", got, readsSessions/len(readsSources))
	case "CountSessions":
		// Every session but the compression children.
		children := int64(0)
		for si := range readsSessions {
			if si%readsLineageEvery == 2 {
				children++
			}
		}
		return check(got.(int64) == readsSessions-children, "%d sessions, want %d", got, readsSessions-children)
	}
	return fmt.Errorf("%s: no expectation", op)
}
