package store

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// emptyIndexFile is the health fixture closed, with both search indexes
// emptied as the original's concurrent migration leaves one (the tables
// there, no row in them), and its path.
func emptyIndexFile(t *testing.T, tables ...string) string {
	t.Helper()
	s, path := healthFixture(t, nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	raw := rawDB(t, path)
	for _, table := range tables {
		// The table names are this test's own constants.
		dbtest.Exec(t, raw, "DELETE FROM "+table)
	}
	return path
}

// TestEmptySearchIndex: an index that is empty while messages has rows is
// found when a store opens the file. A store that can write rebuilds both
// indexes and logs it, and searches find their messages; a read-only store
// changes nothing, and its searches fail with ErrSearchIndexEmpty (which
// matches ErrCorrupt) instead of finding nothing, on the word and on the
// trigram index; Check reports the index as empty. A sound file is left
// as it is.
func TestEmptySearchIndex(t *testing.T) {
	t.Parallel()
	t.Run("ReadOnly", func(t *testing.T) {
		t.Parallel()
		path := emptyIndexFile(t, "messages_fts", "messages_fts_trigram")
		before := dbtest.FileHash(t, path)
		var logs bytes.Buffer
		s := openAt(t, path, &Options{ReadOnly: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		for _, q := range []string{"hello", "日本語"} {
			hits, err := s.SearchMessages(t.Context(), q, SearchOptions{})
			if !errors.Is(err, ErrSearchIndexEmpty) || !errors.Is(err, ErrCorrupt) || hits != nil {
				t.Errorf("SearchMessages(%q) = %d hits, %v; want ErrSearchIndexEmpty", q, len(hits), err)
			}
		}
		if got := searchIDs(t, s, "日本"); len(got) != 1 { // the LIKE scan needs no index
			t.Errorf("SearchMessages(日本) on the LIKE scan = %v, want one hit", got)
		}
		h := mustCheck(t, s)
		want := []FTSCheck{{"messages_fts", "empty: 4 messages missing from the index", ""}, {"messages_fts_trigram", "empty: 4 messages missing from the index", ""}}
		if diff := cmp.Diff(want, h.FTS); diff != "" {
			t.Errorf("Check().FTS (-want +got):\n%s", diff)
		}
		if !strings.Contains(logs.String(), "search index is empty while messages has rows; searches fail until it is rebuilt") {
			t.Errorf("the read-only open logged:\n%s", logs.String())
		}
		s.Close()
		if dbtest.FileHash(t, path) != before {
			t.Error("the read-only store changed the file")
		}
	})
	t.Run("Writable", func(t *testing.T) {
		t.Parallel()
		path := emptyIndexFile(t, "messages_fts_trigram")
		var logs bytes.Buffer
		s := openAt(t, path, &Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if diff := cmp.Diff([]int64{4}, searchIDs(t, s, "日本語")); diff != "" {
			t.Errorf("search after the open rebuilt the index (-want +got):\n%s", diff)
		}
		assertCheckOK(t, s)
		for _, want := range []string{"search index is empty while messages has rows; rebuilding it", "rebuilt the search indexes"} {
			if !strings.Contains(logs.String(), want) {
				t.Errorf("the open did not log %q:\n%s", want, logs.String())
			}
		}
	})
	t.Run("WritableCannotRebuild", func(t *testing.T) {
		t.Parallel()
		// The file is locked by another connection for longer than the
		// retry budget: the open fails, naming the empty index and ErrBusy.
		path := emptyIndexFile(t, "messages_fts")
		lock := dbtest.HoldWriteLock(t, path)
		defer lock.Release()
		_, err := Open(t.Context(), path, &Options{WriteAttempts: 1})
		if !errors.Is(err, ErrSearchIndexEmpty) || !errors.Is(err, ErrBusy) {
			t.Errorf("Open with the write lock taken = %v; want ErrSearchIndexEmpty and ErrBusy", err)
		}
	})
	t.Run("SoundFileUntouched", func(t *testing.T) {
		t.Parallel()
		path := emptyIndexFile(t) // nothing emptied
		before := dbtest.FileHash(t, path)
		var logs bytes.Buffer
		s := openAt(t, path, &Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		s.Close()
		if logs.Len() != 0 || dbtest.FileHash(t, path) != before {
			t.Errorf("opening a sound file logged %q or changed it", logs.String())
		}
	})
}
