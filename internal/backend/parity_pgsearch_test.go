package backend_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hermesstate/hermesstate/db"
	pgdb "github.com/hermesstate/hermesstate/db/postgres"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// The queries of queries/{sqlite,postgres}/{messages,search}.sql convert
// between the engines by Go struct conversion, in both directions: a drift
// in a field's name, type or order is a compile error here.
var (
	_ = pgdb.Message(db.Message{})
	_ = db.Message(pgdb.Message{})

	_ = pgdb.ImportClosesCycleParams(db.ImportClosesCycleParams{})
	_ = db.ImportClosesCycleParams(pgdb.ImportClosesCycleParams{})
	_ = pgdb.MessageAfterParams(db.MessageAfterParams{})
	_ = db.MessageAfterParams(pgdb.MessageAfterParams{})
	_ = pgdb.MessageBookendEndParams(db.MessageBookendEndParams{})
	_ = db.MessageBookendEndParams(pgdb.MessageBookendEndParams{})
	_ = pgdb.MessageBookendStartParams(db.MessageBookendStartParams{})
	_ = db.MessageBookendStartParams(pgdb.MessageBookendStartParams{})
	_ = pgdb.MessageConversationParams(db.MessageConversationParams{})
	_ = db.MessageConversationParams(pgdb.MessageConversationParams{})
	_ = pgdb.MessageConversationRow(db.MessageConversationRow{})
	_ = db.MessageConversationRow(pgdb.MessageConversationRow{})
	_ = pgdb.MessageHasPlatformIDParams(db.MessageHasPlatformIDParams{})
	_ = db.MessageHasPlatformIDParams(pgdb.MessageHasPlatformIDParams{})
	_ = pgdb.MessageImportParams(db.MessageImportParams{})
	_ = db.MessageImportParams(pgdb.MessageImportParams{})
	_ = pgdb.MessageInSessionParams(db.MessageInSessionParams{})
	_ = db.MessageInSessionParams(pgdb.MessageInSessionParams{})
	_ = pgdb.MessageInsertParams(db.MessageInsertParams{})
	_ = db.MessageInsertParams(pgdb.MessageInsertParams{})
	_ = pgdb.MessageListParams(db.MessageListParams{})
	_ = db.MessageListParams(pgdb.MessageListParams{})
	_ = pgdb.MessagePageParams(db.MessagePageParams{})
	_ = db.MessagePageParams(pgdb.MessagePageParams{})
	_ = pgdb.MessagePageAfterParams(db.MessagePageAfterParams{})
	_ = db.MessagePageAfterParams(pgdb.MessagePageAfterParams{})
	_ = pgdb.MessageRecentUserParams(db.MessageRecentUserParams{})
	_ = db.MessageRecentUserParams(pgdb.MessageRecentUserParams{})
	_ = pgdb.MessageRecentUserRow(db.MessageRecentUserRow{})
	_ = db.MessageRecentUserRow(pgdb.MessageRecentUserRow{})
	_ = pgdb.MessageRestoreFromParams(db.MessageRestoreFromParams{})
	_ = db.MessageRestoreFromParams(pgdb.MessageRestoreFromParams{})
	_ = pgdb.MessageRewindFromParams(db.MessageRewindFromParams{})
	_ = db.MessageRewindFromParams(pgdb.MessageRewindFromParams{})
	_ = pgdb.MessageUpToParams(db.MessageUpToParams{})
	_ = db.MessageUpToParams(pgdb.MessageUpToParams{})
	_ = pgdb.MessageContextParams(db.MessageContextParams{})
	_ = db.MessageContextParams(pgdb.MessageContextParams{})
	_ = pgdb.MessageContextRow(db.MessageContextRow{})
	_ = db.MessageContextRow(pgdb.MessageContextRow{})
)

// The methods whose parameter or result is a scalar (or a slice of rows)
// have the same signature on both engines but for the DBTX and the
// package of the structs converted above.
var (
	_ func(*db.Queries, context.Context, db.DBTX, interface{}) (int64, error)     = (*db.Queries).ExportCount
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, interface{}) (int64, error) = (*pgdb.Queries).ExportCount
	_ func(*db.Queries, context.Context, db.DBTX, interface{}) (int64, error)     = (*db.Queries).MessageIDsTaken
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, interface{}) (int64, error) = (*pgdb.Queries).MessageIDsTaken

	_ func(*db.Queries, context.Context, db.DBTX, db.ImportClosesCycleParams) (bool, error)          = (*db.Queries).ImportClosesCycle
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.ImportClosesCycleParams) (bool, error)    = (*pgdb.Queries).ImportClosesCycle
	_ func(*db.Queries, context.Context, db.DBTX, db.MessageHasPlatformIDParams) (bool, error)       = (*db.Queries).MessageHasPlatformID
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.MessageHasPlatformIDParams) (bool, error) = (*pgdb.Queries).MessageHasPlatformID
	_ func(*db.Queries, context.Context, db.DBTX, string) (bool, error)                              = (*db.Queries).MessageHasInactive
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (bool, error)                          = (*pgdb.Queries).MessageHasInactive

	_ func(*db.Queries, context.Context, db.DBTX) (int64, error)                               = (*db.Queries).MessageCount
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX) (int64, error)                           = (*pgdb.Queries).MessageCount
	_ func(*db.Queries, context.Context, db.DBTX, string) (int64, error)                       = (*db.Queries).MessageCountBySession
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (int64, error)                   = (*pgdb.Queries).MessageCountBySession
	_ func(*db.Queries, context.Context, db.DBTX, string) (int64, error)                       = (*db.Queries).MessageActiveHead
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (int64, error)                   = (*pgdb.Queries).MessageActiveHead
	_ func(*db.Queries, context.Context, db.DBTX, string) (int64, error)                       = (*db.Queries).MessageArchiveActive
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (int64, error)                   = (*pgdb.Queries).MessageArchiveActive
	_ func(*db.Queries, context.Context, db.DBTX, string) (int64, error)                       = (*db.Queries).MessageDeleteActive
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (int64, error)                   = (*pgdb.Queries).MessageDeleteActive
	_ func(*db.Queries, context.Context, db.DBTX, string) (int64, error)                       = (*db.Queries).MessageDeleteBySession
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (int64, error)                   = (*pgdb.Queries).MessageDeleteBySession
	_ func(*db.Queries, context.Context, db.DBTX, string) (int64, error)                       = (*db.Queries).SessionBumpRewindCount
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, string) (int64, error)                   = (*pgdb.Queries).SessionBumpRewindCount
	_ func(*db.Queries, context.Context, db.DBTX, int64) (string, error)                       = (*db.Queries).MessageSearchText
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, int64) (string, error)                   = (*pgdb.Queries).MessageSearchText
	_ func(*db.Queries, context.Context, db.DBTX, db.MessageImportParams) error                = (*db.Queries).MessageImport
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.MessageImportParams) (int64, error) = (*pgdb.Queries).MessageImport

	_ func(*db.Queries, context.Context, db.DBTX, db.MessageInsertParams) (int64, error)            = (*db.Queries).MessageInsert
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.MessageInsertParams) (int64, error)      = (*pgdb.Queries).MessageInsert
	_ func(*db.Queries, context.Context, db.DBTX, db.MessageRestoreFromParams) (int64, error)       = (*db.Queries).MessageRestoreFrom
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.MessageRestoreFromParams) (int64, error) = (*pgdb.Queries).MessageRestoreFrom
	_ func(*db.Queries, context.Context, db.DBTX, db.MessageRewindFromParams) (int64, error)        = (*db.Queries).MessageRewindFrom
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.MessageRewindFromParams) (int64, error)  = (*pgdb.Queries).MessageRewindFrom

	_ func(*db.Queries, context.Context, db.DBTX, db.MessageInSessionParams) (db.Message, error)                             = (*db.Queries).MessageInSession
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.MessageInSessionParams) (pgdb.Message, error)                     = (*pgdb.Queries).MessageInSession
	_ func(*db.Queries, context.Context, db.DBTX, db.MessageAfterParams) ([]db.Message, error)                               = (*db.Queries).MessageAfter
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.MessageAfterParams) ([]pgdb.Message, error)                       = (*pgdb.Queries).MessageAfter
	_ func(*db.Queries, context.Context, db.DBTX, db.MessageUpToParams) ([]db.Message, error)                                = (*db.Queries).MessageUpTo
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.MessageUpToParams) ([]pgdb.Message, error)                        = (*pgdb.Queries).MessageUpTo
	_ func(*db.Queries, context.Context, db.DBTX, db.MessageListParams) ([]db.Message, error)                                = (*db.Queries).MessageList
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.MessageListParams) ([]pgdb.Message, error)                        = (*pgdb.Queries).MessageList
	_ func(*db.Queries, context.Context, db.DBTX, db.MessagePageParams) ([]db.Message, error)                                = (*db.Queries).MessagePage
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.MessagePageParams) ([]pgdb.Message, error)                        = (*pgdb.Queries).MessagePage
	_ func(*db.Queries, context.Context, db.DBTX, db.MessagePageAfterParams) ([]db.Message, error)                           = (*db.Queries).MessagePageAfter
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.MessagePageAfterParams) ([]pgdb.Message, error)                   = (*pgdb.Queries).MessagePageAfter
	_ func(*db.Queries, context.Context, db.DBTX, db.MessageBookendStartParams) ([]db.Message, error)                        = (*db.Queries).MessageBookendStart
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.MessageBookendStartParams) ([]pgdb.Message, error)                = (*pgdb.Queries).MessageBookendStart
	_ func(*db.Queries, context.Context, db.DBTX, db.MessageBookendEndParams) ([]db.Message, error)                          = (*db.Queries).MessageBookendEnd
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.MessageBookendEndParams) ([]pgdb.Message, error)                  = (*pgdb.Queries).MessageBookendEnd
	_ func(*db.Queries, context.Context, db.DBTX, db.MessageConversationParams) ([]db.MessageConversationRow, error)         = (*db.Queries).MessageConversation
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.MessageConversationParams) ([]pgdb.MessageConversationRow, error) = (*pgdb.Queries).MessageConversation
	_ func(*db.Queries, context.Context, db.DBTX, db.MessageRecentUserParams) ([]db.MessageRecentUserRow, error)             = (*db.Queries).MessageRecentUser
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.MessageRecentUserParams) ([]pgdb.MessageRecentUserRow, error)     = (*pgdb.Queries).MessageRecentUser
	_ func(*db.Queries, context.Context, db.DBTX, db.MessageContextParams) ([]db.MessageContextRow, error)                   = (*db.Queries).MessageContext
	_ func(*pgdb.Queries, context.Context, pgdb.DBTX, pgdb.MessageContextParams) ([]pgdb.MessageContextRow, error)           = (*pgdb.Queries).MessageContext
)

// convS converts a slice of one engine's rows into the other's.
func convS[To, From any](rows []From, conv func(From) To) []To {
	out := make([]To, len(rows))
	for i, r := range rows {
		out[i] = conv(r)
	}
	return out
}

func strS(s string) *string { return &s }

// twinS runs one query on both engines and fails the test when the
// answers (or the errors' presence) differ.
func twinS[T any](t *testing.T, name string, sq func() (T, error), pq func() (T, error)) T {
	t.Helper()
	want, err := sq()
	if err != nil {
		t.Fatalf("%s on SQLite: %v", name, err)
	}
	got, err := pq()
	if err != nil {
		t.Fatalf("%s on PostgreSQL: %v", name, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-SQLite +PostgreSQL):\n%s", name, diff)
	}
	return want
}

// TestMessageQueriesParityPGSearch runs every query of messages.sql and
// search.sql on a SQLite file and on PostgreSQL with the same inputs, in
// the same order, writes included, and compares the answers.
func TestMessageQueriesParityPGSearch(t *testing.T) {
	ctx := context.Background()
	pc := newPG(t, pgx.QueryExecModeCacheStatement)
	sf := newSQLite(t)
	sq, pq := db.New(), pgdb.New()

	// Hand-written on both engines: the sessions the messages belong to
	// (a lineage root <- child <- grandchild, and one of another source);
	// the session queries are another query file's.
	for _, s := range [][3]any{{"root", "cli", nil}, {"child", "cli", "root"}, {"grand", "cli", "child"}, {"other", "telegram", nil}} {
		const ins = "INSERT INTO sessions (id, source, parent_session_id, started_at) VALUES ($1, $2, $3, 1)"
		if _, err := sf.ExecContext(ctx, ins, s[0], s[1], s[2]); err != nil {
			t.Fatal(err)
		}
		if _, err := pc.Exec(ctx, ins, s[0], s[1], s[2]); err != nil {
			t.Fatal(err)
		}
	}

	type msg struct {
		session, role, content string
		ts                     float64
	}
	msgs := []msg{
		{"root", "user", "hello root", 10}, {"root", "assistant", "", 11},
		{"child", "user", "first question", 20}, {"child", "assistant", "an answer", 20},
		{"child", "tool", "tool output", 19}, {"child", "user", "second question ünïcödé 数据库", 22},
		{"grand", "user", "grand message", 30}, {"other", "user", "elsewhere", 40},
	}
	for i, m := range msgs {
		p := db.MessageInsertParams{
			SessionID: m.session, Role: m.role, Content: strS(m.content),
			Timestamp: sqlnum.RealOf(m.ts), TokenCount: sqlnum.IntOf(int64(i)), Observed: sqlnum.IntOf(int64(i % 2)),
		}
		if i == 4 {
			p.ToolName, p.ToolCalls, p.ToolCallID = strS("web_search"), strS(`[{"id":"c1"}]`), strS("c1")
		}
		if i == 7 {
			p.Content, p.PlatformMessageID = nil, strS("tg-1")
		}
		twinS(t, "MessageInsert", func() (int64, error) { return sq.MessageInsert(ctx, sf, p) },
			func() (int64, error) { return pq.MessageInsert(ctx, pc, pgdb.MessageInsertParams(p)) })
	}
	imp := db.MessageImportParams{ID: 100, SessionID: "other", Role: "user", Content: strS("imported"),
		Timestamp: sqlnum.RealOf(41), Observed: sqlnum.IntOf(0), Active: sqlnum.IntOf(1), Compacted: sqlnum.IntOf(0)}
	twinS(t, "MessageImport id 100", func() (int, error) { return 0, sq.MessageImport(ctx, sf, imp) },
		func() (int, error) { _, err := pq.MessageImport(ctx, pc, pgdb.MessageImportParams(imp)); return 0, err })
	// Hand-written: an explicit id does not move PostgreSQL's identity
	// sequence (SQLite's AUTOINCREMENT follows the largest id), so the
	// importer moves it past the ids it kept, as this does.
	if _, err := pc.Exec(ctx, "SELECT setval(pg_get_serial_sequence('messages', 'id'), (SELECT max(id) FROM messages))"); err != nil {
		t.Fatal(err)
	}
	imp.ID, imp.Content = 0, strS("imported with a new id")
	twinS(t, "MessageImport id 0", func() (int, error) { return 0, sq.MessageImport(ctx, sf, imp) },
		func() (int, error) { _, err := pq.MessageImport(ctx, pc, pgdb.MessageImportParams(imp)); return 0, err })

	all := func(name string) {
		t.Helper()
		for _, s := range []string{"root", "child", "grand", "other"} {
			for _, inc := range []int64{0, 1} {
				p := db.MessageListParams{SessionID: s, IncludeInactive: inc, Offset: 0, Limit: -1}
				twinS(t, name+" MessageList "+s, func() ([]db.Message, error) { return sq.MessageList(ctx, sf, p) },
					func() ([]db.Message, error) {
						r, err := pq.MessageList(ctx, pc, pgdb.MessageListParams(p))
						return convS(r, func(m pgdb.Message) db.Message { return db.Message(m) }), err
					})
			}
		}
	}
	all("after the inserts:")
	rows := twinS(t, "MessageList child", func() ([]db.Message, error) {
		return sq.MessageList(ctx, sf, db.MessageListParams{SessionID: "child", Limit: -1})
	}, func() ([]db.Message, error) {
		r, err := pq.MessageList(ctx, pc, pgdb.MessageListParams{SessionID: "child", Limit: -1})
		return convS(r, func(m pgdb.Message) db.Message { return db.Message(m) }), err
	})
	if len(rows) != 4 || rows[0].ID != 3 || *rows[3].Content != "second question ünïcödé 数据库" {
		t.Fatalf("MessageList child = %+v", rows)
	}
	msgRows := func(name string, s func() ([]db.Message, error), p func() ([]pgdb.Message, error)) []db.Message {
		t.Helper()
		return twinS(t, name, s, func() ([]db.Message, error) {
			r, err := p()
			return convS(r, func(m pgdb.Message) db.Message { return db.Message(m) }), err
		})
	}
	for _, lp := range []db.MessageListParams{{SessionID: "child", Offset: 1, Limit: 2}, {SessionID: "child", Offset: -3, Limit: 1}, {SessionID: "child", Offset: 2, Limit: -1}} {
		msgRows("MessageList offset/limit", func() ([]db.Message, error) { return sq.MessageList(ctx, sf, lp) },
			func() ([]pgdb.Message, error) { return pq.MessageList(ctx, pc, pgdb.MessageListParams(lp)) })
	}
	pp := db.MessagePageParams{SessionID: "child", AfterID: 3, Limit: 2}
	if got := msgRows("MessagePage", func() ([]db.Message, error) { return sq.MessagePage(ctx, sf, pp) },
		func() ([]pgdb.Message, error) { return pq.MessagePage(ctx, pc, pgdb.MessagePageParams(pp)) }); len(got) != 2 {
		t.Errorf("MessagePage: %d rows, want 2", len(got))
	}
	pa := db.MessagePageAfterParams{AfterID: 4, SessionID: "child", Limit: 5}
	msgRows("MessagePageAfter", func() ([]db.Message, error) { return sq.MessagePageAfter(ctx, sf, pa) },
		func() ([]pgdb.Message, error) { return pq.MessagePageAfter(ctx, pc, pgdb.MessagePageAfterParams(pa)) })
	ip := db.MessageInSessionParams{ID: 5, SessionID: "child"}
	twinS(t, "MessageInSession", func() (db.Message, error) { return sq.MessageInSession(ctx, sf, ip) },
		func() (db.Message, error) {
			m, err := pq.MessageInSession(ctx, pc, pgdb.MessageInSessionParams(ip))
			return db.Message(m), err
		})
	up := db.MessageUpToParams{SessionID: "child", ID: 5, Limit: 2}
	msgRows("MessageUpTo", func() ([]db.Message, error) { return sq.MessageUpTo(ctx, sf, up) },
		func() ([]pgdb.Message, error) { return pq.MessageUpTo(ctx, pc, pgdb.MessageUpToParams(up)) })
	af := db.MessageAfterParams{SessionID: "child", ID: 3, Limit: 2}
	msgRows("MessageAfter", func() ([]db.Message, error) { return sq.MessageAfter(ctx, sf, af) },
		func() ([]pgdb.Message, error) { return pq.MessageAfter(ctx, pc, pgdb.MessageAfterParams(af)) })
	for _, be := range []db.MessageBookendStartParams{
		{SessionID: "child", ID: 6, AllRoles: 0, Roles: `["user","tool"]`, Limit: 3},
		{SessionID: "child", ID: 6, AllRoles: 1, Roles: `[]`, Limit: 3},
		{SessionID: "root", ID: 3, AllRoles: 1, Roles: `[]`, Limit: 3},
	} {
		msgRows("MessageBookendStart", func() ([]db.Message, error) { return sq.MessageBookendStart(ctx, sf, be) },
			func() ([]pgdb.Message, error) {
				return pq.MessageBookendStart(ctx, pc, pgdb.MessageBookendStartParams(be))
			})
		bee := db.MessageBookendEndParams(be)
		bee.ID = 3
		msgRows("MessageBookendEnd", func() ([]db.Message, error) { return sq.MessageBookendEnd(ctx, sf, bee) },
			func() ([]pgdb.Message, error) {
				return pq.MessageBookendEnd(ctx, pc, pgdb.MessageBookendEndParams(bee))
			})
	}

	conv := func(name string, p db.MessageConversationParams) []db.MessageConversationRow {
		t.Helper()
		return twinS(t, name, func() ([]db.MessageConversationRow, error) { return sq.MessageConversation(ctx, sf, p) },
			func() ([]db.MessageConversationRow, error) {
				r, err := pq.MessageConversation(ctx, pc, pgdb.MessageConversationParams(p))
				return convS(r, func(m pgdb.MessageConversationRow) db.MessageConversationRow { return db.MessageConversationRow(m) }), err
			})
	}
	if got := conv("MessageConversation with ancestors", db.MessageConversationParams{SessionID: "grand", IncludeAncestors: 1}); len(got) != 7 {
		t.Errorf("MessageConversation with ancestors: %d rows, want 7", len(got))
	}
	conv("MessageConversation alone", db.MessageConversationParams{SessionID: "grand"})

	one := func(name string, s func() (int64, error), p func() (int64, error)) int64 {
		t.Helper()
		return twinS(t, name, s, p)
	}
	one("MessageCount", func() (int64, error) { return sq.MessageCount(ctx, sf) }, func() (int64, error) { return pq.MessageCount(ctx, pc) })
	one("MessageCountBySession", func() (int64, error) { return sq.MessageCountBySession(ctx, sf, "child") },
		func() (int64, error) { return pq.MessageCountBySession(ctx, pc, "child") })
	if n := one("MessageIDsTaken", func() (int64, error) { return sq.MessageIDsTaken(ctx, sf, "[1,2,100,999]") },
		func() (int64, error) { return pq.MessageIDsTaken(ctx, pc, "[1,2,100,999]") }); n != 3 {
		t.Errorf("MessageIDsTaken = %d, want 3", n)
	}
	for _, src := range []any{nil, "cli", "none"} {
		one("ExportCount", func() (int64, error) { return sq.ExportCount(ctx, sf, src) },
			func() (int64, error) { return pq.ExportCount(ctx, pc, src) })
	}
	for _, c := range []db.ImportClosesCycleParams{{Child: "root", Parent: "grand"}, {Child: "grand", Parent: "root"}, {Child: "x", Parent: "x"}} {
		twinS(t, "ImportClosesCycle", func() (bool, error) { return sq.ImportClosesCycle(ctx, sf, c) },
			func() (bool, error) { return pq.ImportClosesCycle(ctx, pc, pgdb.ImportClosesCycleParams(c)) })
	}
	for _, h := range []db.MessageHasPlatformIDParams{{SessionID: "other", PlatformMessageID: strS("tg-1")}, {SessionID: "other", PlatformMessageID: strS("tg-2")}} {
		twinS(t, "MessageHasPlatformID", func() (bool, error) { return sq.MessageHasPlatformID(ctx, sf, h) },
			func() (bool, error) { return pq.MessageHasPlatformID(ctx, pc, pgdb.MessageHasPlatformIDParams(h)) })
	}
	twinS(t, "MessageSearchText", func() (string, error) { return sq.MessageSearchText(ctx, sf, 5) },
		func() (string, error) { return pq.MessageSearchText(ctx, pc, 5) })

	recent := func(name string) {
		t.Helper()
		for _, p := range []db.MessageRecentUserParams{{SessionID: "child", IncludeInactive: 0, Limit: -1}, {SessionID: "child", IncludeInactive: 1, Limit: 1}} {
			twinS(t, name+" MessageRecentUser", func() ([]db.MessageRecentUserRow, error) { return sq.MessageRecentUser(ctx, sf, p) },
				func() ([]db.MessageRecentUserRow, error) {
					r, err := pq.MessageRecentUser(ctx, pc, pgdb.MessageRecentUserParams(p))
					return convS(r, func(m pgdb.MessageRecentUserRow) db.MessageRecentUserRow { return db.MessageRecentUserRow(m) }), err
				})
		}
	}
	context3 := func(name string) {
		t.Helper()
		for _, id := range []int64{3, 4, 5, 6, 999} {
			for _, inc := range []int64{0, 1} {
				p := db.MessageContextParams{ID: id, IncludeInactive: inc}
				twinS(t, name+" MessageContext", func() ([]db.MessageContextRow, error) { return sq.MessageContext(ctx, sf, p) },
					func() ([]db.MessageContextRow, error) {
						r, err := pq.MessageContext(ctx, pc, pgdb.MessageContextParams(p))
						return convS(r, func(m pgdb.MessageContextRow) db.MessageContextRow { return db.MessageContextRow(m) }), err
					})
			}
		}
	}
	recent("before the rewind:")
	context3("before the rewind:")

	// The writes, in one order on both engines, each followed by reads.
	rw := db.MessageRewindFromParams{SessionID: "child", ID: 5}
	if n := one("MessageRewindFrom", func() (int64, error) { return sq.MessageRewindFrom(ctx, sf, rw) },
		func() (int64, error) { return pq.MessageRewindFrom(ctx, pc, pgdb.MessageRewindFromParams(rw)) }); n != 2 {
		t.Errorf("MessageRewindFrom = %d, want 2", n)
	}
	one("SessionBumpRewindCount", func() (int64, error) { return sq.SessionBumpRewindCount(ctx, sf, "child") },
		func() (int64, error) { return pq.SessionBumpRewindCount(ctx, pc, "child") })
	one("MessageActiveHead", func() (int64, error) { return sq.MessageActiveHead(ctx, sf, "child") },
		func() (int64, error) { return pq.MessageActiveHead(ctx, pc, "child") })
	twinS(t, "MessageHasInactive", func() (bool, error) { return sq.MessageHasInactive(ctx, sf, "child") },
		func() (bool, error) { return pq.MessageHasInactive(ctx, pc, "child") })
	all("after the rewind:")
	recent("after the rewind:")
	context3("after the rewind:")
	conv("MessageConversation after the rewind", db.MessageConversationParams{SessionID: "grand", IncludeAncestors: 1})
	conv("MessageConversation inactive too", db.MessageConversationParams{SessionID: "grand", IncludeAncestors: 1, IncludeInactive: 1})
	rs := db.MessageRestoreFromParams{SessionID: "child", ID: 6}
	one("MessageRestoreFrom", func() (int64, error) { return sq.MessageRestoreFrom(ctx, sf, rs) },
		func() (int64, error) { return pq.MessageRestoreFrom(ctx, pc, pgdb.MessageRestoreFromParams(rs)) })
	one("MessageArchiveActive", func() (int64, error) { return sq.MessageArchiveActive(ctx, sf, "root") },
		func() (int64, error) { return pq.MessageArchiveActive(ctx, pc, "root") })
	all("after the archive:")
	context3("after the archive:")
	one("MessageDeleteActive", func() (int64, error) { return sq.MessageDeleteActive(ctx, sf, "child") },
		func() (int64, error) { return pq.MessageDeleteActive(ctx, pc, "child") })
	all("after the active delete:")
	if n := one("MessageDeleteBySession", func() (int64, error) { return sq.MessageDeleteBySession(ctx, sf, "other") },
		func() (int64, error) { return pq.MessageDeleteBySession(ctx, pc, "other") }); n != 3 {
		t.Errorf("MessageDeleteBySession = %d, want 3", n)
	}
	all("after the delete:")
	one("MessageCount at the end", func() (int64, error) { return sq.MessageCount(ctx, sf) }, func() (int64, error) { return pq.MessageCount(ctx, pc) })
}

// TestMessageNULPGSearch pins what PostgreSQL does with a message holding
// U+0000, which SQLite stores: text cannot hold it, and the INSERT fails
// with SQLSTATE 22021 (character_not_in_repertoire), leaving the table as
// it was. The PostgreSQL engine therefore refuses such a message before
// the write with the store's ErrInvalidText (and classifies 22021 so too).
func TestMessageNULPGSearch(t *testing.T) {
	ctx := context.Background()
	pc := newPG(t, pgx.QueryExecModeCacheStatement)
	sf := newSQLite(t)
	// Hand-written: the session the message belongs to.
	const ins = "INSERT INTO sessions (id, source, started_at) VALUES ('s', 'cli', 1)"
	if _, err := pc.Exec(ctx, ins); err != nil {
		t.Fatal(err)
	}
	if _, err := sf.ExecContext(ctx, ins); err != nil {
		t.Fatal(err)
	}
	p := db.MessageInsertParams{SessionID: "s", Role: "user", Content: strS("a\x00b"), Timestamp: sqlnum.RealOf(1)}
	if _, err := db.New().MessageInsert(ctx, sf, p); err != nil {
		t.Fatalf("SQLite refused a NUL: %v", err)
	}
	_, err := pgdb.New().MessageInsert(ctx, pc, pgdb.MessageInsertParams(p))
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "22021" {
		t.Fatalf("PostgreSQL MessageInsert with a NUL: %v, want SQLSTATE 22021", err)
	}
	if n, err := pgdb.New().MessageCount(ctx, pc); err != nil || n != 0 {
		t.Fatalf("MessageCount after the refused insert = %d, %v; want 0", n, err)
	}
}
