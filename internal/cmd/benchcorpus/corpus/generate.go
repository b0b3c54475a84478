// Package corpus generates the benchmark corpus: a deterministic, realistic
// Hermes session history of a chosen number of messages, written as the
// JSON Lines ExportJSONL writes and ImportJSONL reads (Write), or built
// into a schema v21 state.db through the public store API (Build).
//
// The same Config gives byte-identical JSON Lines, and so the same rows:
// everything random comes from one PCG generator seeded by Config.Seed,
// timestamps are whole microseconds from a fixed epoch, and nothing reads
// the clock or iterates a map.
package corpus

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Version names the generation rules; Build records it, so a file made by
// other rules is rebuilt. Bump it whenever Write's output changes.
const Version = 1

// RareCount is the number of messages holding the rare word, whatever the
// corpus size: a rare-word search costs the same at every size.
const RareCount = 12

// The search terms the benchmark report queries, one per search route.
const (
	// CommonQuery matches about half the messages.
	CommonQuery = "docker kubernetes"
	// RareQuery matches RareCount messages.
	RareQuery = rareWord
	// TrigramQuery is four CJK characters: the trigram index's route.
	TrigramQuery = "记忆断裂"
	// ShortCJKQuery is two CJK characters: the LIKE scan's route.
	ShortCJKQuery = "通信"
)

// base is the corpus's first session start, 2025-01-01T00:00:00Z; sessions
// start over the following year.
const (
	base = 1735689600
	year = 365 * 24 * 3600
)

// Config chooses a corpus.
type Config struct {
	// Messages is the exact number of messages written (at least 2).
	Messages int
	// Seed seeds the generator: the same Config writes the same bytes.
	Seed uint64
}

// Stats describes a generated corpus: what the benchmark report reads back
// (Build stores it in state_meta under MetaKey) and the generator's own
// counts of the search terms.
type Stats struct {
	Version  int    `json:"version"`
	Seed     uint64 `json:"seed"`
	Messages int    `json:"messages"`
	Sessions int    `json:"sessions"`
	// Roots, Continuations and Branches count the kinds of session:
	// continuations are compression children, branches /branch children.
	Roots         int `json:"roots"`
	Continuations int `json:"continuations"`
	Branches      int `json:"branches"`
	ToolMessages  int `json:"tool_messages"`
	CJKMessages   int `json:"cjk_messages"`
	// Longest is the session with the most messages; Typical one with
	// about the median number of a root session's messages.
	Longest         string `json:"longest"`
	LongestMessages int    `json:"longest_messages"`
	Typical         string `json:"typical"`
	TypicalMessages int    `json:"typical_messages"`
	// The generator's counts of messages holding each query's terms (in
	// content or tool-call arguments; the full-text index also holds tool
	// names, so a search may find a few more).
	CommonMatches   int `json:"common_matches"`
	RareMatches     int `json:"rare_matches"`
	TrigramMatches  int `json:"trigram_matches"`
	ShortCJKMatches int `json:"short_cjk_matches"`
}

type kind int

const (
	root kind = iota
	continuation
	branch
)

// plan is one session before its messages are generated.
type plan struct {
	id, source, model, title, cwd, branchName string
	kind                                      kind
	parent                                    string
	start, end                                int64 // microseconds
	ended                                     bool
	endReason                                 string
	n                                         int
	cjk                                       bool
	msgSeed                                   uint64
}

// generator holds the random source and the running counts.
type generator struct {
	r     *rand.Rand
	zipf  *rand.Zipf
	stats Stats
	// rare holds the global message indexes that get the rare word.
	rare map[int]bool
	msg  int // messages written so far
}

func newGenerator(seed uint64) *generator {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return &generator{r: r, zipf: rand.NewZipf(r, 1.07, 2, uint64(len(words)-1))}
}

// Write writes the corpus cfg chooses to w as JSON Lines, one session per
// line in order of start (a parent before its children), and returns its
// Stats. It fails only with w's write error, or for fewer than 2 messages.
func Write(w io.Writer, cfg Config) (Stats, error) {
	if cfg.Messages < 2 {
		return Stats{}, fmt.Errorf("corpus: %d messages: need at least 2", cfg.Messages)
	}
	g := newGenerator(cfg.Seed)
	plans := g.plan(cfg.Messages)
	g.stats.Version, g.stats.Seed, g.stats.Messages, g.stats.Sessions = Version, cfg.Seed, cfg.Messages, len(plans)
	g.rare = map[int]bool{}
	for i := range RareCount {
		g.rare[(i*cfg.Messages)/RareCount+cfg.Messages/(2*RareCount)] = true
	}
	var line []byte
	for i := range plans {
		rec := g.session(&plans[i])
		var err error
		line, err = json.Marshal(rec)
		if err != nil {
			return g.stats, err
		}
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return g.stats, err
		}
	}
	return g.stats, nil
}

// plan draws the sessions: their kinds, lengths summing to exactly n
// messages, start times and ids, in order of start.
func (g *generator) plan(n int) []plan {
	r := g.r
	longs := max(1, int(math.Round(float64(n)/33000)))
	var lengths []int
	total := 0
	for range longs {
		l := 2000 + r.IntN(4001)
		if n < 50_000 { // a small corpus (the tests') keeps one long session of a tenth
			l = max(2, n/10)
		}
		lengths = append(lengths, l)
		total += l
	}
	for total < n {
		l := 2 + int(math.Exp(2.6+1.0*r.NormFloat64()))
		l = min(l, 600)
		lengths = append(lengths, l)
		total += l
	}
	// Trim the sessions drawn last (down to one message each) so that the
	// lengths sum to exactly n.
	over := total - n
	for i := len(lengths) - 1; over > 0 && i >= 0; i-- {
		cut := min(over, lengths[i]-1)
		lengths[i] -= cut
		over -= cut
	}
	r.Shuffle(len(lengths), func(i, j int) { lengths[i], lengths[j] = lengths[j], lengths[i] })

	var plans []plan
	titles := map[string]bool{}
	for i := 0; i < len(lengths); i++ {
		p := g.newPlan(lengths[i], root)
		p.start = (base + r.Int64N(year)) * 1e6
		g.finish(&p)
		if r.IntN(100) < 60 {
			p.title = g.title(titles)
		}
		plans = append(plans, p)
		// A compression chain: the session ended "compression" and a
		// continuation took over, up to three times.
		if r.IntN(100) < 5 && i+1 < len(lengths) {
			segs := 1 + r.IntN(3)
			prev := len(plans) - 1
			for s := 0; s < segs && i+1 < len(lengths); s++ {
				i++
				parent := &plans[prev]
				parent.ended, parent.endReason = true, "compression"
				c := g.newPlan(lengths[i], continuation)
				c.parent, c.source, c.cwd = parent.id, parent.source, parent.cwd
				c.cjk = parent.cjk
				c.start = parent.end + int64(1+r.IntN(5))*1e6
				g.finish(&c)
				if parent.title != "" {
					c.title = fmt.Sprintf("%s #%d", baseTitle(parent.title), s+2)
				}
				plans = append(plans, c)
				prev = len(plans) - 1
			}
			continue
		}
		// A /branch child: carries the _branched_from marker.
		if r.IntN(100) < 3 && i+1 < len(lengths) {
			i++
			parent := &plans[len(plans)-1]
			parent.ended, parent.endReason = true, "branched"
			b := g.newPlan(lengths[i], branch)
			b.parent, b.source, b.cwd = parent.id, parent.source, parent.cwd
			b.start = parent.end + int64(10+r.IntN(600))*1e6
			g.finish(&b)
			if parent.title != "" {
				b.title = g.title(titles)
			}
			plans = append(plans, b)
		}
	}
	sort.SliceStable(plans, func(i, j int) bool {
		if plans[i].start != plans[j].start {
			return plans[i].start < plans[j].start
		}
		return plans[i].id < plans[j].id
	})
	// The newest few sessions are still live.
	for i := max(0, len(plans)-5); i < len(plans); i++ {
		if plans[i].endReason != "compression" && plans[i].endReason != "branched" {
			plans[i].ended, plans[i].endReason = false, ""
		}
	}
	g.pickSessions(plans)
	return plans
}

// newPlan draws a session's id-independent fields.
func (g *generator) newPlan(n int, k kind) plan {
	r := g.r
	return plan{
		kind:       k,
		n:          n,
		source:     sources[r.IntN(len(sources))],
		model:      models[r.IntN(len(models))],
		cwd:        cwds[r.IntN(len(cwds))],
		branchName: branches[r.IntN(len(branches))],
		cjk:        r.IntN(100) < 8,
		msgSeed:    r.Uint64(),
	}
}

// finish sets a plan's end, ended state and id from its start.
func (g *generator) finish(p *plan) {
	r := g.r
	// Messages are 5 to 125 seconds apart on average.
	p.end = p.start + int64(p.n)*int64(5+r.IntN(121))*1e6 + 1e6
	if p.endReason == "" && r.IntN(100) < 85 {
		p.ended = true
		p.endReason = []string{"user_exit", "user_exit", "session_reset", "timeout", "new_session"}[r.IntN(5)]
	}
	p.id = time.Unix(p.start/1e6, 0).UTC().Format("20060102_150405") + "_" + strconv.FormatUint(r.Uint64()&0xffffff|0x1000000, 16)[1:]
}

// pickSessions records the longest session and a typical one (the first,
// in order of start, with the median number of a root's messages).
func (g *generator) pickSessions(plans []plan) {
	var roots []int
	for _, p := range plans {
		if p.n > g.stats.LongestMessages {
			g.stats.Longest, g.stats.LongestMessages = p.id, p.n
		}
		switch p.kind {
		case root:
			g.stats.Roots++
			roots = append(roots, p.n)
		case continuation:
			g.stats.Continuations++
		case branch:
			g.stats.Branches++
		}
	}
	sort.Ints(roots)
	median := roots[len(roots)/2]
	for _, p := range plans {
		if p.kind == root && p.n == median {
			g.stats.Typical, g.stats.TypicalMessages = p.id, p.n
			break
		}
	}
}

// title draws a title no other session has.
func (g *generator) title(seen map[string]bool) string {
	for n := 3; ; n++ {
		ws := make([]string, 0, n)
		for range n {
			ws = append(ws, words[8+g.r.IntN(len(words)-8)])
		}
		ws[0] = strings.ToUpper(ws[0][:1]) + ws[0][1:]
		t := strings.Join(ws, " ")
		if !seen[t] {
			seen[t] = true
			return t
		}
	}
}

// baseTitle is a title without its " #N" lineage suffix.
func baseTitle(t string) string {
	if i := strings.LastIndex(t, " #"); i >= 0 {
		return t[:i]
	}
	return t
}
