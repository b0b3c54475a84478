package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// randomCJK returns n bytes (rounded up to a character) of CJK ideographs
// drawn from a fixed seed: text with no repeated run, unlike
// strings.Repeat, which is the trigram index's worst case.
func randomCJK(n int) string {
	r := rand.New(rand.NewPCG(7, 11))
	var b strings.Builder
	for b.Len() < n {
		b.WriteRune(rune(0x4e00 + r.IntN(0x5000)))
	}
	return b.String()
}

// sizeStore opens a store with one session "q" and returns a function that
// appends a user message to it.
func sizeStore(t *testing.T) (*Store, func(string) int64) {
	t.Helper()
	s, _ := openStore(t, &Options{Now: stepClock(time.Unix(1_700_000_000, 0), time.Millisecond)})
	mustCreate(t, s, NewSession{ID: "q", Source: "cli"})
	return s, func(text string) int64 { return mustAppend(t, s, "q", NewMessage{Role: "user", Content: &text}) }
}

// timedSearchIDs runs a search that must succeed and returns the hit ids,
// sorted, and how long it took.
func timedSearchIDs(t *testing.T, s *Store, query string) ([]int64, time.Duration) {
	t.Helper()
	start := time.Now()
	res, err := s.SearchMessages(t.Context(), query, SearchOptions{Limit: 100})
	if err != nil {
		t.Fatalf("SearchMessages(%d bytes): %v", len(query), err)
	}
	return srchSet64(srchIDs(res)), time.Since(start)
}

// TestHugeSearchInput: 1 MB single-token messages round-trip exactly; a
// query over MaxQueryLength code points or MaxQueryTerms words (a pasted
// megabyte, 10,000 terms) is refused with ErrQueryTooLong before anything
// runs, and queries at the limits (2,048 CJK characters on the trigram
// index, 256 words ANDed on the word index, 256 short CJK words ORed on the
// LIKE scan) find exactly their message; a search that the trigram index
// makes slow is stopped by the caller's context, leaving the store usable.
// Durations are logged, not asserted.
func TestHugeSearchInput(t *testing.T) {
	t.Parallel()

	t.Run("OneMegabyteTokens", func(t *testing.T) {
		t.Parallel()
		s, say := sizeStore(t)
		schemaBefore := schemaRows(t, s.r)
		ascii, cjk := strings.Repeat("z", 1<<20), randomCJK(1<<20)
		asciiID, cjkID := say(ascii), say(cjk)
		say("an ordinary message")
		msgs, err := s.GetMessages(t.Context(), "q")
		if err != nil || len(msgs) != 3 || *msgs[0].Content != ascii || *msgs[1].Content != cjk {
			t.Fatalf("GetMessages: %d messages, %v; the 1 MB contents do not round-trip", len(msgs), err)
		}
		for _, query := range []string{ascii, cjk, strings.Repeat("记", MaxQueryLength+1)} {
			if _, err := s.SearchMessages(t.Context(), query, SearchOptions{}); !errors.Is(err, ErrQueryTooLong) {
				t.Errorf("SearchMessages(%d bytes) = %v, want ErrQueryTooLong", len(query), err)
			}
		}
		mid := len(cjk) / 2 / 3 * 3 // a character boundary: every ideograph is 3 bytes
		for _, c := range []struct {
			name, query string
			want        []int64
		}{
			{"AsciiPrefix", "zzzz*", []int64{asciiID}},
			{"CJKSliceOnTrigrams", cjk[mid : mid+18], []int64{cjkID}},
			{"CJKAtTheLengthLimit", cjk[mid : mid+3*MaxQueryLength], []int64{cjkID}},
		} {
			got, took := timedSearchIDs(t, s, c.query)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("%s: hits (-want +got):\n%s", c.name, diff)
			}
			t.Logf("%s: %d-byte query in %v", c.name, len(c.query), took)
		}
		checkIntact(t, s, schemaBefore)
	})

	t.Run("ManyTerms", func(t *testing.T) {
		t.Parallel()
		words, cjk := make([]string, 10000), make([]string, 10000)
		for i := range words {
			words[i], cjk[i] = fmt.Sprintf("w%d", i), fmt.Sprintf("记%d忆", i)
		}
		// Two stores: the LIKE scan matches every pattern against every
		// message, so the long word message would make the OR query scan
		// it once per pattern.
		words1, say1 := sizeStore(t)
		all := say1(strings.Join(words[:MaxQueryTerms], " "))
		say1(strings.Join(words[:MaxQueryTerms/2], " ")) // half the words: the AND must not find it
		cjk1, say2 := sizeStore(t)
		say2("remember nothing")
		hit := say2("remember 记42忆 this")
		for _, query := range []string{strings.Join(words, " "), strings.Join(words[:MaxQueryTerms+1], " ")} {
			if _, err := words1.SearchMessages(t.Context(), query, SearchOptions{}); !errors.Is(err, ErrQueryTooLong) {
				t.Errorf("SearchMessages(%d words) = %v, want ErrQueryTooLong", len(strings.Fields(query)), err)
			}
		}
		for _, c := range []struct {
			name  string
			s     *Store
			query string
			want  []int64
		}{
			{"AndOnWordIndex", words1, strings.Join(words[:MaxQueryTerms], " "), []int64{all}},
			// "a OR b OR c": 128 words and 127 ORs.
			{"OrOnLikeScan", cjk1, strings.Join(cjk[:MaxQueryTerms/2], " OR "), []int64{hit}},
		} {
			got, took := timedSearchIDs(t, c.s, c.query)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("%s: hits (-want +got):\n%s", c.name, diff)
			}
			t.Logf("%s: %d-byte query in %v", c.name, len(c.query), took)
		}
	})

	// A long run of one character indexes as one trigram at every position;
	// a long query of that run is a phrase of thousands of the same term,
	// which SQLite's phrase matching takes a long time over (2,048
	// characters against 20,000, here), inside one call that no interrupt
	// stops. The search returns context.DeadlineExceeded when its 100 ms
	// deadline passes, not when SQLite is done.
	t.Run("SlowQueryStoppedByContext", func(t *testing.T) {
		t.Parallel()
		s, say := sizeStore(t)
		say(strings.Repeat("记", 20000))
		ordinary := say("an ordinary message")
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		res, err := s.SearchMessages(ctx, strings.Repeat("记", MaxQueryLength), SearchOptions{})
		took := time.Since(start)
		if !errors.Is(err, context.DeadlineExceeded) || res != nil {
			t.Fatalf("SearchMessages = %d hits, %v; want context.DeadlineExceeded", len(res), err)
		}
		if took > 2*time.Second {
			t.Errorf("SearchMessages returned %v after its 100 ms deadline, want within 2 s", took)
		}
		t.Logf("pathological search: deadline exceeded after %v", took)
		if got, _ := timedSearchIDs(t, s, "ordinary"); !cmp.Equal(got, []int64{ordinary}) {
			t.Errorf("after the interrupted search, SearchMessages(ordinary) = %v, want [%d]", got, ordinary)
		}
	})
}
