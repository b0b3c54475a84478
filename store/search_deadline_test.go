package store

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// randomWords returns n bytes (rounded up to a word) of words drawn from
// vocab with a fixed seed, each followed by a space.
func randomWords(n int, seed uint64, vocab ...string) string {
	r := rand.New(rand.NewPCG(seed, 3))
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(vocab[r.IntN(len(vocab))])
		b.WriteByte(' ')
	}
	return b.String()
}

// TestSearchDeadlineWithHugeMessages: with 10 MB messages among the hits,
// every search route returns context.DeadlineExceeded soon after its
// context ends, although SQLite may still be inside one call it cannot be
// interrupted in (snippet() over a message full of matches, LIKE of a long
// pattern over 10 MB); the store stays usable. The same searches without a
// deadline find exactly their messages, the 10 MB ones too, in bounded
// time: a long hit's snippet is the store's, not FTS5's. Durations are
// logged, not asserted beyond a generous bound.
func TestSearchDeadlineWithHugeMessages(t *testing.T) {
	t.Parallel()
	const mb = 10 << 20
	for _, c := range []struct {
		name     string
		messages []string // the first is found by query, as are the 10 MB ones
		query    string
		slow     string // a query whose SQLite work outlasts the deadline
	}{
		{
			"WordIndex",
			[]string{strings.Repeat("a ", 16_000), randomWords(mb, 1, "deploy", "docker", "needle", "kube", "alpha", "beta"),
				randomWords(mb, 2, "deploy", "docker", "needle", "kube", "alpha", "beta"), randomWords(mb, 3, "deploy", "docker", "needle", "kube", "alpha", "beta")},
			"needle", "a", // snippet() of 16,000 matches: seconds in one call
		},
		{
			"Trigram",
			[]string{strings.Repeat("记", 10_900), // just under snippetMaxBytes: snippet() runs, for a second randomWords(mb, 4, "记忆断裂", "通信协议", "实现细节", "部署容器"),
				randomWords(mb, 5, "记忆断裂", "通信协议", "实现细节", "部署容器"), randomWords(mb, 6, "记忆断裂", "通信协议", "实现细节", "部署容器")},
			"记忆断裂", "记记记",
		},
		{
			"Like",
			[]string{strings.Repeat("a", mb) + " 通信", randomWords(mb, 7, "记忆", "通信", "实现", "部署"), randomWords(mb, 8, "记忆", "通信", "实现", "部署")},
			"通信", "通信 " + strings.Repeat("a", 300) + "b", // LIKE: 10 MB × 300 steps in one call
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, _ := openStore(t, quick(&Options{Now: stepClock(time.Unix(1_700_000_000, 0), time.Second)}))
			mustCreate(t, s, NewSession{ID: "q", Source: "cli"})
			var ids []int64
			for _, m := range c.messages {
				ids = append(ids, mustAppend(t, s, "q", NewMessage{Role: "tool", Content: &m}))
			}
			ordinary := mustAppend(t, s, "q", NewMessage{Role: "user", Content: new("an ordinary message")})

			start := time.Now()
			res, err := s.SearchMessages(t.Context(), c.query, SearchOptions{Limit: 100})
			took := time.Since(start)
			if err != nil {
				t.Fatalf("SearchMessages(%q): %v", c.query, err)
			}
			want := ids
			if c.name != "Like" {
				want = ids[1:] // the repeated text holds no query word
			}
			if diff := cmp.Diff(srchSet64(want), srchSet64(srchIDs(res))); diff != "" {
				t.Errorf("SearchMessages(%q) ids (-want +got):\n%s", c.query, diff)
			}
			t.Logf("%s: %q over %d messages of 10 MB: %d hits in %v", c.name, c.query, len(c.messages)-1, len(res), took)
			if took > 30*time.Second {
				t.Errorf("SearchMessages(%q) took %v", c.query, took)
			}

			ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
			defer cancel()
			start = time.Now()
			_, err = s.SearchMessages(ctx, c.slow, SearchOptions{})
			took = time.Since(start)
			if !errors.Is(err, context.DeadlineExceeded) || took > time.Second {
				t.Errorf("SearchMessages(%.20q…) with a 100 ms deadline = %.80v after %v; want context.DeadlineExceeded within 1 s", c.slow, err, took)
			}
			t.Logf("%s: the slow query with a 100 ms deadline returned after %v", c.name, took)
			if got := searchIDs(t, s, "ordinary"); !cmp.Equal(got, []int64{ordinary}) {
				t.Errorf("after the abandoned search, SearchMessages(ordinary) = %v, want [%d]", got, ordinary)
			}
		})
	}
}
