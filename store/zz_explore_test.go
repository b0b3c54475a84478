package store

import (
	"context"
	"database/sql/driver"
	"io"
	"testing"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/sqlite"
)

const qML = "-- name: MessageList :many\nSELECT id, session_id, role, content, tool_call_id, tool_calls, tool_name, effect_disposition, timestamp, token_count, finish_reason, reasoning, reasoning_content, reasoning_details, codex_reasoning_items, codex_message_items, platform_message_id, observed, active, compacted FROM messages\nWHERE session_id = ?1 AND (CAST(?2 AS INTEGER) OR active = 1)\nORDER BY id\nLIMIT ?4 OFFSET ?3\n"

func BenchmarkExplore(b *testing.B) {
	ctx := context.Background()
	s, path := openStore(b, nil)
	seedTranscript(b, s, "t300", 300)
	nc, err := sqlite.OpenReader(ctx, path, sqlite.Config{NoStmtCache: true}, 4)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	p := db.MessageListParams{SessionID: "t300", Limit: -1}
	b.Run("nocache", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.q.MessageList(ctx, nc, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cache", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.q.MessageList(ctx, s.r, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("driver", func(b *testing.B) {
		for b.Loop() {
			c, err := s.r.Conn(ctx)
			if err != nil {
				b.Fatal(err)
			}
			err = c.Raw(func(dc any) error {
				rows, err := dc.(driver.QueryerContext).QueryContext(ctx, qML, []driver.NamedValue{{Ordinal: 1, Value: "t300"}, {Ordinal: 2, Value: int64(0)}, {Ordinal: 3, Value: int64(0)}, {Ordinal: 4, Value: int64(-1)}})
				if err != nil {
					return err
				}
				defer rows.Close()
				dest := make([]driver.Value, 20)
				n := 0
				for {
					if err := rows.Next(dest); err == io.EOF {
						break
					} else if err != nil {
						return err
					}
					n++
				}
				if n != 300 {
					b.Fatal(n)
				}
				return nil
			})
			c.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
