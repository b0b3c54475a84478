package store

import (
	"context"

	"github.com/hermesstate/hermesstate/internal/backend"
)

// Pages is how SQLite sees the database file's size: what a rebuilt or
// backed-up copy of it will hold, for progress.
type Pages struct {
	// Size is the page size in bytes.
	Size int64
	// Count is the number of pages in the database, free ones included.
	Count int64
	// Free is the number of pages on the freelist.
	Free int64
}

// UsedBytes is the size of the pages in use: about the size of the file
// after VACUUM, and of a Backup.
func (p Pages) UsedBytes() int64 { return (p.Count - p.Free) * p.Size }

// Hand-written: sqlc cannot compile pragmas. Each reads one number of the
// database header as of the read transaction; none writes.
const (
	pageSizeSQL      = "PRAGMA page_size"
	pageCountSQL     = "PRAGMA page_count"
	freelistCountSQL = "PRAGMA freelist_count"
)

// Pages returns the database's page size, page count and free pages, read
// in one snapshot.
//
// It returns ErrClosed.
func (s *Store) Pages(ctx context.Context) (_ Pages, err error) {
	defer wrap(&err, "pages")
	return s.pages(ctx)
}

// pages is Pages.
func (s *Store) pages(ctx context.Context) (Pages, error) {
	if s.pg != nil {
		return Pages{}, errNoPagesOnPostgres
	}
	return read(s, ctx, func(ctx context.Context, q backend.Tx) (Pages, error) {
		var p Pages
		err := q.QueryRowContext(ctx, pageSizeSQL).Scan(&p.Size)
		if err == nil {
			err = q.QueryRowContext(ctx, pageCountSQL).Scan(&p.Count)
		}
		if err == nil {
			err = q.QueryRowContext(ctx, freelistCountSQL).Scan(&p.Free)
		}
		if err != nil {
			return Pages{}, err
		}
		return p, nil
	})
}
