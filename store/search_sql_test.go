package store

import (
	"context"
	"testing"
)

// TestHandWrittenSQLPrepares prepares every statement the store writes by
// hand (sqlc vet prepares those in queries/) against a migrated database, on
// both the reader and the writer, so a schema change that breaks one fails
// here rather than at a user's search.
func TestHandWrittenSQLPrepares(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, nil)
	for name, stmt := range map[string]string{
		"searchUnicode61SQL":    searchUnicode61SQL,
		"searchTrigramSQL":      searchTrigramSQL,
		"searchLikeSQL":         searchLikeSQL,
		"searchLikeGroupsSQL":   searchLikeGroupsSQL,
		"exportOrderSQL":        exportOrderSQL,
		"searchIndexPresentSQL": searchIndexPresentSQL,
		"wordIndexEmptySQL":     wordIndexEmptySQL,
		"trigramIndexEmptySQL":  trigramIndexEmptySQL,
		"streamMessagesSQL":     streamMessagesSQL,
	} {
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
