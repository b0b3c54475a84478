package fts

import (
	"database/sql"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// ftsDB is an in-memory database with the two FTS5 tables the store
// searches, under short names: u (unicode61, like messages_fts) and g
// (trigram, like messages_fts_trigram), one column content each.
type ftsDB struct {
	db *sql.DB
}

var ftsRows = []string{
	"How do I deploy with Docker?", "Use docker compose up.", "Run the chat-send command",
	"Working on P2.2 session_search edge cases", "See simulate.p2.test.ts for details",
	"user@example.com wrote: rm -rf gateway/run.py --force", "it's TODO: fix .env and a,b",
	"昨天和其他Agent的聊天记录，记忆断裂问题复现了", "广西是个好地方，去过桂林", "漓江风景很美，值得旅游",
	"こんにちは世界", "안녕하세요 반갑습니다", "and or not near NEAR content",
}

func openFTS(tb testing.TB) *ftsDB {
	tb.Helper()
	db, err := sql.Open("sqlite3", "file::memory:")
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close() })
	for _, stmt := range []string{
		"CREATE VIRTUAL TABLE u USING fts5(content)",
		"CREATE VIRTUAL TABLE g USING fts5(content, tokenize='trigram')",
	} {
		if _, err := db.Exec(stmt); err != nil {
			tb.Fatalf("%s: %v (build with -tags sqlite_fts5)", stmt, err)
		}
	}
	for _, r := range ftsRows {
		for _, t := range []string{"u", "g"} {
			if _, err := db.Exec("INSERT INTO "+t+"(content) VALUES (?)", r); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return &ftsDB{db}
}

// match runs q against table t ("u" or "g") and returns the matching
// rows' content, or SQLite's error.
func (d *ftsDB) match(t, q string) ([]string, error) {
	rows, err := d.db.Query("SELECT content FROM "+t+" WHERE "+t+" MATCH ? ORDER BY rowid", q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// valid reports whether SQLite accepts q as a MATCH expression for both
// tables.
func (d *ftsDB) valid(q string) bool {
	_, errU := d.match("u", q)
	_, errG := d.match("g", q)
	return errU == nil && errG == nil
}
