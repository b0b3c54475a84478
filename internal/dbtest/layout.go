package dbtest

import (
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Layout is everything of a database file that the original's own code
// shows or depends on, in the form the golden files of testdata/golden
// record it (each written by running the original on a fixture; see
// testdata/README.md):
//
//   - SQLiteMaster: SELECT type, name, tbl_name, sql FROM sqlite_master
//     ORDER BY rowid;
//   - TableXInfo: PRAGMA table_xinfo of every table, shadow and virtual
//     tables included, by table name;
//   - Rows: every row of every ordinary table (sqlite_sequence included,
//     the FTS5 shadow tables not), ORDER BY rowid;
//   - FTS: the rowid and indexed text of every row of messages_fts and
//     messages_fts_trigram.
//
// Values are int64, float64, string, []byte or nil.
type Layout struct {
	SQLiteMaster [][]any            `json:"sqlite_master"`
	TableXInfo   map[string][][]any `json:"table_xinfo"`
	Rows         map[string][][]any `json:"rows"`
	FTS          map[string][][]any `json:"fts"`
}

// ReadLayout reads the Layout of the database at path through a read-only
// connection (which may create its -wal and -shm: never pass a fixture in
// testdata, pass a copy).
func ReadLayout(t testing.TB, path string) Layout {
	t.Helper()
	db, err := sql.Open("sqlite3", (&url.URL{Scheme: "file", Path: path}).String()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	l := Layout{TableXInfo: map[string][][]any{}, Rows: map[string][][]any{}, FTS: map[string][][]any{}}
	l.SQLiteMaster = Rows(t, db, "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid")
	for _, name := range Values[string](t, db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid") {
		l.TableXInfo[name] = Rows(t, db, "SELECT * FROM pragma_table_xinfo(?)", name)
	}
	ordinary := Values[string](t, db, "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE TABLE%' AND name NOT LIKE 'messages_fts%' ORDER BY rowid")
	for _, name := range ordinary {
		order := "rowid"
		if name == "state_meta" {
			order = "key"
		}
		l.Rows[name] = Rows(t, db, fmt.Sprintf(`SELECT * FROM "%s" ORDER BY %s`, name, order))
	}
	for _, name := range []string{"messages_fts", "messages_fts_trigram"} {
		l.FTS[name] = Rows(t, db, fmt.Sprintf("SELECT rowid, content FROM %s ORDER BY rowid", name))
	}
	return l
}

// GoldenLayout reads testdata/golden/name.json: a Layout as the Python
// original's file looked (floats recorded as {"real": repr}, blobs as
// {"blob": hex}).
func GoldenLayout(t testing.TB, name string) Layout {
	t.Helper()
	b, err := os.ReadFile(Testdata("golden", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		SQLiteMaster [][]any            `json:"sqlite_master"`
		TableXInfo   map[string][][]any `json:"table_xinfo"`
		Rows         map[string][][]any `json:"rows"`
		FTS          map[string][][]any `json:"fts"`
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	l := Layout{SQLiteMaster: goldenRows(t, raw.SQLiteMaster), TableXInfo: map[string][][]any{}, Rows: map[string][][]any{}, FTS: map[string][][]any{}}
	for k, v := range raw.TableXInfo {
		l.TableXInfo[k] = goldenRows(t, v)
	}
	for k, v := range raw.Rows {
		l.Rows[k] = goldenRows(t, v)
	}
	for k, v := range raw.FTS {
		l.FTS[k] = goldenRows(t, v)
	}
	return l
}

func goldenRows(t testing.TB, rows [][]any) [][]any {
	out := make([][]any, 0, len(rows))
	for _, r := range rows {
		row := make([]any, len(r))
		for i, v := range r {
			row[i] = goldenValue(t, v)
		}
		out = append(out, row)
	}
	return out
}

func goldenValue(t testing.TB, v any) any {
	switch v := v.(type) {
	case json.Number:
		n, err := strconv.ParseInt(v.String(), 10, 64)
		if err != nil {
			t.Fatalf("golden integer %s: %v", v, err)
		}
		return n
	case map[string]any:
		if s, ok := v["real"].(string); ok {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("golden real %s: %v", s, err)
			}
			return f
		}
		if s, ok := v["blob"].(string); ok {
			b, err := hex.DecodeString(s)
			if err != nil {
				t.Fatalf("golden blob: %v", err)
			}
			return b
		}
	}
	return v
}
