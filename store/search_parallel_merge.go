package store

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"math"
	"slices"
	"strings"

	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlitesearch"
)

// rangeHit is one hit of a range statement: its id and sort keys, and,
// from a rows range statement, its row and long_hit flag.
type rangeHit struct {
	id   int64
	ts   any // the timestamp as SQLite stored it: float64, int64, string, []byte or nil
	rank float64
	row  *SearchResult
	long bool
}

// scanRowsRange runs a rows range statement (a hit's columns as scanHits
// reads them, then its rank) in tx and reads its hits.
func scanRowsRange(ctx context.Context, tx *sql.Tx, stmt string, args []any) ([]rangeHit, error) {
	rows, err := tx.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []rangeHit
	for rows.Next() {
		h, long, err := scanHit(rows, new(float64))
		if err != nil {
			return nil, err
		}
		out = append(out, rangeHit{id: h.ID, rank: *h.rank, row: &h.SearchResult, long: long})
	}
	return out, rows.Err()
}

// scanRange runs one range statement (or a top statement) in tx and
// reads its hits.
func scanRange(ctx context.Context, tx backend.Tx, stmt string, args []any, keys sqlitesearch.RangeKey) ([]rangeHit, error) {
	rows, err := tx.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []rangeHit
	for rows.Next() {
		var h rangeHit
		switch keys {
		case sqlitesearch.KeysRank:
			err = rows.Scan(&h.id, &h.rank)
		case sqlitesearch.KeysTimeRank:
			err = rows.Scan(&h.id, &h.ts, &h.rank)
		default:
			err = rows.Scan(&h.id, &h.ts)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// mergePage merges the ranges' hits in the whole statement's order (see
// sqlitesearch.RangeKey) and returns the page's: from first, at most
// limit of them (a negative limit: all).
func mergePage(found [][]rangeHit, keys sqlitesearch.RangeKey, desc bool, first int64, limit int) []rangeHit {
	all := slices.Concat(found...)
	slices.SortFunc(all, func(a, b rangeHit) int { return compareHits(a, b, keys, desc) })
	if first >= int64(len(all)) {
		return nil
	}
	all = all[first:]
	if limit >= 0 && limit < len(all) {
		all = all[:limit]
	}
	return all
}

// compareHits orders two hits as the whole statement does: by rank then
// id ascending (KeysRank: FTS5's ORDER BY rank, stable over ascending
// rowids); by timestamp, rank, id (KeysTimeRank); by timestamp, id
// (KeysTime); timestamp and id descending when desc.
func compareHits(a, b rangeHit, keys sqlitesearch.RangeKey, desc bool) int {
	flip := func(c int) int {
		if desc {
			return -c
		}
		return c
	}
	switch keys {
	case sqlitesearch.KeysRank:
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.id, b.id))
	case sqlitesearch.KeysTimeRank:
		return cmp.Or(flip(compareSQLite(a.ts, b.ts)), cmp.Compare(a.rank, b.rank), flip(cmp.Compare(a.id, b.id)))
	}
	return cmp.Or(flip(compareSQLite(a.ts, b.ts)), flip(cmp.Compare(a.id, b.id)))
}

// compareSQLite compares two values as SQLite's ORDER BY does with the
// BINARY collation (sqlite.org/datatype3.html#sort_order): NULL first,
// then numbers by value (an integer and a real compared exactly), then
// text by its bytes, then blobs by their bytes. A timestamp column holds
// a real, but a file another program wrote may hold anything.
func compareSQLite(a, b any) int {
	ca, cb := sqliteClass(a), sqliteClass(b)
	if ca != cb {
		return cmp.Compare(ca, cb)
	}
	switch x := a.(type) {
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y)
		}
		return -compareRealInt(b.(float64), x)
	case float64:
		if y, ok := b.(float64); ok {
			return cmp.Compare(x, y)
		}
		return compareRealInt(x, b.(int64))
	case string:
		return strings.Compare(x, b.(string))
	case []byte:
		return bytes.Compare(x, b.([]byte))
	}
	return 0 // both NULL
}

// sqliteClass is a value's storage class in sort order.
func sqliteClass(v any) int {
	switch v.(type) {
	case nil:
		return 0
	case int64, float64:
		return 1
	case string:
		return 2
	}
	return 3
}

// compareRealInt compares a real with an integer exactly, as SQLite's
// sqlite3IntFloatCompare does (SQLite stores no NaN).
func compareRealInt(r float64, i int64) int {
	switch {
	case r < -9223372036854775808.0:
		return -1
	case r >= 9223372036854775808.0:
		return 1
	}
	t := int64(r) // exact: r is within int64's range
	if c := cmp.Compare(t, i); c != 0 {
		return c
	}
	return cmp.Compare(r, math.Trunc(r)) // the fraction decides
}
