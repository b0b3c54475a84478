package reliability

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

// writeRecord is one line of a writer's log: one call to the store and what
// it returned. A worker writes it after the call returned, so a record with
// OK set is a write the store acknowledged.
type writeRecord struct {
	Op     string `json:"op"`
	OK     bool   `json:"ok"`
	Busy   bool   `json:"busy,omitempty"` // the error matched store.ErrBusy
	Err    string `json:"err,omitempty"`
	Micros int64  `json:"us"`

	Session string   `json:"sid,omitempty"`
	ID      int64    `json:"id,omitempty"`   // append: the message id
	Msgs    []genMsg `json:"msgs,omitempty"` // append: the message; replace: the new transcript
	Title   string   `json:"title,omitempty"`
	In      int64    `json:"in,omitempty"`
	Out     int64    `json:"out,omitempty"`
	// Pruned is what the worker expected a prune to delete (its own ended
	// sessions); Count what the store said it deleted, or how many
	// results a read returned.
	Pruned []string `json:"pruned,omitempty"`
	Count  int      `json:"count,omitempty"`
}

// isWrite tells the records of writes from those of reads.
func (r writeRecord) isWrite() bool {
	switch r.Op {
	case "search", "list", "visible":
		return false
	}
	return true
}

// worker is one goroutine of a writer process. It owns the sessions it
// creates (their source is its name, and no other worker touches them), so
// the final state of each is the replay of its log.
type worker struct {
	name  string
	s     *store.Store
	rng   *rand.Rand
	log   *json.Encoder
	live  []string        // its sessions, not pruned
	ended map[string]bool // its sessions it ended
	// Counters that make every session id, message content and title
	// unique across the run.
	sessions, labels, titles int
}

// emit writes one record to the worker's log file: one write(2), so the
// record is in the file as soon as the call returns.
func (w *worker) emit(r writeRecord) error { return w.log.Encode(r) }

// call times fn, records its outcome in r and logs r. It returns whether
// the call succeeded.
func (w *worker) call(r *writeRecord, fn func() error) (bool, error) {
	start := time.Now()
	err := fn()
	r.Micros = time.Since(start).Microseconds()
	r.OK = err == nil
	if err != nil {
		r.Err, r.Busy = err.Error(), errors.Is(err, store.ErrBusy)
	}
	return r.OK, w.emit(*r)
}

// label returns a new unique word for message contents, e.g. "p1g2x35": one
// unicode61 token, so a search for it finds exactly its message.
func (w *worker) label() string {
	w.labels++
	return fmt.Sprintf("%sx%d", w.name, w.labels)
}

// session returns one of the worker's sessions at random.
func (w *worker) session() string { return w.live[w.rng.IntN(len(w.live))] }

// step runs one random operation: mostly appends, then searches, token
// updates, listings, creates, replaces, ends, titles and prunes.
func (w *worker) step(ctx context.Context) error {
	n := w.rng.IntN(100)
	if len(w.live) == 0 {
		n = 0
	}
	switch {
	case n < 8:
		w.sessions++
		id := fmt.Sprintf("%s-s%d", w.name, w.sessions)
		ok, err := w.call(&writeRecord{Op: "create", Session: id}, func() error {
			_, err := w.s.CreateSession(ctx, store.NewSession{ID: id, Source: w.name, Model: "test-model"})
			return err
		})
		if ok {
			w.live = append(w.live, id)
		}
		return err
	case n < 43:
		return w.appendAndSee(ctx)
	case n < 49:
		id, msgs := w.session(), conversation(w.label(), 1+w.rng.IntN(8))
		_, err := w.call(&writeRecord{Op: "replace", Session: id, Msgs: msgs}, func() error {
			return w.s.ReplaceMessages(ctx, id, newMessages(msgs))
		})
		return err
	case n < 55:
		id := w.session()
		ok, err := w.call(&writeRecord{Op: "end", Session: id}, func() error { return w.s.EndSession(ctx, id, "user_exit") })
		if ok {
			w.ended[id] = true
		}
		return err
	case n < 60:
		w.titles++
		id, title := w.session(), fmt.Sprintf("%s title %d", w.name, w.titles)
		_, err := w.call(&writeRecord{Op: "title", Session: id, Title: title}, func() error { return w.s.SetSessionTitle(ctx, id, title) })
		return err
	case n < 70:
		id, in, out := w.session(), 1+w.rng.Int64N(1000), 1+w.rng.Int64N(500)
		_, err := w.call(&writeRecord{Op: "tokens", Session: id, In: in, Out: out}, func() error {
			return w.s.UpdateTokenCounts(ctx, id, store.TokenUpdate{InputTokens: in, OutputTokens: out})
		})
		return err
	case n < 73:
		return w.prune(ctx)
	case n < 88:
		word := vocabulary[w.rng.IntN(len(vocabulary))]
		r := &writeRecord{Op: "search"}
		_, err := w.call(r, func() error {
			res, err := w.s.SearchMessages(ctx, word, store.SearchOptions{Limit: 10})
			r.Count = len(res)
			return err
		})
		return err
	default:
		_, err := w.call(&writeRecord{Op: "list"}, func() error {
			_, err := w.s.ListSessionsRich(ctx, store.ListOptions{Limit: 20})
			return err
		})
		return err
	}
}

// appendAndSee appends a message with a unique word to one of the worker's
// sessions and, one time in four once the store acknowledged it, searches
// for that word: the search, on another connection, must find exactly that
// message (an acknowledged write is visible at once).
func (w *worker) appendAndSee(ctx context.Context) error {
	id, word := w.session(), w.label()
	msg := messageFor(word, w.rng.IntN(9))
	r := &writeRecord{Op: "append", Session: id, Msgs: []genMsg{msg}}
	ok, err := w.call(r, func() error {
		var err error
		r.ID, err = w.s.AppendMessage(ctx, id, msg.newMessage())
		return err
	})
	msgID := r.ID
	if err != nil || !ok || w.rng.IntN(4) != 0 {
		return err
	}
	_, err = w.call(&writeRecord{Op: "visible", Session: id, ID: msgID}, func() error {
		res, err := w.s.SearchMessages(ctx, word, store.SearchOptions{Limit: 5})
		if err == nil && (len(res) != 1 || res[0].ID != msgID) {
			err = fmt.Errorf("search for %q found %d results (%v), want exactly message %d", word, len(res), resultIDs(res), msgID)
		}
		return err
	})
	return err
}

// prune deletes the worker's ended sessions: PruneSessions on its own
// source, with an age every session passes.
func (w *worker) prune(ctx context.Context) error {
	var expect []string
	for _, id := range w.live {
		if w.ended[id] {
			expect = append(expect, id)
		}
	}
	slices.Sort(expect)
	r := &writeRecord{Op: "prune", Pruned: expect}
	ok, err := w.call(r, func() error {
		n, err := w.s.PruneSessions(ctx, store.PruneOptions{Source: w.name, OlderThan: pruneAge})
		r.Count = n
		return err
	})
	if ok {
		w.live = slices.DeleteFunc(w.live, func(id string) bool { return w.ended[id] })
	}
	return err
}

func resultIDs(res []store.SearchResult) []int64 {
	ids := []int64{}
	for _, r := range res {
		ids = append(ids, r.ID)
	}
	return ids
}

// runWriterProcess is the "writer" helper: one store shared by
// RELIABILITY_GOROUTINES workers, as one agent process shares one. It says
// "ready", waits for "go" on stdin, runs the workers for
// RELIABILITY_DURATION, each logging to <RELIABILITY_LOGS>/<name>.jsonl,
// and ends by writing the store's Stats as JSON.
func runWriterProcess() error {
	ctx := context.Background()
	proc, _ := strconv.Atoi(os.Getenv("RELIABILITY_PROC"))
	goroutines, _ := strconv.Atoi(os.Getenv("RELIABILITY_GOROUTINES"))
	seed, _ := strconv.ParseUint(os.Getenv("RELIABILITY_SEED"), 10, 64)
	duration, err := time.ParseDuration(os.Getenv("RELIABILITY_DURATION"))
	if err != nil {
		return err
	}
	s, err := openChildStore(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	workers := make([]*worker, goroutines)
	for g := range workers {
		name := fmt.Sprintf("p%dg%d", proc, g)
		f, err := os.Create(filepath.Join(os.Getenv("RELIABILITY_LOGS"), name+".jsonl"))
		if err != nil {
			return err
		}
		defer f.Close()
		workers[g] = &worker{name: name, s: s, rng: rand.New(rand.NewPCG(seed, uint64(proc*goroutines+g))),
			log: json.NewEncoder(f), ended: map[string]bool{}}
	}
	fmt.Println("ready")
	if in := bufio.NewScanner(os.Stdin); !in.Scan() || in.Text() != "go" {
		return errors.New(`no "go" on stdin`)
	}
	deadline := time.Now().Add(duration)
	errs := make([]error, goroutines)
	var wg sync.WaitGroup
	for g, w := range workers {
		wg.Go(func() {
			for errs[g] == nil && time.Now().Before(deadline) {
				errs[g] = w.step(ctx)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(s.Stats())
}
