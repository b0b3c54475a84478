package backend_test

// Parity of the PostgreSQL twins of queries/sqlite/{sessions,titles,stats,
// usage,cron,handoff,locks}.sql: at compile time, the same method
// signatures and params/rows that convert both ways by struct conversion
// (what internal/backend's adapter does), and at run time, each query on a
// SQLite file and on a PostgreSQL database driven through the same steps,
// with the same results.

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"

	"github.com/hermesstate/hermesstate/db"
	pgdb "github.com/hermesstate/hermesstate/db/postgres"
	"github.com/hermesstate/hermesstate/internal/sqlite"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
	"github.com/hermesstate/hermesstate/migrations"
)

// The method signatures, engine by engine: the same names and the same
// parameter and result types (up to the package of a struct).
var (
	_ func(*db.Queries, context.Context, db.DBTX, string) (db.CompressionCooldownGetRow, error)                      = (*db.Queries).CompressionCooldownGet
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (pgdb.CompressionCooldownGetRow, error)                = (*pgdb.Queries).CompressionCooldownGet
	_ func(*db.Queries, context.Context, db.DBTX, db.CompressionCooldownSetParams) (int64, error)                    = (*db.Queries).CompressionCooldownSet
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.CompressionCooldownSetParams) (int64, error)              = (*pgdb.Queries).CompressionCooldownSet
	_ func(*db.Queries, context.Context, db.DBTX, db.CompressionLockDeleteExpiredParams) (int64, error)              = (*db.Queries).CompressionLockDeleteExpired
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.CompressionLockDeleteExpiredParams) (int64, error)        = (*pgdb.Queries).CompressionLockDeleteExpired
	_ func(*db.Queries, context.Context, db.DBTX, db.CompressionLockHolderParams) (string, error)                    = (*db.Queries).CompressionLockHolder
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.CompressionLockHolderParams) (string, error)              = (*pgdb.Queries).CompressionLockHolder
	_ func(*db.Queries, context.Context, db.DBTX, db.CompressionLockInsertParams) (int64, error)                     = (*db.Queries).CompressionLockInsert
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.CompressionLockInsertParams) (int64, error)               = (*pgdb.Queries).CompressionLockInsert
	_ func(*db.Queries, context.Context, db.DBTX, string) (string, error)                                            = (*db.Queries).CompressionLockOwner
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (string, error)                                        = (*pgdb.Queries).CompressionLockOwner
	_ func(*db.Queries, context.Context, db.DBTX, db.CompressionLockRefreshParams) (int64, error)                    = (*db.Queries).CompressionLockRefresh
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.CompressionLockRefreshParams) (int64, error)              = (*pgdb.Queries).CompressionLockRefresh
	_ func(*db.Queries, context.Context, db.DBTX, db.CompressionLockReleaseParams) (int64, error)                    = (*db.Queries).CompressionLockRelease
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.CompressionLockReleaseParams) (int64, error)              = (*pgdb.Queries).CompressionLockRelease
	_ func(*db.Queries, context.Context, db.DBTX, string) (sqlnum.Int, error)                                        = (*db.Queries).CompressionStreakGet
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (sqlnum.Int, error)                                    = (*pgdb.Queries).CompressionStreakGet
	_ func(*db.Queries, context.Context, db.DBTX, db.CompressionStreakSetParams) (int64, error)                      = (*db.Queries).CompressionStreakSet
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.CompressionStreakSetParams) (int64, error)                = (*pgdb.Queries).CompressionStreakSet
	_ func(*db.Queries, context.Context, db.DBTX, string) (int64, error)                                             = (*db.Queries).HandoffClaim
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (int64, error)                                         = (*pgdb.Queries).HandoffClaim
	_ func(*db.Queries, context.Context, db.DBTX, string) (int64, error)                                             = (*db.Queries).HandoffComplete
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (int64, error)                                         = (*pgdb.Queries).HandoffComplete
	_ func(*db.Queries, context.Context, db.DBTX, db.HandoffFailParams) (int64, error)                               = (*db.Queries).HandoffFail
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.HandoffFailParams) (int64, error)                         = (*pgdb.Queries).HandoffFail
	_ func(*db.Queries, context.Context, db.DBTX, string) (db.HandoffGetRow, error)                                  = (*db.Queries).HandoffGet
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (pgdb.HandoffGetRow, error)                            = (*pgdb.Queries).HandoffGet
	_ func(*db.Queries, context.Context, db.DBTX) ([]db.Session, error)                                              = (*db.Queries).HandoffListPending
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX) ([]pgdb.Session, error)                                        = (*pgdb.Queries).HandoffListPending
	_ func(*db.Queries, context.Context, db.DBTX, db.HandoffRequestParams) (int64, error)                            = (*db.Queries).HandoffRequest
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.HandoffRequestParams) (int64, error)                      = (*pgdb.Queries).HandoffRequest
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionAddMessageCountsParams) (int64, error)                   = (*db.Queries).SessionAddMessageCounts
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionAddMessageCountsParams) (int64, error)             = (*pgdb.Queries).SessionAddMessageCounts
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionAddTokensParams) (int64, error)                          = (*db.Queries).SessionAddTokens
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionAddTokensParams) (int64, error)                    = (*pgdb.Queries).SessionAddTokens
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionBackfillRepoRootParams) (int64, error)                   = (*db.Queries).SessionBackfillRepoRoot
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionBackfillRepoRootParams) (int64, error)             = (*pgdb.Queries).SessionBackfillRepoRoot
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionBrowseParams) ([]db.SessionBrowseRow, error)             = (*db.Queries).SessionBrowse
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionBrowseParams) ([]pgdb.SessionBrowseRow, error)     = (*pgdb.Queries).SessionBrowse
	_ func(*db.Queries, context.Context, db.DBTX) (int64, error)                                                     = (*db.Queries).SessionCountEmpty
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX) (int64, error)                                                 = (*pgdb.Queries).SessionCountEmpty
	_ func(*db.Queries, context.Context, db.DBTX, string) (db.SessionCountersRow, error)                             = (*db.Queries).SessionCounters
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (pgdb.SessionCountersRow, error)                       = (*pgdb.Queries).SessionCounters
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionCreateParams) (int64, error)                             = (*db.Queries).SessionCreate
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionCreateParams) (int64, error)                       = (*pgdb.Queries).SessionCreate
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionCronRunsParams) ([]db.SessionCronRunsRow, error)         = (*db.Queries).SessionCronRuns
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionCronRunsParams) ([]pgdb.SessionCronRunsRow, error) = (*pgdb.Queries).SessionCronRuns
	_ func(*db.Queries, context.Context, db.DBTX) ([]db.SessionDelegateTagsRow, error)                               = (*db.Queries).SessionDelegateTags
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX) ([]pgdb.SessionDelegateTagsRow, error)                         = (*pgdb.Queries).SessionDelegateTags
	_ func(*db.Queries, context.Context, db.DBTX, string) (int64, error)                                             = (*db.Queries).SessionDelete
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (int64, error)                                         = (*pgdb.Queries).SessionDelete
	_ func(*db.Queries, context.Context, db.DBTX, string) (int64, error)                                             = (*db.Queries).SessionDeleteIfEmpty
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (int64, error)                                         = (*pgdb.Queries).SessionDeleteIfEmpty
	_ func(*db.Queries, context.Context, db.DBTX) ([]string, error)                                                  = (*db.Queries).SessionEmptyIDs
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX) ([]string, error)                                              = (*pgdb.Queries).SessionEmptyIDs
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionEndParams) (int64, error)                                = (*db.Queries).SessionEnd
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionEndParams) (int64, error)                          = (*pgdb.Queries).SessionEnd
	_ func(*db.Queries, context.Context, db.DBTX, string) (bool, error)                                              = (*db.Queries).SessionExists
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (bool, error)                                          = (*pgdb.Queries).SessionExists
	_ func(*db.Queries, context.Context, db.DBTX, string) (db.Session, error)                                        = (*db.Queries).SessionGet
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (pgdb.Session, error)                                  = (*pgdb.Queries).SessionGet
	_ func(*db.Queries, context.Context, db.DBTX, *string) (db.Session, error)                                       = (*db.Queries).SessionGetByTitle
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, *string) (pgdb.Session, error)                                 = (*pgdb.Queries).SessionGetByTitle
	_ func(*db.Queries, context.Context, db.DBTX, string) (*string, error)                                           = (*db.Queries).SessionGetTitle
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (*string, error)                                       = (*pgdb.Queries).SessionGetTitle
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionImportParams) error                                      = (*db.Queries).SessionImport
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionImportParams) error                                = (*pgdb.Queries).SessionImport
	_ func(*db.Queries, context.Context, db.DBTX, string) error                                                      = (*db.Queries).SessionImportRecount
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) error                                                  = (*pgdb.Queries).SessionImportRecount
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionIsCompressionAncestorParams) (int64, error)              = (*db.Queries).SessionIsCompressionAncestor
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionIsCompressionAncestorParams) (int64, error)        = (*pgdb.Queries).SessionIsCompressionAncestor
	_ func(*db.Queries, context.Context, db.DBTX, string) (sqlnum.Real, error)                                       = (*db.Queries).SessionLastActive
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (sqlnum.Real, error)                                   = (*pgdb.Queries).SessionLastActive
	_ func(*db.Queries, context.Context, db.DBTX, *string) (string, error)                                           = (*db.Queries).SessionLatestTitleVariant
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, *string) (string, error)                                       = (*pgdb.Queries).SessionLatestTitleVariant
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionLineageTitlesParams) ([]string, error)                   = (*db.Queries).SessionLineageTitles
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionLineageTitlesParams) ([]string, error)             = (*pgdb.Queries).SessionLineageTitles
	_ func(*db.Queries, context.Context, db.DBTX, *string) (int64, error)                                            = (*db.Queries).SessionOrphanChildren
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, *string) (int64, error)                                        = (*pgdb.Queries).SessionOrphanChildren
	_ func(*db.Queries, context.Context, db.DBTX, string) (int64, error)                                             = (*db.Queries).SessionReopen
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (int64, error)                                         = (*pgdb.Queries).SessionReopen
	_ func(*db.Queries, context.Context, db.DBTX, string) ([]string, error)                                          = (*db.Queries).SessionResolvePrefix
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) ([]string, error)                                      = (*pgdb.Queries).SessionResolvePrefix
	_ func(*db.Queries, context.Context, db.DBTX, string) (db.SessionRouteRow, error)                                = (*db.Queries).SessionRoute
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (pgdb.SessionRouteRow, error)                          = (*pgdb.Queries).SessionRoute
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionSetBillingRouteParams) (int64, error)                    = (*db.Queries).SessionSetBillingRoute
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionSetBillingRouteParams) (int64, error)              = (*pgdb.Queries).SessionSetBillingRoute
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionSetCwdParams) (int64, error)                             = (*db.Queries).SessionSetCwd
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionSetCwdParams) (int64, error)                       = (*pgdb.Queries).SessionSetCwd
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionSetMessageCountsParams) (int64, error)                   = (*db.Queries).SessionSetMessageCounts
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionSetMessageCountsParams) (int64, error)             = (*pgdb.Queries).SessionSetMessageCounts
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionSetMetaParams) (int64, error)                            = (*db.Queries).SessionSetMeta
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionSetMetaParams) (int64, error)                      = (*pgdb.Queries).SessionSetMeta
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionSetModelParams) (int64, error)                           = (*db.Queries).SessionSetModel
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionSetModelParams) (int64, error)                     = (*pgdb.Queries).SessionSetModel
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionSetParentParams) (int64, error)                          = (*db.Queries).SessionSetParent
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionSetParentParams) (int64, error)                    = (*pgdb.Queries).SessionSetParent
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionSetRouteParams) (int64, error)                           = (*db.Queries).SessionSetRoute
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionSetRouteParams) (int64, error)                     = (*pgdb.Queries).SessionSetRoute
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionSetTitleParams) (int64, error)                           = (*db.Queries).SessionSetTitle
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionSetTitleParams) (int64, error)                     = (*pgdb.Queries).SessionSetTitle
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionSetTokensParams) (int64, error)                          = (*db.Queries).SessionSetTokens
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionSetTokensParams) (int64, error)                    = (*pgdb.Queries).SessionSetTokens
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionTitleOwnerParams) (string, error)                        = (*db.Queries).SessionTitleOwner
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionTitleOwnerParams) (string, error)                  = (*pgdb.Queries).SessionTitleOwner
	_ func(*db.Queries, context.Context, db.DBTX) ([]db.SessionTokenStatsByModelRow, error)                          = (*db.Queries).SessionTokenStatsByModel
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX) ([]pgdb.SessionTokenStatsByModelRow, error)                    = (*pgdb.Queries).SessionTokenStatsByModel
	_ func(*db.Queries, context.Context, db.DBTX) ([]db.SessionTokenStatsBySourceRow, error)                         = (*db.Queries).SessionTokenStatsBySource
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX) ([]pgdb.SessionTokenStatsBySourceRow, error)                   = (*pgdb.Queries).SessionTokenStatsBySource
	_ func(*db.Queries, context.Context, db.DBTX, int64) ([]db.SessionTopByTokensRow, error)                         = (*db.Queries).SessionTopByTokens
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, int64) ([]pgdb.SessionTopByTokensRow, error)                   = (*pgdb.Queries).SessionTopByTokens
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionUpdateSystemPromptParams) (int64, error)                 = (*db.Queries).SessionUpdateSystemPrompt
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionUpdateSystemPromptParams) (int64, error)           = (*pgdb.Queries).SessionUpdateSystemPrompt
	_ func(*db.Queries, context.Context, db.DBTX, db.SessionUpsertParams) error                                      = (*db.Queries).SessionUpsert
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.SessionUpsertParams) error                                = (*pgdb.Queries).SessionUpsert
	_ func(*db.Queries, context.Context, db.DBTX, db.UsageByModelParams) ([]db.UsageByModelRow, error)               = (*db.Queries).UsageByModel
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.UsageByModelParams) ([]pgdb.UsageByModelRow, error)       = (*pgdb.Queries).UsageByModel
	_ func(*db.Queries, context.Context, db.DBTX, db.UsageCountersParams) (db.UsageCountersRow, error)               = (*db.Queries).UsageCounters
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.UsageCountersParams) (pgdb.UsageCountersRow, error)       = (*pgdb.Queries).UsageCounters
	_ func(*db.Queries, context.Context, db.DBTX, string) ([]db.SessionModelUsage, error)                            = (*db.Queries).UsageOfSession
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) ([]pgdb.SessionModelUsage, error)                      = (*pgdb.Queries).UsageOfSession
	_ func(*db.Queries, context.Context, db.DBTX, db.UsageRecordParams) error                                        = (*db.Queries).UsageRecord
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.UsageRecordParams) error                                  = (*pgdb.Queries).UsageRecord
)

// The params and rows convert both ways by Go struct conversion, the
// adapter's conversion (the models too: SessionGet and UsageOfSession
// return them). SessionBrowseRow and SessionCronRunsRow embed a Session and
// convert field by field: see browseRow1 and cronRow1.
var (
	_ = pgdb.CompressionCooldownGetRow(db.CompressionCooldownGetRow{})
	_ = db.CompressionCooldownGetRow(pgdb.CompressionCooldownGetRow{})
	_ = pgdb.CompressionCooldownSetParams(db.CompressionCooldownSetParams{})
	_ = db.CompressionCooldownSetParams(pgdb.CompressionCooldownSetParams{})
	_ = pgdb.CompressionLockDeleteExpiredParams(db.CompressionLockDeleteExpiredParams{})
	_ = db.CompressionLockDeleteExpiredParams(pgdb.CompressionLockDeleteExpiredParams{})
	_ = pgdb.CompressionLockHolderParams(db.CompressionLockHolderParams{})
	_ = db.CompressionLockHolderParams(pgdb.CompressionLockHolderParams{})
	_ = pgdb.CompressionLockInsertParams(db.CompressionLockInsertParams{})
	_ = db.CompressionLockInsertParams(pgdb.CompressionLockInsertParams{})
	_ = pgdb.CompressionLockRefreshParams(db.CompressionLockRefreshParams{})
	_ = db.CompressionLockRefreshParams(pgdb.CompressionLockRefreshParams{})
	_ = pgdb.CompressionLockReleaseParams(db.CompressionLockReleaseParams{})
	_ = db.CompressionLockReleaseParams(pgdb.CompressionLockReleaseParams{})
	_ = pgdb.CompressionStreakSetParams(db.CompressionStreakSetParams{})
	_ = db.CompressionStreakSetParams(pgdb.CompressionStreakSetParams{})
	_ = pgdb.HandoffFailParams(db.HandoffFailParams{})
	_ = db.HandoffFailParams(pgdb.HandoffFailParams{})
	_ = pgdb.HandoffGetRow(db.HandoffGetRow{})
	_ = db.HandoffGetRow(pgdb.HandoffGetRow{})
	_ = pgdb.HandoffRequestParams(db.HandoffRequestParams{})
	_ = db.HandoffRequestParams(pgdb.HandoffRequestParams{})
	_ = pgdb.SessionAddMessageCountsParams(db.SessionAddMessageCountsParams{})
	_ = db.SessionAddMessageCountsParams(pgdb.SessionAddMessageCountsParams{})
	_ = pgdb.SessionAddTokensParams(db.SessionAddTokensParams{})
	_ = db.SessionAddTokensParams(pgdb.SessionAddTokensParams{})
	_ = pgdb.SessionBackfillRepoRootParams(db.SessionBackfillRepoRootParams{})
	_ = db.SessionBackfillRepoRootParams(pgdb.SessionBackfillRepoRootParams{})
	_ = pgdb.SessionBrowseParams(db.SessionBrowseParams{})
	_ = db.SessionBrowseParams(pgdb.SessionBrowseParams{})
	_ = pgdb.SessionCountersRow(db.SessionCountersRow{})
	_ = db.SessionCountersRow(pgdb.SessionCountersRow{})
	_ = pgdb.SessionCreateParams(db.SessionCreateParams{})
	_ = db.SessionCreateParams(pgdb.SessionCreateParams{})
	_ = pgdb.SessionCronRunsParams(db.SessionCronRunsParams{})
	_ = db.SessionCronRunsParams(pgdb.SessionCronRunsParams{})
	_ = pgdb.SessionDelegateTagsRow(db.SessionDelegateTagsRow{})
	_ = db.SessionDelegateTagsRow(pgdb.SessionDelegateTagsRow{})
	_ = pgdb.SessionEndParams(db.SessionEndParams{})
	_ = db.SessionEndParams(pgdb.SessionEndParams{})
	_ = pgdb.SessionImportParams(db.SessionImportParams{})
	_ = db.SessionImportParams(pgdb.SessionImportParams{})
	_ = pgdb.SessionIsCompressionAncestorParams(db.SessionIsCompressionAncestorParams{})
	_ = db.SessionIsCompressionAncestorParams(pgdb.SessionIsCompressionAncestorParams{})
	_ = pgdb.SessionLineageTitlesParams(db.SessionLineageTitlesParams{})
	_ = db.SessionLineageTitlesParams(pgdb.SessionLineageTitlesParams{})
	_ = pgdb.SessionRouteRow(db.SessionRouteRow{})
	_ = db.SessionRouteRow(pgdb.SessionRouteRow{})
	_ = pgdb.SessionSetBillingRouteParams(db.SessionSetBillingRouteParams{})
	_ = db.SessionSetBillingRouteParams(pgdb.SessionSetBillingRouteParams{})
	_ = pgdb.SessionSetCwdParams(db.SessionSetCwdParams{})
	_ = db.SessionSetCwdParams(pgdb.SessionSetCwdParams{})
	_ = pgdb.SessionSetMessageCountsParams(db.SessionSetMessageCountsParams{})
	_ = db.SessionSetMessageCountsParams(pgdb.SessionSetMessageCountsParams{})
	_ = pgdb.SessionSetMetaParams(db.SessionSetMetaParams{})
	_ = db.SessionSetMetaParams(pgdb.SessionSetMetaParams{})
	_ = pgdb.SessionSetModelParams(db.SessionSetModelParams{})
	_ = db.SessionSetModelParams(pgdb.SessionSetModelParams{})
	_ = pgdb.SessionSetParentParams(db.SessionSetParentParams{})
	_ = db.SessionSetParentParams(pgdb.SessionSetParentParams{})
	_ = pgdb.SessionSetRouteParams(db.SessionSetRouteParams{})
	_ = db.SessionSetRouteParams(pgdb.SessionSetRouteParams{})
	_ = pgdb.SessionSetTitleParams(db.SessionSetTitleParams{})
	_ = db.SessionSetTitleParams(pgdb.SessionSetTitleParams{})
	_ = pgdb.SessionSetTokensParams(db.SessionSetTokensParams{})
	_ = db.SessionSetTokensParams(pgdb.SessionSetTokensParams{})
	_ = pgdb.SessionTitleOwnerParams(db.SessionTitleOwnerParams{})
	_ = db.SessionTitleOwnerParams(pgdb.SessionTitleOwnerParams{})
	_ = pgdb.SessionTokenStatsByModelRow(db.SessionTokenStatsByModelRow{})
	_ = db.SessionTokenStatsByModelRow(pgdb.SessionTokenStatsByModelRow{})
	_ = pgdb.SessionTokenStatsBySourceRow(db.SessionTokenStatsBySourceRow{})
	_ = db.SessionTokenStatsBySourceRow(pgdb.SessionTokenStatsBySourceRow{})
	_ = pgdb.SessionTopByTokensRow(db.SessionTopByTokensRow{})
	_ = db.SessionTopByTokensRow(pgdb.SessionTopByTokensRow{})
	_ = pgdb.SessionUpdateSystemPromptParams(db.SessionUpdateSystemPromptParams{})
	_ = db.SessionUpdateSystemPromptParams(pgdb.SessionUpdateSystemPromptParams{})
	_ = pgdb.SessionUpsertParams(db.SessionUpsertParams{})
	_ = db.SessionUpsertParams(pgdb.SessionUpsertParams{})
	_ = pgdb.UsageByModelParams(db.UsageByModelParams{})
	_ = db.UsageByModelParams(pgdb.UsageByModelParams{})
	_ = pgdb.UsageByModelRow(db.UsageByModelRow{})
	_ = db.UsageByModelRow(pgdb.UsageByModelRow{})
	_ = pgdb.UsageCountersParams(db.UsageCountersParams{})
	_ = db.UsageCountersParams(pgdb.UsageCountersParams{})
	_ = pgdb.UsageCountersRow(db.UsageCountersRow{})
	_ = db.UsageCountersRow(pgdb.UsageCountersRow{})
	_ = pgdb.UsageRecordParams(db.UsageRecordParams{})
	_ = db.UsageRecordParams(pgdb.UsageRecordParams{})
	_ = pgdb.Session(db.Session{})
	_ = db.Session(pgdb.Session{})
	_ = pgdb.SessionModelUsage(db.SessionModelUsage{})
	_ = db.SessionModelUsage(pgdb.SessionModelUsage{})
)

// browseRow1 and cronRow1 are the conversions of the two rows that embed a
// Session: a struct holding a db.Session and one holding a pgdb.Session
// are distinct types, so the adapter converts their fields.
func browseRow1(r pgdb.SessionBrowseRow) db.SessionBrowseRow {
	return db.SessionBrowseRow{Session: db.Session(r.Session), LastActive: r.LastActive}
}

func cronRow1(r pgdb.SessionCronRunsRow) db.SessionCronRunsRow {
	return db.SessionCronRunsRow{Session: db.Session(r.Session), PreviewRaw: r.PreviewRaw, LastActive: r.LastActive}
}

// pair1 is one SQLite file and one PostgreSQL database taken through the
// same steps. seen records the queries compared.
type pair1 struct {
	t    *testing.T
	ctx  context.Context
	sq   *sql.DB
	pg   *pgx.Conn
	q    *db.Queries
	pq   *pgdb.Queries
	seen map[string]bool
}

func newPair1(t *testing.T, mode pgx.QueryExecMode) *pair1 {
	t.Helper()
	pg := newPG(t, mode)
	ctx := context.Background()
	w, err := sqlite.OpenWriter(ctx, filepath.Join(t.TempDir(), "state.db"), sqlite.Config{Retry: sqlite.DefaultRetry()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	m, err := migrations.New(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatalf("migrate the SQLite file: %v", err)
	}
	return &pair1{t: t, ctx: ctx, sq: w, pg: pg, q: db.New(), pq: pgdb.New(), seen: map[string]bool{}}
}

// run1 runs one query on both engines (sq on SQLite, pg on PostgreSQL,
// its result converted to db's type) and fails the test unless both
// return the same value, or both find no row. It returns SQLite's value.
func run1[T any](p *pair1, name, what string, sq func() (T, error), pg func() (T, error)) T {
	p.t.Helper()
	p.seen[name] = true
	sv, se := sq()
	pv, pe := pg()
	if errors.Is(se, sql.ErrNoRows) && errors.Is(pe, pgx.ErrNoRows) {
		return sv
	}
	if se != nil || pe != nil {
		p.t.Fatalf("%s (%s): SQLite error %v, PostgreSQL error %v", name, what, se, pe)
	}
	if d := cmp.Diff(sv, pv); d != "" {
		p.t.Errorf("%s (%s): results differ (-SQLite +PostgreSQL):\n%s", name, what, d)
	}
	return sv
}

// noRow1 is run1 for a step that must find no row on either engine.
func noRow1[S, P any](p *pair1, name, what string, sq func() (S, error), pg func() (P, error)) {
	p.t.Helper()
	p.seen[name] = true
	_, se := sq()
	_, pe := pg()
	if !errors.Is(se, sql.ErrNoRows) || !errors.Is(pe, pgx.ErrNoRows) {
		p.t.Errorf("%s (%s): want no row on both, got SQLite %v, PostgreSQL %v", name, what, se, pe)
	}
}

// bothFail1 runs a step that must fail a foreign key on both engines:
// SQLITE_CONSTRAINT_FOREIGNKEY on SQLite, SQLSTATE 23503 on PostgreSQL.
func bothFail1(p *pair1, name, what string, sq, pg func() error) {
	p.t.Helper()
	p.seen[name] = true
	se, pe := sq(), pg()
	var sqErr sqlite3.Error
	var pgErr *pgconn.PgError
	if !errors.As(se, &sqErr) || sqErr.ExtendedCode != sqlite3.ErrConstraintForeignKey ||
		!errors.As(pe, &pgErr) || pgErr.Code != "23503" {
		p.t.Errorf("%s (%s): want a foreign-key error on both, got SQLite %v, PostgreSQL %v", name, what, se, pe)
	}
}

// want1 checks an expected value exactly, so that two engines agreeing on
// a wrong answer still fail.
func want1[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s (-want +got):\n%s", what, d)
	}
}

// fixture1 runs a hand-written fixture statement on both engines: sqliteSQL
// with ? placeholders, pgSQL the same statement with $n ones.
func (p *pair1) fixture1(sqliteSQL, pgSQL string, args ...any) {
	p.t.Helper()
	if _, err := p.sq.ExecContext(p.ctx, sqliteSQL, args...); err != nil {
		p.t.Fatalf("SQLite fixture %q: %v", sqliteSQL, err)
	}
	if _, err := p.pg.Exec(p.ctx, pgSQL, args...); err != nil {
		p.t.Fatalf("PostgreSQL fixture %q: %v", pgSQL, err)
	}
}

// message1 appends a message row as a fixture (the message queries are
// another file's twins). Hand-written: the columns these tests read.
func (p *pair1) message1(session, role string, content, toolCalls *string, ts float64, compacted int64) {
	p.t.Helper()
	p.fixture1(
		"INSERT INTO messages (session_id, role, content, tool_calls, timestamp, compacted) VALUES (?, ?, ?, ?, ?, ?)",
		"INSERT INTO messages (session_id, role, content, tool_calls, timestamp, compacted) VALUES ($1, $2, $3, $4, $5, $6)",
		session, role, content, toolCalls, ts, compacted)
}

func ptr1[T any](v T) *T { return &v }

// rows1 converts a :many result with f, for rows1(f)(y.Query(...)).
func rows1[S, D any](f func(S) D) func([]S, error) ([]D, error) {
	return func(in []S, err error) ([]D, error) {
		out := make([]D, len(in))
		for i, r := range in {
			out[i] = f(r)
		}
		return out, err
	}
}

// TestParityPGQ1 takes both engines through the same steps, every query of
// the seven files at least once, edge cases included, and compares each
// result; key results are also checked against their exact expected value.
// PostgreSQL runs in pgx's default mode (prepared, cached statements) and
// in the two that prepare nothing (for PgBouncer): exec and the simple
// protocol, where parameters travel as text.
func TestParityPGQ1(t *testing.T) {
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol} {
		t.Run(mode.String(), func(t *testing.T) { parityPGQ1(t, newPair1(t, mode)) })
	}
}

func parityPGQ1(t *testing.T, p *pair1) {
	ctx, x, y, s, g := p.ctx, p.q, p.pq, p.sq, p.pg

	// --- sessions: create, upsert, resolve.
	create := func(a db.SessionCreateParams) int64 {
		return run1(p, "SessionCreate", a.ID,
			func() (int64, error) { return x.SessionCreate(ctx, s, a) },
			func() (int64, error) { return y.SessionCreate(ctx, g, pgdb.SessionCreateParams(a)) })
	}
	for _, a := range []db.SessionCreateParams{
		{ID: "éa", Source: "cli", StartedAt: sqlnum.RealOf(50)},
		{ID: "alpha", Source: "cli", Model: ptr1("gpt"), SystemPrompt: ptr1("sp"), Cwd: ptr1("/w"), StartedAt: sqlnum.RealOf(100.5)},
		{ID: "al_x", Source: "tui", StartedAt: sqlnum.RealOf(150)},
		{ID: "Alpine", Source: "cli", UserID: ptr1("u1"), StartedAt: sqlnum.RealOf(200)},
		{ID: "child1", Source: "cli", ParentSessionID: ptr1("alpha"), StartedAt: sqlnum.RealOf(300)},
	} {
		want1(t, "SessionCreate "+a.ID, create(a), int64(1))
	}
	want1(t, "SessionCreate again", create(db.SessionCreateParams{ID: "alpha", Source: "other", StartedAt: sqlnum.RealOf(1)}), int64(0))
	want1(t, "SessionCreate without a start (OR IGNORE skips it)", create(db.SessionCreateParams{ID: "nostart", Source: "cli"}), int64(0))
	orphan := db.SessionCreateParams{ID: "orphan", Source: "cli", ParentSessionID: ptr1("nope"), StartedAt: sqlnum.RealOf(1)}
	bothFail1(p, "SessionCreate", "missing parent",
		func() error { _, err := x.SessionCreate(ctx, s, orphan); return err },
		func() error { _, err := y.SessionCreate(ctx, g, pgdb.SessionCreateParams(orphan)); return err })
	up := db.SessionUpsertParams{ID: "orphan", Source: "cli", ParentSessionID: ptr1("nope"), StartedAt: sqlnum.RealOf(1)}
	bothFail1(p, "SessionUpsert", "missing parent",
		func() error { return x.SessionUpsert(ctx, s, up) },
		func() error { return y.SessionUpsert(ctx, g, pgdb.SessionUpsertParams(up)) })

	getSession := func(id string) db.Session {
		return run1(p, "SessionGet", id,
			func() (db.Session, error) { return x.SessionGet(ctx, s, id) },
			func() (db.Session, error) { r, err := y.SessionGet(ctx, g, id); return db.Session(r), err })
	}
	want1(t, "alpha's source after a second create", getSession("alpha").Source, "cli")
	noRow1(p, "SessionGet", "missing",
		func() (db.Session, error) { return x.SessionGet(ctx, s, "nope") },
		func() (pgdb.Session, error) { return y.SessionGet(ctx, g, "nope") })
	for id, want := range map[string]bool{"alpha": true, "nope": false} {
		got := run1(p, "SessionExists", id,
			func() (bool, error) { return x.SessionExists(ctx, s, id) },
			func() (bool, error) { return y.SessionExists(ctx, g, id) })
		want1(t, "SessionExists "+id, got, want)
	}
	for pattern, want := range map[string][]string{
		`AL%`:   {"Alpine", "al_x", "alpha"}, // ASCII case-insensitive, newest first
		`al\_%`: {"al_x"},                    // an escaped _ is literal
		`É%`:    {},                          // no folding beyond ASCII
		`é%`:    {"éa"},
	} {
		got := run1(p, "SessionResolvePrefix", pattern,
			func() ([]string, error) { return x.SessionResolvePrefix(ctx, s, pattern) },
			func() ([]string, error) { return y.SessionResolvePrefix(ctx, g, pattern) })
		want1(t, "SessionResolvePrefix "+pattern, got, want)
	}
	for _, a := range []db.SessionUpsertParams{
		{ID: "alpha", Source: "unknown", Model: ptr1("other"), ChatID: ptr1("c1"), StartedAt: sqlnum.RealOf(1)},
		{ID: "beta", Source: "unknown", Model: ptr1("m2"), StartedAt: sqlnum.RealOf(500)},
	} {
		run1(p, "SessionUpsert", a.ID,
			func() (struct{}, error) { return struct{}{}, x.SessionUpsert(ctx, s, a) },
			func() (struct{}, error) { return struct{}{}, y.SessionUpsert(ctx, g, pgdb.SessionUpsertParams(a)) })
	}
	a := getSession("alpha")
	want1(t, "alpha after upsert", []any{a.Model, a.ChatID, a.Source, a.StartedAt}, []any{ptr1("gpt"), ptr1("c1"), "cli", sqlnum.RealOf(100.5)})

	// --- sessions: end, reopen, prompt, tokens, route, model, meta.
	execrows := func(name, what string, sq, pg func() (int64, error)) int64 {
		return run1(p, name, what, sq, pg)
	}
	end := db.SessionEndParams{EndedAt: sqlnum.RealOf(400), EndReason: ptr1("user"), ID: "alpha"}
	want1(t, "SessionEnd", execrows("SessionEnd", "first",
		func() (int64, error) { return x.SessionEnd(ctx, s, end) },
		func() (int64, error) { return y.SessionEnd(ctx, g, pgdb.SessionEndParams(end)) }), int64(1))
	want1(t, "SessionEnd again", execrows("SessionEnd", "again",
		func() (int64, error) { return x.SessionEnd(ctx, s, end) },
		func() (int64, error) { return y.SessionEnd(ctx, g, pgdb.SessionEndParams(end)) }), int64(0))
	want1(t, "SessionReopen", execrows("SessionReopen", "alpha",
		func() (int64, error) { return x.SessionReopen(ctx, s, "alpha") },
		func() (int64, error) { return y.SessionReopen(ctx, g, "alpha") }), int64(1))
	sp := db.SessionUpdateSystemPromptParams{SystemPrompt: ptr1("new prompt"), ID: "alpha"}
	execrows("SessionUpdateSystemPrompt", "alpha",
		func() (int64, error) { return x.SessionUpdateSystemPrompt(ctx, s, sp) },
		func() (int64, error) {
			return y.SessionUpdateSystemPrompt(ctx, g, pgdb.SessionUpdateSystemPromptParams(sp))
		})
	for i, a := range []db.SessionAddTokensParams{
		{InputTokens: 10, OutputTokens: 20, CacheReadTokens: 1, CacheWriteTokens: 2, ReasoningTokens: 3, APICallCount: 1, ID: "alpha"},
		{InputTokens: 5, OutputTokens: 6, EstimatedCostUSD: ptr1(0.5), ActualCostUSD: ptr1(0.25), CostStatus: ptr1("ok"),
			CostSource: ptr1("api"), PricingVersion: ptr1("v1"), BillingProvider: ptr1("openai"), BillingBaseURL: ptr1("https://x"),
			BillingMode: ptr1("paid"), Model: ptr1("ignored"), APICallCount: 2, ID: "alpha"},
		{InputTokens: 1, EstimatedCostUSD: ptr1(0.125), ActualCostUSD: ptr1(0.125), BillingProvider: ptr1("later"), APICallCount: 1, ID: "alpha"},
	} {
		execrows("SessionAddTokens", string(rune('0'+i)),
			func() (int64, error) { return x.SessionAddTokens(ctx, s, a) },
			func() (int64, error) { return y.SessionAddTokens(ctx, g, pgdb.SessionAddTokensParams(a)) })
	}
	a = getSession("alpha")
	want1(t, "alpha's tokens", []any{a.InputTokens, a.OutputTokens, a.EstimatedCostUSD, a.ActualCostUSD, a.BillingProvider, a.Model, a.APICallCount},
		[]any{sqlnum.IntOf(16), sqlnum.IntOf(26), sqlnum.RealOf(0.625), sqlnum.RealOf(0.375), ptr1("openai"), ptr1("gpt"), sqlnum.IntOf(4)})
	for i, a := range []db.SessionSetTokensParams{
		{InputTokens: 7, OutputTokens: 8, APICallCount: 3, ActualCostUSD: ptr1(1.5), ID: "Alpine"},
		{InputTokens: 9, EstimatedCostUSD: ptr1(2.5), CostStatus: ptr1("est"), Model: ptr1("claude"), ID: "Alpine"},
	} {
		execrows("SessionSetTokens", string(rune('0'+i)),
			func() (int64, error) { return x.SessionSetTokens(ctx, s, a) },
			func() (int64, error) { return y.SessionSetTokens(ctx, g, pgdb.SessionSetTokensParams(a)) })
	}
	for _, id := range []string{"alpha", "Alpine"} {
		run1(p, "SessionCounters", id,
			func() (db.SessionCountersRow, error) { return x.SessionCounters(ctx, s, id) },
			func() (db.SessionCountersRow, error) {
				r, err := y.SessionCounters(ctx, g, id)
				return db.SessionCountersRow(r), err
			})
		run1(p, "SessionRoute", id,
			func() (db.SessionRouteRow, error) { return x.SessionRoute(ctx, s, id) },
			func() (db.SessionRouteRow, error) {
				r, err := y.SessionRoute(ctx, g, id)
				return db.SessionRouteRow(r), err
			})
	}
	route := db.SessionSetRouteParams{Model: ptr1("gpt-5"), BillingProvider: ptr1("azure"), ID: "Alpine"}
	execrows("SessionSetRoute", "Alpine",
		func() (int64, error) { return x.SessionSetRoute(ctx, s, route) },
		func() (int64, error) { return y.SessionSetRoute(ctx, g, pgdb.SessionSetRouteParams(route)) })
	model := db.SessionSetModelParams{Model: ptr1("claude"), ID: "Alpine"}
	execrows("SessionSetModel", "Alpine",
		func() (int64, error) { return x.SessionSetModel(ctx, s, model) },
		func() (int64, error) { return y.SessionSetModel(ctx, g, pgdb.SessionSetModelParams(model)) })
	for i, a := range []db.SessionSetBillingRouteParams{
		{BillingProvider: ptr1("anthropic"), BillingBaseURL: ptr1("https://a"), BillingMode: ptr1("sub"), ID: "Alpine"},
		{BillingProvider: ptr1("anthropic2"), ID: "Alpine"},
	} {
		execrows("SessionSetBillingRoute", string(rune('0'+i)),
			func() (int64, error) { return x.SessionSetBillingRoute(ctx, s, a) },
			func() (int64, error) { return y.SessionSetBillingRoute(ctx, g, pgdb.SessionSetBillingRouteParams(a)) })
	}
	al := getSession("Alpine")
	want1(t, "Alpine's route", []any{al.BillingProvider, al.BillingBaseURL, al.BillingMode, al.SystemPrompt},
		[]any{ptr1("anthropic2"), (*string)(nil), ptr1("sub"), (*string)(nil)})
	setMeta := func(id string, cfg *string, model *string) {
		a := db.SessionSetMetaParams{ModelConfig: cfg, Model: model, ID: id}
		execrows("SessionSetMeta", id,
			func() (int64, error) { return x.SessionSetMeta(ctx, s, a) },
			func() (int64, error) { return y.SessionSetMeta(ctx, g, pgdb.SessionSetMetaParams(a)) })
	}
	setMeta("alpha", ptr1(`{"t":1}`), nil)

	// --- messages and counters.
	p.message1("alpha", "user", ptr1("hello\nworld\r!"), nil, 101, 0)
	p.message1("alpha", "assistant", ptr1("ok"), ptr1(`[{"a":1},{"b":2}]`), 102, 0)
	p.message1("alpha", "tool", nil, ptr1(`not json`), 103, 0)
	p.message1("alpha", "assistant", ptr1("x"), ptr1(`{"x":1}`), 105, 0)
	p.message1("alpha", "assistant", ptr1("y"), ptr1(`["a\u0000"]`), 104, 0)
	p.message1("alpha", "assistant", ptr1("z"), ptr1("[1, 2"), 104.25, 0)
	p.message1("alpha", "assistant", ptr1("deep"), ptr1(strings.Repeat("[", 100000)), 104.5, 0)
	p.message1("Alpine", "user", ptr1("old"), nil, 201, 0)
	p.message1("Alpine", "assistant", ptr1("summary"), nil, 202, 1)
	p.message1("Alpine", "user", ptr1("new"), ptr1(`[1,2,3]`), 203, 0)
	amc := db.SessionAddMessageCountsParams{ToolCalls: 2, ID: "alpha"}
	execrows("SessionAddMessageCounts", "alpha",
		func() (int64, error) { return x.SessionAddMessageCounts(ctx, s, amc) },
		func() (int64, error) {
			return y.SessionAddMessageCounts(ctx, g, pgdb.SessionAddMessageCountsParams(amc))
		})
	smc := db.SessionSetMessageCountsParams{MessageCount: 40, ToolCallCount: 50, ID: "Alpine"}
	execrows("SessionSetMessageCounts", "Alpine",
		func() (int64, error) { return x.SessionSetMessageCounts(ctx, s, smc) },
		func() (int64, error) {
			return y.SessionSetMessageCounts(ctx, g, pgdb.SessionSetMessageCountsParams(smc))
		})
	want1(t, "alpha's counters", []any{getSession("alpha").MessageCount, getSession("alpha").ToolCallCount}, []any{sqlnum.IntOf(1), sqlnum.IntOf(2)})
	for id, want := range map[string][2]int64{"alpha": {7, 7}, "Alpine": {1, 3}} {
		run1(p, "SessionImportRecount", id,
			func() (struct{}, error) { return struct{}{}, x.SessionImportRecount(ctx, s, id) },
			func() (struct{}, error) { return struct{}{}, y.SessionImportRecount(ctx, g, id) })
		r := getSession(id)
		// alpha: 2 + 1 (not JSON) + 1 (an object) + 1 (["a\u0000"], which
		// jsonb refuses) + 1 (cut short) + 1 (nested past both parsers).
		want1(t, "recounted "+id, []any{r.MessageCount, r.ToolCallCount}, []any{sqlnum.IntOf(want[0]), sqlnum.IntOf(want[1])})
	}
	for _, a := range []db.SessionBrowseParams{{Limit: 3}, {Limit: 10, Offset: 2}, {Source: ptr1("cli"), Limit: 10}, {Limit: -1, Offset: 1}, {Limit: 2, Offset: -5}} {
		run1(p, "SessionBrowse", "page",
			func() ([]db.SessionBrowseRow, error) { return x.SessionBrowse(ctx, s, a) },
			func() ([]db.SessionBrowseRow, error) {
				return rows1(browseRow1)(y.SessionBrowse(ctx, g, pgdb.SessionBrowseParams(a)))
			})
	}
	for id, want := range map[string]sqlnum.Real{"alpha": sqlnum.RealOf(105), "beta": sqlnum.RealOf(500)} {
		got := run1(p, "SessionLastActive", id,
			func() (sqlnum.Real, error) { return x.SessionLastActive(ctx, s, id) },
			func() (sqlnum.Real, error) { return y.SessionLastActive(ctx, g, id) })
		want1(t, "SessionLastActive "+id, got, want)
	}
	noRow1(p, "SessionLastActive", "missing",
		func() (sqlnum.Real, error) { return x.SessionLastActive(ctx, s, "nope") },
		func() (sqlnum.Real, error) { return y.SessionLastActive(ctx, g, "nope") })

	// --- import, parent, cwd, repo roots.
	imp := db.SessionImportParams{
		ID: "imp", Source: "telegram", UserID: ptr1("u"), SessionKey: ptr1("k"), ChatID: ptr1("c"), ChatType: ptr1("dm"),
		ThreadID: ptr1("th"), DisplayName: ptr1("Dn"), OriginJSON: ptr1(`{"o":1}`), ExpiryFinalized: sqlnum.IntOf(1),
		Model: ptr1("gpt"), ModelConfig: ptr1(`{}`), SystemPrompt: ptr1("p"), StartedAt: sqlnum.RealOf(600.25),
		EndedAt: sqlnum.RealOf(700.75), EndReason: ptr1("done"), MessageCount: sqlnum.IntOf(3), ToolCallCount: sqlnum.IntOf(4),
		InputTokens: sqlnum.IntOf(math.MaxInt64 - 1000), OutputTokens: sqlnum.IntOf(5000), CacheReadTokens: sqlnum.IntOf(6),
		CacheWriteTokens: sqlnum.IntOf(7), ReasoningTokens: sqlnum.IntOf(8), Cwd: ptr1("/imp"), GitBranch: ptr1("main"),
		GitRepoRoot: ptr1("/imp"), BillingProvider: ptr1("bp"), BillingBaseURL: ptr1("bu"), BillingMode: ptr1("bm"),
		EstimatedCostUSD: sqlnum.RealOf(0.75), ActualCostUSD: sqlnum.RealOf(0.5), CostStatus: ptr1("cs"), CostSource: ptr1("cso"),
		PricingVersion: ptr1("pv"), Title: ptr1("Imported"), APICallCount: sqlnum.IntOf(9), HandoffState: ptr1("failed"),
		HandoffPlatform: ptr1("tg"), HandoffError: ptr1("e"), CompressionFailureCooldownUntil: sqlnum.RealOf(1e9),
		CompressionFailureError: ptr1("ce"), CompressionFallbackStreak: sqlnum.IntOf(2), RewindCount: sqlnum.IntOf(1), Archived: sqlnum.IntOf(1),
	}
	run1(p, "SessionImport", "imp",
		func() (struct{}, error) { return struct{}{}, x.SessionImport(ctx, s, imp) },
		func() (struct{}, error) { return struct{}{}, y.SessionImport(ctx, g, pgdb.SessionImportParams(imp)) })
	want1(t, "imported row", getSession("imp").InputTokens, sqlnum.IntOf(math.MaxInt64-1000))
	for i, want := range []int64{1, 0} {
		a := db.SessionSetParentParams{ParentSessionID: ptr1("alpha"), ID: "al_x"}
		if i == 1 {
			a.ParentSessionID = ptr1("beta")
		}
		want1(t, "SessionSetParent", execrows("SessionSetParent", "al_x",
			func() (int64, error) { return x.SessionSetParent(ctx, s, a) },
			func() (int64, error) { return y.SessionSetParent(ctx, g, pgdb.SessionSetParentParams(a)) }), want)
	}
	for _, a := range []db.SessionSetCwdParams{
		{Cwd: ptr1("/r"), GitBranch: ptr1("dev"), GitRepoRoot: ptr1("/r"), ID: "beta"},
		{Cwd: ptr1("/r"), ID: "Alpine"},
		{Cwd: ptr1("/r"), GitRepoRoot: ptr1(""), ID: "al_x"},
	} {
		execrows("SessionSetCwd", a.ID,
			func() (int64, error) { return x.SessionSetCwd(ctx, s, a) },
			func() (int64, error) { return y.SessionSetCwd(ctx, g, pgdb.SessionSetCwdParams(a)) })
	}
	br := db.SessionBackfillRepoRootParams{GitRepoRoot: ptr1("/root"), Cwd: ptr1("/r")}
	want1(t, "SessionBackfillRepoRoot", execrows("SessionBackfillRepoRoot", "/r",
		func() (int64, error) { return x.SessionBackfillRepoRoot(ctx, s, br) },
		func() (int64, error) {
			return y.SessionBackfillRepoRoot(ctx, g, pgdb.SessionBackfillRepoRootParams(br))
		}), int64(2))

	// --- delegate tags: created in start order (the order both give).
	for i, cfg := range []string{
		`{"_delegate_from": "alpha"}`, `{"_delegate_from": 5}`, `{"_delegate_from": true}`, `{"_delegate_from": false}`,
		`{"_delegate_from": null}`, `{"_delegate_from": "x", oops`, `{"other": 1}`, `[1, 2]`, `{"\u005fdelegate_from": "beta"}`,
		`{"a": {"_delegate_from": "no"}}`,
	} {
		id := "d" + string(rune('a'+i))
		create(db.SessionCreateParams{ID: id, Source: "cli", ParentSessionID: ptr1("beta"), StartedAt: sqlnum.RealOf(800 + float64(i))})
		setMeta(id, ptr1(cfg), nil)
	}
	tags := run1(p, "SessionDelegateTags", "all",
		func() ([]db.SessionDelegateTagsRow, error) { return x.SessionDelegateTags(ctx, s) },
		func() ([]db.SessionDelegateTagsRow, error) {
			return rows1(func(r pgdb.SessionDelegateTagsRow) db.SessionDelegateTagsRow { return db.SessionDelegateTagsRow(r) })(y.SessionDelegateTags(ctx, g))
		})
	want1(t, "SessionDelegateTags", tags, []db.SessionDelegateTagsRow{
		{ID: "da", ParentSessionID: ptr1("beta"), DelegateFrom: "alpha", DelegateFromIsText: 1},
		{ID: "db", ParentSessionID: ptr1("beta"), DelegateFrom: "5", DelegateFromIsText: 0},
		{ID: "dc", ParentSessionID: ptr1("beta"), DelegateFrom: "1", DelegateFromIsText: 0},
		{ID: "dd", ParentSessionID: ptr1("beta"), DelegateFrom: "0", DelegateFromIsText: 0},
		{ID: "di", ParentSessionID: ptr1("beta"), DelegateFrom: "beta", DelegateFromIsText: 1},
	})

	// --- titles.
	setTitle := func(id string, title *string) int64 {
		a := db.SessionSetTitleParams{Title: title, ID: id}
		return execrows("SessionSetTitle", id,
			func() (int64, error) { return x.SessionSetTitle(ctx, s, a) },
			func() (int64, error) { return y.SessionSetTitle(ctx, g, pgdb.SessionSetTitleParams(a)) })
	}
	for id, title := range map[string]string{"alpha": "Proj", "Alpine": "Proj #2", "al_x": "proj #3", "beta": "Proj #10", "éa": "Éa #1", "child1": "Proj_x #1"} {
		want1(t, "SessionSetTitle "+id, setTitle(id, ptr1(title)), int64(1))
	}
	for pattern, want := range map[string]string{`Proj #%`: "beta", `PROJ #%`: "beta", `proj #%`: "beta", `Proj\_x #%`: "child1"} {
		got := run1(p, "SessionLatestTitleVariant", pattern,
			func() (string, error) { return x.SessionLatestTitleVariant(ctx, s, ptr1(pattern)) },
			func() (string, error) { return y.SessionLatestTitleVariant(ctx, g, ptr1(pattern)) })
		want1(t, "SessionLatestTitleVariant "+pattern, got, want)
	}
	for _, pattern := range []*string{nil, ptr1(`éa #%`), ptr1(`Projx #%`)} {
		noRow1(p, "SessionLatestTitleVariant", "no match",
			func() (string, error) { return x.SessionLatestTitleVariant(ctx, s, pattern) },
			func() (string, error) { return y.SessionLatestTitleVariant(ctx, g, pattern) })
	}
	lineage := db.SessionLineageTitlesParams{Base: ptr1("Proj"), Pattern: ptr1(`Proj #%`)}
	titles := run1(p, "SessionLineageTitles", "Proj",
		func() ([]string, error) {
			r, err := x.SessionLineageTitles(ctx, s, lineage)
			sort.Strings(r)
			return r, err
		},
		func() ([]string, error) {
			r, err := y.SessionLineageTitles(ctx, g, pgdb.SessionLineageTitlesParams(lineage))
			sort.Strings(r)
			return r, err
		})
	want1(t, "SessionLineageTitles", titles, []string{"Proj", "Proj #10", "Proj #2", "proj #3"})
	owner := db.SessionTitleOwnerParams{Title: ptr1("Proj"), ID: "Alpine"}
	want1(t, "SessionTitleOwner", run1(p, "SessionTitleOwner", "Proj",
		func() (string, error) { return x.SessionTitleOwner(ctx, s, owner) },
		func() (string, error) { return y.SessionTitleOwner(ctx, g, pgdb.SessionTitleOwnerParams(owner)) }), "alpha")
	owner.ID = "alpha"
	noRow1(p, "SessionTitleOwner", "own title",
		func() (string, error) { return x.SessionTitleOwner(ctx, s, owner) },
		func() (string, error) { return y.SessionTitleOwner(ctx, g, pgdb.SessionTitleOwnerParams(owner)) })
	want1(t, "SessionGetTitle", run1(p, "SessionGetTitle", "alpha",
		func() (*string, error) { return x.SessionGetTitle(ctx, s, "alpha") },
		func() (*string, error) { return y.SessionGetTitle(ctx, g, "alpha") }), ptr1("Proj"))
	got := run1(p, "SessionGetByTitle", "Proj #2",
		func() (db.Session, error) { return x.SessionGetByTitle(ctx, s, ptr1("Proj #2")) },
		func() (db.Session, error) {
			r, err := y.SessionGetByTitle(ctx, g, ptr1("Proj #2"))
			return db.Session(r), err
		})
	want1(t, "SessionGetByTitle", got.ID, "Alpine")
	want1(t, "SessionSetTitle clear", setTitle("child1", nil), int64(1))

	// --- compression ancestry: c1 <- c2 <- c3, each parent ended by
	// compression, then a cycle c3 -> c1.
	create(db.SessionCreateParams{ID: "c1", Source: "cli", StartedAt: sqlnum.RealOf(900)})
	create(db.SessionCreateParams{ID: "c2", Source: "cli", ParentSessionID: ptr1("c1"), StartedAt: sqlnum.RealOf(901)})
	create(db.SessionCreateParams{ID: "c3", Source: "cli", ParentSessionID: ptr1("c2"), StartedAt: sqlnum.RealOf(902)})
	for _, id := range []string{"c1", "c2"} {
		e := db.SessionEndParams{EndedAt: sqlnum.RealOf(950), EndReason: ptr1("compression"), ID: id}
		execrows("SessionEnd", id,
			func() (int64, error) { return x.SessionEnd(ctx, s, e) },
			func() (int64, error) { return y.SessionEnd(ctx, g, pgdb.SessionEndParams(e)) })
	}
	ancestor := func(anc, desc any) int64 {
		a := db.SessionIsCompressionAncestorParams{Ancestor: anc, Descendant: desc}
		return run1(p, "SessionIsCompressionAncestor", "walk",
			func() (int64, error) { return x.SessionIsCompressionAncestor(ctx, s, a) },
			func() (int64, error) {
				return y.SessionIsCompressionAncestor(ctx, g, pgdb.SessionIsCompressionAncestorParams(a))
			})
	}
	type walk struct {
		anc, desc any
		want      int64
	}
	walks := []walk{{"c1", "c3", 1}, {"c2", "c3", 1}, {"c3", "c1", 0}, {"c1", "c1", 0}, {"alpha", "child1", 0}, {nil, "c3", 0}, {"c1", "nope", 0}}
	for _, w := range walks {
		want1(t, "SessionIsCompressionAncestor", []any{w.anc, w.desc, ancestor(w.anc, w.desc)}, []any{w.anc, w.desc, w.want})
	}
	cyc := db.SessionSetParentParams{ParentSessionID: ptr1("c3"), ID: "c1"}
	execrows("SessionSetParent", "cycle",
		func() (int64, error) { return x.SessionSetParent(ctx, s, cyc) },
		func() (int64, error) { return y.SessionSetParent(ctx, g, pgdb.SessionSetParentParams(cyc)) })
	e3 := db.SessionEndParams{EndedAt: sqlnum.RealOf(950), EndReason: ptr1("compression"), ID: "c3"}
	execrows("SessionEnd", "c3",
		func() (int64, error) { return x.SessionEnd(ctx, s, e3) },
		func() (int64, error) { return y.SessionEnd(ctx, g, pgdb.SessionEndParams(e3)) })
	for _, w := range []walk{{"c1", "c3", 1}, {"c3", "c3", 0}, {"c3", "c2", 1}} {
		want1(t, "SessionIsCompressionAncestor in a cycle", []any{w.anc, w.desc, ancestor(w.anc, w.desc)}, []any{w.anc, w.desc, w.want})
	}

	// --- statistics, with totals past 2^53 and past the int64 range.
	for i, in := range []int64{math.MaxInt64 - 1000, math.MaxInt64 - 2000, 1<<53 + 1} {
		a := imp
		a.ID, a.Title, a.Source = "big"+string(rune('0'+i)), nil, "bulk"
		a.InputTokens, a.OutputTokens, a.EstimatedCostUSD = sqlnum.IntOf(in), sqlnum.Int{}, sqlnum.Real{}
		a.Model = ptr1("huge")
		if i == 2 {
			a.Model, a.Source = ptr1("m53"), "bulk53"
		}
		run1(p, "SessionImport", a.ID,
			func() (struct{}, error) { return struct{}{}, x.SessionImport(ctx, s, a) },
			func() (struct{}, error) { return struct{}{}, y.SessionImport(ctx, g, pgdb.SessionImportParams(a)) })
	}
	// Costs 0.1, 0.2 and 0.3 (0.6 by TOTAL, 0.6000000000000001 by a plain sum).
	for i, c := range []float64{0.1, 0.2, 0.3} {
		a := imp
		a.ID, a.Title, a.Source, a.Model = "cost"+string(rune('0'+i)), nil, "costs", ptr1("priced")
		a.InputTokens, a.OutputTokens, a.EstimatedCostUSD, a.ActualCostUSD = sqlnum.IntOf(1), sqlnum.IntOf(1), sqlnum.RealOf(c), sqlnum.RealOf(c)
		run1(p, "SessionImport", a.ID,
			func() (struct{}, error) { return struct{}{}, x.SessionImport(ctx, s, a) },
			func() (struct{}, error) { return struct{}{}, y.SessionImport(ctx, g, pgdb.SessionImportParams(a)) })
	}
	byModel := run1(p, "SessionTokenStatsByModel", "all",
		func() ([]db.SessionTokenStatsByModelRow, error) { return x.SessionTokenStatsByModel(ctx, s) },
		func() ([]db.SessionTokenStatsByModelRow, error) {
			return rows1(func(r pgdb.SessionTokenStatsByModelRow) db.SessionTokenStatsByModelRow {
				return db.SessionTokenStatsByModelRow(r)
			})(y.SessionTokenStatsByModel(ctx, g))
		})
	totals := map[string]int64{}
	for _, r := range byModel {
		totals[r.Model] = r.TotalInput
	}
	want1(t, "clamped and rounded totals", []int64{totals["huge"], totals["m53"]}, []int64{math.MaxInt64, 1 << 53})
	for _, r := range byModel {
		if r.Model == "priced" {
			want1(t, "compensated cost total", r.TotalCost, 0.6)
		}
	}
	run1(p, "SessionTokenStatsBySource", "all",
		func() ([]db.SessionTokenStatsBySourceRow, error) { return x.SessionTokenStatsBySource(ctx, s) },
		func() ([]db.SessionTokenStatsBySourceRow, error) {
			return rows1(func(r pgdb.SessionTokenStatsBySourceRow) db.SessionTokenStatsBySourceRow {
				return db.SessionTokenStatsBySourceRow(r)
			})(y.SessionTokenStatsBySource(ctx, g))
		})
	all := run1(p, "SessionTopByTokens", "no limit",
		func() ([]db.SessionTopByTokensRow, error) { return x.SessionTopByTokens(ctx, s, -1) },
		func() ([]db.SessionTopByTokensRow, error) {
			return rows1(func(r pgdb.SessionTopByTokensRow) db.SessionTopByTokensRow { return db.SessionTopByTokensRow(r) })(y.SessionTopByTokens(ctx, g, -1))
		})
	want1(t, "SessionTopByTokens with a negative limit lists every session", len(all) > 20, true)
	top := run1(p, "SessionTopByTokens", "4",
		func() ([]db.SessionTopByTokensRow, error) { return x.SessionTopByTokens(ctx, s, 4) },
		func() ([]db.SessionTopByTokensRow, error) {
			return rows1(func(r pgdb.SessionTopByTokensRow) db.SessionTopByTokensRow { return db.SessionTopByTokensRow(r) })(y.SessionTopByTokens(ctx, g, 4))
		})
	if len(top) > 0 {
		want1(t, "SessionTopByTokens clamps", []any{top[0].ID, top[0].TotalTokens}, []any{"imp", int64(math.MaxInt64)})
	}

	// --- per-route usage.
	record := func(a db.UsageRecordParams) {
		run1(p, "UsageRecord", a.Model,
			func() (struct{}, error) { return struct{}{}, x.UsageRecord(ctx, s, a) },
			func() (struct{}, error) { return struct{}{}, y.UsageRecord(ctx, g, pgdb.UsageRecordParams(a)) })
	}
	u := db.UsageRecordParams{SessionID: "alpha", Model: "gpt", BillingProvider: "openai", APICallCount: sqlnum.IntOf(1),
		InputTokens: sqlnum.IntOf(4), OutputTokens: sqlnum.IntOf(5), CacheReadTokens: sqlnum.IntOf(1), CacheWriteTokens: sqlnum.IntOf(1),
		ReasoningTokens: sqlnum.IntOf(2), EstimatedCostUSD: sqlnum.RealOf(0.25), ActualCostUSD: sqlnum.RealOf(0.125),
		CostStatus: ptr1("ok"), Now: sqlnum.RealOf(110)}
	record(u)
	u.CostStatus, u.CostSource, u.Now = nil, ptr1("api"), sqlnum.RealOf(120)
	record(u)
	record(db.UsageRecordParams{SessionID: "alpha", Model: "", BillingMode: "x", APICallCount: sqlnum.IntOf(1), InputTokens: sqlnum.IntOf(1),
		OutputTokens: sqlnum.IntOf(1), CacheReadTokens: sqlnum.IntOf(0), CacheWriteTokens: sqlnum.IntOf(0), ReasoningTokens: sqlnum.IntOf(0),
		EstimatedCostUSD: sqlnum.RealOf(0), ActualCostUSD: sqlnum.RealOf(0), Now: sqlnum.Real{}})
	record(db.UsageRecordParams{SessionID: "alpha", Model: "a-first", APICallCount: sqlnum.IntOf(1), InputTokens: sqlnum.IntOf(1),
		OutputTokens: sqlnum.IntOf(1), CacheReadTokens: sqlnum.IntOf(0), CacheWriteTokens: sqlnum.IntOf(0), ReasoningTokens: sqlnum.IntOf(0),
		EstimatedCostUSD: sqlnum.RealOf(0), ActualCostUSD: sqlnum.RealOf(0), Now: sqlnum.RealOf(110)})
	uc := db.UsageCountersParams{SessionID: "alpha", Model: "gpt", BillingProvider: "openai"}
	want1(t, "UsageCounters", run1(p, "UsageCounters", "gpt",
		func() (db.UsageCountersRow, error) { return x.UsageCounters(ctx, s, uc) },
		func() (db.UsageCountersRow, error) {
			r, err := y.UsageCounters(ctx, g, pgdb.UsageCountersParams(uc))
			return db.UsageCountersRow(r), err
		}),
		db.UsageCountersRow{APICallCount: sqlnum.IntOf(2), InputTokens: sqlnum.IntOf(8), OutputTokens: sqlnum.IntOf(10),
			CacheReadTokens: sqlnum.IntOf(2), CacheWriteTokens: sqlnum.IntOf(2), ReasoningTokens: sqlnum.IntOf(4)})
	uc.Model = "none"
	noRow1(p, "UsageCounters", "no route",
		func() (db.UsageCountersRow, error) { return x.UsageCounters(ctx, s, uc) },
		func() (pgdb.UsageCountersRow, error) { return y.UsageCounters(ctx, g, pgdb.UsageCountersParams(uc)) })
	usage := run1(p, "UsageOfSession", "alpha",
		func() ([]db.SessionModelUsage, error) { return x.UsageOfSession(ctx, s, "alpha") },
		func() ([]db.SessionModelUsage, error) {
			return rows1(func(r pgdb.SessionModelUsage) db.SessionModelUsage { return db.SessionModelUsage(r) })(y.UsageOfSession(ctx, g, "alpha"))
		})
	var order []string
	for _, r := range usage {
		order = append(order, r.Model)
	}
	want1(t, "UsageOfSession order (NULL first_seen first)", order, []string{"", "a-first", "gpt"})
	if len(usage) == 3 {
		want1(t, "UsageRecord sums", []any{usage[2].EstimatedCostUSD, usage[2].CostStatus, usage[2].CostSource, usage[2].FirstSeen, usage[2].LastSeen},
			[]any{sqlnum.RealOf(0.5), ptr1("ok"), ptr1("api"), sqlnum.RealOf(110), sqlnum.RealOf(120)})
	}
	for _, a := range []db.UsageByModelParams{{}, {Since: ptr1(150.0)}, {Source: ptr1("cli")}, {Since: ptr1(100.0), Source: ptr1("bulk")}} {
		run1(p, "UsageByModel", "filter",
			func() ([]db.UsageByModelRow, error) { return x.UsageByModel(ctx, s, a) },
			func() ([]db.UsageByModelRow, error) {
				return rows1(func(r pgdb.UsageByModelRow) db.UsageByModelRow { return db.UsageByModelRow(r) })(y.UsageByModel(ctx, g, pgdb.UsageByModelParams(a)))
			})
	}
	costs := run1(p, "UsageByModel", "costs",
		func() ([]db.UsageByModelRow, error) {
			return x.UsageByModel(ctx, s, db.UsageByModelParams{Source: ptr1("costs")})
		},
		func() ([]db.UsageByModelRow, error) {
			return rows1(func(r pgdb.UsageByModelRow) db.UsageByModelRow { return db.UsageByModelRow(r) })(y.UsageByModel(ctx, g, pgdb.UsageByModelParams{Source: ptr1("costs")}))
		})
	want1(t, "UsageByModel compensated costs", costs, []db.UsageByModelRow{{Model: "priced", SessionCount: 3, APICallCount: 27,
		InputTokens: 3, OutputTokens: 3, CacheReadTokens: 18, CacheWriteTokens: 21, EstimatedCostUSD: 0.6, ActualCostUSD: 0.6}})
	cli := run1(p, "UsageByModel", "cli",
		func() ([]db.UsageByModelRow, error) {
			return x.UsageByModel(ctx, s, db.UsageByModelParams{Source: ptr1("cli")})
		},
		func() ([]db.UsageByModelRow, error) {
			return rows1(func(r pgdb.UsageByModelRow) db.UsageByModelRow { return db.UsageByModelRow(r) })(y.UsageByModel(ctx, g, pgdb.UsageByModelParams{Source: ptr1("cli")}))
		})
	for _, r := range cli {
		if r.Model == "gpt" {
			// alpha: its gpt row (2 calls, 8 in, 0.5) and its residual
			// beyond all three rows (4-4 calls, 16-10 in, 0.625-0.5).
			want1(t, "UsageByModel gpt", []any{r.SessionCount, r.APICallCount, r.InputTokens, r.EstimatedCostUSD},
				[]any{int64(1), int64(2), int64(14), 0.625})
		}
	}

	// --- cron runs.
	for i, id := range []string{"cron_job1_1000", "cron_job1_2000", "cron_job10_5", "cron_xjob1_1", "cron_job1_3000"} {
		src := "cron"
		if i == 4 {
			src = "cli"
		}
		create(db.SessionCreateParams{ID: id, Source: src, StartedAt: sqlnum.RealOf(1000 + float64(i))})
	}
	p.message1("cron_job1_1000", "assistant", ptr1("not a preview"), nil, 1000.5, 0)
	p.message1("cron_job1_1000", "user", ptr1("line1\nline2\r"+strings.Repeat("é", 100)), nil, 1001, 0)
	p.message1("cron_job1_1000", "user", ptr1("later"), nil, 1002, 0)
	var runs []db.SessionCronRunsRow
	for _, a := range []db.SessionCronRunsParams{
		{IDFrom: "cron_job1_", IDTo: "cron_job1`", Limit: -1},
		{IDFrom: "cron_job1_", IDTo: "cron_job1`", Limit: 10, Offset: -1},
		{IDFrom: "cron_job1_", IDTo: "cron_job1`", Limit: 1, Offset: 1},
	} {
		runs = run1(p, "SessionCronRuns", "job1",
			func() ([]db.SessionCronRunsRow, error) { return x.SessionCronRuns(ctx, s, a) },
			func() ([]db.SessionCronRunsRow, error) {
				return rows1(cronRow1)(y.SessionCronRuns(ctx, g, pgdb.SessionCronRunsParams(a)))
			})
		if a.Limit == -1 {
			var ids []string
			for _, r := range runs {
				ids = append(ids, r.Session.ID)
			}
			want1(t, "SessionCronRuns, every run of job1", ids, []string{"cron_job1_2000", "cron_job1_1000"})
		}
	}
	want1(t, "SessionCronRuns page 2", len(runs), 1)
	if len(runs) == 1 {
		want1(t, "SessionCronRuns preview", []any{runs[0].Session.ID, runs[0].PreviewRaw, runs[0].LastActive},
			[]any{"cron_job1_1000", "line1 line2 " + strings.Repeat("é", 51), 1002.0})
	}

	// --- handoff.
	hreq := func(id string) int64 {
		a := db.HandoffRequestParams{Platform: ptr1("tg"), ID: id}
		return execrows("HandoffRequest", id,
			func() (int64, error) { return x.HandoffRequest(ctx, s, a) },
			func() (int64, error) { return y.HandoffRequest(ctx, g, pgdb.HandoffRequestParams(a)) })
	}
	claim := func(id string) int64 {
		return execrows("HandoffClaim", id,
			func() (int64, error) { return x.HandoffClaim(ctx, s, id) },
			func() (int64, error) { return y.HandoffClaim(ctx, g, id) })
	}
	want1(t, "HandoffRequest", []int64{hreq("alpha"), hreq("alpha"), hreq("imp"), hreq("beta"), hreq("nope")}, []int64{1, 0, 1, 1, 0})
	pending := run1(p, "HandoffListPending", "three",
		func() ([]db.Session, error) { return x.HandoffListPending(ctx, s) },
		func() ([]db.Session, error) {
			return rows1(func(r pgdb.Session) db.Session { return db.Session(r) })(y.HandoffListPending(ctx, g))
		})
	var pendingIDs []string
	for _, r := range pending {
		pendingIDs = append(pendingIDs, r.ID)
	}
	want1(t, "HandoffListPending", pendingIDs, []string{"alpha", "beta", "imp"})
	want1(t, "HandoffClaim", []int64{claim("alpha"), claim("alpha")}, []int64{1, 0})
	execrows("HandoffComplete", "alpha",
		func() (int64, error) { return x.HandoffComplete(ctx, s, "alpha") },
		func() (int64, error) { return y.HandoffComplete(ctx, g, "alpha") })
	hf := db.HandoffFailParams{Error: ptr1("gone"), ID: "beta"}
	execrows("HandoffFail", "beta",
		func() (int64, error) { return x.HandoffFail(ctx, s, hf) },
		func() (int64, error) { return y.HandoffFail(ctx, g, pgdb.HandoffFailParams(hf)) })
	for id, want := range map[string]db.HandoffGetRow{
		"alpha": {HandoffState: ptr1("completed"), HandoffPlatform: ptr1("tg")},
		"beta":  {HandoffState: ptr1("failed"), HandoffPlatform: ptr1("tg"), HandoffError: ptr1("gone")},
	} {
		want1(t, "HandoffGet "+id, run1(p, "HandoffGet", id,
			func() (db.HandoffGetRow, error) { return x.HandoffGet(ctx, s, id) },
			func() (db.HandoffGetRow, error) { r, err := y.HandoffGet(ctx, g, id); return db.HandoffGetRow(r), err }), want)
	}

	// --- compression locks: expires_at == now is still held.
	lockInsert := func(holder string) int64 {
		a := db.CompressionLockInsertParams{SessionID: "alpha", Holder: holder, AcquiredAt: sqlnum.RealOf(10), ExpiresAt: sqlnum.RealOf(20)}
		return execrows("CompressionLockInsert", holder,
			func() (int64, error) { return x.CompressionLockInsert(ctx, s, a) },
			func() (int64, error) { return y.CompressionLockInsert(ctx, g, pgdb.CompressionLockInsertParams(a)) })
	}
	holder := func(now float64) {
		a := db.CompressionLockHolderParams{SessionID: "alpha", Now: sqlnum.RealOf(now)}
		sq := func() (string, error) { return x.CompressionLockHolder(ctx, s, a) }
		pg := func() (string, error) { return y.CompressionLockHolder(ctx, g, pgdb.CompressionLockHolderParams(a)) }
		if now > 30 {
			noRow1(p, "CompressionLockHolder", "expired", sq, pg)
			return
		}
		want1(t, "CompressionLockHolder", run1(p, "CompressionLockHolder", "held", sq, pg), "h1")
	}
	refresh := func(h string, now float64) int64 {
		a := db.CompressionLockRefreshParams{ExpiresAt: sqlnum.RealOf(30), SessionID: "alpha", Holder: h, Now: sqlnum.RealOf(now)}
		return execrows("CompressionLockRefresh", h,
			func() (int64, error) { return x.CompressionLockRefresh(ctx, s, a) },
			func() (int64, error) { return y.CompressionLockRefresh(ctx, g, pgdb.CompressionLockRefreshParams(a)) })
	}
	deleteExpired := func(now float64) int64 {
		a := db.CompressionLockDeleteExpiredParams{SessionID: "alpha", Now: sqlnum.RealOf(now)}
		return execrows("CompressionLockDeleteExpired", "alpha",
			func() (int64, error) { return x.CompressionLockDeleteExpired(ctx, s, a) },
			func() (int64, error) {
				return y.CompressionLockDeleteExpired(ctx, g, pgdb.CompressionLockDeleteExpiredParams(a))
			})
	}
	release := func(h string) int64 {
		a := db.CompressionLockReleaseParams{SessionID: "alpha", Holder: h}
		return execrows("CompressionLockRelease", h,
			func() (int64, error) { return x.CompressionLockRelease(ctx, s, a) },
			func() (int64, error) { return y.CompressionLockRelease(ctx, g, pgdb.CompressionLockReleaseParams(a)) })
	}
	noExpiry := db.CompressionLockInsertParams{SessionID: "alpha", Holder: "h0", AcquiredAt: sqlnum.RealOf(10)}
	want1(t, "CompressionLockInsert without an expiry (OR IGNORE skips it)", execrows("CompressionLockInsert", "no expiry",
		func() (int64, error) { return x.CompressionLockInsert(ctx, s, noExpiry) },
		func() (int64, error) {
			return y.CompressionLockInsert(ctx, g, pgdb.CompressionLockInsertParams(noExpiry))
		}), int64(0))
	want1(t, "CompressionLockInsert", []int64{lockInsert("h1"), lockInsert("h2")}, []int64{1, 0})
	want1(t, "CompressionLockOwner", run1(p, "CompressionLockOwner", "alpha",
		func() (string, error) { return x.CompressionLockOwner(ctx, s, "alpha") },
		func() (string, error) { return y.CompressionLockOwner(ctx, g, "alpha") }), "h1")
	noRow1(p, "CompressionLockOwner", "no lock",
		func() (string, error) { return x.CompressionLockOwner(ctx, s, "beta") },
		func() (string, error) { return y.CompressionLockOwner(ctx, g, "beta") })
	holder(20)
	want1(t, "CompressionLockRefresh", []int64{refresh("h2", 19), refresh("h1", 20), refresh("h1", 30.5)}, []int64{0, 1, 0})
	holder(30)
	holder(30.5)
	want1(t, "CompressionLockDeleteExpired", []int64{deleteExpired(30), deleteExpired(30.5)}, []int64{0, 1})
	want1(t, "CompressionLock again", []int64{lockInsert("h1"), release("h2"), release("h1"), release("h1")}, []int64{1, 0, 1, 0})
	for _, a := range []db.CompressionCooldownSetParams{{CooldownUntil: sqlnum.RealOf(99.5), Error: ptr1("boom"), ID: "alpha"}, {ID: "Alpine"}} {
		execrows("CompressionCooldownSet", a.ID,
			func() (int64, error) { return x.CompressionCooldownSet(ctx, s, a) },
			func() (int64, error) { return y.CompressionCooldownSet(ctx, g, pgdb.CompressionCooldownSetParams(a)) })
	}
	want1(t, "CompressionCooldownGet", run1(p, "CompressionCooldownGet", "alpha",
		func() (db.CompressionCooldownGetRow, error) { return x.CompressionCooldownGet(ctx, s, "alpha") },
		func() (db.CompressionCooldownGetRow, error) {
			r, err := y.CompressionCooldownGet(ctx, g, "alpha")
			return db.CompressionCooldownGetRow(r), err
		}), db.CompressionCooldownGetRow{CompressionFailureCooldownUntil: sqlnum.RealOf(99.5), CompressionFailureError: ptr1("boom")})
	run1(p, "CompressionCooldownGet", "cleared",
		func() (db.CompressionCooldownGetRow, error) { return x.CompressionCooldownGet(ctx, s, "Alpine") },
		func() (db.CompressionCooldownGetRow, error) {
			r, err := y.CompressionCooldownGet(ctx, g, "Alpine")
			return db.CompressionCooldownGetRow(r), err
		})
	streak := db.CompressionStreakSetParams{Streak: sqlnum.IntOf(3), ID: "alpha"}
	execrows("CompressionStreakSet", "alpha",
		func() (int64, error) { return x.CompressionStreakSet(ctx, s, streak) },
		func() (int64, error) { return y.CompressionStreakSet(ctx, g, pgdb.CompressionStreakSetParams(streak)) })
	want1(t, "CompressionStreakGet", run1(p, "CompressionStreakGet", "alpha",
		func() (sqlnum.Int, error) { return x.CompressionStreakGet(ctx, s, "alpha") },
		func() (sqlnum.Int, error) { return y.CompressionStreakGet(ctx, g, "alpha") }), sqlnum.IntOf(3))
	noRow1(p, "CompressionStreakGet", "missing",
		func() (sqlnum.Int, error) { return x.CompressionStreakGet(ctx, s, "nope") },
		func() (sqlnum.Int, error) { return y.CompressionStreakGet(ctx, g, "nope") })

	// --- empty sessions and deletes.
	for i, id := range []string{"e2", "e1", "e3"} {
		create(db.SessionCreateParams{ID: id, Source: "cli", StartedAt: sqlnum.RealOf(2000)})
		if i < 2 {
			e := db.SessionEndParams{EndedAt: sqlnum.RealOf(2001), EndReason: ptr1("x"), ID: id}
			execrows("SessionEnd", id,
				func() (int64, error) { return x.SessionEnd(ctx, s, e) },
				func() (int64, error) { return y.SessionEnd(ctx, g, pgdb.SessionEndParams(e)) })
		}
	}
	empty := run1(p, "SessionEmptyIDs", "all",
		func() ([]string, error) { return x.SessionEmptyIDs(ctx, s) },
		func() ([]string, error) { return y.SessionEmptyIDs(ctx, g) })
	count := run1(p, "SessionCountEmpty", "all",
		func() (int64, error) { return x.SessionCountEmpty(ctx, s) },
		func() (int64, error) { return y.SessionCountEmpty(ctx, g) })
	want1(t, "SessionCountEmpty", count, int64(len(empty)))
	want1(t, "SessionEmptyIDs (the two ended at 2000, by id)", empty[len(empty)-2:], []string{"e1", "e2"})
	for id, want := range map[string]int64{"e3": 1, "beta": 0, "alpha": 0, "c3": 0} {
		want1(t, "SessionDeleteIfEmpty "+id, execrows("SessionDeleteIfEmpty", id,
			func() (int64, error) { return x.SessionDeleteIfEmpty(ctx, s, id) },
			func() (int64, error) { return y.SessionDeleteIfEmpty(ctx, g, id) }), want)
	}
	want1(t, "SessionOrphanChildren", execrows("SessionOrphanChildren", "alpha",
		func() (int64, error) { return x.SessionOrphanChildren(ctx, s, ptr1("alpha")) },
		func() (int64, error) { return y.SessionOrphanChildren(ctx, g, ptr1("alpha")) }), int64(2))
	p.fixture1("DELETE FROM messages WHERE session_id = ?", "DELETE FROM messages WHERE session_id = $1", "alpha")
	want1(t, "SessionDelete", execrows("SessionDelete", "alpha",
		func() (int64, error) { return x.SessionDelete(ctx, s, "alpha") },
		func() (int64, error) { return y.SessionDelete(ctx, g, "alpha") }), int64(1))
	noRow1(p, "SessionGet", "deleted",
		func() (db.Session, error) { return x.SessionGet(ctx, s, "alpha") },
		func() (pgdb.Session, error) { return y.SessionGet(ctx, g, "alpha") })
	run1(p, "UsageOfSession", "cascaded",
		func() ([]db.SessionModelUsage, error) { return x.UsageOfSession(ctx, s, "alpha") },
		func() ([]db.SessionModelUsage, error) {
			return rows1(func(r pgdb.SessionModelUsage) db.SessionModelUsage { return db.SessionModelUsage(r) })(y.UsageOfSession(ctx, g, "alpha"))
		})

	// Every session row, compared last: what all the writes left.
	for _, id := range []string{"éa", "al_x", "Alpine", "child1", "beta", "imp", "da", "c1", "c2", "c3", "cron_job1_1000", "e1", "e2", "big0", "big2"} {
		getSession(id)
	}

	// Every query of the seven files ran.
	for _, f := range []string{"sessions", "titles", "stats", "usage", "cron", "handoff", "locks"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "queries", "postgres", f+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`-- name: (\w+)`).FindAllStringSubmatch(string(b), -1) {
			if !p.seen[m[1]] {
				t.Errorf("%s.sql: %s was not compared", f, m[1])
			}
		}
	}
}
