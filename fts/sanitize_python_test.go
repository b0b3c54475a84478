package fts

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// pythonReference runs testdata/reference_sanitize.py (the original's
// sanitiser and CJK helpers, transcribed) over qs with the system's
// python3 and returns one result per query.
func pythonReference(t *testing.T, qs []string) []pythonResult {
	t.Helper()
	python := dbtest.Python3(t)
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, q := range qs {
		if err := enc.Encode(q); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(python, "testdata/reference_sanitize.py")
	cmd.Stdin = &in
	cmd.Env = append(cmd.Environ(), "PYTHONIOENCODING=utf-8")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reference_sanitize.py: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(qs) {
		t.Fatalf("reference_sanitize.py answered %d lines for %d queries", len(lines), len(qs))
	}
	res := make([]pythonResult, len(qs))
	for i, line := range lines {
		var raw [3]json.RawMessage
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatalf("line %d %q: %v", i, line, err)
		}
		for j, dst := range []any{&res[i].Sanitized, &res[i].ContainsCJK, &res[i].CountCJK} {
			if err := json.Unmarshal(raw[j], dst); err != nil {
				t.Fatalf("line %d %q: %v", i, line, err)
			}
		}
	}
	return res
}

type pythonResult struct {
	Sanitized   string
	ContainsCJK bool
	CountCJK    int
}

// pieces are the fragments randomQueries glues together: every character
// class the sanitiser and the FTS5 query syntax care about.
var pieces = []string{
	"a", "b", "Z", "x1", "foo", "chat", "send", "P2", "2", "_", "__", ".", "-", "*", "**",
	`"`, `""`, "(", ")", "{", "}", "+", "^", ":", "'", ",", "/", "@", "#", "%", "\\",
	" ", "  ", "\t", "\n", "\v", "\f", "\r", "\x1c", "\x1f", "\u0085", "\u00a0", "\u2003", "\u3000",
	"\x00", "\x01", "\x1a", "\x7f", "Q", "Q0", "\x00Q0\x00", "0",
	"AND", "OR", "NOT", "and", "or", "Not", "NEAR", "content", "Content",
	"记", "忆断裂", "通信", "。", "こんにちは", "カ", "안녕", "ｶﾀ", "\u0301", "é", "²", "٣", "Ⅳ",
	"🙂", "👍🏽", "\ufffd", "\u200b", "ß", "İ", "\u212a",
}

// randomQueries returns n deterministic queries of 1–12 random pieces.
func randomQueries(n int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	qs := make([]string, n)
	for i := range qs {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		qs[i] = b.String()
	}
	return qs
}

// TestSanitizeMatchesPython compares Sanitize, ContainsCJK and CountCJK
// with the transcribed original on every table input and 20,000 random
// queries.
func TestSanitizeMatchesPython(t *testing.T) {
	t.Parallel()
	qs := append(allTableInputs(), randomQueries(20000, 1)...)
	want := pythonReference(t, qs)
	bad := 0
	for i, q := range qs {
		got := pythonResult{Sanitize(q), ContainsCJK(q), CountCJK(q)}
		if diff := cmp.Diff(want[i], got); diff != "" {
			t.Errorf("%q (-python +go):\n%s", q, diff)
			if bad++; bad == 20 {
				t.Fatal("too many differences")
			}
		}
	}
}
