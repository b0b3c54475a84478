package store

import (
	"context"
	"testing"

	"github.com/hermesstate/hermesstate/internal/sqlitesearch"
)

// handWrittenSQL are the statements the module writes by hand rather than
// in queries/ (which sqlc vet prepares): every statement the search builder
// can produce, and the store's own.
func handWrittenSQL(t *testing.T) map[string]string {
	t.Helper()
	stmts := map[string]string{
		"exportOrderSQL":          exportOrderSQL,
		"searchIndexPresentSQL":   searchIndexPresentSQL,
		"wordIndexEmptySQL":       wordIndexEmptySQL,
		"trigramIndexEmptySQL":    trigramIndexEmptySQL,
		"optimizeWordIndexSQL":    optimizeWordIndexSQL,
		"optimizeTrigramIndexSQL": optimizeTrigramIndexSQL,
	}
	for _, st := range sqlitesearch.All() {
		stmts["sqlitesearch "+st.Name()] = st.SQL()
		if st.Top() { // the top statement is its top range, below
			stmts["sqlitesearch candidates "+st.Name()] = st.CandidatesSQL()
		}
	}
	// A split search's statements (search_parallel.go), each text once:
	// the orders of one kind share the page and probe statements.
	seen := map[string]bool{}
	for _, st := range sqlitesearch.AllRanged() {
		for part, text := range map[string]string{"range": st.RangeSQL(), "rows range": st.RowsRangeSQL(), "page": st.PageSQL(), "probe": st.ProbeSQL()} {
			if text != "" && !seen[text] {
				seen[text] = true
				if st.Top() {
					part = "top " + part
				}
				stmts["sqlitesearch "+part+" "+st.Name()] = text
			}
		}
	}
	if len(stmts) != 37 {
		t.Fatalf("%d hand-written statements, want 37: %v", len(stmts), stmts)
	}
	return stmts
}

// TestHandWrittenSQLPrepares prepares every statement the module writes by
// hand against a migrated database, on both the reader and the writer, so
// a schema change that breaks one fails here rather than at a user's
// search.
func TestHandWrittenSQLPrepares(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, nil)
	for name, stmt := range handWrittenSQL(t) {
		for pool, db := range map[string]dbtx{"reader": s.r, "writer": s.w} {
			st, err := db.PrepareContext(context.Background(), stmt)
			if err != nil {
				t.Errorf("%s on the %s: %v", name, pool, err)
				continue
			}
			st.Close()
		}
	}
}
