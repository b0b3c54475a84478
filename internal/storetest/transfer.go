package storetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

func init() {
	register(
		group{"transfer/export", testExport},
		group{"transfer/round-trip", testRoundTrip},
		group{"transfer/import", testImport},
	)
}

// transferStore is listingStore with a session carrying every session and
// message field, token usage with inexact floats, and text that tests the
// encodings.
func transferStore(t *testing.T, h Harness) *store.Store {
	t.Helper()
	ctx := t.Context()
	s := listingStore(t, h)
	create(t, s, fullSession)
	appendMsg(t, s, "s1", store.NewMessage{
		Role: "assistant", Content: ptr("héllo \"quoted\" <b>&</b> \u2028 😀"), ToolCalls: json.RawMessage(`[{"id":"c1","args":{"x":[1,2.5e-7,null]}}]`),
		TokenCount: ptr(int64(42)), FinishReason: "tool_calls", Reasoning: ptr("think"), ReasoningContent: ptr(""),
		ReasoningDetails: json.RawMessage(`[{"type":"summary","text":"é"}]`), CodexReasoningItems: json.RawMessage(`{"a":1}`),
		CodexMessageItems: json.RawMessage(`[1, 2.5]`), EffectDisposition: "applied", PlatformMessageID: "tg-1",
		Observed: true, Timestamp: ptr(store.Timestamp(1750000100.123456789)),
	})
	appendMsg(t, s, "s1", store.NewMessage{Role: "user", ContentJSON: json.RawMessage(`[{"type":"text","text":"multi"}]`), Timestamp: ptr(at(101 * time.Second))})
	appendMsg(t, s, "s1", store.NewMessage{Role: "tool", Content: ptr("out"), ToolCallID: "c1", ToolName: "shell", Timestamp: ptr(at(102 * time.Second))})
	ok(t, s.UpdateTokenCounts(ctx, "s1", store.TokenUpdate{
		InputTokens: 7, OutputTokens: 3, APICallCount: 2, EstimatedCostUSD: ptr(0.1), ActualCostUSD: ptr(0.2),
		CostStatus: "final", BillingProvider: "anthropic", Model: "claude",
	}))
	ok(t, s.UpdateTokenCounts(ctx, "s1", store.TokenUpdate{EstimatedCostUSD: ptr(0.2)})) // 0.1 + 0.2
	ok(t, s.SetSessionTitle(ctx, "s1", "Full – ünïcode"))
	end(t, s, "s1", "user_exit")
	return s
}

// exportOf is ExportJSONL's output for opts, with its count.
func exportOf(t *testing.T, s *store.Store, opts store.ExportOptions) (string, int, error) {
	t.Helper()
	var b bytes.Buffer
	n, err := s.ExportJSONL(t.Context(), &b, opts)
	return b.String(), n, err
}

// asJSON is v's JSON form, HTML characters unescaped, for values cmp
// cannot compare (unexported fields).
func asJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // as the export writes
	ok(t, enc.Encode(v))
	return strings.TrimSuffix(b.String(), "\n")
}

func testExport(t *testing.T, h Harness) {
	ctx := t.Context()
	s := transferStore(t, h)
	t.Run("ExportSession", func(t *testing.T) {
		e, err := s.ExportSession(ctx, "s1")
		ok(t, err)
		msgs, err := s.GetMessages(ctx, "s1")
		ok(t, err)
		equal(t, "session", e.Session, get(t, s, "s1"))
		equal(t, "messages", e.Messages, msgs)
		equal(t, "no last_active", e.LastActive, store.Timestamp(0))
		_, err = s.ExportSession(ctx, "nope")
		isErr(t, "unknown", err, store.ErrNotFound)
		// Only live messages are exported.
		create(t, s, cli("rw"))
		say(t, s, "rw", "user", "kept")
		gone := say(t, s, "rw", "user", "gone")
		_, err = s.RewindToMessage(ctx, "rw", gone)
		ok(t, err)
		e, err = s.ExportSession(ctx, "rw")
		ok(t, err)
		equal(t, "live messages", len(e.Messages), 1)
	})
	t.Run("ExportAll", func(t *testing.T) {
		all, err := s.ExportAll(ctx, "")
		ok(t, err)
		browse, err := s.SearchSessions(ctx, "", -1, 0)
		ok(t, err)
		equal(t, "order", ids(all, func(e store.SessionExport) string { return e.ID }), ids(browse, func(a store.ActiveSession) string { return a.ID }))
		for i, e := range all {
			equal(t, "last active of "+e.ID, e.LastActive, browse[i].LastActive)
			msgs, err := s.GetMessages(ctx, e.ID)
			ok(t, err)
			equal(t, "messages of "+e.ID, e.Messages, msgs)
		}
		tg, err := s.ExportAll(ctx, "telegram")
		ok(t, err)
		equal(t, "telegram", ids(tg, func(e store.SessionExport) string { return e.ID }), []string{"s1", "b"})
		none, err := s.ExportAll(ctx, "nope")
		ok(t, err)
		equal(t, "no source", asJSON(t, none), "[]")

		var lines []string
		for _, e := range all {
			lines = append(lines, asJSON(t, e))
		}
		full, n, err := exportOf(t, s, store.ExportOptions{})
		ok(t, err)
		equal(t, "count", n, len(all))
		equal(t, "ExportJSONL is ExportAll's lines", full, strings.Join(lines, "\n")+"\n")
	})
	t.Run("ExportJSONL", func(t *testing.T) {
		var progress []int
		out, n, err := exportOf(t, s, store.ExportOptions{IDs: []string{"b", "a", "s1"}, Progress: func(k int) { progress = append(progress, k) }})
		ok(t, err)
		equal(t, "count", n, 3)
		equal(t, "progress", progress, []int{1, 2, 3})
		var got []string
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			var rec struct{ ID string }
			ok(t, json.Unmarshal([]byte(line), &rec))
			got = append(got, rec.ID)
		}
		equal(t, "ids in the order given", got, []string{"b", "a", "s1"})
		out, n, err = exportOf(t, s, store.ExportOptions{IDs: []string{"b", "a"}, Source: "cli"})
		ok(t, err)
		equal(t, "source and ids", [2]int{n, strings.Count(out, "\n")}, [2]int{1, 1})

		_, err = s.ExportJSONL(ctx, failWriter{}, store.ExportOptions{})
		isErr(t, "the writer's error", err, errWrite)

		out, n, err = exportOf(t, s, store.ExportOptions{IDs: []string{"a", "nope"}})
		isErr(t, "unknown id", err, store.ErrSessionNotFound)
		equal(t, "nothing written", [2]any{out, n}, [2]any{"", 0})
		for _, c := range []struct {
			opts store.ExportOptions
			want int
		}{{store.ExportOptions{}, 10}, {store.ExportOptions{Source: "telegram"}, 2}, {store.ExportOptions{IDs: []string{"a", "b", "a"}}, 3}} {
			n, err := s.ExportCount(ctx, c.opts)
			ok(t, err)
			equal(t, fmt.Sprintf("ExportCount(%+v)", c.opts), n, c.want)
		}
		_, err = s.ExportCount(ctx, store.ExportOptions{IDs: []string{"nope"}})
		isErr(t, "ExportCount unknown id", err, store.ErrSessionNotFound)
	})
}

func testRoundTrip(t *testing.T, h Harness) {
	ctx := t.Context()
	src := transferStore(t, h)
	for range 2 { // an infinite cost, exported as 1e999
		ok(t, src.UpdateTokenCounts(ctx, "inf", store.TokenUpdate{ActualCostUSD: ptr(math.MaxFloat64), Model: "m"}))
	}
	out := exportAll(t, src)
	if !strings.Contains(out, `"actual_cost_usd":1e999,`) {
		t.Errorf("the export lacks the infinite cost")
	}
	var messages int
	var maxID int64
	all, err := src.ExportAll(ctx, "")
	ok(t, err)
	for _, e := range all {
		messages += len(e.Messages)
		for _, m := range e.Messages {
			maxID = max(maxID, m.ID)
		}
	}

	dst := h.Open(t)
	res, err := dst.ImportJSONL(ctx, strings.NewReader(out), store.ImportOptions{})
	ok(t, err)
	equal(t, "import", res, store.ImportResult{Created: len(all), Messages: messages})
	equal(t, "export of the import", exportAll(t, dst), out)
	equal(t, "titles", get(t, dst, "s1").Title, ptr("Full – ünïcode"))

	before := state(t, dst)
	res, err = dst.ImportJSONL(ctx, strings.NewReader(out), store.ImportOptions{BatchSize: 2})
	ok(t, err)
	equal(t, "import again", res, store.ImportResult{Skipped: len(all)})
	unchanged(t, "a second import", dst, before)

	// New messages after the imported ids, on both stores alike.
	equal(t, "append after import", say(t, dst, "a", "user", "next"), maxID+1)

	// The JSON array form of ExportAll imports as the lines do.
	arr := h.Open(t)
	res, err = arr.ImportJSONL(ctx, strings.NewReader(asJSON(t, all)), store.ImportOptions{BatchSize: 1})
	ok(t, err)
	equal(t, "array import", res, store.ImportResult{Created: len(all), Messages: messages})
	equal(t, "export of the array import", exportAll(t, arr), out)
}

func testImport(t *testing.T, h Harness) {
	ctx := t.Context()
	line := func(id, extra string) string {
		return fmt.Sprintf(`{"id":%q,"source":"cli","started_at":1750000000.0%s,"messages":[]}`, id, extra)
	}
	t.Run("TitlesAndParents", func(t *testing.T) {
		s, _ := openClocked(t, h)
		create(t, s, cli("mine"))
		ok(t, s.SetSessionTitle(ctx, "mine", "taken"))
		in := strings.Join([]string{
			line("child", `,"parent_session_id":"later"`),
			line("orphan", `,"parent_session_id":"nowhere"`),
			line("later", `,"title":"taken"`),
			line("self", `,"parent_session_id":"self"`),
		}, "\n")
		res, err := s.ImportJSONL(ctx, strings.NewReader(in), store.ImportOptions{BatchSize: 1})
		ok(t, err)
		equal(t, "result", res, store.ImportResult{Created: 4, Retitled: 1, Unparented: 2})
		equal(t, "parents", [3]*string{get(t, s, "child").ParentSessionID, get(t, s, "orphan").ParentSessionID, get(t, s, "self").ParentSessionID},
			[3]*string{ptr("later"), nil, nil})
		equal(t, "retitled", get(t, s, "later").Title, ptr("taken #2"))
	})
	t.Run("Progress", func(t *testing.T) {
		s, _ := openClocked(t, h)
		in := strings.Join([]string{line("p1", ""), line("p2", `,"parent_session_id":"p3"`), line("p3", ""), line("p1", "")}, "\n")
		var got []store.ImportResult
		res, err := s.ImportJSONL(ctx, strings.NewReader(in), store.ImportOptions{BatchSize: 2, Progress: func(r store.ImportResult) { got = append(got, r) }})
		ok(t, err)
		equal(t, "result", res, store.ImportResult{Created: 3, Skipped: 1})
		equal(t, "progress", got, []store.ImportResult{{Created: 2, Unparented: 1}, {Created: 3, Skipped: 1}})
	})
	t.Run("ReadError", func(t *testing.T) {
		s, _ := openClocked(t, h)
		r := io.MultiReader(strings.NewReader(line("r1", "")+"\n"), failReader{})
		res, err := s.ImportJSONL(ctx, r, store.ImportOptions{BatchSize: 1})
		isErr(t, "the reader's error", err, errRead)
		equal(t, "result", res, store.ImportResult{Created: 1})
	})
	t.Run("Cycle", func(t *testing.T) {
		s, _ := openClocked(t, h)
		in := line("x", `,"parent_session_id":"y"`) + "\n" + line("y", `,"parent_session_id":"x"`)
		res, err := s.ImportJSONL(ctx, strings.NewReader(in), store.ImportOptions{})
		ok(t, err)
		equal(t, "result", res, store.ImportResult{Created: 2, Unparented: 1})
		equal(t, "parents", [2]*string{get(t, s, "x").ParentSessionID, get(t, s, "y").ParentSessionID}, [2]*string{nil, ptr("x")})
	})
	t.Run("MessageIDsTaken", func(t *testing.T) {
		s, _ := openClocked(t, h)
		create(t, s, cli("here"))
		say(t, s, "here", "user", "one")
		say(t, s, "here", "user", "two")
		msgs := `[{"id":2,"session_id":"new","role":"user","content":"a","timestamp":1.0},` +
			`{"id":9,"session_id":"new","role":"assistant","content":"b","timestamp":2.0}]`
		in := `{"id":"new","source":"cli","started_at":1.0,"messages":` + msgs + `}` + "\n" +
			`{"id":"free","source":"cli","started_at":1.0,"messages":[{"id":20,"session_id":"free","role":"user","content":"c","timestamp":3.0}]}`
		res, err := s.ImportJSONL(ctx, strings.NewReader(in), store.ImportOptions{})
		ok(t, err)
		equal(t, "result", res, store.ImportResult{Created: 2, Messages: 3})
		var got []string
		for _, id := range []string{"new", "free"} {
			ms, err := s.GetMessages(ctx, id)
			ok(t, err)
			for _, m := range ms {
				got = append(got, fmt.Sprintf("%d %s", m.ID, *m.Content))
			}
		}
		// One id of "new" is taken: all of its messages are numbered anew,
		// in their order; "free" keeps its id.
		equal(t, "ids", got, []string{"3 a", "4 b", "20 c"})
		equal(t, "next id", say(t, s, "here", "user", "three"), int64(21))
	})
	t.Run("Errors", func(t *testing.T) {
		for _, c := range []struct {
			name    string
			bad     string
			targets []error
		}{
			{"NotJSON", `{not json`, []error{store.ErrInvalidImport}},
			{"NotAnObject", `[1]`, []error{store.ErrInvalidImport}},
			{"BadJSONColumn", line("x", `,"model_config":"{oops"`), []error{store.ErrInvalidImport, store.ErrInvalidJSON}},
			{"BadText", line("x", `,"title":"\udc00"`), []error{store.ErrInvalidImport, store.ErrInvalidText}},
			{"ForeignMessage", `{"id":"x","source":"cli","started_at":1.0,"messages":[{"id":1,"session_id":"y","role":"user","content":"c","timestamp":1.0}]}`, []error{store.ErrInvalidImport}},
		} {
			t.Run(c.name, func(t *testing.T) {
				s, _ := openClocked(t, h)
				create(t, s, cli("there"))
				before := state(t, s)
				in := line("first", "") + "\n" + c.bad + "\n"
				res, err := s.ImportJSONL(ctx, strings.NewReader(in), store.ImportOptions{})
				isErr(t, "import", err, c.targets...)
				var ie *store.ImportError
				if !errors.As(err, &ie) {
					t.Fatalf("error %v is no *ImportError", err)
				}
				equal(t, "line", ie.Line, 2)
				equal(t, "result", res, store.ImportResult{})
				unchanged(t, "a failed import batch", s, before)

				// With batches of one, the first record is committed.
				res, err = s.ImportJSONL(ctx, strings.NewReader(in), store.ImportOptions{BatchSize: 1})
				isErr(t, "import in batches of one", err, store.ErrInvalidImport)
				equal(t, "result in batches of one", res, store.ImportResult{Created: 1})
				get(t, s, "first")
			})
		}
	})
	t.Run("NumbersKept", func(t *testing.T) {
		s, _ := openClocked(t, h)
		in := `{"id":"n","source":"cli","started_at":1750000000.5,"input_tokens":9007199254740993,"estimated_cost_usd":0.30000000000000004,"messages":[` +
			`{"id":7,"session_id":"n","role":"user","content":"x","timestamp":1750000001.25,"token_count":-3}]}`
		_, err := s.ImportJSONL(ctx, strings.NewReader(in), store.ImportOptions{})
		ok(t, err)
		sess := get(t, s, "n")
		equal(t, "numbers", [3]any{sess.StartedAt, sess.InputTokens, *sess.EstimatedCostUSD},
			[3]any{store.Timestamp(1750000000.5), int64(9007199254740993), 0.30000000000000004})
		msgs, err := s.GetMessages(ctx, "n")
		ok(t, err)
		equal(t, "message", [3]any{msgs[0].ID, msgs[0].Timestamp, *msgs[0].TokenCount}, [3]any{int64(7), store.Timestamp(1750000001.25), int64(-3)})
		equal(t, "counters recounted", counts(t, s, "n"), [2]int64{1, 0})
	})
}

var (
	errWrite = errors.New("write refused")
	errRead  = errors.New("read refused")
)

// failWriter refuses every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

// failReader fails every read.
type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, errRead }
