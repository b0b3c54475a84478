package migrations

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// gatewayTable is the part of sessions the v18 step touches, as v21
// declares it.
const gatewayTable = `CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    session_key TEXT,
    chat_id TEXT,
    chat_type TEXT,
    thread_id TEXT,
    display_name TEXT,
    origin_json TEXT,
    expiry_finalized INTEGER DEFAULT 0
);
INSERT INTO sessions (id) VALUES ('a'), ('b'), ('5'), ('1.5'), ('True'), ('1e+16'), ('100.0');
INSERT INTO sessions (id, session_key, display_name, expiry_finalized) VALUES ('pre', 'keep', 'Kept', 1)`

// gatewayDump renders every row with SQLite's quote(), which shows the
// stored type: 'text', 5, NULL.
const gatewayDump = `SELECT id, quote(session_key), quote(chat_id), quote(chat_type), quote(thread_id),
    quote(display_name), quote(origin_json), quote(expiry_finalized) FROM sessions ORDER BY id`

// gatewayCases are sessions.json texts for the v18 step, each with what it
// shows.
var gatewayCases = []struct{ name, text string }{
	{"UpstreamExample", `{"agent:main:telegram:dm:42": {"session_id": "a", "chat_type": "dm", "display_name": "Alice", "origin": {"platform": "telegram", "chat_id": "42", "thread_id": null}, "memory_flushed": true}}`},
	{"DuplicateKeys", `{"k": {"session_id": "a", "display_name": "x", "display_name": "y", "origin": {"b": 1, "a": 2, "b": 3}}}`},
	{"Numbers", `{"k": {"session_id": "a", "origin": {"chat_id": 5, "n": 1.50, "e": 1e5, "E": 2E-7, "neg": -0, "negf": -0.0, "big": 12345678901234567890123, "inf": 1e400, "tiny": 1e-400}}}`},
	{"NonStringSessionIDs", `{"i": {"session_id": 5, "display_name": "int"}, "f": {"session_id": 1.5, "display_name": "float"}, "t": {"session_id": true, "display_name": "bool"}, "e": {"session_id": 1e16, "display_name": "exp"}, "h": {"session_id": 100.0, "display_name": "hundred"}}`},
	{"Skipped", `{"_meta": {"session_id": "a", "display_name": "underscore"}, "z1": {"session_id": 0}, "z2": {"session_id": ""}, "z3": {"session_id": false}, "z4": {"session_id": null}, "z5": {"session_id": []}, "z6": "not an entry", "z7": {"display_name": "no id"}, "ok": {"session_id": "b", "display_name": "B"}}`},
	{"SessionKeys", `{"key-a": {"session_id": "a", "session_key": ""}, "key-b": {"session_id": "b", "session_key": 7}, "key-5": {"session_id": "5", "session_key": 0}}`},
	{"UnbindableStopsTheStep", `{"e1": {"session_id": "a", "display_name": "A"}, "e2": {"session_id": "b", "display_name": [1]}, "e3": {"session_id": "5", "chat_type": "x"}}`},
	{"IntegerTooLarge", `{"e1": {"session_id": "a", "display_name": "A"}, "e2": {"session_id": "b", "origin": {"chat_id": 1180591620717411303424}}, "e3": {"session_id": "5", "chat_type": "x"}}`},
	{"DictValue", `{"e1": {"session_id": "a", "chat_type": {"x": 1}}, "e2": {"session_id": "b", "display_name": "B"}}`},
	{"NotAnObject", `[{"session_id": "a"}]`},
	{"NotJSON", `{"k": {"session_id": "a",}}`},
	{"Empty", ``},
	{"ByteOrderMark", "\ufeff" + `{"k": {"session_id": "a", "display_name": "A"}}`},
	{"ControlCharacter", "{\"k\": {\"session_id\": \"a\", \"display_name\": \"A\tB\"}}"},
	{"ExtraData", `{"k": {"session_id": "a", "display_name": "A"}} {}`},
	{"NaNAndInfinity", `{"k": {"session_id": "a", "origin": {"x": NaN, "y": Infinity, "z": -Infinity}, "display_name": NaN}}`},
	{"Unicode", `{"k": {"session_id": "a", "display_name": "Zoë 🚀 \u00e9\ud83d\ude80", "origin": {"name": "Zoë 🚀", "esc": "\"\\/\b\f\n\r\t\u0000\u007f"}}}`},
	{"Coalesce", `{"k": {"session_id": "pre", "session_key": "new", "display_name": "New", "chat_type": "dm", "expiry_finalized": 0, "memory_flushed": false}}`},
	{"ExpiryTruthiness", `{"a": {"session_id": "a", "expiry_finalized": "no"}, "b": {"session_id": "b", "expiry_finalized": 0.0, "memory_flushed": []}, "c": {"session_id": "5", "memory_flushed": {"x": 1}}, "d": {"session_id": "1.5", "expiry_finalized": NaN}}`},
	{"OriginNotAnObject", `{"k": {"session_id": "a", "origin": "telegram", "chat_type": "dm"}}`},
	{"SameSessionTwice", `{"first": {"session_id": "a", "display_name": "one", "expiry_finalized": false}, "second": {"session_id": "a", "display_name": "two", "chat_type": "dm", "expiry_finalized": true}}`},
	{"Whitespace", " \r\n\t{ \"k\" :\n{\"session_id\":\"a\" , \"display_name\" : \"A\" } }\n\n"},
	{"NoSuchSession", `{"k": {"session_id": "nobody", "display_name": "X"}}`},
	// A lone surrogate in the first entry: Python reads the file and fails
	// to bind the value; this port refuses the file. Either way nothing is
	// copied (with an entry before it, Python would have copied that one).
	{"LoneSurrogateFirst", `{"k": {"session_id": "a", "display_name": "\ud800"}, "l": {"session_id": "b", "display_name": "B"}}`},
}

// pythonGatewayBackfill is the reference: Python's json and sqlite3 doing
// what upstream's v18 step does (upstream-v21.md §2.2), on one in-memory
// table per case, its failure caught around the whole loop as upstream
// catches it. It prints each case's rows as gatewayDump renders them.
const pythonGatewayBackfill = `import json, sqlite3, sys
req = json.load(sys.stdin)
out = []
for path in req["files"]:
    conn = sqlite3.connect(":memory:")
    conn.executescript(req["table"])
    try:
        with open(path, "r", encoding="utf-8") as f:
            data = json.load(f)
        if isinstance(data, dict):
            for key, entry in data.items():
                if str(key).startswith("_") or not isinstance(entry, dict):
                    continue
                if not entry.get("session_id"):
                    continue
                origin = entry.get("origin")
                conn.execute(req["update"], (
                    entry.get("session_key") or key,
                    origin.get("chat_id") if isinstance(origin, dict) else None,
                    entry.get("chat_type"),
                    origin.get("thread_id") if isinstance(origin, dict) else None,
                    entry.get("display_name"),
                    json.dumps(origin) if isinstance(origin, dict) else None,
                    1 if entry.get("expiry_finalized") or entry.get("memory_flushed") else 0,
                    str(entry["session_id"]),
                ))
    except Exception:
        pass
    out.append([list(r) for r in conn.execute(req["dump"])])
print(json.dumps(out), end="")`

// TestGatewayBackfillMatchesPython runs the v18 step on each sessions.json
// of gatewayCases and compares every row with what Python's json and
// sqlite3 make of the same file with upstream's logic: the same values,
// bound with the same types, origin_json in the same text.
func TestGatewayBackfillMatchesPython(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := make([]string, len(gatewayCases))
	for i, c := range gatewayCases {
		files[i] = filepath.Join(dir, c.name+".json")
		if err := os.WriteFile(files[i], []byte(c.text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var want [][][]any
	dbtest.Python(t, pythonGatewayBackfill, map[string]any{
		"files": files, "table": gatewayTable, "update": backfillV18SQL, "dump": gatewayDump,
	}, &want)
	if len(want) != len(gatewayCases) {
		t.Fatalf("python3 returned %d cases, want %d", len(want), len(gatewayCases))
	}
	for i, c := range gatewayCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := gatewayBackfillRows(t, files[i])
			if diff := cmp.Diff(want[i], got); diff != "" {
				t.Errorf("rows (-python +ours):\n%s", diff)
			}
		})
	}
}

// gatewayBackfillRows runs the v18 step with the sessions.json at path on
// a new gatewayTable and returns its rows as gatewayDump renders them (as
// []any of strings, like the decoded Python output).
func gatewayBackfillRows(t *testing.T, path string) [][]any {
	t.Helper()
	db, err := openMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	dbtest.Exec(t, db, gatewayTable)
	if _, err := backfillGatewayMetadata(context.Background(), db, path, nil); err != nil {
		t.Fatalf("backfill: %v", err)
	}
	out := [][]any{}
	for _, r := range dbtest.Rows(t, db, gatewayDump) {
		row := make([]any, len(r))
		copy(row, r)
		out = append(out, row)
	}
	return out
}

// TestGatewayBackfillExact pins what some of the cases above copy, so that
// the comparison with Python cannot pass by both sides doing nothing.
func TestGatewayBackfillExact(t *testing.T) {
	t.Parallel()
	byName := map[string]string{}
	for _, c := range gatewayCases {
		byName[c.name] = c.text
	}
	row := func(t *testing.T, name, id string) []any {
		t.Helper()
		path := filepath.Join(t.TempDir(), "sessions.json")
		if err := os.WriteFile(path, []byte(byName[name]), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, r := range gatewayBackfillRows(t, path) {
			if r[0] == id {
				return r
			}
		}
		t.Fatalf("%s: no row %s", name, id)
		return nil
	}
	for _, c := range []struct {
		name, id string
		want     []any
	}{
		{"UpstreamExample", "a", []any{"a", "'agent:main:telegram:dm:42'", "'42'", "'dm'", "NULL", "'Alice'",
			`'{"platform": "telegram", "chat_id": "42", "thread_id": null}'`, "1"}},
		{"DuplicateKeys", "a", []any{"a", "'k'", "NULL", "NULL", "NULL", "'y'", `'{"b": 3, "a": 2}'`, "0"}},
		{"Numbers", "a", []any{"a", "'k'", "'5'", "NULL", "NULL", "NULL",
			`'{"chat_id": 5, "n": 1.5, "e": 100000.0, "E": 2e-07, "neg": 0, "negf": -0.0, "big": 12345678901234567890123, "inf": Infinity, "tiny": 0.0}'`, "0"}},
		{"NonStringSessionIDs", "True", []any{"True", "'t'", "NULL", "NULL", "NULL", "'bool'", "NULL", "0"}},
		{"NonStringSessionIDs", "1e+16", []any{"1e+16", "'e'", "NULL", "NULL", "NULL", "'exp'", "NULL", "0"}},
		{"SessionKeys", "b", []any{"b", "'7'", "NULL", "NULL", "NULL", "NULL", "NULL", "0"}},
		{"UnbindableStopsTheStep", "a", []any{"a", "'e1'", "NULL", "NULL", "NULL", "'A'", "NULL", "0"}},
		{"UnbindableStopsTheStep", "5", []any{"5", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "0"}},
		{"Unicode", "a", []any{"a", "'k'", "NULL", "NULL", "NULL", "'Zoë 🚀 é🚀'",
			`'{"name": "Zo\u00eb \ud83d\ude80", "esc": "\"\\/\b\f\n\r\t\u0000\u007f"}'`, "0"}},
		{"Coalesce", "pre", []any{"pre", "'keep'", "NULL", "'dm'", "NULL", "'Kept'", "NULL", "1"}},
		{"SameSessionTwice", "a", []any{"a", "'first'", "NULL", "'dm'", "NULL", "'one'", "NULL", "1"}},
	} {
		if diff := cmp.Diff(c.want, row(t, c.name, c.id)); diff != "" {
			t.Errorf("%s, row %s (-want +got):\n%s", c.name, c.id, diff)
		}
	}
}

// TestGatewayBackfillWithoutAFile: no HermesHome, or none holding
// sessions/sessions.json, or one that cannot be read: the step copies
// nothing and the migration goes on.
func TestGatewayBackfillWithoutAFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	unreadable := t.TempDir()
	// A directory where the file should be: reading it fails.
	if err := os.MkdirAll(filepath.Join(unreadable, "sessions", "sessions.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, home := range map[string]string{"NoOption": "", "NoFile": t.TempDir(), "Unreadable": unreadable} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := openWriter(t, goStepFile(t))
			res, err := newMigrator(t, db, &Options{HermesHome: home}).Up(ctx)
			if err != nil {
				t.Fatalf("Up: %v", err)
			}
			for _, c := range res.Changes {
				if strings.HasPrefix(c, "v18:") {
					t.Errorf("Up changed %q", c)
				}
			}
			if got := dbtest.Value[int64](t, db, "SELECT count(*) FROM sessions WHERE session_key IS NOT NULL OR display_name IS NOT NULL"); got != 0 {
				t.Errorf("%d sessions got gateway metadata, want 0", got)
			}
		})
	}
}

// TestGatewayBackfillSkipsTheDatabase: a sessions/sessions.json that is
// the database itself (a hard link) is not read: reading it would close a
// descriptor on the database, which drops the migration's locks. The step
// says why it copied nothing.
func TestGatewayBackfillSkipsTheDatabase(t *testing.T) {
	t.Parallel()
	path := goStepFile(t)
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(path, filepath.Join(home, "sessions", "sessions.json")); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	db := openWriter(t, path)
	res, err := newMigrator(t, db, &Options{HermesHome: home, Logger: slog.New(slog.NewTextHandler(&log, nil))}).Up(context.Background())
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	for _, c := range res.Changes {
		if strings.HasPrefix(c, "v18:") {
			t.Errorf("Up changed %q", c)
		}
	}
	if want := `msg="v18 gateway metadata backfill skipped" file=` + filepath.Join(home, "sessions", "sessions.json") +
		` reason="the file is the database's file"`; !strings.Contains(log.String(), want) {
		t.Errorf("log:\n%s\nwant a line with %s", log.String(), want)
	}
}
