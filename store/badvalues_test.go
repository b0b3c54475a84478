package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// badValue is a value of another storage class in one numeric column of
// one row of the export fixture (fillExportFixture): session "root", or
// message 1 (root's first, a user message).
type badValue struct {
	table, column string
	literal       string // the SQL the column is set to
	class         string // typeof() of what SQLite stored
	goValue       any    // the Go field's value: int64, float64 (REAL columns), nil (a nullable column's NULL)
	stored        any    // Stored's entry: float64, string or []byte
}

// id is the row's id as Health.BadValues names it.
func (b badValue) id() string {
	if b.table == "messages" {
		return "1"
	}
	return "root"
}

// sessionIntColumns and the others are the numeric columns of the schema.
var (
	sessionIntColumns  = []string{"message_count", "tool_call_count", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens", "api_call_count"}
	sessionRealColumns = []string{"started_at", "ended_at", "estimated_cost_usd", "actual_cost_usd"}
)

// badValues is every numeric column of sessions and messages with each
// kind of value it can hold but its Go field cannot: for INTEGER columns a
// REAL (1.5, and the REAL SQLite makes of an overflowing sum), TEXT (with
// and without a number in front) and a BLOB; for REAL columns TEXT, a BLOB
// and an infinite REAL (of the right class, but JSON has no number for it:
// it reads as the largest float of its sign).
func badValues() []badValue {
	var out []badValue
	ints := func(table, column string) {
		out = append(out,
			badValue{table, column, "1.5", "real", int64(1), 1.5},
			badValue{table, column, "9223372036854775807 + 1", "real", int64(math.MaxInt64), 9.223372036854776e18},
			badValue{table, column, "-1e20", "real", int64(math.MinInt64), -1e20},
			badValue{table, column, "'lots'", "text", int64(0), "lots"},
			badValue{table, column, "'12 apples'", "text", int64(12), "12 apples"},
			badValue{table, column, "x'00ff'", "blob", int64(0), []byte{0, 0xff}},
		)
	}
	reals := func(table, column string) {
		out = append(out,
			badValue{table, column, "'soon'", "text", 0.0, "soon"},
			badValue{table, column, "'1.5e3 s'", "text", 1500.0, "1.5e3 s"},
			badValue{table, column, "x'3132'", "blob", 12.0, []byte("12")},
			badValue{table, column, "1e999", "real", math.MaxFloat64, math.Inf(1)},
			badValue{table, column, "-1e999", "real", -math.MaxFloat64, math.Inf(-1)},
		)
	}
	for _, c := range sessionIntColumns {
		ints("sessions", c)
	}
	for _, c := range sessionRealColumns {
		reals("sessions", c)
	}
	ints("messages", "token_count")
	reals("messages", "timestamp")
	return out
}

// name is the case's subtest name.
func (b badValue) name() string {
	return fmt.Sprintf("%s.%s=%s", b.table, b.column, b.literal)
}

// store sets the case's column of its row by hand, as another program
// would, on the file at path.
func (b badValue) store(t *testing.T, path string) {
	t.Helper()
	where := "id = 'root'"
	if b.table == "messages" {
		where = "id = 1"
	}
	// The table, column and literal are this test's own constants.
	dbtest.Exec(t, rawDB(t, path), "UPDATE "+b.table+" SET "+b.column+" = "+b.literal+" WHERE "+where)
	if got := dbtest.Value[string](t, rawDB(t, path), "SELECT typeof("+b.column+") FROM "+b.table+" WHERE "+where); got != b.class {
		t.Fatalf("%s holds a %s, want %s", b.name(), got, b.class)
	}
}

// badValueFixture writes the export fixture into a closed file and returns
// its path; each case works on a copy.
func badValueFixture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "base.db")
	s, err := Open(t.Context(), path, quick(&Options{Now: fixtureClock()}))
	if err != nil {
		t.Fatal(err)
	}
	fillExportFixture(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// readEverything runs every read method of the Store on the fixture's
// sessions and fails t on any error: a bad value in one row must never
// fail a read. It returns the ExportJSONL output.
func readEverything(t *testing.T, s *Store) string {
	t.Helper()
	ctx := t.Context()
	check := func(name string, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	two := func(name string) func(any, error) {
		return func(_ any, err error) { t.Helper(); check(name, err) }
	}
	two("GetSession")(s.GetSession(ctx, "root"))
	two("ResolveSessionID")(s.ResolveSessionID(ctx, "roo"))
	two("SessionByTitle")(s.SessionByTitle(ctx, "x"))
	two("ResolveSessionByTitle")(s.ResolveSessionByTitle(ctx, "x"))
	two("SessionTitle")(s.SessionTitle(ctx, "root"))
	two("NextTitleInLineage")(s.NextTitleInLineage(ctx, "x"))
	two("SessionCount")(s.SessionCount(ctx, ""))
	two("MessageCount")(s.MessageCount(ctx, "root"))
	two("CompressionTip")(s.CompressionTip(ctx, "root"))
	two("ResolveResumeSessionID")(s.ResolveResumeSessionID(ctx, "root"))
	two("Lineage")(s.Lineage(ctx, "grandchild"))
	two("Ancestors")(s.Ancestors(ctx, "grandchild"))
	two("Descendants")(s.Descendants(ctx, "root"))
	for _, o := range []ListOptions{{}, {IncludeChildren: true}, {RawCompressionRoots: true}, {Source: "cli", ExcludeSources: []string{"acp"}}} {
		two(fmt.Sprintf("ListSessionsRich(%+v)", o))(s.ListSessionsRich(ctx, o))
	}
	two("SearchSessions")(s.SearchSessions(ctx, "", 0, 0))
	two("GetMessages")(s.GetMessages(ctx, "root"))
	check("EachMessage", s.EachMessage(ctx, "root", func(Message) error { return nil }))
	two("Conversation")(s.Conversation(ctx, "grandchild", true))
	for _, q := range []string{"search", "こんにちは", "日本", "web_search OR continue"} { // word index, trigrams, LIKE
		two("SearchMessages " + q)(s.SearchMessages(ctx, q, SearchOptions{}))
	}
	two("ExportSession")(s.ExportSession(ctx, "root"))
	two("ExportAll")(s.ExportAll(ctx, ""))
	two("ExportCount")(s.ExportCount(ctx, ExportOptions{}))
	var byID bytes.Buffer
	two("ExportJSONL by id")(s.ExportJSONL(ctx, &byID, ExportOptions{IDs: []string{"root", "child"}}))
	two("TokenStatsByModel")(s.TokenStatsByModel(ctx))
	two("TokenStatsBySource")(s.TokenStatsBySource(ctx))
	two("TopSessionsByTokens")(s.TopSessionsByTokens(ctx, 10))
	two("PruneSessions dry run")(s.PruneSessions(ctx, PruneOptions{OlderThan: 1, DryRun: true}))
	two("Check")(s.Check(ctx))
	_, _, err := s.GetMeta(ctx, "none")
	check("GetMeta", err)
	var all bytes.Buffer
	two("ExportJSONL")(s.ExportJSONL(ctx, &all, ExportOptions{}))
	return all.String()
}

// sessionField returns the Go value the case's column reads as in sess.
func sessionField(sess Session, column string) any {
	switch column {
	case "message_count":
		return sess.MessageCount
	case "tool_call_count":
		return sess.ToolCallCount
	case "input_tokens":
		return sess.InputTokens
	case "output_tokens":
		return sess.OutputTokens
	case "cache_read_tokens":
		return sess.CacheReadTokens
	case "cache_write_tokens":
		return sess.CacheWriteTokens
	case "reasoning_tokens":
		return sess.ReasoningTokens
	case "api_call_count":
		return sess.APICallCount
	case "started_at":
		return float64(sess.StartedAt)
	case "ended_at":
		return float64(*sess.EndedAt)
	case "estimated_cost_usd":
		return *sess.EstimatedCostUSD
	case "actual_cost_usd":
		return *sess.ActualCostUSD
	}
	panic(column)
}

// messageField is sessionField for a message.
func messageField(m Message, column string) any {
	if column == "timestamp" {
		return float64(m.Timestamp)
	}
	return *m.TokenCount
}

// TestBadValuesRead: with a value of another storage class in any numeric
// column of a session or a message (one at a time, then all at once),
// every read method works and reads the rest unchanged; the Go field holds
// SQLite's CAST of the value and Stored the value as stored; the export
// writes what the original's export writes for it (checked against
// Python, below); Check names the row, the column and the class; and the
// export imports into a new file that exports the same lines again.
func TestBadValuesRead(t *testing.T) {
	t.Parallel()
	base := badValueFixture(t)
	baseExport := exportText(t, openAt(t, dbtest.CopyFile(t, base, filepath.Join(t.TempDir(), "copy.db")), &Options{ReadOnly: true}), ExportOptions{})
	var mu sync.Mutex
	exports := map[string]string{} // case name → export text, for the Python check
	t.Run("OneAtATime", func(t *testing.T) {
		for _, b := range badValues() {
			t.Run(b.name(), func(t *testing.T) {
				t.Parallel()
				path := dbtest.CopyFile(t, base, filepath.Join(t.TempDir(), "state.db"))
				b.store(t, path)
				var exp string
				for _, ro := range []bool{true, false} {
					s, err := Open(t.Context(), path, quick(&Options{ReadOnly: ro}))
					if err != nil {
						t.Fatalf("Open(ReadOnly %v): %v", ro, err)
					}
					exp = readEverything(t, s)
					checkBadValue(t, s, b, map[string]any{b.column: b.stored})
					s.Close()
				}
				mu.Lock()
				exports[b.name()] = exp
				mu.Unlock()
				if got, want := otherLines(exp, b), otherLines(baseExport, b); !cmp.Equal(got, want) {
					t.Errorf("the other sessions' export lines changed (-base +bad):\n%s", cmp.Diff(want, got))
				}
				// A BLOB is exported as its Go value, so the row imported holds
				// that number instead (and sorts as one): only the other
				// values round-trip exactly. The import recounts
				// message_count and tool_call_count from the rows, so a bad
				// counter comes back as the base's (which match the rows).
				reimported, _ := openStore(t, quick(nil))
				importText(t, reimported, exp, ImportOptions{})
				want, exact := exp, b.class != "blob"
				if b.table == "sessions" && (b.column == "message_count" || b.column == "tool_call_count") {
					want, exact = baseExport, true
				}
				if again := exportText(t, reimported, ExportOptions{}); exact && again != want {
					t.Errorf("export → import → export (-want +second):\n%s", cmp.Diff(want, again))
				}
			})
		}
	})

	t.Run("AllAtOnce", func(t *testing.T) {
		path := dbtest.CopyFile(t, base, filepath.Join(t.TempDir(), "state.db"))
		var all []badValue
		for _, b := range badValues() { // the first kind of each column
			if len(all) == 0 || all[len(all)-1].column != b.column {
				all = append(all, b)
				b.store(t, path)
			}
		}
		s := openAt(t, path, quick(nil))
		exp := readEverything(t, s)
		stored := map[string]map[string]any{"sessions": {}, "messages": {}}
		for _, b := range all {
			stored[b.table][b.column] = b.stored
		}
		for _, b := range all {
			checkBadValue(t, s, b, stored[b.table])
		}
		h, err := s.Check(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(h.BadValues) != len(all) {
			t.Errorf("Check: %d bad values, want %d: %+v", len(h.BadValues), len(all), h.BadValues)
		}
		exports["AllAtOnce"] = exp
	})

	t.Run("PythonExportsTheSame", func(t *testing.T) {
		checkExportsAgainstPython(t, base, exports)
	})
}

// otherLines is the export without the line of the case's session.
func otherLines(export string, b badValue) []string {
	var out []string
	for line := range strings.Lines(export) {
		if !strings.HasPrefix(line, `{"id":"root",`) {
			out = append(out, line)
		}
	}
	return out
}

// checkBadValue checks how s reads the case's row, whose Stored map must
// be wantStored.
func checkBadValue(t *testing.T, s *Store, b badValue, wantStored map[string]any) {
	t.Helper()
	ctx := t.Context()
	if b.table == "sessions" {
		sess := mustSession(t, s, "root")
		if got := sessionField(*sess, b.column); got != b.goValue {
			t.Errorf("GetSession(root).%s = %v, want %v", b.column, got, b.goValue)
		}
		if diff := cmp.Diff(wantStored, sess.Stored); diff != "" {
			t.Errorf("GetSession(root).Stored (-want +got):\n%s", diff)
		}
	} else {
		msgs, err := s.GetMessages(ctx, "root")
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(msgs, func(m Message) bool { return m.ID == 1 })
		if i < 0 || len(msgs) != 4 {
			t.Fatalf("GetMessages(root): %d messages, message 1 at %d", len(msgs), i)
		}
		if got := messageField(msgs[i], b.column); got != b.goValue {
			t.Errorf("message 1 %s = %v, want %v", b.column, got, b.goValue)
		}
		if diff := cmp.Diff(wantStored, msgs[i].Stored); diff != "" {
			t.Errorf("message 1 Stored (-want +got):\n%s", diff)
		}
	}
	list, err := s.ListSessionsRich(ctx, ListOptions{IncludeChildren: true})
	if err != nil || len(list) != 5 {
		t.Errorf("ListSessionsRich: %d sessions, %v; want all 5", len(list), err)
	}
	h, err := s.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []BadValue{{Table: b.table, ID: b.id(), Column: b.column, Type: b.class}}
	if b.class == "real" && (b.column == "timestamp" || slices.Contains(sessionRealColumns, b.column)) {
		want = nil // an infinite REAL is a REAL
	}
	got := slices.DeleteFunc(slices.Clone(h.BadValues), func(v BadValue) bool { return v.Column != b.column })
	if diff := cmp.Diff(want, got, cmpEmptyAsNil); diff != "" {
		t.Errorf("Check().BadValues for %s (-want +got):\n%s", b.column, diff)
	}
}

// cmpEmptyAsNil compares an empty slice equal to nil.
var cmpEmptyAsNil = cmp.FilterValues(func(a, b []BadValue) bool { return len(a) == 0 && len(b) == 0 }, cmp.Comparer(func(a, b []BadValue) bool { return true }))

// pythonExport is upstream c2a3b9ce5's export_all over a file
// (search_sessions' order; get_messages' live rows in id order, content
// decoded, tool_calls decoded: spec §9.4, §10, upstream-v21.md §3.6), each
// entry compared with the export line of the same session that the store
// wrote: its keys in order, every value and its Python type. A bytes
// value, which the original's json.dumps cannot write, is reported as
// "bytes KEY" instead. It prints, per file, the list of differences.
const pythonExport = `import json, sqlite3, sys
cases = json.loads(sys.stdin.read())
SESSIONS = """SELECT s.*, COALESCE(m.last_active, s.started_at) AS last_active FROM sessions s
LEFT JOIN (SELECT session_id, MAX(timestamp) AS last_active FROM messages GROUP BY session_id) m
ON m.session_id = s.id ORDER BY last_active DESC, s.started_at DESC, s.id DESC LIMIT 100000"""
def compare(where, py, ours, out):
    if list(py) != list(ours):
        out.append(where + ": keys " + repr(list(py)) + " != " + repr(list(ours)))
    for k in py:
        if k == "messages":
            for pm, om in zip(py[k], ours.get(k, [])):
                compare(where + " message " + str(pm["id"]), pm, om, out)
            continue
        a, b = py[k], ours.get(k)
        if isinstance(a, bytes):
            out.append("bytes " + where + " " + k)
        elif type(a) is not type(b) or a != b:
            out.append("%s %s: python %r (%s), ours %r (%s)" % (where, k, a, type(a).__name__, b, type(b).__name__))
result = {}
for name, (path, export) in cases.items():
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    ours = {e["id"]: e for e in map(json.loads, export.splitlines())}
    out = []
    for row in conn.execute(SESSIONS).fetchall():
        entry = dict(row)
        msgs = []
        for m in conn.execute("SELECT * FROM messages WHERE session_id = ? AND active = 1 ORDER BY id", (row["id"],)):
            d = dict(m)
            if isinstance(d["content"], str) and d["content"].startswith("\x00json:"):
                d["content"] = json.loads(d["content"][6:])
            if d["tool_calls"]:
                d["tool_calls"] = json.loads(d["tool_calls"])
            msgs.append(d)
        entry["messages"] = msgs
        compare(row["id"], entry, ours.get(row["id"], {}), out)
    result[name] = out
print(json.dumps(result))`

// checkExportsAgainstPython runs pythonExport over a copy of base with each
// case's value stored again (the exports were written from such files):
// the original's export and the store's agree on every value and type but
// the BLOBs, which the original cannot export.
func checkExportsAgainstPython(t *testing.T, base string, exports map[string]string) {
	t.Helper()
	in := map[string][2]string{}
	wantDiff := map[string][]string{}
	var all []badValue
	for _, b := range badValues() {
		path := dbtest.CopyFile(t, base, filepath.Join(t.TempDir(), "state.db"))
		b.store(t, path)
		in[b.name()] = [2]string{path, exports[b.name()]}
		wantDiff[b.name()] = blobDiff(b)
		if len(all) == 0 || all[len(all)-1].column != b.column {
			all = append(all, b)
		}
	}
	path := dbtest.CopyFile(t, base, filepath.Join(t.TempDir(), "state.db"))
	var allBlobs []string
	for _, b := range all {
		b.store(t, path)
		allBlobs = append(allBlobs, blobDiff(b)...)
	}
	in["AllAtOnce"] = [2]string{path, exports["AllAtOnce"]}
	wantDiff["AllAtOnce"] = allBlobs
	var got map[string][]string
	dbtest.Python(t, pythonExport, in, &got)
	for name, want := range wantDiff {
		if diff := cmp.Diff(want, got[name], cmpEmptyStrings); diff != "" {
			t.Errorf("%s: the original's export and ours differ (-want +got):\n%s", name, diff)
		}
	}
}

// blobDiff is what pythonExport reports for a case: its BLOB, which a
// BLOB timestamp also makes the session's last_active (the greatest of
// its messages' timestamps: BLOBs sort after numbers).
func blobDiff(b badValue) []string {
	switch {
	case b.class != "blob":
		return nil
	case b.column == "timestamp":
		return []string{"bytes root last_active", "bytes root message 1 timestamp"}
	case b.table == "messages":
		return []string{"bytes root message 1 " + b.column}
	}
	return []string{"bytes root " + b.column}
}

// cmpEmptyStrings compares an empty list equal to nil.
var cmpEmptyStrings = cmp.FilterValues(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Comparer(func(a, b []string) bool { return true }))

// TestBadValuesExportLine pins the export of bad values to exact text:
// Python's float repr, text as a string, a BLOB as its Go value, an
// infinity as ±1e999, and the line reads back into the same Session.
func TestBadValuesExportLine(t *testing.T) {
	t.Parallel()
	base := badValueFixture(t)
	path := dbtest.CopyFile(t, base, filepath.Join(t.TempDir(), "state.db"))
	for _, stmt := range []string{
		"UPDATE sessions SET input_tokens = 9223372036854775807 + 1, output_tokens = 1.5, cache_read_tokens = 'lots', reasoning_tokens = x'3132', estimated_cost_usd = 1e999, actual_cost_usd = 'n/a' WHERE id = 'empty'",
	} {
		dbtest.Exec(t, rawDB(t, path), stmt)
	}
	s := openAt(t, path, quick(&Options{ReadOnly: true}))
	line := exportText(t, s, ExportOptions{IDs: []string{"empty"}})
	for _, want := range []string{
		`"input_tokens":9.223372036854776e+18,`,
		`"output_tokens":1.5,`,
		`"cache_read_tokens":"lots",`,
		`"reasoning_tokens":12,`,
		`"estimated_cost_usd":1e999,`,
		`"actual_cost_usd":"n/a",`,
	} {
		if !strings.Contains(line, want) {
			t.Errorf("export line lacks %s:\n%s", want, line)
		}
	}
	var e SessionExport
	if err := json.Unmarshal([]byte(line), &e); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"input_tokens": 9.223372036854776e18, "output_tokens": 1.5, "cache_read_tokens": "lots",
		"estimated_cost_usd": math.Inf(1), "actual_cost_usd": "n/a"}
	if diff := cmp.Diff(want, e.Stored); diff != "" {
		t.Errorf("the line read back: Stored (-want +got):\n%s", diff)
	}
	if e.InputTokens != math.MaxInt64 || e.OutputTokens != 1 || e.CacheReadTokens != 0 || e.ReasoningTokens != 12 ||
		*e.EstimatedCostUSD != math.MaxFloat64 || *e.ActualCostUSD != 0 {
		t.Errorf("the line read back: %+v", e.Session)
	}
	exp, err := s.ExportSession(context.Background(), "empty")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(exp)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Replace(line, `,"last_active":`+lastActiveOf(t, line), "", 1); string(b)+"\n" != got {
		t.Errorf("ExportSession marshalled:\n%s\nwant the export line without last_active:\n%s", b, got)
	}
}

// lastActiveOf returns the text of the last_active value of an export line.
func lastActiveOf(t *testing.T, line string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatal(err)
	}
	return string(m["last_active"])
}

// TestEachMessagePagesPastBadTimestamps: keyset pages compare against the
// stored value of the last timestamp of a page, so a session whose
// timestamps include text and BLOBs (which sort after every number, in
// that order) streams every message once, in GetMessages' order, across
// page boundaries that fall on them.
func TestEachMessagePagesPastBadTimestamps(t *testing.T) {
	t.Parallel()
	s, path := openStore(t, quick(&Options{Now: stepClock(time.Unix(1_700_000_000, 0), time.Millisecond)}))
	mustCreate(t, s, NewSession{ID: "long", Source: "cli"})
	for i := range 3 * messagePageSize {
		mustAppend(t, s, "long", NewMessage{Role: "user", Content: new(fmt.Sprint(i))})
	}
	// Messages 500 and 1000 end the first two pages once sorted: every
	// message from 450 on gets a timestamp of another class.
	dbtest.Exec(t, rawDB(t, path),
		"UPDATE messages SET timestamp = 'later ' || printf('%04d', id) WHERE id > 450 AND id <= 1100",
		"UPDATE messages SET timestamp = CAST(printf('%04d', id) AS BLOB) WHERE id > 1100")
	want, err := s.GetMessages(t.Context(), "long")
	if err != nil || len(want) != 3*messagePageSize {
		t.Fatalf("GetMessages = %d messages, %v", len(want), err)
	}
	var got []int64
	if err := s.EachMessage(t.Context(), "long", func(m Message) error { got = append(got, m.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	wantIDs := make([]int64, len(want))
	for i, m := range want {
		wantIDs[i] = m.ID
	}
	if diff := cmp.Diff(wantIDs, got); diff != "" {
		t.Errorf("EachMessage ids (-GetMessages +EachMessage):\n%s", diff)
	}
}
