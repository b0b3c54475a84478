package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpstreamTestsMapped holds docs/upstream-tests to its promise: every
// upstream test at c2a3b9ce5 in the files issue 15 names (listed in
// upstream-tests.txt) appears in one of the mapping tables, ported or with
// the reason it does not apply.
func TestUpstreamTestsMapped(t *testing.T) {
	dir := filepath.Join("..", "docs", "upstream-tests")
	list, err := os.ReadFile(filepath.Join(dir, "upstream-tests.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tables, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil || len(tables) == 0 {
		t.Fatalf("no mapping tables in %s (%v)", dir, err)
	}
	var all strings.Builder
	for _, p := range tables {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	text := all.String()
	n := 0
	for line := range strings.SplitSeq(string(list), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || strings.HasPrefix(line, "#") {
			continue
		}
		n++
		// A test is mapped when its name appears, or when its class's row
		// maps the whole class ("**TestClass** (N): all").
		if !strings.Contains(text, f[2]) && !classMappedWhole(text, f[1]) {
			t.Errorf("%s %s %s: in no mapping table", f[0], f[1], f[2])
		}
	}
	if n != 472 {
		t.Errorf("upstream-tests.txt lists %d tests; upstream has 472 in these files", n)
	}
}

// classMappedWhole reports whether the tables map class as a whole: a
// heading "## `FILE::class` (N)", or a row whose first cell names the
// class in bold and no single test ("| **class** (N) …").
func classMappedWhole(text, class string) bool {
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(line, "## ") && strings.Contains(line, "::"+class+"` (") {
			return true
		}
		cells := strings.Split(line, "|")
		if len(cells) > 2 && strings.Contains(cells[1], "**"+class+"** (") && !strings.Contains(cells[1], "test_") {
			return true
		}
	}
	return false
}
