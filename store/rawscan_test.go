package store

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
)

// plainDBTX hides the concrete pool behind backend.Tx, so that the generated
// methods and the store's helpers given it take database/sql's own path,
// never the driver path (rawQuery) the store takes on its own pool.
type plainDBTX struct{ db.DBTX }

// rawFixture is session "s" with three messages written by hand: every
// column set to a value of its own, every nullable column NULL, and values
// of unexpected storage classes (BLOBs in text columns, text in numeric
// ones, a REAL in an INTEGER one), which database/sql converts by its own
// rules.
func rawFixture(t *testing.T) *Store {
	t.Helper()
	s, _ := openStore(t, nil)
	mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
	execSQL(t, s, `INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name,
		effect_disposition, timestamp, token_count, finish_reason, reasoning, reasoning_content,
		reasoning_details, codex_reasoning_items, codex_message_items, platform_message_id, observed, active, compacted)
		VALUES ('s', 'assistant', 'c', 'tcid', '[{"id":"x"}]', 'tn', 'ed', 1.5, 7, 'stop', 'r', 'rc',
		'{"d":1}', '[1]', '[2]', 'pm', 1, 1, 0)`)
	execSQL(t, s, `INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name,
		effect_disposition, timestamp, token_count, finish_reason, reasoning, reasoning_content,
		reasoning_details, codex_reasoning_items, codex_message_items, platform_message_id, observed, active, compacted)
		VALUES ('s', 'user', NULL, NULL, NULL, NULL, NULL, 2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 1, 0)`)
	execSQL(t, s, `INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name,
		effect_disposition, timestamp, token_count, finish_reason, reasoning, reasoning_content,
		reasoning_details, codex_reasoning_items, codex_message_items, platform_message_id, observed, active, compacted)
		VALUES ('s', x'617373697374616e74', x'00ff', x'01', x'5b5d', x'02', x'03', 'soon', '12abc', x'04',
		x'05', x'06', x'07', x'08', x'09', x'0a', 2.5, '1', x'30')`)
	return s
}

// TestRawQueryMatchesGenerated reads the fixture through the driver path
// (rawQuery) and through the generated methods on database/sql: the rows
// are identical, field for field, on the pool and on a snapshot's
// connection.
func TestRawQueryMatchesGenerated(t *testing.T) {
	s := rawFixture(t)
	ctx := t.Context()
	for _, inactive := range []int64{0, 1} {
		lp := db.MessageListParams{SessionID: "s", IncludeInactive: inactive, Limit: -1}
		want, err := s.q.MessageList(ctx, backend.SQLiteTx(plainDBTX{s.r}), lp)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) != 3 {
			t.Fatalf("generated MessageList: %d rows, want 3", len(want))
		}
		cp := db.MessageConversationParams{SessionID: "s", IncludeInactive: inactive}
		wantConv, err := s.q.MessageConversation(ctx, backend.SQLiteTx(plainDBTX{s.r}), cp)
		if err != nil {
			t.Fatal(err)
		}
		_, err = readConn(s, ctx, func(ctx context.Context, q backend.Tx) (struct{}, error) {
			for name, q := range map[string]backend.Tx{"pool": backend.SQLiteTx(s.r), "snapshot": q} {
				if _, ok := rawOf(ctx, q); !ok {
					t.Fatalf("%s: rawOf refused %T", name, q)
				}
				var got []db.Message
				err := s.eachMessageRow(ctx, q, lp, func(m *db.Message) error {
					got = append(got, *m)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("%s, inactive %d: MessageList rows differ (-generated +raw):\n%s", name, inactive, d)
				}
				var gotConv []db.MessageConversationRow
				err = s.eachConversationRow(ctx, q, cp, func(r *db.MessageConversationRow) error {
					gotConv = append(gotConv, *r)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(wantConv, gotConv); d != "" {
					t.Errorf("%s, inactive %d: MessageConversation rows differ (-generated +raw):\n%s", name, inactive, d)
				}
			}
			return struct{}{}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// The export's pages select whole rows too.
	wantRows := map[string]int{"MessagePage": 3, "MessagePageAfter": 2}
	gens := map[string]func(backend.Tx) ([]db.Message, error){
		"MessagePage": func(q backend.Tx) ([]db.Message, error) {
			return s.q.MessagePage(ctx, q, db.MessagePageParams{SessionID: "s", AfterID: 0, Limit: 10})
		},
		"MessagePageAfter": func(q backend.Tx) ([]db.Message, error) {
			return s.q.MessagePageAfter(ctx, q, db.MessagePageAfterParams{SessionID: "s", AfterID: 1, Limit: 10})
		},
	}
	for name, gen := range gens {
		want, err := gen(backend.SQLiteTx(plainDBTX{s.r}))
		if err != nil || len(want) != wantRows[name] {
			t.Fatalf("generated %s: %d rows, %v; want %d", name, len(want), err, wantRows[name])
		}
		got, err := wholeMessages(ctx, backend.SQLiteTx(s.r), gen)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s rows differ (-generated +raw):\n%s", name, d)
		}
	}
	want, err := fileOrder(ctx, backend.SQLiteTx(plainDBTX{s.r}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := fileOrder(ctx, backend.SQLiteTx(s.r))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(want)); d != "" {
		t.Errorf("fileOrder differs (-database/sql +raw):\n%s", d)
	}
}

// TestRawQueryScanErrors checks that a value database/sql cannot scan
// fails the raw path too, naming the column as database/sql does, and
// that a transaction (which the raw path cannot reach) falls back to the
// generated method.
func TestRawQueryScanErrors(t *testing.T) {
	s, _ := openStore(t, nil)
	ctx := t.Context()
	mustCreate(t, s, NewSession{ID: "s", Source: "cli"})
	// A NULL role cannot be written (NOT NULL); the id column is an
	// INTEGER PRIMARY KEY and cannot hold text either. Scan a text into
	// the int64 id with a hand-made statement instead.
	var id int64
	err := rawQuery(ctx, poolConner{s.r, ctx}, `SELECT 'x'`, nil, []any{&id}, func() error { return nil })
	want := `sql: Scan error on column index 0, name "'x'": converting driver.Value type string ("x") to a int64: invalid syntax`
	if err == nil || err.Error() != want {
		t.Errorf("text into int64: %v, want %s", err, want)
	}
	var str string
	err = rawQuery(ctx, poolConner{s.r, ctx}, `SELECT NULL AS v`, nil, []any{&str}, func() error { return nil })
	want = `sql: Scan error on column index 0, name "v": converting NULL to string is unsupported`
	if err == nil || err.Error() != want {
		t.Errorf("NULL into string: %v, want %s", err, want)
	}
	err = rawQuery(ctx, poolConner{s.r, ctx}, `SELECT 1, 2`, nil, []any{&id}, func() error { return nil })
	want = `sql: expected 2 destination arguments in Scan, not 1`
	if err == nil || err.Error() != want {
		t.Errorf("too few destinations: %v, want %s", err, want)
	}
	// Inside a *sql.Tx the generated method runs.
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, ok := rawOf(ctx, backend.SQLiteTx(tx)); ok {
		t.Fatal("rawOf accepted a *sql.Tx")
	}
	n := 0
	err = s.eachMessageRow(ctx, backend.SQLiteTx(tx), db.MessageListParams{SessionID: "s", Limit: -1}, func(*db.Message) error { n++; return nil })
	if err != nil || n != 0 {
		t.Errorf("eachMessageRow in a transaction = %d rows, %v", n, err)
	}
	// fn's error ends the walk and comes back as it is.
	mustAppend(t, s, "s", NewMessage{Role: "user", Content: new("a")})
	mustAppend(t, s, "s", NewMessage{Role: "user", Content: new("b")})
	stop := errors.New("stop")
	n = 0
	err = s.eachMessageRow(ctx, backend.SQLiteTx(s.r), db.MessageListParams{SessionID: "s", Limit: -1}, func(*db.Message) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("eachMessageRow stopped = %d rows, %v; want 1, stop", n, err)
	}
}

// TestConversationRepeatedPromptAfterManyRows replays, with ancestors, a
// user prompt re-sent 40 tool results later (the result slice has grown
// several times by then): the repeat is left out, as with fewer rows.
func TestConversationRepeatedPromptAfterManyRows(t *testing.T) {
	s, _ := openStore(t, nil)
	mustCreate(t, s, NewSession{ID: "p", Source: "cli"})
	mustAppend(t, s, "p", NewMessage{Role: "user", Content: new("deploy it")})
	for i := range 40 {
		mustAppend(t, s, "p", NewMessage{Role: "tool", Content: new(fmt.Sprint("result ", i)), ToolCallID: fmt.Sprint("c", i)})
	}
	mustCreate(t, s, NewSession{ID: "c", Source: "cli", ParentSessionID: "p"})
	mustAppend(t, s, "c", NewMessage{Role: "user", Content: new("deploy it")})
	mustAppend(t, s, "c", NewMessage{Role: "assistant", Content: new("done")})
	got, err := s.Conversation(t.Context(), "c", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 42 || *got[0].Content != "deploy it" || got[40].Role != "tool" || *got[41].Content != "done" {
		t.Fatalf("replay with ancestors: %d messages, want 42 (the repeated prompt left out)", len(got))
	}
	if got, err := s.Conversation(t.Context(), "c", false); err != nil || len(got) != 2 {
		t.Fatalf("replay without ancestors: %d messages, %v; want 2", len(got), err)
	}
}
