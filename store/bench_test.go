package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// Every benchmark here runs the store's call and the same SQL through bare
// database/sql (the generated sqlc method on the raw pool or connection,
// without the store's transaction, retry, conversion or shaping), alternating
// the two in one run so disk and cache state are shared, and reports
// store-ns/op, bare-ns/op and their ratio.

// compare runs storeFn and bareFn alternately b.N times each and reports
// their mean times and ratio.
func compare(b *testing.B, storeFn, bareFn func() error) {
	b.Helper()
	var storeTime, bareTime time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		// Alternate which goes first so neither always follows the other's
		// side effects (a checkpoint, a warmed cache).
		first, second, t1, t2 := storeFn, bareFn, &storeTime, &bareTime
		if i%2 == 1 {
			first, second, t1, t2 = bareFn, storeFn, &bareTime, &storeTime
		}
		start := time.Now()
		if err := first(); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if err := second(); err != nil {
			b.Fatal(err)
		}
		*t1 += mid.Sub(start)
		*t2 += time.Since(mid)
	}
	n := float64(b.N)
	b.ReportMetric(float64(storeTime.Nanoseconds())/n, "store-ns/op")
	b.ReportMetric(float64(bareTime.Nanoseconds())/n, "bare-ns/op")
	b.ReportMetric(float64(storeTime)/float64(bareTime), "store/bare")
}

// bareTx runs fn in a plain database/sql transaction on the writer.
func bareTx(ctx context.Context, s *Store, fn func(tx db.DBTX) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// forEachSync runs a benchmark with synchronous=FULL (the default: one
// fsync per commit, which dominates) and NORMAL (no fsync per commit, so
// the store's own overhead shows).
func forEachSync(b *testing.B, fn func(b *testing.B, sync Synchronous)) {
	for _, bc := range []struct {
		name string
		sync Synchronous
	}{{"Full", SynchronousFull}, {"Normal", SynchronousNormal}} {
		b.Run(bc.name, func(b *testing.B) { fn(b, bc.sync) })
	}
}

// BenchmarkWriteHelper measures what the write helper costs per committed
// transaction (retry wrapper, close guard, counters, the PASSIVE checkpoint
// every 50 writes) against the same INSERT in a bare transaction.
func BenchmarkWriteHelper(b *testing.B) {
	forEachSync(b, func(b *testing.B, sync Synchronous) {
		ctx := context.Background()
		s, _ := openStore(b, &Options{Synchronous: sync})
		addSession(b, s, "s", nil, 1)
		params := db.MessageInsertParams{SessionID: "s", Role: "user", Content: new("a message of ordinary length"), Timestamp: sqlnum.RealOf(1)}
		insert := func(ctx context.Context, tx db.DBTX) error {
			_, err := s.q.MessageInsert(ctx, tx, params)
			return err
		}
		compare(b,
			func() error { return s.write(ctx, insert) },
			func() error { return bareTx(ctx, s, func(tx db.DBTX) error { return insert(ctx, tx) }) })
	})
}

// BenchmarkAppendMessage is AppendMessage (validation, Python-format JSON
// for one tool call, insert and counters in one write) against the INSERT
// and the counter UPDATE in a bare transaction.
func BenchmarkAppendMessage(b *testing.B) {
	forEachSync(b, func(b *testing.B, sync Synchronous) {
		ctx := context.Background()
		s, _ := openStore(b, &Options{Synchronous: sync})
		addSession(b, s, "s", nil, 1)
		calls := []byte(`[{"id":"c1","type":"function","function":{"name":"web_search","arguments":"{\"q\":\"docker compose\"}"}}]`)
		m := NewMessage{Role: "assistant", Content: new("Let me search for that."), ToolCalls: calls}
		p, _, err := insertParams("s", m)
		if err != nil {
			b.Fatal(err)
		}
		compare(b,
			func() error { _, err := s.AppendMessage(ctx, "s", m); return err },
			func() error {
				return bareTx(ctx, s, func(tx db.DBTX) error {
					p.Timestamp = sqlnum.RealOf(s.now())
					if _, err := s.q.MessageInsert(ctx, tx, p); err != nil {
						return err
					}
					_, err := s.q.SessionAddMessageCounts(ctx, tx, db.SessionAddMessageCountsParams{ToolCalls: 1, ID: "s"})
					return err
				})
			})
	})
}

// BenchmarkReplaceMessages replaces a 1,000-message transcript, against the
// delete, 1,000 inserts and the counter update in a bare transaction.
func BenchmarkReplaceMessages(b *testing.B) {
	ctx := context.Background()
	s, _ := openStore(b, &Options{Synchronous: SynchronousNormal})
	addSession(b, s, "s", nil, 1)
	msgs := make([]NewMessage, 1000)
	params := make([]db.MessageInsertParams, len(msgs))
	for i := range msgs {
		role := []string{"user", "assistant"}[i%2]
		msgs[i] = NewMessage{Role: role, Content: new(fmt.Sprintf("message %d of a long transcript about deploying services", i))}
		params[i], _, _ = insertParams("s", msgs[i])
	}
	compare(b,
		func() error { return s.ReplaceMessages(ctx, "s", msgs) },
		func() error {
			return bareTx(ctx, s, func(tx db.DBTX) error {
				if _, err := s.q.MessageDeleteBySession(ctx, tx, "s"); err != nil {
					return err
				}
				start := s.now()
				for i, p := range params {
					p.Timestamp = sqlnum.RealOf(start + float64(i)*1e-6)
					if _, err := s.q.MessageInsert(ctx, tx, p); err != nil {
						return err
					}
				}
				_, err := s.q.SessionSetMessageCounts(ctx, tx, db.SessionSetMessageCountsParams{MessageCount: 1000, ID: "s"})
				return err
			})
		})
}

// BenchmarkListSessionsRich lists 10,000 sessions (every tenth a
// compression root with a tip, so the projection runs), a first page of 20
// and the whole list, against the same statements on the bare read pool:
// the listing query, then the tip walk and the tip's row for each
// compression root (no transaction, no preview shaping, no copying).
func BenchmarkListSessionsRich(b *testing.B) {
	ctx := context.Background()
	s, _ := openStore(b, nil)
	seedSessions(b, s, 10000)
	for _, limit := range []int{20, 10000} {
		b.Run(fmt.Sprintf("Limit%d", limit), func(b *testing.B) {
			compare(b,
				func() error { _, err := s.ListSessionsRich(ctx, ListOptions{Limit: limit}); return err },
				func() error {
					rows, err := s.q.SessionListRich(ctx, s.r, db.SessionListRichParams{Archived: new(int64(0)), Limit: int64(limit)})
					for _, r := range rows {
						if err == nil && deref(r.Session.EndReason) == "compression" {
							var tip string
							var walk []string
							if walk, err = s.q.SessionCompressionWalk(ctx, s.r, r.Session.ID); err == nil {
								tip = walk[len(walk)-1]
								_, err = s.q.SessionRichRow(ctx, s.r, tip)
							}
						}
					}
					return err
				})
		})
	}
}

// BenchmarkConversation replays a 20,000-message session, against the
// generated replay query on the bare read pool (no JSON checks, no
// memory-context stripping).
func BenchmarkConversation(b *testing.B) {
	ctx := context.Background()
	s, _ := openStore(b, nil)
	seedTranscript(b, s, "long", 20000)
	compare(b,
		func() error { _, err := s.Conversation(ctx, "long", false); return err },
		func() error {
			_, err := s.q.MessageConversation(ctx, s.r, db.MessageConversationParams{SessionID: "long"})
			return err
		})
}

// seedSessions writes n cli sessions in one transaction, each with a user
// and an assistant message; every tenth session ended by compression and
// has a continuation child.
func seedSessions(b *testing.B, s *Store, n int) {
	b.Helper()
	err := s.write(context.Background(), func(ctx context.Context, tx db.DBTX) error {
		for i := 0; i < n; i++ {
			id := fmt.Sprintf("s%05d", i)
			start := 1.7e9 + float64(i)*60
			if _, err := s.q.SessionCreate(ctx, tx, db.SessionCreateParams{ID: id, Source: "cli", StartedAt: sqlnum.RealOf(start)}); err != nil {
				return err
			}
			for j, role := range []string{"user", "assistant"} {
				p := db.MessageInsertParams{SessionID: id, Role: role, Content: new(fmt.Sprintf("%s message %d of session %s, long enough to be cut in the preview", role, j, id)), Timestamp: sqlnum.RealOf(start + float64(j))}
				if _, err := s.q.MessageInsert(ctx, tx, p); err != nil {
					return err
				}
			}
			if i%10 == 0 {
				if _, err := s.q.SessionEnd(ctx, tx, db.SessionEndParams{EndedAt: sqlnum.RealOf(start + 30), EndReason: new("compression"), ID: id}); err != nil {
					return err
				}
				if _, err := s.q.SessionCreate(ctx, tx, db.SessionCreateParams{ID: id + "-tip", Source: "cli", ParentSessionID: &id, StartedAt: sqlnum.RealOf(start + 31)}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// seedTranscript writes session id with n alternating user/assistant
// messages (every tenth assistant message with a tool call) in one
// transaction.
func seedTranscript(b *testing.B, s *Store, id string, n int) {
	b.Helper()
	err := s.write(context.Background(), func(ctx context.Context, tx db.DBTX) error {
		if _, err := s.q.SessionCreate(ctx, tx, db.SessionCreateParams{ID: id, Source: "cli", StartedAt: sqlnum.RealOf(1.7e9)}); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			role := []string{"user", "assistant"}[i%2]
			p := db.MessageInsertParams{SessionID: id, Role: role, Content: new(fmt.Sprintf("turn %d: a message of ordinary length about the deployment", i)), Timestamp: sqlnum.RealOf(1.7e9 + float64(i))}
			if i%20 == 1 {
				p.ToolCalls = new(`[{"id": "c1", "type": "function", "function": {"name": "web_search", "arguments": "{}"}}]`)
			}
			if _, err := s.q.MessageInsert(ctx, tx, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}
