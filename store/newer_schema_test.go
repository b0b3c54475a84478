package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// newerFixture copies testdata/upstream/name into a directory of its own;
// restamp, when not 0, then sets its schema_version (through a plain
// connection, before any test opens it).
func newerFixture(t *testing.T, name string, restamp int64) string {
	t.Helper()
	path := dbtest.CopyFile(t, dbtest.Testdata("upstream", name), filepath.Join(t.TempDir(), "state.db"))
	if restamp != 0 {
		db, err := sql.Open("sqlite3", path)
		if err != nil {
			t.Fatal(err)
		}
		dbtest.Exec(t, db, fmt.Sprintf("UPDATE schema_version SET version = %d", restamp))
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// fixtureNames are sessions and a title of a fixture that the reads ask
// for.
type fixtureNames struct {
	main, sub, parent, title, search string
}

// readings calls every read method of s and renders what each returned,
// one entry per call, for an exact comparison.
func readings(t *testing.T, s *Store, f fixtureNames) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := map[string]string{}
	put := func(name string, v any, err error) {
		if err != nil {
			out[name] = "error: " + err.Error()
			return
		}
		out[name] = fmt.Sprint(v)
	}
	ids := func(n int, at func(int) string) string {
		var b []string
		for i := range n {
			b = append(b, at(i))
		}
		return strings.Join(b, " ")
	}
	v, err := s.SchemaVersion(ctx)
	put("SchemaVersion", v, err)
	n, err := s.SessionCount(ctx, "")
	put("SessionCount", n, err)
	n, err = s.SessionCount(ctx, "telegram")
	put("SessionCount telegram", n, err)
	n, err = s.MessageCount(ctx, f.main)
	put("MessageCount", n, err)
	if sess, err := s.GetSession(ctx, f.main); err == nil {
		put("GetSession", fmt.Sprintf("%s %s %s in=%d out=%d calls=%d msgs=%d", sess.ID, sess.Source, deref(sess.Model),
			sess.InputTokens, sess.OutputTokens, sess.APICallCount, sess.MessageCount), nil)
	} else {
		put("GetSession", nil, err)
	}
	msgs, err := s.GetMessages(ctx, f.main)
	put("GetMessages", ids(len(msgs), func(i int) string { return msgs[i].Role + ":" + deref(msgs[i].Content) }), err)
	var each []string
	err = s.EachMessage(ctx, f.main, func(m Message) error { each = append(each, fmt.Sprint(m.ID)); return nil })
	put("EachMessage", strings.Join(each, " "), err)
	conv, err := s.Conversation(ctx, f.sub, true)
	put("Conversation", ids(len(conv), func(i int) string { return conv[i].Role + ":" + deref(conv[i].Content) }), err)
	anc, err := s.Ancestors(ctx, f.sub)
	put("Ancestors", ids(len(anc), func(i int) string { return anc[i].ID }), err)
	desc, err := s.Descendants(ctx, f.parent)
	put("Descendants", ids(len(desc), func(i int) string { return desc[i].ID }), err)
	lin, err := s.Lineage(ctx, f.sub)
	put("Lineage", strings.Join(lin, " "), err)
	tip, err := s.CompressionTip(ctx, f.parent)
	put("CompressionTip", tip, err)
	resume, err := s.ResolveResumeSessionID(ctx, f.parent)
	put("ResolveResumeSessionID", resume, err)
	id, err := s.ResolveSessionID(ctx, f.main[:len(f.main)-2])
	put("ResolveSessionID", id, err)
	title, err := s.SessionTitle(ctx, f.main)
	put("SessionTitle", title, err)
	if sess, err := s.SessionByTitle(ctx, f.title); err == nil {
		put("SessionByTitle", sess.ID, nil)
	} else {
		put("SessionByTitle", nil, err)
	}
	id, err = s.ResolveSessionByTitle(ctx, f.title)
	put("ResolveSessionByTitle", id, err)
	next, err := s.NextTitleInLineage(ctx, f.title)
	put("NextTitleInLineage", next, err)
	list, err := s.ListSessionsRich(ctx, ListOptions{Limit: 50})
	put("ListSessionsRich", ids(len(list), func(i int) string { return list[i].ID + "(" + list[i].Preview + ")" }), err)
	act, err := s.SearchSessions(ctx, "", 50, 0)
	put("SearchSessions", ids(len(act), func(i int) string { return act[i].ID }), err)
	hits, err := s.SearchMessages(ctx, f.search, SearchOptions{})
	put("SearchMessages", ids(len(hits), func(i int) string { return fmt.Sprint(hits[i].ID) }), err)
	exp, err := s.ExportSession(ctx, f.main)
	if err == nil {
		put("ExportSession", fmt.Sprintf("%s %d messages", exp.ID, len(exp.Messages)), nil)
	} else {
		put("ExportSession", nil, err)
	}
	all, err := s.ExportAll(ctx, "")
	put("ExportAll", len(all), err)
	c, err := s.ExportCount(ctx, ExportOptions{})
	put("ExportCount", c, err)
	var buf bytes.Buffer
	c, err = s.ExportJSONL(ctx, &buf, ExportOptions{})
	put("ExportJSONL", fmt.Sprintf("%d sessions, %d lines", c, strings.Count(buf.String(), "\n")), err)
	val, ok, err := s.GetMeta(ctx, "last_auto_prune")
	put("GetMeta", fmt.Sprint(val, ok), err)
	byModel, err := s.TokenStatsByModel(ctx)
	put("TokenStatsByModel", byModel, err)
	bySource, err := s.TokenStatsBySource(ctx)
	put("TokenStatsBySource", bySource, err)
	top, err := s.TopSessionsByTokens(ctx, 2)
	put("TopSessionsByTokens", ids(len(top), func(i int) string { return fmt.Sprintf("%s=%d", top[i].ID, top[i].Tokens) }), err)
	h, err := s.Check(ctx)
	if err == nil {
		put("Check", fmt.Sprintf("version %d, integrity %v", h.SchemaVersion, h.Integrity), nil)
	} else {
		put("Check", nil, err)
	}
	put("Stats.Writes", s.Stats().Writes, nil)
	return out
}

var (
	// v21Reads is what every read returns on the upstream v21 fixture. Check
	// reports the trigram index as malformed: SQLite 3.54's FTS5 integrity
	// check disagrees with the index upstream's Python (SQLite 3.40) wrote,
	// which 3.40 itself finds sound; searches on it still work. (3.40's
	// trigram tokenizer stops at a NUL, so the multimodal row 27, whose
	// text starts with one, has no trigram; 3.54's reads past it.) The
	// archived chain (fx21-arch-root, fx21-arch-tip) is neither listed nor
	// counted, as upstream's list_sessions_rich() and session_count()
	// (answers/state-v21.json: 8 sessions).
	v21Reads = map[string]string{
		"Ancestors":              "fx21-sub fx21-parent",
		"Check":                  "version 21, integrity [malformed inverted index for FTS5 table main.messages_fts_trigram]",
		"CompressionTip":         "fx21-parent",
		"Conversation":           "user:delegate two things user:sub-goal",
		"Descendants":            "fx21-parent fx21-sub fx21-branch",
		"EachMessage":            "1 2 3 4",
		"ExportAll":              "10",
		"ExportCount":            "10",
		"ExportJSONL":            "10 sessions, 10 lines",
		"ExportSession":          "fx21-model-switch 4 messages",
		"GetMessages":            "user:Summarise the release notes assistant:Here is the summary. user:Now in French assistant:Voici le resume.",
		"GetMeta":                "false",
		"GetSession":             "fx21-model-switch cli beta-2 in=330 out=135 calls=3 msgs=4",
		"Lineage":                "fx21-parent fx21-sub",
		"ListSessionsRich":       "fx21-branch() fx21-parent(delegate two things) fx21-gw(someone else talking) fx21-locked() fx21-compact(compact me 0) fx21-rewind(first question) fx21-model-switch(Summarise the release notes)",
		"MessageCount":           "4",
		"NextTitleInLineage":     "Archived chain #2",
		"ResolveResumeSessionID": "fx21-parent",
		"ResolveSessionByTitle":  "fx21-arch-root",
		"ResolveSessionID":       "fx21-model-switch",
		"SchemaVersion":          "21",
		"SearchMessages":         "3 2 19 18",
		"SearchSessions":         "fx21-branch fx21-sub fx21-parent fx21-gw fx21-locked fx21-arch-tip fx21-arch-root fx21-compact fx21-rewind fx21-model-switch",
		"SessionByTitle":         "fx21-arch-root",
		"SessionCount":           "8",
		"SessionCount telegram":  "1",
		"SessionTitle":           "",
		"Stats.Writes":           "0",
		"TokenStatsByModel":      "[{beta-2 1 330 135 0.0042} {alpha-1 7 0 0 0}]",
		"TokenStatsBySource":     "[{cli 9 330 135 0.0042} {telegram 1 0 0 0}]",
		"TopSessionsByTokens":    "fx21-model-switch=465 fx21-arch-root=0",
	}
)

// v99Reads is v21Reads on the v21 file restamped to version 99.
func v99Reads() map[string]string {
	m := maps.Clone(v21Reads)
	m["SchemaVersion"] = "99"
	m["Check"] = strings.Replace(m["Check"], "version 21", "version 99", 1)
	return m
}

var v21Names = fixtureNames{"fx21-model-switch", "fx21-sub", "fx21-parent", "Archived chain", "summary OR French"}

// TestReadOnlyNewerSchema opens copies of the file upstream Hermes wrote at
// schema version 21 (this build's own) and of the same file restamped to 99
// (a newer Hermes's) with ReadOnly and calls every read method: each works,
// with the file's real values (what this build does not know is ignored),
// and the file is byte for byte the same afterwards. (Upstream's v16 file is
// older: ReadOnly refuses it, TestReadOnlyOlderSchema.)
func TestReadOnlyNewerSchema(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, fixture string
		restamp       int64
		names         fixtureNames
		want          map[string]string
	}{
		{"V21", "state-v21.db", 0, v21Names, v21Reads},
		{"V99", "state-v21.db", 99, v21Names, v99Reads()},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := newerFixture(t, c.fixture, c.restamp)
			before := dbtest.FileHash(t, path)
			s, err := Open(context.Background(), path, &Options{ReadOnly: true})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			got := readings(t, s, c.names)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("reads (-want +got):\n%s", diff)
			}
			if dbtest.FileHash(t, path) != before {
				t.Error("the file changed")
			}
		})
	}
}
