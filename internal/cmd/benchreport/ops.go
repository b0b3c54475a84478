package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/hermesstate/hermesstate/internal/cmd/benchcorpus/corpus"
	"github.com/hermesstate/hermesstate/store"
)

// op is one timed read of the report, run through the store and (when the
// original runs too) through original.py with the request py.
type op struct {
	name string
	// run times one call and returns the signature of its result: what
	// original.py's signature of the same call must equal.
	run func(ctx context.Context) (time.Duration, string, error)
	// sig, when set, computes the signature in a separate untimed call
	// (run's own signature is then not compared): the whole export's ids
	// are read back only to check them.
	sig func(ctx context.Context) (string, error)
	py  map[string]any
}

// readOps are the report's reads on the corpus s holds, described by st.
func readOps(s *store.Store, st corpus.Stats) []op {
	search := func(q string) op {
		return op{
			name: fmt.Sprintf("search %q", q),
			run: func(ctx context.Context) (time.Duration, string, error) {
				t := time.Now()
				res, err := s.SearchMessages(ctx, q, store.SearchOptions{Limit: 20})
				d := time.Since(t)
				ids := make([]string, len(res))
				for i, r := range res {
					ids[i] = strconv.FormatInt(r.ID, 10)
				}
				return d, strings.Join(ids, ","), err
			},
			py: map[string]any{"op": "search", "query": q},
		}
	}
	list := func(name string, byLast bool) op {
		return op{
			name: name,
			run: func(ctx context.Context) (time.Duration, string, error) {
				t := time.Now()
				res, err := s.ListSessionsRich(ctx, store.ListOptions{Limit: 20, OrderByLastActive: byLast})
				d := time.Since(t)
				ids := make([]string, len(res))
				for i, r := range res {
					ids[i] = r.ID
				}
				return d, strings.Join(ids, ","), err
			},
			py: map[string]any{"op": "list", "by_last_active": byLast},
		}
	}
	replay := func(name, id string) op {
		return op{
			name: name,
			run: func(ctx context.Context) (time.Duration, string, error) {
				t := time.Now()
				msgs, err := s.Conversation(ctx, id, false)
				d := time.Since(t)
				return d, conversationSig(msgs), err
			},
			py: map[string]any{"op": "replay", "id": id},
		}
	}
	return []op{
		search(corpus.CommonQuery),
		search(corpus.RareQuery),
		search(corpus.TrigramQuery),
		search(corpus.ShortCJKQuery),
		list("list 20 (ListSessionsRich)", false),
		list("list 20 by last activity", true),
		replay("replay typical session", st.Typical),
		replay("replay longest session", st.Longest),
		{
			name: "export one session (typical)",
			run: func(ctx context.Context) (time.Duration, string, error) {
				t := time.Now()
				e, err := s.ExportSession(ctx, st.Typical)
				d := time.Since(t)
				if err != nil {
					return d, "", err
				}
				ids := make([]string, len(e.Messages))
				for i, m := range e.Messages {
					ids[i] = strconv.FormatInt(m.ID, 10)
				}
				return d, strings.Join(ids, ","), nil
			},
			py: map[string]any{"op": "export_session", "id": st.Typical},
		},
		{
			name: "export all (JSONL)",
			run: func(ctx context.Context) (time.Duration, string, error) {
				t := time.Now()
				_, err := s.ExportJSONL(ctx, io.Discard, store.ExportOptions{})
				return time.Since(t), "", err
			},
			sig: func(ctx context.Context) (string, error) { return exportSig(ctx, s) },
			py:  map[string]any{"op": "export_all"},
		},
	}
}

// conversationSig is original.py's conversation_sig: the number of
// messages and a hash of their roles and contents.
func conversationSig(msgs []store.ConversationMessage) string {
	h := sha256.New()
	for _, m := range msgs {
		h.Write([]byte(m.Role))
		h.Write([]byte{0})
		if m.Content != nil {
			h.Write([]byte(*m.Content))
		} else {
			h.Write([]byte("null"))
		}
		h.Write([]byte{'\n'})
	}
	return fmt.Sprintf("%d %s", len(msgs), hex.EncodeToString(h.Sum(nil))[:16])
}

// exportSig is original.py's export_all signature of the store's JSON
// Lines export: the sessions, their order and their messages' ids.
func exportSig(ctx context.Context, s *store.Store) (string, error) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := s.ExportJSONL(ctx, pw, store.ExportOptions{})
		pw.CloseWithError(err)
		done <- err
	}()
	h := sha256.New()
	sessions, messages := 0, 0
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	var line struct {
		ID       string `json:"id"`
		Messages []struct {
			ID int64 `json:"id"`
		} `json:"messages"`
	}
	var err error
	for sc.Scan() {
		line.Messages = line.Messages[:0]
		if err = json.Unmarshal(sc.Bytes(), &line); err != nil {
			break
		}
		sessions++
		messages += len(line.Messages)
		h.Write([]byte(line.ID + "\n"))
		for _, m := range line.Messages {
			h.Write([]byte(strconv.FormatInt(m.ID, 10) + ","))
		}
	}
	if err == nil {
		err = sc.Err()
	}
	pr.CloseWithError(io.ErrClosedPipe)
	if werr := <-done; err == nil {
		err = werr
	}
	return fmt.Sprintf("%d sessions %d messages %s", sessions, messages, hex.EncodeToString(h.Sum(nil))[:16]), err
}
