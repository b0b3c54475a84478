package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hermesstate/hermesstate/internal/pgtest"
	"github.com/hermesstate/hermesstate/store"
)

// TestPostgresCheckAndRebuild: a healthy PostgreSQL database checks OK,
// with the server's version and integrity "ok"; one whose search index
// lost its rows (deleted behind the store's back) is reported by Check,
// makes a search fail with ErrSearchIndexEmpty instead of finding nothing,
// and RebuildSearchIndex repairs it: Check is OK again and the search
// finds exactly the messages.
func TestPostgresCheckAndRebuild(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.Migrated(t)
	s, err := store.Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CreateSession(ctx, store.NewSession{ID: "s1", Source: "cli"}); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, text := range []string{"deploy the platypus service", "the platypus answered", "nothing here"} {
		id, err := s.AppendMessage(ctx, "s1", store.NewMessage{Role: "user", Content: &text})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	h, err := s.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !h.OK() || h.ServerVersion == "" || len(h.Integrity) != 1 || h.Integrity[0] != "ok" || h.SchemaVersion != 21 {
		t.Fatalf("Check of a healthy database: %+v, problems %v", h, h.Problems())
	}

	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "DELETE FROM messages_search"); err != nil {
		t.Fatal(err)
	}
	c.Close(ctx)
	h, err = s.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := "messages_search: 3 messages missing from the index"
	if p := h.Problems(); len(p) != 1 || p[0].Text != want {
		t.Errorf("Check of an emptied index: %v, want [%s]", p, want)
	}
	if _, err := s.SearchMessages(ctx, "platypus", store.SearchOptions{}); !errors.Is(err, store.ErrSearchIndexEmpty) {
		t.Errorf("search of an emptied index: %v, want ErrSearchIndexEmpty", err)
	}

	if err := s.RebuildSearchIndex(ctx); err != nil {
		t.Fatal(err)
	}
	if h, err := s.Check(ctx); err != nil || !h.OK() {
		t.Fatalf("Check after the rebuild: %v, %v", h.Problems(), err)
	}
	hits, err := s.SearchMessages(ctx, "platypus", store.SearchOptions{Order: store.SearchOldest})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].ID != ids[0] || hits[1].ID != ids[1] {
		t.Errorf("search after the rebuild: %+v, want messages %d and %d", hits, ids[0], ids[1])
	}
}
