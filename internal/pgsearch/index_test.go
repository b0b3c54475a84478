package pgsearch_test

import (
	"context"
	"testing"

	"github.com/hermesstate/hermesstate/internal/pgsearch"
)

// TestIndexWrites writes, rewrites and deletes a message's index row and
// probes an empty index.
func TestIndexWrites(t *testing.T) {
	ctx := context.Background()
	pg := newPG(t)
	empty := func(want bool) {
		t.Helper()
		var got bool
		if err := pg.QueryRow(ctx, pgsearch.IndexEmptySQL).Scan(&got); err != nil || got != want {
			t.Fatalf("IndexEmptySQL = %v, %v; want %v", got, err, want)
		}
	}
	find := func(q string, want int) {
		t.Helper()
		got, _ := pgSearch(t, pg, q, pgsearch.Options{Limit: 10})
		if len(got) != want {
			t.Errorf("%q: %d hits, want %d", q, len(got), want)
		}
	}
	empty(false) // no messages: not empty, nothing to index
	// Hand-written: a session and a message row to index.
	for _, s := range []string{
		"INSERT INTO sessions (id, source, started_at) VALUES ('s', 'cli', 1)",
		"INSERT INTO messages (id, session_id, role, content, timestamp) VALUES (1, 's', 'user', 'old words', 1)",
	} {
		if _, err := pg.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	empty(true)
	old, tool, calls := "old words", "web_search", `[{"q": "kubernetes"}]`
	if _, err := pg.Exec(ctx, pgsearch.IndexSQL, pgsearch.IndexArgs(1, &old, nil, nil)...); err != nil {
		t.Fatal(err)
	}
	empty(false)
	find("old", 1)
	find("kubernetes", 0)
	// The content changes: the same call rewrites the row.
	if _, err := pg.Exec(ctx, pgsearch.IndexSQL, pgsearch.IndexArgs(1, nil, &tool, &calls)...); err != nil {
		t.Fatal(err)
	}
	find("old", 0)
	find("kubernetes", 1)
	find(`"search kubernetes"`, 0) // tool calls follow the tool name: "search" then "q"
	find(`"web search q kubernetes"`, 1)
	if got := pgsearch.SearchText(nil, &tool, &calls); got != ` web_search [{"q": "kubernetes"}]` {
		t.Errorf("SearchText = %q", got)
	}
	// Hand-written: the message goes, its index row with it (cascade).
	if _, err := pg.Exec(ctx, "DELETE FROM messages WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pg.QueryRow(ctx, "SELECT COUNT(*) FROM messages_search").Scan(&n); err != nil || n != 0 {
		t.Errorf("messages_search after the delete: %d rows, %v", n, err)
	}
}
