package corpus

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// record is one export line as ImportJSONL reads it: the session's columns
// (those the corpus sets) and its messages.
type record struct {
	ID              string    `json:"id"`
	Source          string    `json:"source"`
	UserID          *string   `json:"user_id,omitempty"`
	Model           string    `json:"model"`
	ModelConfig     *string   `json:"model_config,omitempty"`
	SystemPrompt    string    `json:"system_prompt"`
	ParentSessionID *string   `json:"parent_session_id,omitempty"`
	StartedAt       float64   `json:"started_at"`
	EndedAt         *float64  `json:"ended_at,omitempty"`
	EndReason       *string   `json:"end_reason,omitempty"`
	InputTokens     int       `json:"input_tokens"`
	OutputTokens    int       `json:"output_tokens"`
	CacheReadTokens int       `json:"cache_read_tokens"`
	Cwd             string    `json:"cwd"`
	GitBranch       string    `json:"git_branch"`
	BillingProvider string    `json:"billing_provider"`
	EstimatedCost   float64   `json:"estimated_cost_usd"`
	Title           *string   `json:"title,omitempty"`
	APICallCount    int       `json:"api_call_count"`
	Messages        []message `json:"messages"`
}

type message struct {
	Role         string     `json:"role"`
	Content      string     `json:"content"`
	ToolCallID   *string    `json:"tool_call_id,omitempty"`
	ToolCalls    []toolCall `json:"tool_calls,omitempty"`
	ToolName     *string    `json:"tool_name,omitempty"`
	Timestamp    float64    `json:"timestamp"`
	TokenCount   *int       `json:"token_count,omitempty"`
	FinishReason *string    `json:"finish_reason,omitempty"`
	Reasoning    *string    `json:"reasoning,omitempty"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function toolFunction `json:"function"`
}

type toolFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// text accumulates a message's text and what the statistics count in it.
type text struct {
	b              strings.Builder
	docker, kube   bool
	trigram, short bool
	cjk            bool
}

func (t *text) word(w string) {
	if t.b.Len() > 0 {
		t.b.WriteByte(' ')
	}
	t.b.WriteString(w)
	switch w {
	case "docker":
		t.docker = true
	case "kubernetes":
		t.kube = true
	}
}

func (t *text) phrase(p string) {
	t.b.WriteString(p)
	t.cjk = true
	if strings.Contains(p, TrigramQuery) {
		t.trigram = true
	}
	if strings.Contains(p, ShortCJKQuery) {
		t.short = true
	}
}

// session generates p's record, its messages drawn from p's own seed, so
// one session's text does not depend on the others'.
func (g *generator) session(p *plan) record {
	r := rand.New(rand.NewPCG(p.msgSeed, p.msgSeed>>1|1))
	zipf := rand.NewZipf(r, 1.07, 2, uint64(len(words)-1))
	rec := record{
		ID:              p.id,
		Source:          p.source,
		Model:           p.model,
		SystemPrompt:    "You are Hermes, a helpful assistant with tools. Workspace: " + p.cwd,
		StartedAt:       seconds(p.start),
		Cwd:             p.cwd,
		GitBranch:       p.branchName,
		BillingProvider: strings.SplitN(p.model, "/", 2)[0],
	}
	if p.source != "cli" && p.source != "cron" {
		u := "user" + strconv.Itoa(1000+r.IntN(50))
		rec.UserID = &u
	}
	if p.parent != "" {
		rec.ParentSessionID = &p.parent
	}
	if p.kind == branch {
		mc := fmt.Sprintf(`{"_branched_from": %q}`, p.parent)
		rec.ModelConfig = &mc
	}
	if p.ended {
		e := seconds(p.end)
		rec.EndedAt, rec.EndReason = &e, &p.endReason
	}
	if p.title != "" {
		rec.Title = &p.title
	}
	ms := make([]message, 0, p.n)
	step := max(int64(1e6), (p.end-p.start-1e6)/int64(p.n))
	ts := p.start
	pendingCalls := []toolCall(nil)
	prevRole := ""
	for len(ms) < p.n {
		ts += step/2 + r.Int64N(step)
		var m message
		var t text
		switch {
		case len(pendingCalls) > 0:
			c := pendingCalls[0]
			pendingCalls = pendingCalls[1:]
			id, name := c.ID, c.Function.Name
			m = message{Role: "tool", ToolCallID: &id, ToolName: &name}
			g.toolOutput(r, zipf, &t)
			g.stats.ToolMessages++
		case prevRole == "" || prevRole == "assistant" && ms[len(ms)-1].ToolCalls == nil:
			m = message{Role: "user"}
			switch x := r.IntN(100); {
			case x < 10:
				t.word(shortTexts[r.IntN(len(shortTexts))])
			case x < 50:
				g.prose(r, zipf, &t, 3+r.IntN(13), p.cjk)
			default:
				g.prose(r, zipf, &t, 15+r.IntN(46), p.cjk)
			}
		default:
			m = message{Role: "assistant"}
			tokens := 50 + r.IntN(2000)
			m.TokenCount = &tokens
			if r.IntN(100) < 35 && len(ms)+1 < p.n {
				g.prose(r, zipf, &t, 5+r.IntN(16), p.cjk)
				for k := range 1 + r.IntN(3) {
					m.ToolCalls = append(m.ToolCalls, g.toolCall(r, zipf, &t, len(ms), k))
				}
				pendingCalls = m.ToolCalls
				fr := "tool_calls"
				m.FinishReason = &fr
			} else {
				g.prose(r, zipf, &t, 20+r.IntN(101), p.cjk)
				fr := finishes[r.IntN(len(finishes))]
				if fr == "tool_calls" {
					fr = "stop"
				}
				m.FinishReason = &fr
			}
			if r.IntN(100) < 20 {
				var rt text
				g.prose(r, zipf, &rt, 10+r.IntN(30), false)
				s := rt.b.String()
				m.Reasoning = &s
			}
			rec.APICallCount++
			rec.InputTokens += 500 + r.IntN(20000)
			rec.OutputTokens += tokens
			rec.CacheReadTokens += r.IntN(15000)
		}
		if g.rare[g.msg] {
			t.word(rareWord)
		}
		g.msg++
		m.Content = t.b.String()
		m.Timestamp = seconds(ts)
		g.count(&t)
		ms = append(ms, m)
		prevRole = m.Role
	}
	// The last assistant turn may have asked for calls the session never
	// got to: keep them (a session cut mid-turn), as real histories do.
	rec.Messages = ms
	rec.EstimatedCost = float64(rec.InputTokens*3+rec.OutputTokens*15) / 1e6
	return rec
}

func (g *generator) count(t *text) {
	if t.docker && t.kube {
		g.stats.CommonMatches++
	}
	if t.trigram {
		g.stats.TrigramMatches++
	}
	if t.short {
		g.stats.ShortCJKMatches++
	}
	if t.cjk {
		g.stats.CJKMessages++
	}
	if strings.Contains(t.b.String(), rareWord) {
		g.stats.RareMatches++
	}
}

// prose writes n words of English technical text into t, with the odd
// identifier, path or number; in a CJK session most messages are CJK
// sentences with a few English words.
func (g *generator) prose(r *rand.Rand, zipf *rand.Zipf, t *text, n int, cjk bool) {
	if cjk && r.IntN(100) < 70 {
		if r.IntN(100) < 50 {
			t.phrase(cjkPhrases[1])
		}
		if r.IntN(100) < 20 {
			t.phrase(cjkPhrases[0])
		}
		for range 1 + r.IntN(2) {
			t.phrase(cjkPhrases[2+r.IntN(len(cjkPhrases)-2)])
		}
		n = 1 + n/6
	}
	for i := range n {
		w := g.token(r, zipf)
		if i == 0 && t.b.Len() == 0 && w != "" {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		t.word(w)
		if i%12 == 11 {
			t.b.WriteByte('.')
		}
	}
	t.b.WriteByte('.')
}

// token is one word: mostly from the Zipf vocabulary, sometimes an
// identifier (two words run together), a path, a number or a hash.
func (g *generator) token(r *rand.Rand, zipf *rand.Zipf) string {
	switch x := r.IntN(100); {
	case x < 90:
		return words[zipf.Uint64()]
	case x < 94:
		a, b := words[8+r.IntN(len(words)-8)], words[8+r.IntN(len(words)-8)]
		return a + strings.ToUpper(b[:1]) + b[1:]
	case x < 97:
		return cwds[r.IntN(len(cwds))] + "/" + words[8+r.IntN(len(words)-8)] + ".go:" + strconv.Itoa(1+r.IntN(900))
	case x < 99:
		return strconv.Itoa(r.IntN(100000))
	default:
		return strconv.FormatUint(r.Uint64()>>24, 16)
	}
}

// toolCall draws the k-th call of message i and writes its arguments'
// words into t (the full-text index holds tool calls).
func (g *generator) toolCall(r *rand.Rand, zipf *rand.Zipf, t *text, i, k int) toolCall {
	name := toolNames[r.IntN(len(toolNames))]
	var a text
	for range 2 + r.IntN(6) {
		a.word(g.token(r, zipf))
	}
	args, _ := json.Marshal(map[string]string{"command": a.b.String()})
	t.docker = t.docker || a.docker
	t.kube = t.kube || a.kube
	return toolCall{
		ID:       fmt.Sprintf("call_%d_%d_%06x", i, k, r.Uint32()&0xffffff),
		Type:     "function",
		Function: toolFunction{Name: name, Arguments: string(args)},
	}
}

// toolOutput writes a tool result: log-like lines of words, paths and
// numbers, sometimes long.
func (g *generator) toolOutput(r *rand.Rand, zipf *rand.Zipf, t *text) {
	n := 10 + r.IntN(60)
	if r.IntN(100) < 15 {
		n += 100 + r.IntN(300)
	}
	for i := range n {
		t.word(g.token(r, zipf))
		if i%10 == 9 {
			t.b.WriteByte('\n')
		}
	}
}

// seconds turns whole microseconds into epoch seconds.
func seconds(us int64) float64 { return float64(us) / 1e6 }
