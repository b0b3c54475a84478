package store

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// nulTrigramProblem is Check's problem for upstream's state-v21.db under
// this build's SQLite.
const nulTrigramProblem = "messages_fts_trigram: malformed inverted index for FTS5 table main.messages_fts_trigram: " +
	"the index was built by another SQLite version from text holding NUL bytes " +
	"(SQLite 3.40, Python's, indexes such text only up to the NUL); sessions doctor --fix-fts rebuilds it"

// TestCheckTrigramBuiltPastNUL: upstream's state-v21.db was written by
// Python's SQLite 3.40, whose trigram tokenizer stops at a NUL byte, and
// message 27 holds multimodal content ("\x00json:[...]"), so this build's
// SQLite finds the trigram index malformed. Check names that cause, once
// (not also as an integrity problem), without writing; after
// RebuildSearchIndex (doctor --fix-fts) the file is clean, search still
// gives upstream's recorded answers, and deleting the NUL row keeps it
// clean.
func TestCheckTrigramBuiltPastNUL(t *testing.T) {
	t.Parallel()
	answers := loadAnswers(t, "state-v21")
	path := upstreamFixture(t, answers.Fixture)
	before := dbtest.FileHash(t, path)
	clock := newSetClock(answers.Now)
	s := openAt(t, path, &Options{Now: clock.Now})
	if n := dbtest.Value[int64](t, s.r, "SELECT COUNT(*) FROM messages WHERE instr(CAST(content AS BLOB), x'00') > 0"); n != 1 {
		t.Fatalf("%d messages with a NUL in their content, want 1 (row 27)", n)
	}

	h := mustCheck(t, s)
	want := []Problem{{ProblemSearchIndex, nulTrigramProblem}}
	if diff := cmp.Diff(want, h.Problems()); diff != "" {
		t.Errorf("Problems (-want +got):\n%s", diff)
	}
	wantFTS := []FTSCheck{{"messages_fts", "", ""},
		{"messages_fts_trigram", "malformed inverted index for FTS5 table main.messages_fts_trigram", FTSCauseNULText}}
	if diff := cmp.Diff(wantFTS, h.FTS); diff != "" {
		t.Errorf("FTS (-want +got):\n%s", diff)
	}
	// The pragma's own report is kept as it is.
	if diff := cmp.Diff([]string{"malformed inverted index for FTS5 table main.messages_fts_trigram"}, h.Integrity); diff != "" {
		t.Errorf("Integrity (-want +got):\n%s", diff)
	}
	if h.OK() {
		t.Error("OK() = true")
	}
	if got := dbtest.FileHash(t, path); got != before {
		t.Error("Check changed the file")
	}

	if err := s.RebuildSearchIndex(t.Context()); err != nil {
		t.Fatal(err)
	}
	if h := mustCheck(t, s); !h.OK() || h.FTS[1].Cause != "" {
		t.Errorf("after RebuildSearchIndex: problems %+v, FTS %+v; want none", h.Problems(), h.FTS)
	}
	if replayed, decided, hits := replaySearchAnswers(t, s, "state-v21", answers); replayed != 80 || decided != 3 || hits != 120 {
		t.Errorf("after RebuildSearchIndex: %d search calls, %d decided, %d hits; want 80, 3, 120", replayed, decided, hits)
	}

	// An index this SQLite built deletes the NUL row cleanly.
	if err := s.DeleteSession(t.Context(), "fx21-branch", ""); err != nil {
		t.Fatal(err)
	}
	if h := mustCheck(t, s); !h.OK() {
		t.Errorf("after deleting fx21-branch: problems %+v", h.Problems())
	}
}

// TestCheckTrigramDamageWithoutNUL: a malformed trigram index in a file
// with no NUL text is reported without a cause: the integrity problem and
// the index's own, as for any other damage.
func TestCheckTrigramDamageWithoutNUL(t *testing.T) {
	t.Parallel()
	s, path := healthFixture(t, nil)
	// Stored text that is not what the index holds for the row.
	dbtest.Exec(t, rawDB(t, path), "UPDATE messages_fts_trigram_content SET c0 = 'something else entirely' WHERE id = 1")
	h := mustCheck(t, s)
	const malformed = "malformed inverted index for FTS5 table main.messages_fts_trigram"
	want := []Problem{{ProblemIntegrity, "integrity_check: " + malformed}, {ProblemSearchIndex, "messages_fts_trigram: " + malformed}}
	if diff := cmp.Diff(want, h.Problems()); diff != "" {
		t.Errorf("Problems (-want +got):\n%s", diff)
	}
	if h.FTS[1].Cause != "" {
		t.Errorf("trigram cause = %q, want none", h.FTS[1].Cause)
	}
}
