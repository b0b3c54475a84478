package store

// Tests of ImportJSONL on malformed input: the *ImportError's line, what
// was committed before it, and the inputs that are not errors (blank
// lines, a byte-order mark, an empty file).

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// importFailure imports text into s, which must fail; it returns the
// *ImportError and the result that came with it.
func importFailure(t *testing.T, s *Store, text string, opts ImportOptions) (*ImportError, ImportResult) {
	t.Helper()
	res, err := s.ImportJSONL(t.Context(), strings.NewReader(text), opts)
	var ie *ImportError
	if !errors.As(err, &ie) {
		t.Fatalf("ImportJSONL error = %v, want an *ImportError", err)
	}
	if !errors.Is(err, ErrInvalidImport) {
		t.Errorf("ImportJSONL error %v does not match ErrInvalidImport", err)
	}
	return ie, res
}

// TestImportMalformedRecord puts one bad record on line 4 of a file read
// two sessions per batch: the error names line 4, the batch of lines 1-2
// is committed, nothing of line 3's batch is written, and the result holds
// the totals of the committed batch.
//
// upstream: TestDeleteAndExport::test_import_sessions_rejects_invalid_batch_atomically
// (atomic per batch here: a batch with a bad record writes nothing)
func TestImportMalformedRecord(t *testing.T) {
	t.Parallel()
	good := func(id string, started Timestamp, texts ...string) string {
		var msgs []Message
		for i, text := range texts {
			msgs = append(msgs, Message{Role: "user", Content: new(text), Timestamp: started + Timestamp(i+1)})
		}
		return jsonLines(t, sess(id, "", "", started, msgs...))
	}
	for _, tc := range []struct {
		name, line string
		jsonErr    bool // the cause matches ErrInvalidJSON too
	}{
		{"NotJSON", `{"id": "s4", "source": "cli", "started_at": 4`, false},
		{"NotAnObject", `["s4", "cli"]`, false},
		{"MissingID", `{"source": "cli", "started_at": 4, "messages": []}`, false},
		{"EmptyID", `{"id": "", "source": "cli", "started_at": 4, "messages": []}`, false},
		{"MissingSource", `{"id": "s4", "started_at": 4, "messages": []}`, false},
		{"MissingStartedAt", `{"id": "s4", "source": "cli", "messages": []}`, false},
		{"MessageOfAnotherSession", `{"id": "s4", "source": "cli", "started_at": 4, "messages": [{"session_id": "s1", "role": "user", "timestamp": 5}]}`, false},
		{"MessageWithoutRole", `{"id": "s4", "source": "cli", "started_at": 4, "messages": [{"content": "hi", "timestamp": 5}]}`, false},
		{"MessageWithoutTimestamp", `{"id": "s4", "source": "cli", "started_at": 4, "messages": [{"role": "user"}]}`, false},
		{"ReasoningDetailsNotJSON", `{"id": "s4", "source": "cli", "started_at": 4, "messages": [{"role": "assistant", "timestamp": 5, "reasoning_details": "not json {"}]}`, true},
		{"CodexItemsNotJSON", `{"id": "s4", "source": "cli", "started_at": 4, "messages": [{"role": "assistant", "timestamp": 5, "codex_message_items": "[1,"}]}`, true},
		{"ModelConfigNotJSON", `{"id": "s4", "source": "cli", "started_at": 4, "model_config": "{temperature", "messages": []}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := openStore(t, quick(nil))
			mustCreate(t, s, NewSession{ID: "pre", Source: "cli"})
			mustAppend(t, s, "pre", NewMessage{Role: "user", Content: new("before")})
			text := good("s1", 1, "a") + good("s2", 2, "b", "c") + good("s3", 3, "d") + tc.line + "\n" + good("s5", 5, "e")
			ie, res := importFailure(t, s, text, ImportOptions{BatchSize: 2})
			if ie.Line != 4 {
				t.Errorf("ImportError.Line = %d, want 4 (%v)", ie.Line, ie)
			}
			if !strings.HasPrefix(ie.Error(), "line 4: ") {
				t.Errorf("ImportError.Error() = %q, want it to start with \"line 4: \"", ie.Error())
			}
			if got := errors.Is(ie, ErrInvalidJSON); got != tc.jsonErr {
				t.Errorf("errors.Is(%v, ErrInvalidJSON) = %v, want %v", ie, got, tc.jsonErr)
			}
			if want := (ImportResult{Created: 2, Messages: 3}); res != want {
				t.Errorf("result with the error = %+v, want %+v", res, want)
			}
			if got := rowCounts(t, s); got != [2]int64{3, 4} {
				t.Errorf("sessions, messages after the failed import = %v; want [3 4] (pre, s1, s2)", got)
			}
			assertGone(t, s, "s3")
		})
	}
}

// TestImportBlankLinesAndBOM reads a file that starts with a UTF-8
// byte-order mark and has blank, white-space and CRLF lines: they are
// skipped, and line numbers still count them.
func TestImportBlankLinesAndBOM(t *testing.T) {
	t.Parallel()
	a := strings.TrimSuffix(jsonLines(t, sess("a", "", "", 1000, msg(1, "x", 1001))), "\n")
	b := strings.TrimSuffix(jsonLines(t, sess("b", "", "", 2000)), "\n")
	text := "\uFEFF\n" + a + "\r\n\n \t\r\n" + b + "\n\n"

	t.Run("Accepted", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, quick(nil))
		if res := importText(t, s, text, ImportOptions{}); res != (ImportResult{Created: 2, Messages: 1}) {
			t.Errorf("ImportJSONL = %+v, want 2 created with 1 message", res)
		}
	})

	t.Run("LineNumbersCountThem", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, quick(nil))
		ie, res := importFailure(t, s, text+"{bad\n", ImportOptions{BatchSize: 1})
		if ie.Line != 7 {
			t.Errorf("ImportError.Line = %d, want 7", ie.Line)
		}
		if res != (ImportResult{Created: 2, Messages: 1}) {
			t.Errorf("result with the error = %+v, want 2 created with 1 message", res)
		}
	})

	t.Run("ArrayAfterBOM", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, quick(nil))
		if res := importText(t, s, "\uFEFF\n ["+a+",\r\n"+b+"]\n", ImportOptions{}); res != (ImportResult{Created: 2, Messages: 1}) {
			t.Errorf("ImportJSONL = %+v, want 2 created with 1 message", res)
		}
	})

	for name, text := range map[string]string{"Empty": "", "OnlyBlank": "\uFEFF\n  \n\r\n", "EmptyArray": "[\n]\n"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, _ := openStore(t, quick(nil))
			if res := importText(t, s, text, ImportOptions{}); res != (ImportResult{}) {
				t.Errorf("ImportJSONL(%q) = %+v, want nothing done", text, res)
			}
		})
	}
}

// indentedArray is a JSON array as json.MarshalIndent writes it, one
// element on one line and two spread over several; its third element,
// starting on line 9, is %s.
const indentedArray = `[
  {"id": "a", "source": "cli", "started_at": 1, "messages": [{"role": "user", "content": "x", "timestamp": 1.5}]},
  {
    "id": "b",
    "source": "cli",
    "started_at": 2,
    "messages": []
  },
  {
    "id": "c",
%s
    "messages": []
  },
  {"id": "d", "source": "cli", "started_at": 4, "messages": []}
]
`

// TestImportArrayErrors checks the line an error in a JSON array names:
// the line its element starts on, and the batches before it are kept.
func TestImportArrayErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, fields string
		line         int
	}{
		{"MissingSource", `    "started_at": 3,`, 9},
		// A syntax error names the element's first line, not the line of
		// the comma before it.
		{"SyntaxError", `    "source": "cli",, "started_at": 3,`, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := openStore(t, quick(nil))
			text := strings.Replace(indentedArray, "%s", tc.fields, 1)
			ie, res := importFailure(t, s, text, ImportOptions{BatchSize: 1})
			if want := (ImportResult{Created: 2, Messages: 1}); res != want {
				t.Errorf("result with the error = %+v, want %+v", res, want)
			}
			if got := rowCounts(t, s); got != [2]int64{2, 1} {
				t.Errorf("sessions, messages = %v, want [2 1]", got)
			}
			if ie.Line != tc.line {
				t.Errorf("ImportError.Line = %d, want %d (%v)", ie.Line, tc.line, ie)
			}
		})
	}

	t.Run("Valid", func(t *testing.T) {
		t.Parallel()
		s, _ := openStore(t, quick(nil))
		text := strings.Replace(indentedArray, "%s", `    "source": "cli", "started_at": 3,`, 1)
		if res := importText(t, s, text, ImportOptions{}); res != (ImportResult{Created: 4, Messages: 1}) {
			t.Errorf("ImportJSONL = %+v, want 4 created with 1 message", res)
		}
	})

	const a = `{"id": "a", "source": "cli", "started_at": 1, "messages": []}`
	for _, tc := range []struct {
		name, text string
		line       int
	}{
		{"FirstElementSyntaxError", "[\n  {\"id\": \"a\",, \"source\": \"cli\"}\n]\n", 2},
		{"ElementMissingAtTheEnd", "[\n" + a + ",\n", 3},
		{"DataAfterArray", "[\n" + a + "\n]\n{}\n", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, _ := openStore(t, quick(nil))
			ie, _ := importFailure(t, s, tc.text, ImportOptions{BatchSize: 1})
			if ie.Line != tc.line {
				t.Errorf("ImportError.Line = %d, want %d (%v)", ie.Line, tc.line, ie)
			}
		})
	}
}

// TestImportReadError checks that a failing reader's error is returned as
// it is, with the batches read before it committed.
func TestImportReadError(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(nil))
	boom := errors.New("disk unplugged")
	r := io.MultiReader(strings.NewReader(jsonLines(t, sess("a", "", "", 1000))), iotest.ErrReader(boom))
	res, err := s.ImportJSONL(t.Context(), r, ImportOptions{BatchSize: 1})
	if !errors.Is(err, boom) || errors.Is(err, ErrInvalidImport) {
		t.Errorf("ImportJSONL error = %v, want the reader's error and not ErrInvalidImport", err)
	}
	if diff := cmp.Diff(ImportResult{Created: 1}, res); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}
