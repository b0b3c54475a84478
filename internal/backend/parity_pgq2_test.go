package backend_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/hermesstate/hermesstate/db"
	pgdb "github.com/hermesstate/hermesstate/db/postgres"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// The twins of queries/sqlite/{listing,lineage,delegations,gateway,prune,
// health}.sql in queries/postgres must generate param and row structs that
// convert to db/'s by Go struct conversion, both ways, and scalar params
// and results of the same Go types: these lines compile only while they
// do.
var (
	// listing.sql
	_ = pgdb.SessionListRichParams(db.SessionListRichParams{})
	_ = db.SessionListRichParams(pgdb.SessionListRichParams{})
	_ = pgdb.SessionListRichChainParams(db.SessionListRichChainParams{})
	_ = db.SessionListRichChainParams(pgdb.SessionListRichChainParams{})
	_ = pgdb.SessionCountListedParams(db.SessionCountListedParams{})
	_ = db.SessionCountListedParams(pgdb.SessionCountListedParams{})
	_ = db.SessionDistinctCwdsRow(pgdb.SessionDistinctCwdsRow{})
	_ = pgdb.SessionDistinctCwdsRow(db.SessionDistinctCwdsRow{})
	// lineage.sql
	_ = db.SessionAncestorsRow(pgdb.SessionAncestorsRow{})
	_ = pgdb.SessionAncestorsRow(db.SessionAncestorsRow{})
	_ = db.SessionDescendantsRow(pgdb.SessionDescendantsRow{})
	_ = pgdb.SessionDescendantsRow(db.SessionDescendantsRow{})
	_ = db.SessionResumeWalkRow(pgdb.SessionResumeWalkRow{})
	_ = pgdb.SessionResumeWalkRow(db.SessionResumeWalkRow{})
	// delegations.sql (rows are the AsyncDelegation model)
	_ = db.AsyncDelegation(pgdb.AsyncDelegation{})
	_ = pgdb.AsyncDelegation(db.AsyncDelegation{})
	_ = pgdb.DelegationDispatchParams(db.DelegationDispatchParams{})
	_ = db.DelegationDispatchParams(pgdb.DelegationDispatchParams{})
	_ = pgdb.DelegationCompleteParams(db.DelegationCompleteParams{})
	_ = db.DelegationCompleteParams(pgdb.DelegationCompleteParams{})
	_ = pgdb.DelegationClaimParams(db.DelegationClaimParams{})
	_ = db.DelegationClaimParams(pgdb.DelegationClaimParams{})
	_ = pgdb.DelegationReleaseParams(db.DelegationReleaseParams{})
	_ = db.DelegationReleaseParams(pgdb.DelegationReleaseParams{})
	_ = pgdb.DelegationCompleteDeliveryParams(db.DelegationCompleteDeliveryParams{})
	_ = db.DelegationCompleteDeliveryParams(pgdb.DelegationCompleteDeliveryParams{})
	_ = pgdb.DelegationMarkDeliveredParams(db.DelegationMarkDeliveredParams{})
	_ = db.DelegationMarkDeliveredParams(pgdb.DelegationMarkDeliveredParams{})
	_ = pgdb.DelegationMarkUnknownParams(db.DelegationMarkUnknownParams{})
	_ = db.DelegationMarkUnknownParams(pgdb.DelegationMarkUnknownParams{})
	// gateway.sql (GatewayLatestBy* return the Session model)
	_ = db.Session(pgdb.Session{})
	_ = pgdb.Session(db.Session{})
	_ = pgdb.GatewayRecordPeerParams(db.GatewayRecordPeerParams{})
	_ = db.GatewayRecordPeerParams(pgdb.GatewayRecordPeerParams{})
	_ = pgdb.GatewaySetExpiryFinalizedParams(db.GatewaySetExpiryFinalizedParams{})
	_ = db.GatewaySetExpiryFinalizedParams(pgdb.GatewaySetExpiryFinalizedParams{})
	_ = pgdb.GatewayRoutingUpsertParams(db.GatewayRoutingUpsertParams{})
	_ = db.GatewayRoutingUpsertParams(pgdb.GatewayRoutingUpsertParams{})
	_ = pgdb.GatewayRoutingInsertParams(db.GatewayRoutingInsertParams{})
	_ = db.GatewayRoutingInsertParams(pgdb.GatewayRoutingInsertParams{})
	_ = pgdb.GatewayRoutingDeleteParams(db.GatewayRoutingDeleteParams{})
	_ = db.GatewayRoutingDeleteParams(pgdb.GatewayRoutingDeleteParams{})
	_ = db.GatewayRoutingLoadRow(pgdb.GatewayRoutingLoadRow{})
	_ = pgdb.GatewayRoutingLoadRow(db.GatewayRoutingLoadRow{})
	_ = pgdb.GatewaySessionListParams(db.GatewaySessionListParams{})
	_ = db.GatewaySessionListParams(pgdb.GatewaySessionListParams{})
	_ = pgdb.GatewayOriginCandidatesParams(db.GatewayOriginCandidatesParams{})
	_ = db.GatewayOriginCandidatesParams(pgdb.GatewayOriginCandidatesParams{})
	_ = db.GatewayOriginCandidatesRow(pgdb.GatewayOriginCandidatesRow{})
	_ = pgdb.GatewayOriginCandidatesRow(db.GatewayOriginCandidatesRow{})
	_ = pgdb.GatewayLatestByKeyParams(db.GatewayLatestByKeyParams{})
	_ = db.GatewayLatestByKeyParams(pgdb.GatewayLatestByKeyParams{})
	_ = pgdb.GatewayLatestByPeerParams(db.GatewayLatestByPeerParams{})
	_ = db.GatewayLatestByPeerParams(pgdb.GatewayLatestByPeerParams{})
	// prune.sql
	_ = pgdb.SessionPruneCandidatesParams(db.SessionPruneCandidatesParams{})
	_ = db.SessionPruneCandidatesParams(pgdb.SessionPruneCandidatesParams{})
	_ = pgdb.SessionFinalizeOrphanedCompressionParams(db.SessionFinalizeOrphanedCompressionParams{})
	_ = db.SessionFinalizeOrphanedCompressionParams(pgdb.SessionFinalizeOrphanedCompressionParams{})
	_ = pgdb.SessionSetArchivedParams(db.SessionSetArchivedParams{})
	_ = db.SessionSetArchivedParams(pgdb.SessionSetArchivedParams{})
	// health.sql
	_ = db.HealthCounterMismatchesRow(pgdb.HealthCounterMismatchesRow{})
	_ = pgdb.HealthCounterMismatchesRow(db.HealthCounterMismatchesRow{})
	_ = db.HealthBadSessionValuesRow(pgdb.HealthBadSessionValuesRow{})
	_ = pgdb.HealthBadSessionValuesRow(db.HealthBadSessionValuesRow{})
	_ = db.HealthBadMessageValuesRow(pgdb.HealthBadMessageValuesRow{})
	_ = pgdb.HealthBadMessageValuesRow(db.HealthBadMessageValuesRow{})
)

// The rows of the four sqlc.embed queries hold db.Session on one side
// and pgdb.Session on the other, two named types: no struct conversion
// takes one row to the other (Go wants identical field types), so these
// convert the Session field by struct conversion and copy the rest
// (TestPGQ2EmbedRows checks that nothing else differs). The seam's
// generator must do the same for every embed row.
func listRow2(r pgdb.SessionListRichRow) db.SessionListRichRow {
	return db.SessionListRichRow{Session: db.Session(r.Session), PreviewRaw: r.PreviewRaw, LastActive: r.LastActive}
}

func listRowPG2(r db.SessionListRichRow) pgdb.SessionListRichRow {
	return pgdb.SessionListRichRow{Session: pgdb.Session(r.Session), PreviewRaw: r.PreviewRaw, LastActive: r.LastActive}
}

func byRowIDRow2(r pgdb.SessionRichRowsByRowIDRow) db.SessionRichRowsByRowIDRow {
	return db.SessionRichRowsByRowIDRow{Session: db.Session(r.Session), PreviewRaw: r.PreviewRaw, LastActive: r.LastActive}
}

func byRowIDRowPG2(r db.SessionRichRowsByRowIDRow) pgdb.SessionRichRowsByRowIDRow {
	return pgdb.SessionRichRowsByRowIDRow{Session: pgdb.Session(r.Session), PreviewRaw: r.PreviewRaw, LastActive: r.LastActive}
}

func richRow2(r pgdb.SessionRichRowRow) db.SessionRichRowRow {
	return db.SessionRichRowRow{Session: db.Session(r.Session), PreviewRaw: r.PreviewRaw, LastActive: r.LastActive}
}

func richRowPG2(r db.SessionRichRowRow) pgdb.SessionRichRowRow {
	return pgdb.SessionRichRowRow{Session: pgdb.Session(r.Session), PreviewRaw: r.PreviewRaw, LastActive: r.LastActive}
}

func gatewayRow2(r pgdb.GatewaySessionListRow) db.GatewaySessionListRow {
	return db.GatewaySessionListRow{Session: db.Session(r.Session), LastActive: r.LastActive}
}

func gatewayRowPG2(r db.GatewaySessionListRow) pgdb.GatewaySessionListRow {
	return pgdb.GatewaySessionListRow{Session: pgdb.Session(r.Session), LastActive: r.LastActive}
}

// TestPGQ2EmbedRows checks that each embed row has the same fields, in
// the same order, of the same types on both engines but for Session
// (db.Session and pgdb.Session, which convert).
func TestPGQ2EmbedRows(t *testing.T) {
	var (
		_ = listRowPG2
		_ = byRowIDRowPG2
		_ = richRowPG2
		_ = gatewayRowPG2
	)
	pairs := [][2]any{
		{db.SessionListRichRow{}, pgdb.SessionListRichRow{}},
		{db.SessionRichRowsByRowIDRow{}, pgdb.SessionRichRowsByRowIDRow{}},
		{db.SessionRichRowRow{}, pgdb.SessionRichRowRow{}},
		{db.GatewaySessionListRow{}, pgdb.GatewaySessionListRow{}},
	}
	session, pgSession := reflect.TypeOf(db.Session{}), reflect.TypeOf(pgdb.Session{})
	for _, p := range pairs {
		l, g := reflect.TypeOf(p[0]), reflect.TypeOf(p[1])
		if l.NumField() != g.NumField() {
			t.Errorf("%s: %d fields on SQLite, %d on PostgreSQL", l.Name(), l.NumField(), g.NumField())
			continue
		}
		for i := range l.NumField() {
			lf, gf := l.Field(i), g.Field(i)
			sameType := lf.Type == gf.Type || (lf.Type == session && gf.Type == pgSession)
			if lf.Name != gf.Name || !sameType {
				t.Errorf("%s field %d: %s %s on SQLite, %s %s on PostgreSQL", l.Name(), i, lf.Name, lf.Type, gf.Name, gf.Type)
			}
		}
	}
}

// sameArg2 compiles only when both engines' methods take the same single
// parameter type A and return the same R.
func sameArg2[A, R any](func(context.Context, db.DBTX, A) (R, error), func(context.Context, pgdb.DBTX, A) (R, error)) {
}

// sameArgRows2 compiles only when both engines' methods take the same
// single parameter type A (their rows convert, see above).
func sameArgRows2[A, LR, PR any](func(context.Context, db.DBTX, A) (LR, error), func(context.Context, pgdb.DBTX, A) (PR, error)) {
}

// sameNoArgRows2 compiles only when both engines' methods take no
// parameter (their rows convert, see above).
func sameNoArgRows2[LR, PR any](func(context.Context, db.DBTX) (LR, error), func(context.Context, pgdb.DBTX) (PR, error)) {
}

// sameResult2 compiles only when both engines' methods (a params struct
// each, checked by conversion above) return the same R.
func sameResult2[LA, PA, R any](func(context.Context, db.DBTX, LA) (R, error), func(context.Context, pgdb.DBTX, PA) (R, error)) {
}

// sameNoArg2 compiles only when both engines' parameterless methods return
// the same R.
func sameNoArg2[R any](func(context.Context, db.DBTX) (R, error), func(context.Context, pgdb.DBTX) (R, error)) {
}

// sameExec2 compiles only when both engines' :exec methods exist with a
// params struct each.
func sameExec2[LA, PA any](func(context.Context, db.DBTX, LA) error, func(context.Context, pgdb.DBTX, PA) error) {
}

// TestPGQ2Signatures pins each query's kind and scalar types on both
// engines (compile-time: it has nothing to run), for the queries whose
// params or results are no struct of their own.
func TestPGQ2Signatures(t *testing.T) {
	l, p := db.New(), pgdb.New()
	// listing.sql
	sameResult2(l.SessionListRichChain, p.SessionListRichChain) // []interface{}
	sameArgRows2(l.SessionRichRowsByRowID, p.SessionRichRowsByRowID)
	sameResult2(l.SessionCountListed, p.SessionCountListed)
	sameArgRows2(l.SessionDistinctCwds, p.SessionDistinctCwds)
	sameArgRows2(l.SessionRichRow, p.SessionRichRow)
	// lineage.sql
	sameArg2(l.SessionCompressionWalk, p.SessionCompressionWalk)
	sameArg2(l.SessionCompressionAncestors, p.SessionCompressionAncestors)
	sameArgRows2(l.SessionAncestors, p.SessionAncestors)
	sameArgRows2(l.SessionDescendants, p.SessionDescendants)
	sameArgRows2(l.SessionResumeWalk, p.SessionResumeWalk)
	// delegations.sql
	sameExec2(l.DelegationDispatch, p.DelegationDispatch)
	sameResult2(l.DelegationComplete, p.DelegationComplete)
	sameArg2(l.DelegationExists, p.DelegationExists)
	sameResult2(l.DelegationClaim, p.DelegationClaim)
	sameResult2(l.DelegationRelease, p.DelegationRelease)
	sameResult2(l.DelegationCompleteDelivery, p.DelegationCompleteDelivery)
	sameResult2(l.DelegationMarkDelivered, p.DelegationMarkDelivered)
	sameArg2(l.DelegationDelete, p.DelegationDelete)
	sameResult2(l.DelegationMarkUnknown, p.DelegationMarkUnknown)
	sameArg2(l.DelegationPruneDelivered, p.DelegationPruneDelivered)
	sameNoArg2(l.DelegationCountTerminal, p.DelegationCountTerminal)
	sameArg2(l.DelegationPruneTerminal, p.DelegationPruneTerminal)
	sameNoArg2(l.DelegationCountPending, p.DelegationCountPending)
	sameArg2(l.DelegationPrunePending, p.DelegationPrunePending)
	sameArgRows2(l.DelegationGet, p.DelegationGet)
	sameNoArgRows2(l.DelegationInFlight, p.DelegationInFlight)
	sameNoArgRows2(l.DelegationList, p.DelegationList)
	sameNoArgRows2(l.DelegationUndelivered, p.DelegationUndelivered)
	// gateway.sql
	sameResult2(l.GatewayRecordPeer, p.GatewayRecordPeer)
	sameResult2(l.GatewaySetExpiryFinalized, p.GatewaySetExpiryFinalized)
	sameExec2(l.GatewayRoutingUpsert, p.GatewayRoutingUpsert)
	sameExec2(l.GatewayRoutingInsert, p.GatewayRoutingInsert)
	sameArg2(l.GatewayRoutingDeleteScope, p.GatewayRoutingDeleteScope)
	sameResult2(l.GatewayRoutingDelete, p.GatewayRoutingDelete)
	sameArgRows2(l.GatewayRoutingLoad, p.GatewayRoutingLoad)
	// prune.sql
	sameResult2(l.SessionPruneCandidates, p.SessionPruneCandidates)
	sameArg2(l.SessionGhostIDs, p.SessionGhostIDs)
	sameResult2(l.SessionFinalizeOrphanedCompression, p.SessionFinalizeOrphanedCompression)
	sameArg2(l.SessionArchiveLineage, p.SessionArchiveLineage)
	sameResult2(l.SessionSetArchived, p.SessionSetArchived)
	// health.sql
	sameNoArg2(l.HealthOrphanMessages, p.HealthOrphanMessages)
	sameNoArg2(l.HealthHasNULText, p.HealthHasNULText)
	sameNoArgRows2(l.HealthCounterMismatches, p.HealthCounterMismatches)
	sameNoArgRows2(l.HealthBadSessionValues, p.HealthBadSessionValues)
	sameNoArgRows2(l.HealthBadMessageValues, p.HealthBadMessageValues)
}

// rows2 converts each PostgreSQL row to db's type.
func rows2[P, L any](rows []P, conv func(P) L) []L {
	out := make([]L, len(rows))
	for i, r := range rows {
		out[i] = conv(r)
	}
	return out
}

// check2 fails the test unless both engines' values are want.
func check2[T any](t *testing.T, what string, want, lite, pg T, lerr, perr error) {
	t.Helper()
	if lerr != nil || perr != nil {
		t.Fatalf("%s: sqlite error %v, postgres error %v", what, lerr, perr)
	}
	if diff := cmp.Diff(want, lite); diff != "" {
		t.Errorf("%s on SQLite (-want +got):\n%s", what, diff)
	}
	if diff := cmp.Diff(want, pg); diff != "" {
		t.Errorf("%s on PostgreSQL (-want +got):\n%s", what, diff)
	}
}

// checkSame2 fails the test unless both engines' values are equal (for
// whole rows, whose expected parts check2 pins separately).
func checkSame2[T any](t *testing.T, what string, lite, pg T) {
	t.Helper()
	if diff := cmp.Diff(lite, pg); diff != "" {
		t.Errorf("%s (-sqlite +postgres):\n%s", what, diff)
	}
}

var _ = sqlnum.Int{}

func str2(s string) *string { return &s }
func int2(v int64) *int64   { return &v }
func real2(v float64) *float64 {
	return &v
}

// listingRows2 are the sessions and messages of the listing test: roots,
// /branch children (by marker and by a 'branched' parent), a delegate, an
// orphaned delegate (listed), a compression chain, a malformed
// model_config (no marker on either engine), an archived row, cwds in
// both cases and with backslashes, and a non-ASCII title and preview.
var listingRows2 = []string{
	`INSERT INTO sessions (id, source, started_at, ended_at, end_reason, parent_session_id, model_config, title, cwd, archived, message_count) VALUES
	('r1', 'cli', 100, 140, 'user_exit', NULL, NULL, 'Alpha Beta', '/Work/Proj', 0, 2),
	('r2', 'tui', 200, 250, 'compression', NULL, NULL, 'Gamma', '/work/proj/sub', 0, 1),
	('x1', 'cli', 180, NULL, NULL, NULL, 'not json', 'ÉCOLE', 'C:\Proj', 0, 3),
	('o1', 'tool', 170, NULL, NULL, NULL, '{"_delegate_from":"__orphaned__"}', NULL, 'C:\Proj\x', 0, 0),
	('a1', 'cli', 400, NULL, NULL, NULL, NULL, 'Archived one', '/work/proj', 1, 5),
	('p3', 'cli', 290, 300, 'branched', NULL, NULL, NULL, NULL, 0, 0)`,
	`INSERT INTO sessions (id, source, started_at, ended_at, end_reason, parent_session_id, model_config, title, cwd, archived, message_count) VALUES
	('c2', 'tui', 260, NULL, NULL, 'r2', NULL, 'Gamma-Delta #2', '/work/proj/sub', 0, 1),
	('b1', 'cli', 150, NULL, NULL, 'r1', '{"_branched_from":"r1"}', NULL, '/elsewhere', 0, 0),
	('d1', 'cli', 160, NULL, NULL, 'r1', '{"_delegate_from":"r1"}', NULL, NULL, 0, 0),
	('k1', 'cli', 170, NULL, NULL, 'r1', '{}', NULL, '  ', 0, 0),
	('q3', 'cli', 310, NULL, NULL, 'p3', NULL, NULL, NULL, 0, 0)`,
	"INSERT INTO messages (id, session_id, role, content, timestamp) VALUES " +
		"(1, 'r1', 'user', 'hello\nworld\rx', 101), (2, 'r1', 'assistant', 'hi', 105), " +
		"(3, 'r2', 'user', 'first', 201), (4, 'c2', 'user', 'continued', 300), " +
		"(5, 'x1', 'user', '" + strings.Repeat("é", 70) + "', 181), (6, 'x1', 'tool', NULL, 182), " +
		"(7, 'x1', 'user', 'second', 183)",
}

// TestPGQ2Listing runs listing.sql's queries on both engines over the same
// rows.
func TestPGQ2Listing(t *testing.T) {
	p := newPair2(t)
	p.exec(t, listingRows2...)
	ctx := context.Background()
	lq, pq := db.New(), pgdb.New()

	ids := func(rows []db.SessionListRichRow) []string {
		out := []string{}
		for _, r := range rows {
			out = append(out, r.Session.ID)
		}
		return out
	}
	list := func(what string, arg db.SessionListRichParams, want []string) []db.SessionListRichRow {
		t.Helper()
		lite, lerr := lq.SessionListRich(ctx, p.lite, arg)
		pg, perr := pq.SessionListRich(ctx, p.pg, pgdb.SessionListRichParams(arg))
		pgRows := rows2(pg, listRow2)
		check2(t, what, want, ids(lite), ids(pgRows), lerr, perr)
		checkSame2(t, what+" rows", lite, pgRows)
		return lite
	}
	listable := db.SessionListRichParams{Archived: int2(0), Limit: 20}
	rows := list("listable", listable, []string{"q3", "p3", "r2", "x1", "o1", "b1", "r1"})
	byID := map[string]db.SessionListRichRow{}
	for _, r := range rows {
		byID[r.Session.ID] = r
	}
	if r := byID["r1"]; r.PreviewRaw != "hello world x" || r.LastActive != 105 {
		t.Errorf("r1: preview %q, last_active %v: want %q, 105", r.PreviewRaw, r.LastActive, "hello world x")
	}
	if r := byID["x1"]; r.PreviewRaw != strings.Repeat("é", 63) || r.LastActive != 183 {
		t.Errorf("x1: preview %q, last_active %v: want 63 x é, 183", r.PreviewRaw, r.LastActive)
	}
	if r := byID["p3"]; r.PreviewRaw != "" || r.LastActive != 290 {
		t.Errorf("p3: preview %q, last_active %v: want empty, 290", r.PreviewRaw, r.LastActive)
	}
	page := listable
	page.Limit, page.Offset = 3, 2
	list("page", page, []string{"r2", "x1", "o1"})
	list("every row", db.SessionListRichParams{IncludeChildren: 1, Limit: 20},
		[]string{"a1", "q3", "p3", "c2", "r2", "x1", "o1", "k1", "d1", "b1", "r1"})
	list("cwd under C:\\Proj, any case", db.SessionListRichParams{IncludeChildren: 1, Limit: 20,
		CwdPrefix: str2(`c:\proj`), CwdLikeSlash: str2(`c:\proj/%`), CwdLikeBackslash: str2(`c:\proj\%`)}, []string{"o1"})

	count := func(what string, arg db.SessionCountListedParams, want int64) {
		t.Helper()
		lite, lerr := lq.SessionCountListed(ctx, p.lite, arg)
		pg, perr := pq.SessionCountListed(ctx, p.pg, pgdb.SessionCountListedParams(arg))
		check2(t, what, want, lite, pg, lerr, perr)
	}
	count("listable", db.SessionCountListedParams{Archived: int2(0)}, 7)
	count("listable, not tui", db.SessionCountListedParams{Archived: int2(0), ExcludeSources: str2(`["tui"]`)}, 6)
	count("cli only, archived", db.SessionCountListedParams{Source: str2("cli"), Archived: int2(1), IncludeChildren: 1}, 1)
	count("cwd /work/proj", db.SessionCountListedParams{IncludeChildren: 1,
		CwdPrefix: str2("/work/proj"), CwdLikeSlash: str2("/work/proj/%"), CwdLikeBackslash: str2(`/work/proj\%`)}, 3)
	count("cwd C:\\Proj", db.SessionCountListedParams{IncludeChildren: 1,
		CwdPrefix: str2(`c:\proj`), CwdLikeSlash: str2(`c:\proj/%`), CwdLikeBackslash: str2(`c:\proj\%`)}, 1)
	count("2 messages or more", db.SessionCountListedParams{IncludeChildren: 1, MinMessageCount: 2}, 3)

	// The chain: SQLite hands out rowids, PostgreSQL session ids; each
	// engine's own values go back through SessionRichRowsByRowID as the
	// store sends them (a JSON array), and the rows must match.
	var rowids map[int64]string = map[int64]string{}
	sqlRows, err := p.lite.QueryContext(ctx, "SELECT rowid, id FROM sessions")
	if err != nil {
		t.Fatal(err)
	}
	for sqlRows.Next() {
		var rowid int64
		var id string
		if err := sqlRows.Scan(&rowid, &id); err != nil {
			t.Fatal(err)
		}
		rowids[rowid] = id
	}
	sqlRows.Close()
	chain := func(what string, arg db.SessionListRichChainParams, want []string) {
		t.Helper()
		lite, lerr := lq.SessionListRichChain(ctx, p.lite, arg)
		pg, perr := pq.SessionListRichChain(ctx, p.pg, pgdb.SessionListRichChainParams(arg))
		if lerr != nil || perr != nil {
			t.Fatalf("%s: sqlite error %v, postgres error %v", what, lerr, perr)
		}
		liteIDs, pgIDs := []string{}, []string{}
		for _, v := range lite {
			liteIDs = append(liteIDs, rowids[v.(int64)])
		}
		for _, v := range pg {
			pgIDs = append(pgIDs, v.(string))
		}
		check2(t, what, want, liteIDs, pgIDs, nil, nil)
		if len(lite) == 0 {
			return
		}
		lj, _ := json.Marshal(lite)
		pj, _ := json.Marshal(pg)
		liteRows, lerr := lq.SessionRichRowsByRowID(ctx, p.lite, string(lj))
		pgRows, perr := pq.SessionRichRowsByRowID(ctx, p.pg, string(pj))
		got := rows2(pgRows, byRowIDRow2)
		if lerr != nil || perr != nil {
			t.Fatalf("%s: by rowid: sqlite error %v, postgres error %v", what, lerr, perr)
		}
		checkSame2(t, what+": rows by rowid", liteRows, got)
		if n := len(liteRows); n != len(want) || liteRows[0].Session.ID != want[0] || liteRows[n-1].Session.ID != want[n-1] {
			t.Errorf("%s: rows by rowid came back as %d rows, not %v in order", what, n, want)
		}
	}
	base := db.SessionListRichChainParams{IncludeChildren: int64(0), Archived: int2(0), MinMessageCount: int64(0),
		ByLastActive: int64(1), Limit: int64(20), Offset: int64(0),
		IDNeedle: (*string)(nil), SearchNeedle: (*string)(nil), CompactNeedle: (*string)(nil),
		Source: (*string)(nil), ExcludeSources: (*string)(nil), CwdPrefix: (*string)(nil),
		CwdLikeSlash: (*string)(nil), CwdLikeBackslash: (*string)(nil)}
	chain("by last activity", base, []string{"q3", "r2", "p3", "x1", "o1", "b1", "r1"})
	arg := base
	arg.Limit, arg.Offset = int64(2), int64(1)
	chain("by last activity, a page", arg, []string{"r2", "p3"})
	arg = base
	arg.SearchNeedle, arg.CompactNeedle = str2("delta"), str2("delta")
	chain("search in the chain's titles", arg, []string{"r2"})
	arg.SearchNeedle, arg.CompactNeedle = str2("gammadelta"), str2("gammadelta")
	chain("search without punctuation", arg, []string{"r2"})
	arg.SearchNeedle, arg.CompactNeedle = str2("école"), str2("école")
	chain("no Unicode case folding", arg, []string{})
	arg.SearchNeedle, arg.CompactNeedle = str2("cole"), str2("cole")
	chain("ASCII case folding", arg, []string{"x1"})
	arg = base
	arg.IDNeedle = str2("c2")
	chain("id in the chain", arg, []string{"r2"})
	arg.IDNeedle, arg.ByLastActive = str2("1"), int64(0)
	chain("id, by start", arg, []string{"x1", "o1", "b1", "r1"})
	arg = base
	arg.ExcludeSources, arg.Archived = str2(`["tui","tool"]`), (*int64)(nil)
	chain("archived too, no tui or tool", arg, []string{"a1", "q3", "p3", "x1", "b1", "r1"})

	// SessionRichRow
	for _, id := range []string{"x1", "c2"} {
		lite, lerr := lq.SessionRichRow(ctx, p.lite, id)
		pg, perr := pq.SessionRichRow(ctx, p.pg, id)
		if lerr != nil || perr != nil {
			t.Fatalf("SessionRichRow(%s): sqlite error %v, postgres error %v", id, lerr, perr)
		}
		checkSame2(t, "SessionRichRow("+id+")", lite, richRow2(pg))
	}
	if r, err := lq.SessionRichRow(ctx, p.lite, "c2"); err != nil || r.PreviewRaw != "continued" || r.LastActive != 300 {
		t.Errorf("SessionRichRow(c2) = %q, %v, %v: want continued, 300", r.PreviewRaw, r.LastActive, err)
	}

	cwds := func(includeArchived int64, want []db.SessionDistinctCwdsRow) {
		t.Helper()
		lite, lerr := lq.SessionDistinctCwds(ctx, p.lite, includeArchived)
		pg, perr := pq.SessionDistinctCwds(ctx, p.pg, includeArchived)
		check2(t, "SessionDistinctCwds", want, lite, rows2(pg, func(r pgdb.SessionDistinctCwdsRow) db.SessionDistinctCwdsRow { return db.SessionDistinctCwdsRow(r) }), lerr, perr)
	}
	cwds(0, []db.SessionDistinctCwdsRow{
		{Cwd: "/Work/Proj", Sessions: 1, LastActive: 140},
		{Cwd: "/elsewhere", Sessions: 1, LastActive: 150},
		{Cwd: "/work/proj/sub", Sessions: 2, LastActive: 260},
		{Cwd: `C:\Proj`, Sessions: 1, LastActive: 180},
		{Cwd: `C:\Proj\x`, Sessions: 1, LastActive: 170},
	})
	cwds(1, []db.SessionDistinctCwdsRow{
		{Cwd: "/Work/Proj", Sessions: 1, LastActive: 140},
		{Cwd: "/elsewhere", Sessions: 1, LastActive: 150},
		{Cwd: "/work/proj", Sessions: 1, LastActive: 400},
		{Cwd: "/work/proj/sub", Sessions: 2, LastActive: 260},
		{Cwd: `C:\Proj`, Sessions: 1, LastActive: 180},
		{Cwd: `C:\Proj\x`, Sessions: 1, LastActive: 170},
	})
}

// TestPGQ2Lineage runs lineage.sql's walks on both engines over one tree:
// g0 -> g1 (compression) -> g2a (ended, malformed model_config), g2b
// (live) -> g3, with a /branch child and a tool child of g0, and a
// two-session parent cycle.
func TestPGQ2Lineage(t *testing.T) {
	p := newPair2(t)
	p.exec(t,
		`INSERT INTO sessions (id, source, started_at, ended_at, end_reason, parent_session_id, model_config, title) VALUES
		('g0', 'cli', 10, 20, 'compression', NULL, NULL, 'root'),
		('y1', 'cli', 1, NULL, NULL, NULL, NULL, NULL)`,
		`INSERT INTO sessions (id, source, started_at, ended_at, end_reason, parent_session_id, model_config, title) VALUES
		('g1', 'cli', 21, 30, 'compression', 'g0', NULL, 'one'),
		('g1b', 'cli', 22, NULL, NULL, 'g0', '{"_branched_from":"g0"}', NULL),
		('g1t', 'tool', 23, NULL, NULL, 'g0', NULL, NULL),
		('y2', 'cli', 2, NULL, NULL, 'y1', NULL, NULL)`,
		`INSERT INTO sessions (id, source, started_at, ended_at, end_reason, parent_session_id, model_config, title) VALUES
		('g2a', 'cli', 31, 40, 'user_exit', 'g1', '{bad', NULL),
		('g2b', 'cli', 32, NULL, NULL, 'g1', NULL, 'two')`,
		`INSERT INTO sessions (id, source, started_at, parent_session_id) VALUES ('g3', 'cli', 33, 'g2b')`,
		`UPDATE sessions SET parent_session_id = 'y2' WHERE id = 'y1'`,
		`INSERT INTO messages (id, session_id, role, content, timestamp) VALUES (1, 'g1', 'user', 'a', 25), (2, 'g2a', 'user', 'b', 100)`,
	)
	ctx := context.Background()
	lq, pq := db.New(), pgdb.New()

	ids := func(what, id string, want []string, lite func() ([]string, error), pg func() ([]string, error)) {
		t.Helper()
		l, lerr := lite()
		g, perr := pg()
		check2(t, what+"("+id+")", want, l, g, lerr, perr)
	}
	for id, want := range map[string][]string{"g0": {"g0", "g1", "g2b"}, "g2b": {"g2b"}, "zz": {"zz"}} {
		ids("SessionCompressionWalk", id, want,
			func() ([]string, error) { return lq.SessionCompressionWalk(ctx, p.lite, id) },
			func() ([]string, error) { return pq.SessionCompressionWalk(ctx, p.pg, id) })
	}
	for id, want := range map[string][]string{"g2b": {"g2b", "g1", "g0"}, "g1b": {"g1b"}, "g1t": {"g1t"}, "zz": {}} {
		ids("SessionCompressionAncestors", id, want,
			func() ([]string, error) { return lq.SessionCompressionAncestors(ctx, p.lite, id) },
			func() ([]string, error) { return pq.SessionCompressionAncestors(ctx, p.pg, id) })
	}

	real := sqlnum.RealOf
	anc := func(id string, want []db.SessionAncestorsRow) {
		t.Helper()
		l, lerr := lq.SessionAncestors(ctx, p.lite, id)
		g, perr := pq.SessionAncestors(ctx, p.pg, id)
		check2(t, "SessionAncestors("+id+")", want, l, rows2(g, func(r pgdb.SessionAncestorsRow) db.SessionAncestorsRow { return db.SessionAncestorsRow(r) }), lerr, perr)
	}
	anc("g3", []db.SessionAncestorsRow{
		{ID: "g3", StartedAt: real(33), ParentSessionID: str2("g2b"), Depth: 0},
		{ID: "g2b", Title: str2("two"), StartedAt: real(32), ParentSessionID: str2("g1"), Depth: 1},
		{ID: "g1", Title: str2("one"), StartedAt: real(21), ParentSessionID: str2("g0"), Depth: 2},
		{ID: "g0", Title: str2("root"), StartedAt: real(10), Depth: 3},
	})
	// The cycle: 101 rows, depth 0 to 100, y1 and y2 in turn.
	cycle := []db.SessionAncestorsRow{}
	for d := range int64(101) {
		r := db.SessionAncestorsRow{ID: "y1", StartedAt: real(1), ParentSessionID: str2("y2"), Depth: d}
		if d%2 == 1 {
			r = db.SessionAncestorsRow{ID: "y2", StartedAt: real(2), ParentSessionID: str2("y1"), Depth: d}
		}
		cycle = append(cycle, r)
	}
	anc("y1", cycle)

	desc := func(id string, want []db.SessionDescendantsRow) {
		t.Helper()
		l, lerr := lq.SessionDescendants(ctx, p.lite, id)
		g, perr := pq.SessionDescendants(ctx, p.pg, id)
		check2(t, "SessionDescendants("+id+")", want, l, rows2(g, func(r pgdb.SessionDescendantsRow) db.SessionDescendantsRow { return db.SessionDescendantsRow(r) }), lerr, perr)
	}
	desc("g0", []db.SessionDescendantsRow{
		{ID: "g0", Title: str2("root"), StartedAt: real(10), Depth: 0},
		{ID: "g1", Title: str2("one"), StartedAt: real(21), ParentSessionID: str2("g0"), Depth: 1},
		{ID: "g1b", StartedAt: real(22), ParentSessionID: str2("g0"), Depth: 1},
		{ID: "g1t", StartedAt: real(23), ParentSessionID: str2("g0"), Depth: 1},
		{ID: "g2a", StartedAt: real(31), ParentSessionID: str2("g1"), Depth: 2},
		{ID: "g2b", Title: str2("two"), StartedAt: real(32), ParentSessionID: str2("g1"), Depth: 2},
		{ID: "g3", StartedAt: real(33), ParentSessionID: str2("g2b"), Depth: 3},
	})
	desc("zz", []db.SessionDescendantsRow{})

	resume := func(id string, want []db.SessionResumeWalkRow) {
		t.Helper()
		l, lerr := lq.SessionResumeWalk(ctx, p.lite, id)
		g, perr := pq.SessionResumeWalk(ctx, p.pg, id)
		check2(t, "SessionResumeWalk("+id+")", want, l, rows2(g, func(r pgdb.SessionResumeWalkRow) db.SessionResumeWalkRow { return db.SessionResumeWalkRow(r) }), lerr, perr)
	}
	resume("g0", []db.SessionResumeWalkRow{{ID: "g0"}, {ID: "g1", HasMessages: 1}, {ID: "g2b"}, {ID: "g3"}})
	resume("g2a", []db.SessionResumeWalkRow{{ID: "g2a", HasMessages: 1}})
}

// TestPGQ2Prune runs prune.sql's queries on both engines.
func TestPGQ2Prune(t *testing.T) {
	p := newPair2(t)
	p.exec(t,
		`INSERT INTO sessions (id, source, started_at, ended_at, end_reason, title, model, billing_provider, git_branch, cwd,
			input_tokens, output_tokens, actual_cost_usd, estimated_cost_usd, tool_call_count, user_id, chat_id, chat_type, message_count, archived) VALUES
		('e1', 'cli', 10, 11, 'user_exit', 'Old Title', 'GPT-4o', 'OpenAI', 'Feature/X', '/w', 100, 50, NULL, 0.5, 3, 'u', 'c', 'dm', 4, 0),
		('e2', 'tui', 20, 21, NULL, NULL, NULL, NULL, NULL, '/w/sub', 0, 0, NULL, NULL, 0, NULL, NULL, NULL, 0, 0),
		('e3', 'cli', 5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, NULL, NULL, NULL, 0, 0),
		('e4', 'cli', 30, 31, 'compression', 'ÉTÉ', NULL, NULL, NULL, '/W/x', 0, 0, 2, 9, 0, NULL, NULL, NULL, 0, 1),
		('pa', 'cli', 40, 50, 'compression', NULL, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, NULL, NULL, NULL, 0, 0)`,
		`INSERT INTO sessions (id, source, started_at, ended_at, end_reason, parent_session_id, api_call_count) VALUES
		('pc', 'cli', 51, 55, 'compression', 'pa', 0)`,
		`INSERT INTO sessions (id, source, started_at, ended_at, end_reason, parent_session_id, api_call_count) VALUES
		('oc', 'cli', 60, NULL, NULL, 'pc', 0),
		('Zc', 'cli', 61, NULL, NULL, 'pc', 3)`,
		`INSERT INTO messages (id, session_id, role, content, timestamp) VALUES (1, 'oc', 'user', 'x', 61), (2, 'e1', 'user', 'y', 10)`,
	)
	ctx := context.Background()
	lq, pq := db.New(), pgdb.New()

	cand := func(what string, arg db.SessionPruneCandidatesParams, want []string) {
		t.Helper()
		l, lerr := lq.SessionPruneCandidates(ctx, p.lite, arg)
		g, perr := pq.SessionPruneCandidates(ctx, p.pg, pgdb.SessionPruneCandidatesParams(arg))
		check2(t, what, want, l, g, lerr, perr)
	}
	cand("every ended row", db.SessionPruneCandidatesParams{}, []string{"e1", "e2", "e4", "pa", "pc"})
	cand("not archived", db.SessionPruneCandidatesParams{Archived: int2(0)}, []string{"e1", "e2", "pa", "pc"})
	cand("title, ASCII case", db.SessionPruneCandidatesParams{TitleLike: str2("%title%")}, []string{"e1"})
	cand("title, _ a wildcard", db.SessionPruneCandidatesParams{TitleLike: str2("old_title")}, []string{"e1"})
	cand("title, no Unicode case", db.SessionPruneCandidatesParams{TitleLike: str2("%été%")}, []string{})
	cand("model", db.SessionPruneCandidatesParams{ModelLike: str2("%gpt%")}, []string{"e1"})
	cand("provider", db.SessionPruneCandidatesParams{Provider: str2("openai")}, []string{"e1"})
	cand("branch", db.SessionPruneCandidatesParams{BranchLike: str2("feature/%")}, []string{"e1"})
	cand("cwd", db.SessionPruneCandidatesParams{CwdExact: str2("/w"), CwdSlash: str2("/w/%"), CwdBackslash: str2(`/w\%`)}, []string{"e1", "e2", "e4"})
	cand("tokens", db.SessionPruneCandidatesParams{MinTokens: int2(150)}, []string{"e1"})
	cand("few tokens", db.SessionPruneCandidatesParams{MaxTokens: int2(149), Archived: int2(0)}, []string{"e2", "pa", "pc"})
	cand("cost", db.SessionPruneCandidatesParams{MinCost: real2(0.5), MaxCost: real2(2)}, []string{"e1", "e4"})
	cand("tool calls", db.SessionPruneCandidatesParams{MinToolCalls: int2(1), MaxToolCalls: int2(3)}, []string{"e1"})
	cand("time window", db.SessionPruneCandidatesParams{StartedAfter: real2(20), StartedBefore: real2(40)}, []string{"e2", "e4"})
	cand("source and reason", db.SessionPruneCandidatesParams{Source: str2("cli"), EndReason: str2("compression")}, []string{"e4", "pa", "pc"})
	cand("messages", db.SessionPruneCandidatesParams{MinMessages: int2(1), MaxMessages: int2(4)}, []string{"e1"})
	cand("peer", db.SessionPruneCandidatesParams{UserID: str2("u"), ChatID: str2("c"), ChatType: str2("dm")}, []string{"e1"})

	l, lerr := lq.SessionGhostIDs(ctx, p.lite, 1000)
	g, perr := pq.SessionGhostIDs(ctx, p.pg, 1000)
	check2(t, "SessionGhostIDs", []string{"e2"}, l, g, lerr, perr)

	fin := db.SessionFinalizeOrphanedCompressionParams{Now: 500, Cutoff: 100}
	for _, want := range []int64{1, 0} {
		l, lerr := lq.SessionFinalizeOrphanedCompression(ctx, p.lite, fin)
		g, perr := pq.SessionFinalizeOrphanedCompression(ctx, p.pg, pgdb.SessionFinalizeOrphanedCompressionParams(fin))
		check2(t, "SessionFinalizeOrphanedCompression", want, l, g, lerr, perr)
	}
	var lite, pg string
	if err := p.lite.QueryRowContext(ctx, "SELECT ended_at || ' ' || end_reason FROM sessions WHERE id = 'oc'").Scan(&lite); err != nil {
		t.Fatal(err)
	}
	if err := p.pg.QueryRow(ctx, "SELECT ended_at || ' ' || end_reason FROM sessions WHERE id = 'oc'").Scan(&pg); err != nil {
		t.Fatal(err)
	}
	if lite != "500.0 orphaned_compression" || pg != "500 orphaned_compression" {
		t.Errorf("oc after finalizing: %q on SQLite, %q on PostgreSQL", lite, pg)
	}

	for id, want := range map[string][]string{"pc": {"Zc", "oc", "pa", "pc"}, "oc": {"oc", "pa", "pc"}, "nope": {"nope"}} {
		l, lerr := lq.SessionArchiveLineage(ctx, p.lite, id)
		g, perr := pq.SessionArchiveLineage(ctx, p.pg, id)
		check2(t, "SessionArchiveLineage("+id+")", want, l, g, lerr, perr)
	}

	for _, c := range []struct {
		arg  db.SessionSetArchivedParams
		want int64
	}{{db.SessionSetArchivedParams{Archived: 1, ID: "e1"}, 1}, {db.SessionSetArchivedParams{Archived: 1, ID: "e1"}, 1}, {db.SessionSetArchivedParams{Archived: 1, ID: "nope"}, 0}} {
		l, lerr := lq.SessionSetArchived(ctx, p.lite, c.arg)
		g, perr := pq.SessionSetArchived(ctx, p.pg, pgdb.SessionSetArchivedParams(c.arg))
		check2(t, "SessionSetArchived("+c.arg.ID+")", c.want, l, g, lerr, perr)
	}
	cand("archived after SetArchived", db.SessionPruneCandidatesParams{Archived: int2(1)}, []string{"e1", "e4"})
}

// TestPGQ2Health runs health.sql's queries on both engines: counters that
// match, a count above the rows, a NULL count, a compaction, and tool
// calls as an array, an object and malformed text.
func TestPGQ2Health(t *testing.T) {
	p := newPair2(t)
	p.exec(t,
		`INSERT INTO sessions (id, source, started_at, message_count, tool_call_count) VALUES
		('h1', 'cli', 1, 2, 3), ('h2', 'cli', 2, 5, 0), ('h3', 'cli', 3, NULL, 0), ('h4', 'cli', 4, 1, 0), ('h5', 'cli', 5, 0, 2)`,
		`INSERT INTO messages (id, session_id, role, tool_calls, timestamp, compacted) VALUES
		(1, 'h1', 'assistant', '[1,2]', 1, 0), (2, 'h1', 'assistant', '{"x":1}', 2, 0),
		(3, 'h2', 'user', NULL, 1, 0),
		(4, 'h3', 'assistant', 'not json', 1, 0), (5, 'h3', 'user', NULL, 2, 0),
		(9, 'h4', 'assistant', '[1]', 1, 0), (10, 'h4', 'user', NULL, 2, 1), (11, 'h4', 'user', NULL, 3, 0)`,
	)
	ctx := context.Background()
	lq, pq := db.New(), pgdb.New()

	l, lerr := lq.HealthCounterMismatches(ctx, p.lite)
	g, perr := pq.HealthCounterMismatches(ctx, p.pg)
	check2(t, "HealthCounterMismatches", []db.HealthCounterMismatchesRow{
		{ID: "h2", StoredMessages: 5, ActualMessages: 1, StoredCalls: 0, ActualCalls: 0},
		{ID: "h3", StoredMessages: 0, ActualMessages: 2, StoredCalls: 0, ActualCalls: 1},
		{ID: "h5", StoredMessages: 0, ActualMessages: 0, StoredCalls: 2, ActualCalls: 0},
	}, l, rows2(g, func(r pgdb.HealthCounterMismatchesRow) db.HealthCounterMismatchesRow {
		return db.HealthCounterMismatchesRow(r)
	}), lerr, perr)

	ln, lerr := lq.HealthOrphanMessages(ctx, p.lite)
	gn, perr := pq.HealthOrphanMessages(ctx, p.pg)
	check2(t, "HealthOrphanMessages", 0, ln, gn, lerr, perr)

	ls, lerr := lq.HealthBadSessionValues(ctx, p.lite)
	gs, perr := pq.HealthBadSessionValues(ctx, p.pg)
	check2(t, "HealthBadSessionValues", []db.HealthBadSessionValuesRow{}, ls,
		rows2(gs, func(r pgdb.HealthBadSessionValuesRow) db.HealthBadSessionValuesRow {
			return db.HealthBadSessionValuesRow(r)
		}), lerr, perr)
	lm, lerr := lq.HealthBadMessageValues(ctx, p.lite)
	gm, perr := pq.HealthBadMessageValues(ctx, p.pg)
	check2(t, "HealthBadMessageValues", []db.HealthBadMessageValuesRow{}, lm,
		rows2(gm, func(r pgdb.HealthBadMessageValuesRow) db.HealthBadMessageValuesRow {
			return db.HealthBadMessageValuesRow(r)
		}), lerr, perr)
	lb, lerr := lq.HealthHasNULText(ctx, p.lite)
	gb, perr := pq.HealthHasNULText(ctx, p.pg)
	check2(t, "HealthHasNULText", false, lb, gb, lerr, perr)

	// Where only SQLite can hold such values, only SQLite finds them: a
	// TEXT counter and a NUL byte (PostgreSQL's typed columns and text
	// refuse both).
	if _, err := p.lite.ExecContext(ctx, "UPDATE sessions SET input_tokens = 'many' WHERE id = 'h1'; UPDATE messages SET content = 'a' || char(0) || 'b' WHERE id = 3"); err != nil {
		t.Fatal(err)
	}
	if ls, err := lq.HealthBadSessionValues(ctx, p.lite); err != nil || len(ls) != 1 || ls[0].ID != "h1" || ls[0].InputTokens != "text" {
		t.Errorf("HealthBadSessionValues on SQLite with a TEXT counter = %+v, %v", ls, err)
	}
	if lb, err := lq.HealthHasNULText(ctx, p.lite); err != nil || !lb {
		t.Errorf("HealthHasNULText on SQLite with a NUL = %v, %v", lb, err)
	}
	if _, err := p.pg.Exec(ctx, "UPDATE messages SET content = 'a' || chr(0) || 'b' WHERE id = 3"); err == nil {
		t.Error("PostgreSQL stored a U+0000")
	}
}

// TestPGQ2JSONOrNull checks hermes_json_or_null: the jsonb of JSON text,
// NULL (never an error) for text jsonb refuses, and NULL for NULL.
func TestPGQ2JSONOrNull(t *testing.T) {
	conn := newPG(t, pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	for in, want := range map[string]string{
		`{"a": [1, "x"]}`: `{"a": [1, "x"]}`,
		` "s" `:           `"s"`,
		`null`:            `null`,
	} {
		var got string
		if err := conn.QueryRow(ctx, "SELECT hermes_json_or_null($1)::text", in).Scan(&got); err != nil || got != want {
			t.Errorf("hermes_json_or_null(%q) = %q, %v: want %q", in, got, err, want)
		}
	}
	for _, in := range []*string{nil, str2("not json"), str2("{a: 1}"), str2(`{"a":"\u0000"}`), str2(`"\ud800"`),
		str2("1e1000000"), str2(strings.Repeat("[", 100000) + strings.Repeat("]", 100000)), str2("")} {
		var isNull bool
		if err := conn.QueryRow(ctx, "SELECT hermes_json_or_null($1) IS NULL", in).Scan(&isNull); err != nil || !isNull {
			t.Errorf("hermes_json_or_null(%v) IS NULL = %v, %v: want true", in, isNull, err)
		}
	}
}

// TestPGQ2Delegations runs delegations.sql's protocol on both engines,
// step by step, comparing every count and, at the end of each stage,
// every row.
func TestPGQ2Delegations(t *testing.T) {
	p := newPair2(t)
	ctx := context.Background()
	lq, pq := db.New(), pgdb.New()
	real, integer := sqlnum.RealOf, sqlnum.IntOf

	toDB := func(r pgdb.AsyncDelegation) db.AsyncDelegation { return db.AsyncDelegation(r) }
	list := func(what string, want []string) []db.AsyncDelegation {
		t.Helper()
		l, lerr := lq.DelegationList(ctx, p.lite)
		g, perr := pq.DelegationList(ctx, p.pg)
		got := rows2(g, toDB)
		if lerr != nil || perr != nil {
			t.Fatalf("%s: DelegationList: sqlite error %v, postgres error %v", what, lerr, perr)
		}
		checkSame2(t, what+": DelegationList", l, got)
		ids := []string{}
		for _, r := range l {
			ids = append(ids, r.DelegationID)
		}
		if diff := cmp.Diff(want, ids); diff != "" {
			t.Errorf("%s: DelegationList ids (-want +got):\n%s", what, diff)
		}
		return l
	}
	dispatch := func(arg db.DelegationDispatchParams) {
		t.Helper()
		lerr := lq.DelegationDispatch(ctx, p.lite, arg)
		perr := pq.DelegationDispatch(ctx, p.pg, pgdb.DelegationDispatchParams(arg))
		check2(t, "DelegationDispatch("+arg.DelegationID+")", 0, 0, 0, lerr, perr)
	}
	rowsChanged := func(what string, want int64, lite func() (int64, error), pg func() (int64, error)) {
		t.Helper()
		l, lerr := lite()
		g, perr := pg()
		check2(t, what, want, l, g, lerr, perr)
	}
	d1 := db.DelegationDispatchParams{DelegationID: "d1", OriginSession: "s", OriginUiSessionID: "ui", ParentSessionID: str2("p"),
		DispatchedAt: real(10), UpdatedAt: real(10), OwnerPID: integer(42), OwnerStartedAt: integer(7), TaskJSON: str2(`{"t":1}`)}
	dispatch(d1)
	dispatch(db.DelegationDispatchParams{DelegationID: "d2", OriginSession: "s", DispatchedAt: real(20), UpdatedAt: real(20)})
	dispatch(db.DelegationDispatchParams{DelegationID: "D3", OriginSession: "s", DispatchedAt: real(30), UpdatedAt: real(30)})
	list("dispatched", []string{"d1", "d2", "D3"})

	complete := func(arg db.DelegationCompleteParams, want int64) {
		t.Helper()
		rowsChanged("DelegationComplete("+arg.DelegationID+")", want,
			func() (int64, error) { return lq.DelegationComplete(ctx, p.lite, arg) },
			func() (int64, error) { return pq.DelegationComplete(ctx, p.pg, pgdb.DelegationCompleteParams(arg)) })
	}
	complete(db.DelegationCompleteParams{State: "completed", CompletedAt: real(50), UpdatedAt: real(50), EventJSON: str2(`{"e":1}`), ResultJSON: str2("r"), DelegationID: "d1"}, 1)
	complete(db.DelegationCompleteParams{State: "completed", DelegationID: "nope"}, 0)
	for id, want := range map[string]bool{"d1": true, "nope": false} {
		l, lerr := lq.DelegationExists(ctx, p.lite, id)
		g, perr := pq.DelegationExists(ctx, p.pg, id)
		check2(t, "DelegationExists("+id+")", want, l, g, lerr, perr)
	}

	claim := func(arg db.DelegationClaimParams, want int64) {
		t.Helper()
		rowsChanged("DelegationClaim("+deref2(arg.Claim)+")", want,
			func() (int64, error) { return lq.DelegationClaim(ctx, p.lite, arg) },
			func() (int64, error) { return pq.DelegationClaim(ctx, p.pg, pgdb.DelegationClaimParams(arg)) })
	}
	release := func(arg db.DelegationReleaseParams, want int64) {
		t.Helper()
		rowsChanged("DelegationRelease("+deref2(arg.Claim)+")", want,
			func() (int64, error) { return lq.DelegationRelease(ctx, p.lite, arg) },
			func() (int64, error) { return pq.DelegationRelease(ctx, p.pg, pgdb.DelegationReleaseParams(arg)) })
	}
	claim(db.DelegationClaimParams{Claim: str2("c1"), Now: real(60), DelegationID: "d1", StaleBefore: real(0)}, 1)
	claim(db.DelegationClaimParams{Claim: str2("c2"), Now: real(61), DelegationID: "d1", StaleBefore: real(55)}, 0)
	claim(db.DelegationClaimParams{Claim: str2("c2"), Now: real(200), DelegationID: "d1", StaleBefore: real(100)}, 1)
	release(db.DelegationReleaseParams{Now: real(201), DelegationID: "d1", Claim: str2("c1")}, 0)
	release(db.DelegationReleaseParams{Now: real(201), DelegationID: "d1", Claim: str2("c2")}, 1)
	claim(db.DelegationClaimParams{Claim: str2("c3"), Now: real(202), DelegationID: "d1", StaleBefore: real(0)}, 1)
	rows := list("claimed", []string{"d1", "d2", "D3"})
	if r := rows[0]; deref2(r.DeliveryClaim) != "c3" || r.DeliveryAttempts != integer(3) || r.DeliveryClaimedAt != real(202) {
		t.Errorf("d1 after three claims: %+v", r)
	}
	rowsChanged("DelegationCompleteDelivery(c3)", 1,
		func() (int64, error) {
			return lq.DelegationCompleteDelivery(ctx, p.lite, db.DelegationCompleteDeliveryParams{Now: real(203), DelegationID: "d1", Claim: str2("c3")})
		},
		func() (int64, error) {
			return pq.DelegationCompleteDelivery(ctx, p.pg, pgdb.DelegationCompleteDeliveryParams{Now: real(203), DelegationID: "d1", Claim: str2("c3")})
		})
	rowsChanged("DelegationMarkUnknown(d2)", 1,
		func() (int64, error) {
			return lq.DelegationMarkUnknown(ctx, p.lite, db.DelegationMarkUnknownParams{Now: real(70), EventJSON: str2(`{"u":1}`), DelegationID: "d2"})
		},
		func() (int64, error) {
			return pq.DelegationMarkUnknown(ctx, p.pg, pgdb.DelegationMarkUnknownParams{Now: real(70), EventJSON: str2(`{"u":1}`), DelegationID: "d2"})
		})
	for _, want := range []int64{1, 0} {
		rowsChanged("DelegationMarkDelivered(d2)", want,
			func() (int64, error) {
				return lq.DelegationMarkDelivered(ctx, p.lite, db.DelegationMarkDeliveredParams{Now: real(80), DelegationID: "d2"})
			},
			func() (int64, error) {
				return pq.DelegationMarkDelivered(ctx, p.pg, pgdb.DelegationMarkDeliveredParams{Now: real(80), DelegationID: "d2"})
			})
	}
	list("delivered", []string{"d1", "d2", "D3"})

	// A second dispatch of d1 starts its row over, every column.
	d1.DispatchedAt, d1.UpdatedAt, d1.OwnerPID, d1.TaskJSON = real(90), real(90), sqlnum.Int{}, nil
	dispatch(d1)
	l, lerr := lq.DelegationGet(ctx, p.lite, "d1")
	g, perr := pq.DelegationGet(ctx, p.pg, "d1")
	check2(t, "DelegationGet(d1) after a second dispatch", db.AsyncDelegation{
		DelegationID: "d1", OriginSession: "s", OriginUiSessionID: "ui", ParentSessionID: str2("p"), State: "running",
		DispatchedAt: real(90), UpdatedAt: real(90), DeliveryState: "pending", DeliveryAttempts: integer(0),
		OwnerStartedAt: integer(7),
	}, l, toDB(g), lerr, perr)

	inFlight := func(want []string) {
		t.Helper()
		l, lerr := lq.DelegationInFlight(ctx, p.lite)
		g, perr := pq.DelegationInFlight(ctx, p.pg)
		checkSame2(t, "DelegationInFlight", l, rows2(g, toDB))
		ids := []string{}
		for _, r := range l {
			ids = append(ids, r.DelegationID)
		}
		check2(t, "DelegationInFlight ids", want, ids, ids, lerr, perr)
	}
	inFlight([]string{"D3", "d1"})

	undelivered := func(want []string) {
		t.Helper()
		l, lerr := lq.DelegationUndelivered(ctx, p.lite)
		g, perr := pq.DelegationUndelivered(ctx, p.pg)
		checkSame2(t, "DelegationUndelivered", l, rows2(g, toDB))
		ids := []string{}
		for _, r := range l {
			ids = append(ids, r.DelegationID)
		}
		check2(t, "DelegationUndelivered ids", want, ids, ids, lerr, perr)
	}
	undelivered([]string{})
	dispatch(db.DelegationDispatchParams{DelegationID: "d4", OriginSession: "s", DispatchedAt: real(40), UpdatedAt: real(40)})
	complete(db.DelegationCompleteParams{State: "failed", UpdatedAt: real(100), EventJSON: str2("{}"), DelegationID: "D3"}, 1)
	complete(db.DelegationCompleteParams{State: "completed", CompletedAt: real(45), UpdatedAt: real(46), EventJSON: str2("{}"), DelegationID: "d4"}, 1)
	// D3 has no completed_at: first, where SQLite puts NULLs.
	undelivered([]string{"D3", "d4"})

	count := func(what string, want int64, lite func(context.Context, db.DBTX) (int64, error), pg func(context.Context, pgdb.DBTX) (int64, error)) {
		t.Helper()
		l, lerr := lite(ctx, p.lite)
		g, perr := pg(ctx, p.pg)
		check2(t, what, want, l, g, lerr, perr)
	}
	count("DelegationCountTerminal", 3, lq.DelegationCountTerminal, pq.DelegationCountTerminal)
	count("DelegationCountPending", 2, lq.DelegationCountPending, pq.DelegationCountPending)
	prune := func(what string, want int64, lite func(context.Context, db.DBTX, int64) (int64, error), pg func(context.Context, pgdb.DBTX, int64) (int64, error)) {
		t.Helper()
		l, lerr := lite(ctx, p.lite, 1)
		g, perr := pg(ctx, p.pg, 1)
		check2(t, what, want, l, g, lerr, perr)
	}
	prune("DelegationPruneTerminal(1)", 1, lq.DelegationPruneTerminal, pq.DelegationPruneTerminal) // d2: delivered first
	list("terminal pruned", []string{"D3", "d4", "d1"})
	prune("DelegationPrunePending(1)", 1, lq.DelegationPrunePending, pq.DelegationPrunePending) // d4: updated 46 < 100
	list("pending pruned", []string{"D3", "d1"})
	rowsChanged("DelegationMarkDelivered(D3)", 1,
		func() (int64, error) {
			return lq.DelegationMarkDelivered(ctx, p.lite, db.DelegationMarkDeliveredParams{Now: real(300), DelegationID: "D3"})
		},
		func() (int64, error) {
			return pq.DelegationMarkDelivered(ctx, p.pg, pgdb.DelegationMarkDeliveredParams{Now: real(300), DelegationID: "D3"})
		})
	for _, c := range []struct {
		cutoff float64
		want   int64
	}{{300, 0}, {301, 1}} {
		rowsChanged("DelegationPruneDelivered", c.want,
			func() (int64, error) { return lq.DelegationPruneDelivered(ctx, p.lite, real(c.cutoff)) },
			func() (int64, error) { return pq.DelegationPruneDelivered(ctx, p.pg, real(c.cutoff)) })
	}
	for id, want := range map[string]int64{"d1": 1, "nope": 0} {
		rowsChanged("DelegationDelete("+id+")", want,
			func() (int64, error) { return lq.DelegationDelete(ctx, p.lite, id) },
			func() (int64, error) { return pq.DelegationDelete(ctx, p.pg, id) })
	}
	list("all gone", []string{})
}

// deref2 is *s, or "" for nil.
func deref2(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TestPGQ2Gateway runs gateway.sql's queries on both engines: sessions of
// one routing key in two spellings of the platform, an ended recoverable
// one, a key-less peer, a non-ASCII platform (no Unicode case folding on
// either engine), and the routing table with keys whose byte order is not
// a case-folding collation's.
func TestPGQ2Gateway(t *testing.T) {
	p := newPair2(t)
	p.exec(t,
		`INSERT INTO sessions (id, source, session_key, user_id, chat_id, chat_type, thread_id, started_at, ended_at, end_reason, message_count) VALUES
		('w1', 'Telegram', 'k1', 'u1', 'c1', NULL, NULL, 10, NULL, NULL, 1),
		('w2', 'telegram', 'k1', 'u2', 'c1', NULL, NULL, 20, NULL, NULL, 0),
		('w3', 'discord', 'k2', NULL, NULL, NULL, NULL, 30, 35, 'agent_close', 2),
		('w4', 'TELEGRAM', NULL, 'u1', 'c1', 'dm', 't', 40, NULL, NULL, 1),
		('w5', 'TÉLÉ', 'k5', NULL, 'c1', NULL, NULL, 50, NULL, NULL, 0)`,
		`INSERT INTO messages (id, session_id, role, content, timestamp) VALUES (1, 'w2', 'user', 'x', 25)`,
	)
	ctx := context.Background()
	lq, pq := db.New(), pgdb.New()
	real := sqlnum.RealOf
	changed := func(what string, want int64, lite func() (int64, error), pg func() (int64, error)) {
		t.Helper()
		l, lerr := lite()
		g, perr := pg()
		check2(t, what, want, l, g, lerr, perr)
	}

	latestByPeer := func(arg db.GatewayLatestByPeerParams, want string) {
		t.Helper()
		l, lerr := lq.GatewayLatestByPeer(ctx, p.lite, arg)
		g, perr := pq.GatewayLatestByPeer(ctx, p.pg, pgdb.GatewayLatestByPeerParams(arg))
		check2(t, "GatewayLatestByPeer", want, l.ID, g.ID, lerr, perr)
		checkSame2(t, "GatewayLatestByPeer row", l, db.Session(g))
	}
	latestByPeer(db.GatewayLatestByPeerParams{Source: "TELEGRAM", UserID: "u1", ChatID: "c1", ChatType: "dm", ThreadID: "t"}, "w4")
	latestByPeer(db.GatewayLatestByPeerParams{Source: "discord"}, "w3")

	peer := db.GatewayRecordPeerParams{SessionKey: str2("k4"), Source: "telegram", ChatID: str2("c1"), OriginJSON: str2(`{"o":1}`), ID: "w4"}
	changed("GatewayRecordPeer(w4)", 1,
		func() (int64, error) { return lq.GatewayRecordPeer(ctx, p.lite, peer) },
		func() (int64, error) { return pq.GatewayRecordPeer(ctx, p.pg, pgdb.GatewayRecordPeerParams(peer)) })
	peer = db.GatewayRecordPeerParams{SessionKey: str2("k4"), Source: "telegram", ChatID: str2("c1"), DisplayName: str2("Name"), ID: "w4"}
	changed("GatewayRecordPeer(w4) again", 1,
		func() (int64, error) { return lq.GatewayRecordPeer(ctx, p.lite, peer) },
		func() (int64, error) { return pq.GatewayRecordPeer(ctx, p.pg, pgdb.GatewayRecordPeerParams(peer)) })
	fin := db.GatewaySetExpiryFinalizedParams{ExpiryFinalized: sqlnum.IntOf(1), ID: "w1"}
	changed("GatewaySetExpiryFinalized(w1)", 1,
		func() (int64, error) { return lq.GatewaySetExpiryFinalized(ctx, p.lite, fin) },
		func() (int64, error) {
			return pq.GatewaySetExpiryFinalized(ctx, p.pg, pgdb.GatewaySetExpiryFinalizedParams(fin))
		})

	byKey := func(arg db.GatewayLatestByKeyParams, want string) {
		t.Helper()
		l, lerr := lq.GatewayLatestByKey(ctx, p.lite, arg)
		g, perr := pq.GatewayLatestByKey(ctx, p.pg, pgdb.GatewayLatestByKeyParams(arg))
		check2(t, "GatewayLatestByKey", want, l.ID, g.ID, lerr, perr)
		checkSame2(t, "GatewayLatestByKey row", l, db.Session(g))
	}
	byKey(db.GatewayLatestByKeyParams{SessionKey: str2("k1"), Source: "telegram"}, "w2")
	byKey(db.GatewayLatestByKeyParams{SessionKey: str2("k1"), Source: "Telegram"}, "w1")
	byKey(db.GatewayLatestByKeyParams{SessionKey: str2("k4"), Source: "telegram"}, "w4")
	if l, err := lq.GatewayLatestByKey(ctx, p.lite, db.GatewayLatestByKeyParams{SessionKey: str2("k4"), Source: "telegram"}); err != nil ||
		deref2(l.DisplayName) != "Name" || deref2(l.OriginJSON) != `{"o":1}` || l.UserID != nil || deref2(l.ThreadID) != "" || l.ChatType != nil {
		t.Errorf("w4 after GatewayRecordPeer: %+v, %v", l, err)
	}

	list := func(arg db.GatewaySessionListParams, want []string) {
		t.Helper()
		l, lerr := lq.GatewaySessionList(ctx, p.lite, arg)
		g, perr := pq.GatewaySessionList(ctx, p.pg, pgdb.GatewaySessionListParams(arg))
		got := rows2(g, gatewayRow2)
		checkSame2(t, "GatewaySessionList rows", l, got)
		ids := func(rows []db.GatewaySessionListRow) []string {
			out := []string{}
			for _, r := range rows {
				out = append(out, r.Session.ID)
			}
			return out
		}
		check2(t, "GatewaySessionList", want, ids(l), ids(got), lerr, perr)
	}
	list(db.GatewaySessionListParams{IncludeEnded: 1}, []string{"w5", "w4", "w3", "w2"})
	list(db.GatewaySessionListParams{Platform: str2("TeleGram")}, []string{"w4", "w2"})
	list(db.GatewaySessionListParams{Platform: str2("télé"), IncludeEnded: 1}, []string{})
	list(db.GatewaySessionListParams{Platform: str2("TÉLÉ"), IncludeEnded: 1}, []string{"w5"})

	origin := func(arg db.GatewayOriginCandidatesParams, want []db.GatewayOriginCandidatesRow) {
		t.Helper()
		l, lerr := lq.GatewayOriginCandidates(ctx, p.lite, arg)
		g, perr := pq.GatewayOriginCandidates(ctx, p.pg, pgdb.GatewayOriginCandidatesParams(arg))
		check2(t, "GatewayOriginCandidates", want, l, rows2(g, func(r pgdb.GatewayOriginCandidatesRow) db.GatewayOriginCandidatesRow {
			return db.GatewayOriginCandidatesRow(r)
		}), lerr, perr)
	}
	origin(db.GatewayOriginCandidatesParams{Platform: "TeleGram", ChatID: str2("c1")},
		[]db.GatewayOriginCandidatesRow{{ID: "w4"}, {ID: "w2", UserID: str2("u2")}, {ID: "w1", UserID: str2("u1")}})
	origin(db.GatewayOriginCandidatesParams{Platform: "telegram", ChatID: str2("c1"), MatchThread: 1, ThreadID: ""},
		[]db.GatewayOriginCandidatesRow{{ID: "w4"}, {ID: "w2", UserID: str2("u2")}, {ID: "w1", UserID: str2("u1")}})
	origin(db.GatewayOriginCandidatesParams{Platform: "telegram", ChatID: str2("c1"), MatchThread: 1, ThreadID: "t"},
		[]db.GatewayOriginCandidatesRow{})
	origin(db.GatewayOriginCandidatesParams{Platform: "télé", ChatID: str2("c1")}, []db.GatewayOriginCandidatesRow{})

	upsert := func(scope, key, entry string, at float64) {
		t.Helper()
		arg := db.GatewayRoutingUpsertParams{Scope: scope, SessionKey: key, EntryJSON: entry, UpdatedAt: real(at)}
		lerr := lq.GatewayRoutingUpsert(ctx, p.lite, arg)
		perr := pq.GatewayRoutingUpsert(ctx, p.pg, pgdb.GatewayRoutingUpsertParams(arg))
		check2(t, "GatewayRoutingUpsert", 0, 0, 0, lerr, perr)
	}
	load := func(scope string, want []db.GatewayRoutingLoadRow) {
		t.Helper()
		l, lerr := lq.GatewayRoutingLoad(ctx, p.lite, scope)
		g, perr := pq.GatewayRoutingLoad(ctx, p.pg, scope)
		check2(t, "GatewayRoutingLoad("+scope+")", want, l, rows2(g, func(r pgdb.GatewayRoutingLoadRow) db.GatewayRoutingLoadRow { return db.GatewayRoutingLoadRow(r) }), lerr, perr)
	}
	upsert("s1", "b", "e1", 1)
	upsert("s1", "a", "e2", 2)
	upsert("s1", "b", "e3", 3)
	upsert("s1", "B", "e4", 4)
	upsert("s2", "x", "e5", 5)
	load("s1", []db.GatewayRoutingLoadRow{{SessionKey: "B", EntryJSON: "e4"}, {SessionKey: "a", EntryJSON: "e2"}, {SessionKey: "b", EntryJSON: "e3"}})
	changed("GatewayRoutingDeleteScope(s1)", 3,
		func() (int64, error) { return lq.GatewayRoutingDeleteScope(ctx, p.lite, "s1") },
		func() (int64, error) { return pq.GatewayRoutingDeleteScope(ctx, p.pg, "s1") })
	ins := db.GatewayRoutingInsertParams{Scope: "s1", SessionKey: "n", EntryJSON: "e6", UpdatedAt: real(6)}
	check2(t, "GatewayRoutingInsert", 0, 0, 0, lq.GatewayRoutingInsert(ctx, p.lite, ins), pq.GatewayRoutingInsert(ctx, p.pg, pgdb.GatewayRoutingInsertParams(ins)))
	load("s1", []db.GatewayRoutingLoadRow{{SessionKey: "n", EntryJSON: "e6"}})
	for _, want := range []int64{1, 0} {
		del := db.GatewayRoutingDeleteParams{Scope: "s2", SessionKey: "x"}
		changed("GatewayRoutingDelete(s2, x)", want,
			func() (int64, error) { return lq.GatewayRoutingDelete(ctx, p.lite, del) },
			func() (int64, error) { return pq.GatewayRoutingDelete(ctx, p.pg, pgdb.GatewayRoutingDeleteParams(del)) })
	}
	load("s2", []db.GatewayRoutingLoadRow{})
}

// TestPGQ2MarkerDifferences pins where the engines differ on purpose
// (the report's "what differs" list): a model_config that SQLite's
// json_valid(x, 10) accepts but PostgreSQL's jsonb does not (JSON5, a
// \u0000 escape) carries its _delegate_from marker on SQLite only, and of
// duplicate keys SQLite reads the first, jsonb the last. So each of these
// roots is hidden from the picker on SQLite and listed on PostgreSQL.
func TestPGQ2MarkerDifferences(t *testing.T) {
	p := newPair2(t)
	p.exec(t, `INSERT INTO sessions (id, source, started_at, model_config) VALUES
		('json5', 'cli', 1, '{_delegate_from: ''r''}'),
		('nul', 'cli', 2, '{"_delegate_from":"\u0000"}'),
		('dup', 'cli', 3, '{"_delegate_from":"r","_delegate_from":"__orphaned__"}'),
		('plain', 'cli', 4, '{"_delegate_from":"r"}')`)
	ctx := context.Background()
	arg := db.SessionListRichParams{Limit: 10}
	lite, err := db.New().SessionListRich(ctx, p.lite, arg)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := pgdb.New().SessionListRich(ctx, p.pg, pgdb.SessionListRichParams(arg))
	if err != nil {
		t.Fatal(err)
	}
	ids := func(rows []db.SessionListRichRow) []string {
		out := []string{}
		for _, r := range rows {
			out = append(out, r.Session.ID)
		}
		return out
	}
	if diff := cmp.Diff([]string{}, ids(lite)); diff != "" {
		t.Errorf("SQLite lists (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"dup", "nul", "json5"}, ids(rows2(pg, listRow2))); diff != "" {
		t.Errorf("PostgreSQL lists (-want +got):\n%s", diff)
	}
}
