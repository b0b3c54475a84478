package store

import (
	"context"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
)

// ListCronJobRuns lists the run sessions of one cron job newest first
// (ties: greater id), shaped as ListSessionsRich shapes a row (preview and
// last activity; no projection), as upstream's list_cron_job_runs. A run is
// a session of source "cron" whose id starts with "cron_<jobID>_": the ids
// are read as one range of the (source, id) index, so neither another
// job whose id contains jobID ("cron_x<jobID>_...") nor one whose id
// extends it ("cron_<jobID>2_...") is listed. Archived runs are listed.
// limit 0 means 20; a negative limit lists every run.
//
// It returns ErrClosed.
func (s *Store) ListCronJobRuns(ctx context.Context, jobID string, limit, offset int) (_ []RichSession, err error) {
	defer wrapOn(&err, "list runs of cron job", jobID)
	if limit == 0 {
		limit = 20
	}
	// [prefix, prefix with its last byte, '_', incremented): exactly the
	// ids that start with prefix, in SQLite's byte order.
	prefix := "cron_" + jobID + "_"
	upper := prefix[:len(prefix)-1] + "`"
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) ([]RichSession, error) {
		rows, err := s.q.SessionCronRuns(ctx, q, db.SessionCronRunsParams{IDFrom: prefix, IDTo: upper, Limit: int64(limit), Offset: int64(offset)})
		return convertRows(rows, err, func(r db.SessionCronRunsRow) RichSession {
			return richSession(r.Session, r.PreviewRaw, r.LastActive)
		})
	})
}
