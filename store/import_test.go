package store

// Tests of ImportJSONL: the round trip with ExportJSONL and ExportAll, and
// what an import does with ids, titles, parents and message ids the target
// already has. Malformed input is in import_errors_test.go.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestImportRoundTrip imports the fixture's export into a new file, from
// JSON Lines and from the JSON array of ExportAll (compact and indented):
// the new file exports byte for byte the same, searches the same and
// passes Check.
func TestImportRoundTrip(t *testing.T) {
	t.Parallel()
	src, _ := openStore(t, quick(&Options{Now: fixtureClock()}))
	messages := fillExportFixture(t, src)
	want := exportText(t, src, ExportOptions{})
	all, err := src.ExportAll(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	compact, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	indented, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name, input string
		batch       int
	}{
		{"JSONLines", want, 0},
		{"JSONLinesOneSessionPerBatch", want, 1},
		{"CompactArray", string(compact), 0},
		{"IndentedArray", string(indented), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dst, _ := openStore(t, quick(nil))
			res := importText(t, dst, tc.input, ImportOptions{BatchSize: tc.batch})
			if diff := cmp.Diff(ImportResult{Created: 5, Messages: messages}, res); diff != "" {
				t.Errorf("ImportJSONL result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, exportText(t, dst, ExportOptions{})); diff != "" {
				t.Errorf("export of the imported file differs (-source +imported):\n%s", diff)
			}
			if diff := cmp.Diff(searchIDs(t, src, "search"), searchIDs(t, dst, "search")); diff != "" {
				t.Errorf("search of the imported file differs (-source +imported):\n%s", diff)
			}
			if diff := cmp.Diff([]int64{7}, searchIDs(t, dst, "こんにちは")); diff != "" {
				t.Errorf("trigram search of the imported file (-want +got):\n%s", diff)
			}
			assertCheckOK(t, dst)
		})
	}
}

// TestExportJSONColumns checks how the JSON columns read in an export line:
// model_config, reasoning_details and the codex columns are JSON strings
// holding the stored text (the original's dicts hold them as str), and
// tool_calls is the decoded value (get_messages decodes it), a list or a
// dict as stored.
func TestExportJSONColumns(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(&Options{Now: fixtureClock()}))
	fillExportFixture(t, s)
	lines := map[string]map[string]any{}
	for line := range strings.Lines(exportText(t, s, ExportOptions{})) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("decode %s: %v", line, err)
		}
		lines[m["id"].(string)] = m
	}
	root, child := lines["root"], lines["child"]
	if got, want := root["model_config"], `{"temperature": 0.5, "stop": ["<end>", "&"], "note": "\u65e5\u672c"}`; got != want {
		t.Errorf("root model_config = %#v, want the string %#v", got, want)
	}
	if got := child["model_config"]; got != nil {
		t.Errorf("child model_config = %#v, want null", got)
	}
	assistant := root["messages"].([]any)[1].(map[string]any)
	want := map[string]any{
		"reasoning_details":     `[{"type": "summary", "text": "<t> & \u65e5"}]`,
		"codex_reasoning_items": `[{"id": "r1", "encrypted_content": "abc"}]`,
		"codex_message_items":   `[{"id": "m1", "content": "ok"}]`,
		"tool_calls": []any{
			map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "web_search", "arguments": `{"q": "<x>"}`}},
			map[string]any{"id": "c2", "type": "function", "function": map[string]any{"name": "read_file", "arguments": "{}"}},
		},
	}
	for field, w := range want {
		if diff := cmp.Diff(w, assistant[field]); diff != "" {
			t.Errorf("root message 2 %s (-want +got):\n%s", field, diff)
		}
	}
	dict := child["messages"].([]any)[0].(map[string]any)
	wantDict := map[string]any{"id": "c3", "type": "function", "function": map[string]any{"name": "web_search", "arguments": "{}"}}
	if diff := cmp.Diff(wantDict, dict["tool_calls"]); diff != "" {
		t.Errorf("child message tool_calls (-want +got):\n%s", diff)
	}
	for _, field := range []string{"reasoning_details", "codex_reasoning_items", "codex_message_items"} {
		if dict[field] != nil {
			t.Errorf("child message %s = %#v, want null", field, dict[field])
		}
	}
	// Costs: set on root, 0 on child (updated without an estimate), NULL
	// on the sessions never updated.
	for id, want := range map[string]any{"root": 0.25, "child": 0.0, "grandchild": nil, "tg": nil} {
		if got := lines[id]["estimated_cost_usd"]; got != want {
			t.Errorf("%s estimated_cost_usd = %#v, want %#v", id, got, want)
		}
	}
}

// TestImportTwice imports the same file twice: the second import skips
// every session and changes nothing.
func TestImportTwice(t *testing.T) {
	t.Parallel()
	src, _ := openStore(t, quick(&Options{Now: fixtureClock()}))
	messages := fillExportFixture(t, src)
	text := exportText(t, src, ExportOptions{})
	dst, _ := openStore(t, quick(nil))
	if got := importText(t, dst, text, ImportOptions{}); got != (ImportResult{Created: 5, Messages: messages}) {
		t.Errorf("first import = %+v, want 5 created with %d messages", got, messages)
	}
	before := exportText(t, dst, ExportOptions{})
	if got := importText(t, dst, text, ImportOptions{BatchSize: 2}); got != (ImportResult{Skipped: 5}) {
		t.Errorf("second import = %+v, want 5 skipped and nothing else", got)
	}
	if diff := cmp.Diff(before, exportText(t, dst, ExportOptions{})); diff != "" {
		t.Errorf("the second import changed the file (-before +after):\n%s", diff)
	}
}

// TestImportTitleInUse imports a session whose title another session of
// the target holds: it gets the next title of that lineage.
func TestImportTitleInUse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		held     []string // titles of sessions already in the target
		imported string
		want     string
		retitled int
	}{
		{"FreeTitleKept", []string{"other"}, "T", "T", 0},
		{"HeldTitleBecomesNumberTwo", []string{"T"}, "T", "T #2", 1},
		{"NumberTwoHeldToo", []string{"T", "T #2"}, "T", "T #3", 1},
		{"HeldNumberedTitle", []string{"T", "T #2"}, "T #2", "T #3", 1},
		{"GapsAreNotFilled", []string{"T", "T #5"}, "T", "T #6", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := openStore(t, quick(nil))
			for i, title := range tc.held {
				id := string(rune('a' + i))
				mustCreate(t, s, NewSession{ID: id, Source: "cli"})
				if err := s.SetSessionTitle(t.Context(), id, title); err != nil {
					t.Fatal(err)
				}
			}
			res := importText(t, s, jsonLines(t, sess("new", "", tc.imported, 1000)), ImportOptions{})
			if want := (ImportResult{Created: 1, Retitled: tc.retitled}); res != want {
				t.Errorf("ImportJSONL = %+v, want %+v", res, want)
			}
			if got, err := s.SessionTitle(t.Context(), "new"); err != nil || got != tc.want {
				t.Errorf("title of the imported session = %q, %v; want %q", got, err, tc.want)
			}
		})
	}

	t.Run("TwoImportedSessionsWithOneTitle", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, quick(nil))
		res := importText(t, s, jsonLines(t, sess("a", "", "T", 1000), sess("b", "", "T", 1001)), ImportOptions{})
		if want := (ImportResult{Created: 2, Retitled: 1}); res != want {
			t.Errorf("ImportJSONL = %+v, want %+v", res, want)
		}
		for id, want := range map[string]string{"a": "T", "b": "T #2"} {
			if got, err := s.SessionTitle(t.Context(), id); err != nil || got != want {
				t.Errorf("title of %s = %q, %v; want %q", id, got, err, want)
			}
		}
	})
}

// TestImportDuplicateID imports a file that holds one id twice: the first
// record is written, the second skipped, in one batch or across batches.
func TestImportDuplicateID(t *testing.T) {
	t.Parallel()
	for _, batch := range []int{0, 1} {
		t.Run(map[int]string{0: "OneBatch", 1: "BatchPerSession"}[batch], func(t *testing.T) {
			t.Parallel()
			s, _ := openStore(t, quick(nil))
			text := jsonLines(t,
				sess("a", "", "first", 1000, msg(1, "one", 1001)),
				sess("a", "", "second", 2000, msg(2, "two", 2001), msg(3, "three", 2002)))
			res := importText(t, s, text, ImportOptions{BatchSize: batch})
			if want := (ImportResult{Created: 1, Skipped: 1, Messages: 1}); res != want {
				t.Errorf("ImportJSONL = %+v, want %+v", res, want)
			}
			if got := mustSession(t, s, "a"); deref(got.Title) != "first" || got.StartedAt != 1000 {
				t.Errorf("session a = title %q started %v; want the first record's (first, 1000)", deref(got.Title), got.StartedAt)
			}
			if got := rowCounts(t, s); got != [2]int64{1, 1} {
				t.Errorf("sessions, messages = %v; want [1 1]", got)
			}
		})
	}
}

// TestImportChildBeforeParent imports a chain written child first, with
// batches that split it: every parent is linked in the end.
//
// upstream: TestDeleteAndExport::test_import_sessions_restores_valid_parents_and_detaches_missing
// (the parents in the file; TestImportParentMissing the missing one)
func TestImportChildBeforeParent(t *testing.T) {
	t.Parallel()
	text := jsonLines(t,
		sess("grandchild", "child", "", 3000),
		sess("child", "root", "", 2000),
		sess("other", "", "", 1500),
		sess("root", "", "", 1000))
	for _, batch := range []int{0, 1, 2} {
		t.Run(map[int]string{0: "OneBatch", 1: "BatchOfOne", 2: "BatchOfTwo"}[batch], func(t *testing.T) {
			t.Parallel()
			s, _ := openStore(t, quick(nil))
			res := importText(t, s, text, ImportOptions{BatchSize: batch})
			if want := (ImportResult{Created: 4}); res != want {
				t.Errorf("ImportJSONL = %+v, want %+v", res, want)
			}
			got, err := s.Lineage(t.Context(), "grandchild")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"root", "child", "grandchild"}, got); diff != "" {
				t.Errorf("Lineage(grandchild) (-want +got):\n%s", diff)
			}
			if p := mustSession(t, s, "other").ParentSessionID; p != nil {
				t.Errorf("other's parent = %q, want none", *p)
			}
		})
	}
}

// TestImportParentMissing imports sessions whose parent is in neither the
// file nor the database: they are counted and become roots, while a
// parent already in the database is linked.
//
// upstream: TestDeleteAndExport::test_import_sessions_restores_valid_parents_and_detaches_missing
// (the missing parent)
func TestImportParentMissing(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(nil))
	mustCreate(t, s, NewSession{ID: "present", Source: "cli"})
	text := jsonLines(t, sess("orphan", "gone", "", 1000), sess("kid", "present", "", 1001))
	res := importText(t, s, text, ImportOptions{BatchSize: 1})
	if want := (ImportResult{Created: 2, Unparented: 1}); res != want {
		t.Errorf("ImportJSONL = %+v, want %+v", res, want)
	}
	if p := mustSession(t, s, "orphan").ParentSessionID; p != nil {
		t.Errorf("orphan's parent = %q, want none", *p)
	}
	if p := mustSession(t, s, "kid").ParentSessionID; deref(p) != "present" {
		t.Errorf("kid's parent = %v, want present", p)
	}
}

// TestImportMessageIDsTaken imports a session whose message ids the target
// already uses: the messages get new ids, in their order, and search finds
// them under the new ids. A session whose ids are free keeps them.
func TestImportMessageIDsTaken(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(nil))
	mustCreate(t, s, NewSession{ID: "pre", Source: "cli"})
	for _, text := range []string{"one", "two", "three"} {
		mustAppend(t, s, "pre", NewMessage{Role: "user", Content: new(text)})
	}
	text := jsonLines(t,
		// Id 3 is taken, 10 is free: the whole session is renumbered.
		sess("taken", "", "", 1000, msg(3, "alpha zebra", 1001), msg(10, "beta zebra", 1002), msg(11, "gamma zebra", 1002)),
		sess("free", "", "", 2000, msg(20, "delta zebra", 2001)))
	res := importText(t, s, text, ImportOptions{})
	if want := (ImportResult{Created: 2, Messages: 4}); res != want {
		t.Errorf("ImportJSONL = %+v, want %+v", res, want)
	}
	msgs, err := s.GetMessages(t.Context(), "taken")
	if err != nil {
		t.Fatal(err)
	}
	type idText struct {
		ID   int64
		Text string
	}
	var got []idText
	for _, m := range msgs {
		got = append(got, idText{m.ID, deref(m.Content)})
	}
	want := []idText{{4, "alpha zebra"}, {5, "beta zebra"}, {6, "gamma zebra"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages of the renumbered session (-want +got):\n%s", diff)
	}
	hits, err := s.SearchMessages(t.Context(), "zebra", SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := map[int64]string{}
	for _, h := range hits {
		found[h.ID] = h.SessionID
	}
	if diff := cmp.Diff(map[int64]string{4: "taken", 5: "taken", 6: "taken", 20: "free"}, found); diff != "" {
		t.Errorf("search hits, id → session (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{1}, searchIDs(t, s, "one")); diff != "" {
		t.Errorf("search of the target's own message (-want +got):\n%s", diff)
	}
	assertCheckOK(t, s)
}

// TestImportProgress checks that Progress gets the running totals after
// each batch.
func TestImportProgress(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(nil))
	mustCreate(t, s, NewSession{ID: "b", Source: "cli"})
	text := jsonLines(t,
		sess("a", "", "", 1000, msg(1, "x", 1001)),
		sess("b", "", "", 1100),
		sess("c", "", "", 1200, msg(2, "y", 1201), msg(3, "z", 1202)),
		sess("d", "", "", 1300),
		sess("e", "", "", 1400, msg(4, "w", 1401)))
	var got []ImportResult
	res := importText(t, s, text, ImportOptions{BatchSize: 2, Progress: func(r ImportResult) { got = append(got, r) }})
	want := []ImportResult{
		{Created: 1, Skipped: 1, Messages: 1},
		{Created: 3, Skipped: 1, Messages: 3},
		{Created: 4, Skipped: 1, Messages: 4},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Progress calls (-want +got):\n%s", diff)
	}
	if res != want[2] {
		t.Errorf("ImportJSONL = %+v, want %+v", res, want[2])
	}
}

// TestImportConcurrently imports one file into one database through two
// Stores at once: each session is written once, the two results add up
// to one import and one skip of every session, and the file exports as
// the source does.
func TestImportConcurrently(t *testing.T) {
	t.Parallel()
	src, _ := openStore(t, quick(&Options{Now: fixtureClock()}))
	messages := fillExportFixture(t, src)
	text := exportText(t, src, ExportOptions{})
	a, path := openStore(t, quick(nil))
	b := openAt(t, path, quick(nil))
	results := make(chan ImportResult, 2)
	errs := make(chan error, 2)
	for _, s := range []*Store{a, b} {
		go func() {
			res, err := s.ImportJSONL(t.Context(), strings.NewReader(text), ImportOptions{BatchSize: 1})
			results <- res
			errs <- err
		}()
	}
	var sum ImportResult
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("ImportJSONL: %v", err)
		}
		r := <-results
		sum.Created += r.Created
		sum.Skipped += r.Skipped
		sum.Retitled += r.Retitled
		sum.Messages += r.Messages
	}
	if want := (ImportResult{Created: 5, Skipped: 5, Messages: messages}); sum != want {
		t.Errorf("the two results add up to %+v, want %+v", sum, want)
	}
	if diff := cmp.Diff(text, exportText(t, a, ExportOptions{})); diff != "" {
		t.Errorf("export after the concurrent imports (-source +imported):\n%s", diff)
	}
}
