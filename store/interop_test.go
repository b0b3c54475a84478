package store

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// runOriginal runs testdata/reference_init.py, a transcription of upstream's
// SessionDB setup and _init_schema at v21 (upstream-v21.md §1–2 over
// reference-spec §2, §3, §5.3), on path with the system's python3 and
// sqlite3 module, under an empty HERMES_HOME (no sessions.json).
func runOriginal(t *testing.T, path string, args ...string) string {
	t.Helper()
	return runOriginalHome(t, t.TempDir(), path, args...)
}

// runOriginalHome is runOriginal with HERMES_HOME set to home.
func runOriginalHome(t *testing.T, home, path string, args ...string) string {
	t.Helper()
	python := dbtest.Python3(t)
	cmd := exec.Command(python, append([]string{"testdata/reference_init.py", path}, args...)...)
	cmd.Env = append(os.Environ(), "HERMES_HOME="+home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("reference_init.py: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestInteropWithTheOriginal: a file this store wrote, new or migrated from
// an old Hermes's, is one upstream's v21 init opens as its own (it changes
// nothing: same schema text, version 21), and a file that init created is
// one this store opens as its own (without even taking the write lock).
func TestInteropWithTheOriginal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("OriginalOpensOurFile", func(t *testing.T) {
		t.Parallel()
		s, path := openStore(t, nil)
		addSession(t, s, "go-session", nil, 1)
		if err := appendLabelledTo(ctx, s, "go-session", "written by go"); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		raw := rawDB(t, path)
		before := schemaRows(t, raw)
		if got := runOriginal(t, path); got != "version 21" {
			t.Errorf("original says %q, want version 21", got)
		}
		if diff := cmp.Diff(before, schemaRows(t, raw)); diff != "" {
			t.Errorf("the original changed the schema (-ours +after):\n%s", diff)
		}
		if got := dbtest.Values[string](t, raw, "SELECT CAST(rowid AS TEXT) FROM messages_fts WHERE messages_fts MATCH 'written'"); !cmp.Equal(got, []string{"1"}) {
			t.Errorf("FTS hits after the original opened the file: %v", got)
		}
	})

	t.Run("OriginalOpensOurMigratedFile", func(t *testing.T) {
		t.Parallel()
		for _, name := range []string{"state-v1.db", "state-v9.db", "state-v11-fresh.db", "upstream/state-v16.db"} {
			path := dbtest.CopyFile(t, dbtest.Testdata(name), filepath.Join(t.TempDir(), "state.db"))
			if err := openAt(t, path, nil).Close(); err != nil {
				t.Fatal(err)
			}
			before := dbtest.ReadLayout(t, path)
			if got := runOriginal(t, path); got != "version 21" {
				t.Errorf("%s: original says %q, want version 21", name, got)
			}
			if diff := cmp.Diff(before, dbtest.ReadLayout(t, path)); diff != "" {
				t.Errorf("%s: the original changed our migrated file (-ours +after):\n%s", name, diff)
			}
		}
	})

	t.Run("WeOpenTheOriginalsFile", func(t *testing.T) {
		t.Parallel()
		path := t.TempDir() + "/state.db"
		if got := runOriginal(t, path, "seed"); got != "version 21" {
			t.Fatalf("original says %q, want version 21", got)
		}
		raw := rawDB(t, path)
		before := schemaRows(t, raw)
		raw.Close()

		lock := dbtest.HoldWriteLock(t, path)
		s := openAt(t, path, &Options{WriteAttempts: 1})
		after := schemaRows(t, s.r)
		lock.Release()
		if diff := cmp.Diff(before, after); diff != "" {
			t.Errorf("opening changed the original's schema (-original +after):\n%s", diff)
		}
		got, err := s.q.SessionGet(ctx, backend.SQLiteTx(s.r), "py-session")
		if err != nil {
			t.Fatal(err)
		}
		if got.Source != "cli" || got.ModelConfig == nil || *got.ModelConfig != `{"temperature": 0.5}` {
			t.Errorf("session = %+v", got)
		}
		if hits := dbtest.Values[string](t, s.r, "SELECT CAST(rowid AS TEXT) FROM messages_fts WHERE messages_fts MATCH 'PYTOOL'"); !cmp.Equal(hits, []string{"1"}) {
			t.Errorf("FTS hits for the tool name = %v, want [1]", hits)
		}
		if err := appendLabelledTo(ctx, s, "py-session", "and by go"); err != nil {
			t.Errorf("append to the original's session: %v", err)
		}
	})
}

// TestSearchMatchesTheOriginal: on a file this store wrote, and on one the
// original wrote, the original's search_messages (transcribed in
// testdata/reference_search.py) returns the same hits in the same order,
// with the same snippets and context, as SearchMessages, for queries the
// original can run: the JSON text and the FTS indexes are the same whichever
// side wrote them.
func TestSearchMatchesTheOriginal(t *testing.T) {
	t.Parallel()
	t.Run("OurFile", func(t *testing.T) {
		t.Parallel()
		s, path := openStore(t, &Options{Now: stepClock(time.Unix(1767225600, 0), time.Second)})
		mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
		mustCreate(t, s, NewSession{ID: "s2", Source: "telegram"})
		for _, m := range []struct {
			session string
			msg     NewMessage
		}{
			{"s1", NewMessage{Role: "user", Content: new("How do I deploy with Docker? chat-send P2.2")}},
			{"s1", NewMessage{Role: "assistant", Content: new(""), ToolCalls: json.RawMessage(`[{"id":"c1","type":"function","function":{"name":"web_search","arguments":"{\"query\": \"UNIQUEARG docker-compose 通信\"}"}}]`)}},
			{"s1", NewMessage{Role: "tool", Content: new(`{"result": "ok"}`), ToolName: "web_search", ToolCallID: "c1"}},
			{"s1", NewMessage{Role: "assistant", Content: new("Use docker compose up. 100%完成 deployment done")}},
			{"s2", NewMessage{Role: "user", Content: new("昨天和其他Agent的聊天记录，记忆断裂问题复现了")}},
			{"s2", NewMessage{Role: "assistant", Content: new("今天讨论A2A通信协议的实现 Kubernetes こんにちは世界")}},
			{"s2", NewMessage{Role: "user", Content: new(strings.Repeat("长", 250) + " docker")}},
		} {
			mustAppend(t, s, m.session, m.msg)
		}
		compareWithOriginal(t, s, path, "docker", "deploy*", `"docker compose"`, "chat-send", "P2.2", "web_search",
			"UNIQUEARG", "docker OR kubernetes", "docker NOT compose", "记忆断裂", "こんにちは", "通信", "A2A通信", "100%完成")
	})
	t.Run("OriginalsFile", func(t *testing.T) {
		t.Parallel()
		path := dbtest.CopyFixture(t, "state-v9.db")
		s := openAt(t, path, nil)
		compareWithOriginal(t, s, path, "docker", "web_search", "LEGACYARG", "Kubernetes", "chat-send", "记忆断裂", "通信")
	})
}

// compareWithOriginal runs each query through the original's search on
// path and through s.SearchMessages, and compares ids, snippets and context.
func compareWithOriginal(t *testing.T, s *Store, path string, queries ...string) {
	t.Helper()
	python := dbtest.Python3(t)
	in, err := json.Marshal(queries)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "testdata/reference_search.py", path)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reference_search.py: %v", err)
	}
	var want [][][]any // per query: [id, snippet, [context...]]
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("reference_search.py output %q: %v", out, err)
	}
	for i, q := range queries {
		hits, err := s.SearchMessages(t.Context(), q, SearchOptions{})
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		got := [][]any{}
		for _, h := range hits {
			var snippet any
			if h.Snippet != nil {
				snippet = *h.Snippet
			}
			context := []any{}
			for _, c := range h.Context {
				context = append(context, c.Content)
			}
			got = append(got, []any{float64(h.ID), snippet, context})
		}
		if len(want[i]) == 0 {
			t.Errorf("the original finds nothing for %q: the test needs queries it can run", q)
		}
		if diff := cmp.Diff(want[i], got); diff != "" {
			t.Errorf("search %q (-original +ours):\n%s", q, diff)
		}
	}
}

// TestLayoutMatchesTheTranscription holds store.Open against
// testdata/reference_init.py (the original's _init_schema transcribed from
// the spec) on the same files, a new one and every historical one: the
// same sqlite_master, columns, rows and FTS content. The golden layouts
// (TestOpenMakesTheOriginalsFile) come from the real original; this keeps
// the transcription the other tests rely on honest against both.
func TestLayoutMatchesTheTranscription(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"", "state-v1.db", "state-v9.db", "state-v11-fresh.db", "history/state-v1.db", "history/state-v4.db",
		"history/state-v5.db", "history/state-v6.db", "history/state-v7-renumbered.db", "upstream/state-v16.db"} {
		t.Run(strings.ReplaceAll(name+"new", "/", "-"), func(t *testing.T) {
			t.Parallel()
			theirs := filepath.Join(t.TempDir(), "state.db")
			ours := filepath.Join(t.TempDir(), "state.db")
			if name != "" {
				dbtest.CopyFile(t, dbtest.Testdata(name), theirs)
				dbtest.CopyFile(t, dbtest.Testdata(name), ours)
			}
			// Upstream's v16 file with the sessions.json upstream had: the v18
			// step copies the same metadata on both sides.
			home := dbtest.Testdata("upstream", "hermes-home")
			if got := runOriginalHome(t, home, theirs); got != "version 21" {
				t.Fatalf("original says %q, want version 21", got)
			}
			if err := openAt(t, ours, &Options{HermesHome: home}).Close(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(dbtest.ReadLayout(t, theirs), dbtest.ReadLayout(t, ours)); diff != "" {
				t.Errorf("(-transcription +ours):\n%s", diff)
			}
		})
	}
}
