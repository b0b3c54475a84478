package pgsearch_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hermesstate/hermesstate/fts"
	"github.com/hermesstate/hermesstate/internal/pgsearch"
)

// TestTSVectorLimits indexes documents past each of PostgreSQL's tsvector
// limits: every INSERT succeeds, words stay findable, and what a capped
// document loses is exactly what fts.TSVector documents (phrases through
// positions past 16383 or past a word's 256th occurrence, lexemes past
// 1 MiB).
func TestTSVectorLimits(t *testing.T) {
	ctx := context.Background()
	pg := newPG(t)
	// Hand-written: one session for the documents.
	if _, err := pg.Exec(ctx, "INSERT INTO sessions (id, source, started_at) VALUES ('s', 'cli', 1)"); err != nil {
		t.Fatal(err)
	}
	var many, distinct strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&many, "w%d ", i)
	}
	for i := range 140000 { // about 1.9 MB of distinct lexemes
		fmt.Fprintf(&distinct, "lexeme%07d ", i)
	}
	long := strings.Repeat("ж", 1500) // 3000 bytes, one token
	docs := map[int64]string{
		1: many.String(),
		2: strings.Repeat("a ", 300) + "b",
		3: long + " tail",
		4: distinct.String(),
		5: "",
	}
	for id := int64(1); id <= 5; id++ {
		text := docs[id]
		// Hand-written: the message row the index row points at.
		if _, err := pg.Exec(ctx, "INSERT INTO messages (id, session_id, role, content, timestamp) VALUES ($1, 's', 'user', $2, $3)", id, text, float64(id)); err != nil {
			t.Fatal(err)
		}
		if _, err := pg.Exec(ctx, pgsearch.IndexSQL, pgsearch.IndexArgs(id, &text, nil, nil)...); err != nil {
			t.Fatalf("index document %d (%d bytes): %v", id, len(text), err)
		}
	}
	for _, tc := range []struct {
		query string
		want  []int64
	}{
		{"w19999", []int64{1}},          // past position 16383: the word is there
		{`"w10 w11"`, []int64{1}},       // a phrase within the positions
		{`"w16381 w16382"`, []int64{1}}, // positions 16382 and 16383
		{`"w19998 w19999"`, nil},        // lost: past position 16383
		{`"a b"`, nil},                  // lost: b follows a's 300th occurrence, a keeps 256
		{`"a a"`, []int64{2}},
		{"b", []int64{2}},
		{long, []int64{3}},              // cut to 2046 bytes on both sides
		{long[:2046] + "x", []int64{3}}, // a token of the same first 2046 bytes
		{long + " tail", []int64{3}},
		{"lexeme0000000", []int64{4}},
		{"lexeme0139999", nil}, // lost: past 1 MiB of lexemes
		{"lexeme00*", []int64{4}},
	} {
		got, _ := pgSearch(t, pg, tc.query, pgsearch.Options{Limit: 100, IncludeInactive: true})
		var ids []int64
		for _, h := range got {
			ids = append(ids, h.ID)
		}
		if fmt.Sprint(ids) != fmt.Sprint(tc.want) {
			q, _, _ := fts.TSQuery(fts.Parse(tc.query))
			t.Errorf("%.60q (tsquery %.80q): hits %v, want %v", tc.query, q, ids, tc.want)
		}
	}
	var n int
	// Hand-written: the empty document's value.
	if err := pg.QueryRow(ctx, "SELECT length(tokens) FROM messages_search WHERE id = 5").Scan(&n); err != nil || n != 0 {
		t.Errorf("empty document: %d lexemes, %v", n, err)
	}
}
