package store

import (
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// The statements the plan work replaced, exactly as they were sent before
// (upstream's shape), kept to prove the rewrites return the same rows.
const (
	// oldSessionBrowseSQL is SessionBrowse before: a LEFT JOIN of
	// MAX(timestamp) GROUP BY session_id over every message. ?1 source,
	// ?2 offset, ?3 limit, as the generated statement binds them.
	oldSessionBrowseSQL = `
SELECT s.id, s.source, s.user_id, s.session_key, s.chat_id, s.chat_type, s.thread_id, s.display_name, s.origin_json, s.expiry_finalized, s.model, s.model_config, s.system_prompt, s.parent_session_id, s.started_at, s.ended_at, s.end_reason, s.message_count, s.tool_call_count, s.input_tokens, s.output_tokens, s.cache_read_tokens, s.cache_write_tokens, s.reasoning_tokens, s.cwd, s.git_branch, s.git_repo_root, s.billing_provider, s.billing_base_url, s.billing_mode, s.estimated_cost_usd, s.actual_cost_usd, s.cost_status, s.cost_source, s.pricing_version, s.title, s.api_call_count, s.handoff_state, s.handoff_platform, s.handoff_error, s.compression_failure_cooldown_until, s.compression_failure_error, s.compression_fallback_streak, s.rewind_count, s.archived,
    CAST(COALESCE(m.last_active, s.started_at) AS REAL) AS last_active
FROM sessions s
LEFT JOIN (
    SELECT session_id, MAX(timestamp) AS last_active FROM messages GROUP BY session_id
) m ON m.session_id = s.id
WHERE CAST(?1 AS TEXT) IS NULL OR s.source = ?1
ORDER BY last_active DESC, s.started_at DESC, s.id DESC
LIMIT ?3 OFFSET ?2`

	// oldLineageTitlesSQL is SessionLineageTitles before: without the
	// title IS NOT NULL that lets it read the title index alone.
	oldLineageTitlesSQL = `
SELECT CAST(title AS TEXT) AS title FROM sessions
WHERE title = ?1 OR (title LIKE ?2 ESCAPE char(92))`

	// oldDescendantsSQL is SessionDescendants before: a plain JOIN.
	oldDescendantsSQL = `
WITH RECURSIVE descendants(id, depth) AS (
    SELECT s.id, 0 FROM sessions s WHERE s.id = ?1
    UNION ALL
    SELECT s.id, d.depth + 1
    FROM descendants d JOIN sessions s ON s.parent_session_id = d.id
    WHERE d.depth < 100
)
SELECT s.id, s.title, s.started_at, s.parent_session_id, CAST(d.depth AS INTEGER) AS depth
FROM descendants d JOIN sessions s ON s.id = d.id
ORDER BY d.depth, s.started_at, s.id`

	// oldLatestTitleVariantSQL is SessionLatestTitleVariant before: every
	// session row read in start order until a title matches.
	oldLatestTitleVariantSQL = `
SELECT id FROM sessions WHERE title LIKE ?1 ESCAPE char(92)
ORDER BY started_at DESC LIMIT 1`

	// oldResolvePrefixSQL is SessionResolvePrefix before: every session
	// row read in start order.
	oldResolvePrefixSQL = `
SELECT id FROM sessions WHERE id LIKE ?1 ESCAPE char(92)
ORDER BY started_at DESC, id DESC LIMIT 21`

	// oldMessageListSQL is MessageList before: the rows sorted by id.
	// ?1 session_id, ?2 include_inactive, ?3 offset, ?4 limit.
	oldMessageListSQL = `
SELECT * FROM messages
WHERE session_id = ?1 AND (CAST(?2 AS INTEGER) OR active = 1)
ORDER BY id
LIMIT ?4 OFFSET ?3`

	// oldMessageConversationSQL is MessageConversation before, with the
	// capacity-hint column and the parameter order it has since: ?1
	// session_id, ?2 include_inactive, ?3 include_ancestors.
	oldMessageConversationSQL = `
WITH RECURSIVE lineage(id, depth) AS (
    SELECT CAST(?1 AS TEXT), 0
    UNION ALL
    SELECT s.parent_session_id, l.depth + 1
    FROM lineage l JOIN sessions s ON s.id = l.id
    WHERE CAST(?3 AS INTEGER) AND s.parent_session_id IS NOT NULL AND l.depth < 99
)
SELECT role, content, tool_call_id, tool_calls, tool_name, effect_disposition,
    finish_reason, reasoning, reasoning_content, reasoning_details,
    codex_reasoning_items, codex_message_items, platform_message_id, observed, timestamp,
    CAST(COALESCE((SELECT c.message_count FROM sessions c WHERE c.id = ?1), 0) AS INTEGER)
FROM messages
WHERE session_id IN (SELECT id FROM lineage)
  AND (CAST(?2 AS INTEGER) OR active = 1)
ORDER BY id`

	// oldExportOrderSQL is exportOrderSQL before, the same join.
	oldExportOrderSQL = `
SELECT s.id, COALESCE(m.last_active, s.started_at) AS last_active
FROM sessions s
LEFT JOIN (
    SELECT session_id, MAX(timestamp) AS last_active FROM messages GROUP BY session_id
) m ON m.session_id = s.id
WHERE ?1 IS NULL OR s.source = ?1
ORDER BY last_active DESC, s.started_at DESC, s.id DESC`
)

// typedRows is rows with each value shown with its Go type (so an integer
// and a real, or text and a BLOB, never compare equal).
func typedRows(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprintf("%#v", r)
	}
	return out
}

// plansFixture is a populated file for the same-rows tests: the plan
// corpus, plus messages whose session row is missing (written with foreign
// keys off, as another tool may), which neither form may list.
func plansFixture(t *testing.T) (*Store, planCorpusRows) {
	t.Helper()
	s, path := openStore(t, nil)
	n := buildPlanCorpus(t, s, planCorpus{Sessions: 1200, MeanMessages: 8, Seed: 16})
	raw := rawDB(t, path)
	dbtest.Exec(t, raw, `INSERT INTO messages (session_id, role, content, timestamp) VALUES
		('ghost', 'user', 'orphan', 1.9e9), ('ghost', 'assistant', 'orphan', 1.9e9 + 1)`)
	return s, n
}

// TestSessionBrowseSameRows runs SessionBrowse and the statement it
// replaced on one populated file, for every source and several pages, and
// requires the same rows in the same order with the same storage classes.
func TestSessionBrowseSameRows(t *testing.T) {
	t.Parallel()
	s, n := plansFixture(t)
	newSQL := sqlcStatements(t)["SessionBrowse"]
	all := dbtest.Rows(t, s.r, newSQL, nil, 0, -1)
	if len(all) != n.sessions {
		t.Fatalf("SessionBrowse listed %d sessions, the file has %d", len(all), n.sessions)
	}
	// The file must hold what makes the two forms differ if either is
	// wrong: sessions without messages, ties on last_active, and last
	// messages stored as text, a BLOB and an integer.
	empty := dbtest.Value[int](t, s.r, `SELECT COUNT(*) FROM sessions s WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id)`)
	ties := dbtest.Value[int](t, s.r, `SELECT COUNT(*) FROM (SELECT t FROM (SELECT MAX(timestamp) t FROM messages GROUP BY session_id) GROUP BY t HAVING COUNT(*) > 1)`)
	odd := dbtest.Values[string](t, s.r, `SELECT DISTINCT typeof(timestamp) FROM messages ORDER BY 1`)
	if empty < 50 || ties < 1 || !reflect.DeepEqual(odd, []string{"blob", "real", "text"}) {
		t.Fatalf("corpus lacks edge cases: %d empty sessions, %d tied last-message times, timestamp types %v", empty, ties, odd)
	}
	// Ties at the shared last-message time come first, newest start first
	// (the smallest id: their starts run against their ids).
	// The text and BLOB last messages CAST to 0, as does the start stored
	// as text ("yesterday") of s00007, which has no messages: those three
	// tie at 0 and sort last, by stored start, where text sorts above
	// every number.
	first, last := all[0], all[len(all)-3:]
	if first[0] != "s00037" || first[len(first)-1] != 1.75e9 || all[1][0] != "s00074" {
		t.Fatalf("first rows %v, %v (last_active %v), want s00037, s00074 at 1.75e9", first[0], all[1][0], first[len(first)-1])
	}
	if got := []any{last[0][0], last[1][0], last[2][0]}; !reflect.DeepEqual(got, []any{"s00007", "s00012", "s00011"}) {
		t.Fatalf("last rows %v, want s00007, s00012, s00011", got)
	}
	for _, source := range []any{nil, "cli", "telegram", "discord", "tool", "nowhere"} {
		for _, page := range [][2]int{{0, -1}, {0, 20}, {20, 20}, {700, 50}, {5000, 10}} {
			want := dbtest.Rows(t, s.r, oldSessionBrowseSQL, source, page[0], page[1])
			got := dbtest.Rows(t, s.r, newSQL, source, page[0], page[1])
			if !reflect.DeepEqual(typedRows(got), typedRows(want)) {
				t.Errorf("source %v, offset %d, limit %d: %d rows, want %d (first differing rows below)\n%s",
					source, page[0], page[1], len(got), len(want), firstDiff(typedRows(got), typedRows(want)))
			}
		}
	}
}

// TestExportOrderSameRows is TestSessionBrowseSameRows for the export
// order.
func TestExportOrderSameRows(t *testing.T) {
	t.Parallel()
	s, n := plansFixture(t)
	for _, source := range []any{nil, "cli", "tool", "nowhere"} {
		want := dbtest.Rows(t, s.r, oldExportOrderSQL, source)
		got := dbtest.Rows(t, s.r, exportOrderSQL, source)
		if source == nil && len(got) != n.sessions {
			t.Fatalf("export order has %d sessions, the file %d", len(got), n.sessions)
		}
		if !reflect.DeepEqual(typedRows(got), typedRows(want)) {
			t.Errorf("source %v: %d rows, want %d\n%s", source, len(got), len(want), firstDiff(typedRows(got), typedRows(want)))
		}
	}
}

// firstDiff shows the first row where got and want differ.
func firstDiff(got, want []string) string {
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("row %d:\n got  %s\n want %s", i, g, w)
		}
	}
	return ""
}

// TestLineageTitlesSameRows compares SessionLineageTitles with the
// statement it replaced for bases with and without variants. The rows come
// in no order (the caller takes the highest number), so they are sorted.
func TestLineageTitlesSameRows(t *testing.T) {
	t.Parallel()
	s, _ := plansFixture(t)
	newSQL := sqlcStatements(t)["SessionLineageTitles"]
	for base, want := range map[string][]string{
		"Title 5":  {"TITLE 5 #10", "Title 5", "Title 5 #", "Title 5 #2", "Title 5 #2 #3", "title 5 #3"},
		"title 5":  {"TITLE 5 #10", "Title 5 #", "Title 5 #2", "Title 5 #2 #3", "title 5 #3"},
		"Title 50": {"Title 50", "Title 50 #2"},
		"Nobody":   {},
	} {
		pattern := likePrefix(base, " #%")
		old := dbtest.Values[string](t, s.r, oldLineageTitlesSQL, base, *pattern)
		got := dbtest.Values[string](t, s.r, newSQL, base, *pattern)
		sort.Strings(old)
		sort.Strings(got)
		if !reflect.DeepEqual(got, old) || !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("base %q: got %q, old statement %q, want %q", base, got, old, want)
		}
	}
}

// TestDescendantsSameRows compares SessionDescendants with the statement
// it replaced from every session that has children, and from a leaf and an
// unknown id.
func TestDescendantsSameRows(t *testing.T) {
	t.Parallel()
	s, _ := plansFixture(t)
	newSQL := sqlcStatements(t)["SessionDescendants"]
	ids := dbtest.Values[string](t, s.r, `SELECT DISTINCT parent_session_id FROM sessions WHERE parent_session_id IS NOT NULL ORDER BY 1`)
	if len(ids) < 100 {
		t.Fatalf("only %d sessions with children", len(ids))
	}
	deepest := 0
	for _, id := range append(ids, "s00001", "nobody") {
		want := dbtest.Rows(t, s.r, oldDescendantsSQL, id)
		got := dbtest.Rows(t, s.r, newSQL, id)
		if !reflect.DeepEqual(typedRows(got), typedRows(want)) {
			t.Errorf("descendants of %s: %d rows, want %d\n%s", id, len(got), len(want), firstDiff(typedRows(got), typedRows(want)))
		}
		if len(got) > 0 {
			deepest = max(deepest, int(got[len(got)-1][4].(int64)))
		}
	}
	if deepest != 3 {
		t.Fatalf("deepest descendant at depth %d, want 3 (a chain of three continuations)", deepest)
	}
}

// TestTitleVariantAndPrefixSameRows compares SessionLatestTitleVariant and
// SessionResolvePrefix with the statements they replaced, a tie on start
// (s00048 and s00049) and case-insensitive matches included.
func TestTitleVariantAndPrefixSameRows(t *testing.T) {
	t.Parallel()
	s, _ := plansFixture(t)
	stmts := sqlcStatements(t)
	for base, want := range map[string][]string{
		"Title 5": {"s00019"}, // the newest start among s00001, s00003, s00009, s00013, s00019
		"title 5": {"s00019"}, // LIKE ignores ASCII case
		"Tie":     {"s00048"}, // started with s00049, and written first
		"Nobody":  nil,
	} {
		pattern := *likePrefix(base, " #%")
		old := dbtest.Values[string](t, s.r, oldLatestTitleVariantSQL, pattern)
		got := dbtest.Values[string](t, s.r, stmts["SessionLatestTitleVariant"], pattern)
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, want) || len(old) != len(want) || len(want) == 1 && old[0] != want[0] {
			t.Errorf("latest variant of %q: %v, old statement %v, want %v", base, got, old, want)
		}
	}
	for prefix, n := range map[string]int{"s0001": 13, "S0001": 13, "s00012": 1, "s00010": 4, "nobody": 0, "s000": 21} {
		pattern := *likePrefix(prefix, "%")
		old := dbtest.Values[string](t, s.r, oldResolvePrefixSQL, pattern)
		got := dbtest.Values[string](t, s.r, stmts["SessionResolvePrefix"], pattern)
		if !reflect.DeepEqual(got, old) || len(got) != n {
			t.Errorf("prefix %q: %v (%d), old statement %v, want %d rows", prefix, got, len(got), old, n)
		}
	}
}

// TestReplaySameRows compares MessageList and MessageConversation with the
// statements they replaced for every session of the file (every fifth for
// the paged list), live rows only and all rows, a chain's ancestors
// included: the same rows in the same (id) order, although each session's
// sixth message is stamped before its first.
func TestReplaySameRows(t *testing.T) {
	t.Parallel()
	s, _ := plansFixture(t)
	stmts := sqlcStatements(t)
	ids := dbtest.Values[string](t, s.r, `SELECT id FROM sessions ORDER BY id`)
	outOfOrder := dbtest.Value[int](t, s.r, `SELECT COUNT(*) FROM messages a JOIN messages b ON b.session_id = a.session_id AND b.id > a.id AND b.timestamp < a.timestamp`)
	if outOfOrder == 0 {
		t.Fatal("no message is stamped before an earlier one")
	}
	compare := func(what, oldSQL, newSQL string, args ...any) int {
		want := dbtest.Rows(t, s.r, oldSQL, args...)
		got := dbtest.Rows(t, s.r, newSQL, args...)
		if !reflect.DeepEqual(typedRows(got), typedRows(want)) {
			t.Errorf("%s %v: %d rows, want %d\n%s", what, args, len(got), len(want), firstDiff(typedRows(got), typedRows(want)))
		}
		return len(got)
	}
	total := 0
	for i, id := range append(ids, "nobody") {
		for _, inactive := range []int{0, 1} {
			total += compare("MessageList", oldMessageListSQL, stmts["MessageList"], id, inactive, 0, -1)
			if i%5 == 0 {
				compare("MessageList page", oldMessageListSQL, stmts["MessageList"], id, inactive, 3, 4)
			}
			for _, ancestors := range []int{0, 1} {
				compare("MessageConversation", oldMessageConversationSQL, stmts["MessageConversation"], id, inactive, ancestors)
			}
		}
	}
	if want := 2 * dbtest.Value[int](t, s.r, `SELECT COUNT(*) FROM messages WHERE session_id IN (SELECT id FROM sessions)`); total > want || total < want/2 {
		t.Fatalf("listed %d rows over both passes, the file has %d/2 rows in sessions", total, want)
	}
}
