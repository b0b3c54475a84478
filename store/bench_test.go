package store

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// Every benchmark here runs the store's call and the same SQL through bare
// database/sql (the generated sqlc method on the raw pool or connection,
// without the store's transaction, retry, conversion or shaping), alternating
// the two in one run so disk and cache state are shared, and reports
// store-ns/op, bare-ns/op and their ratio.

// compare runs storeFn and bareFn alternately b.N times each and reports
// their mean times and ratio (store/bare, the figure the targets name).
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
func bareTx(ctx context.Context, s *Store, fn func(tx backend.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(backend.SQLiteTx(tx)); err != nil {
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
		insert := func(ctx context.Context, tx backend.Tx) error {
			_, err := s.q.MessageInsert(ctx, tx, params)
			return err
		}
		compare(b,
			func() error { return s.write(ctx, insert) },
			func() error { return bareTx(ctx, s, func(tx backend.Tx) error { return insert(ctx, tx) }) })
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
				return bareTx(ctx, s, func(tx backend.Tx) error {
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
			return bareTx(ctx, s, func(tx backend.Tx) error {
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

// barePool opens a second read-only pool on s's file set up exactly as the
// store's, except that the driver's statement cache is off: every
// statement is prepared and finalized on each call, the bare database/sql
// path the read benchmarks compare the store against.
func barePool(b *testing.B, s *Store) *sql.DB {
	b.Helper()
	r, err := sqlite.OpenReader(context.Background(), s.path,
		sqlite.Config{BusyTimeout: s.opts.BusyTimeout, NoStmtCache: true}, s.opts.ReadConnections)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close() })
	return r
}

// BenchmarkListSessionsRich lists 10,000 sessions (every tenth a
// compression root with a tip, so the projection runs), a first page of 20
// and the whole list, against the same statements, text for text, on a
// bare read pool without a statement cache (barePool): the listing query,
// then the tip walk and the tip's row for each compression root (no
// transaction, no preview shaping, no copying). The store's page must list
// the ids and message counts the bare rows give.
func BenchmarkListSessionsRich(b *testing.B) {
	ctx := context.Background()
	s, _ := openStore(b, nil)
	seedSessions(b, s, 10000)
	bare := barePool(b, s)
	for _, limit := range []int{20, 10000} {
		b.Run(fmt.Sprintf("Limit%d", limit), func(b *testing.B) {
			var got []RichSession
			var wantIDs []string
			var wantCounts []int64
			compare(b,
				func() (err error) { got, err = s.ListSessionsRich(ctx, ListOptions{Limit: limit}); return err },
				func() error {
					wantIDs, wantCounts = wantIDs[:0], wantCounts[:0]
					rows, err := s.q.SessionListRich(ctx, backend.SQLiteTx(bare), db.SessionListRichParams{Archived: new(int64(0)), Limit: int64(limit)})
					for _, r := range rows {
						id, count := r.Session.ID, r.Session.MessageCount.Int64
						if err == nil && deref(r.Session.EndReason) == "compression" {
							var walk []string
							if walk, err = s.q.SessionCompressionWalk(ctx, backend.SQLiteTx(bare), r.Session.ID); err == nil {
								var tip db.SessionRichRowRow
								if tip, err = s.q.SessionRichRow(ctx, backend.SQLiteTx(bare), walk[len(walk)-1]); err == nil {
									id, count = tip.Session.ID, tip.Session.MessageCount.Int64
								}
							}
						}
						wantIDs, wantCounts = append(wantIDs, id), append(wantCounts, count)
					}
					return err
				})
			if len(got) != min(limit, 10000) || len(got) != len(wantIDs) {
				b.Fatalf("store listed %d sessions, bare %d, want %d", len(got), len(wantIDs), min(limit, 10000))
			}
			for i, r := range got {
				if r.ID != wantIDs[i] || r.MessageCount != wantCounts[i] {
					b.Fatalf("row %d: store %s (%d messages), bare %s (%d)", i, r.ID, r.MessageCount, wantIDs[i], wantCounts[i])
				}
			}
		})
	}
}

// BenchmarkConversation replays a session of 300 messages and one of
// 20,000, against the generated replay query on a bare read pool without
// a statement cache (no transaction, no JSON checks, no memory-context
// stripping). The replay must hold the bare rows' roles and timestamps.
func BenchmarkConversation(b *testing.B) {
	ctx := context.Background()
	s, _ := openStore(b, nil)
	bare := barePool(b, s)
	for _, n := range []int{300, 20000} {
		id := fmt.Sprintf("t%d", n)
		seedTranscript(b, s, id, n)
		b.Run(fmt.Sprintf("Messages%d", n), func(b *testing.B) {
			var got []ConversationMessage
			var want []db.MessageConversationRow
			compare(b,
				func() (err error) { got, err = s.Conversation(ctx, id, false); return err },
				func() (err error) {
					want, err = s.q.MessageConversation(ctx, backend.SQLiteTx(bare), db.MessageConversationParams{SessionID: id})
					return err
				})
			if len(got) != n || len(want) != n {
				b.Fatalf("store replayed %d messages, bare %d, want %d", len(got), len(want), n)
			}
			for i, m := range got {
				if m.Role != want[i].Role || float64(m.Timestamp) != want[i].Timestamp.Float64 {
					b.Fatalf("message %d: store %s at %v, bare %s at %v", i, m.Role, m.Timestamp, want[i].Role, want[i].Timestamp.Float64)
				}
			}
		})
	}
}

// BenchmarkExportSession exports one session of 300 messages among 1,000
// sessions, against its statements on a bare read pool without a
// statement cache: the session's row, the schema cookie (the column order
// is read again only when it moves) and the message list (no
// transaction, no conversion). The export must hold the bare rows'
// session and message ids.
func BenchmarkExportSession(b *testing.B) {
	ctx := context.Background()
	s, _ := openStore(b, nil)
	seedSessions(b, s, 1000)
	seedTranscript(b, s, "t300", 300)
	bare := barePool(b, s)
	var got *SessionExport
	var want []db.Message
	var wantID string
	compare(b,
		func() (err error) { got, err = s.ExportSession(ctx, "t300"); return err },
		func() error {
			r, err := s.q.SessionGet(ctx, backend.SQLiteTx(bare), "t300")
			if err != nil {
				return err
			}
			wantID = r.ID
			var version int64
			if err := bare.QueryRowContext(ctx, schemaVersionSQL).Scan(&version); err != nil {
				return err
			}
			want, err = s.q.MessageList(ctx, backend.SQLiteTx(bare), db.MessageListParams{SessionID: "t300", Limit: -1})
			return err
		})
	if got.ID != wantID || len(got.Messages) != 300 || len(want) != 300 {
		b.Fatalf("store exported %s with %d messages, bare %s with %d, want t300 with 300", got.ID, len(got.Messages), wantID, len(want))
	}
	for i, m := range got.Messages {
		if m.ID != want[i].ID {
			b.Fatalf("message %d: store id %d, bare %d", i, m.ID, want[i].ID)
		}
	}
}

// seedSessions writes n cli sessions in one transaction, each with a user
// and an assistant message; every tenth session ended by compression and
// has a continuation child.
func seedSessions(b *testing.B, s *Store, n int) {
	b.Helper()
	err := s.write(context.Background(), func(ctx context.Context, tx backend.Tx) error {
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
	err := s.write(context.Background(), func(ctx context.Context, tx backend.Tx) error {
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
		// The counters the appends would have left, which reads may use
		// to size their results.
		_, err := s.q.SessionSetMessageCounts(ctx, tx, db.SessionSetMessageCountsParams{
			MessageCount: int64(n), ToolCallCount: int64((n + 18) / 20), ID: id})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}
