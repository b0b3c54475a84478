package corpus

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/hermesstate/hermesstate/store"
)

// TestWriteIsDeterministic: the same Config writes the same bytes, and
// another seed other bytes of the same size in messages.
func TestWriteIsDeterministic(t *testing.T) {
	var a, b, c bytes.Buffer
	sa, err := Write(&a, Config{Messages: 3000, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(&b, Config{Messages: 3000, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	sc, err := Write(&c, Config{Messages: 3000, Seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two writes of seed 5 differ")
	}
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Fatal("seeds 5 and 6 wrote the same corpus")
	}
	if sa.Messages != 3000 || sc.Messages != 3000 || sa.RareMatches != RareCount || sc.RareMatches != RareCount {
		t.Fatalf("messages %d and %d, rare %d and %d; want 3000 and %d", sa.Messages, sc.Messages, sa.RareMatches, sc.RareMatches, RareCount)
	}
}

// TestBuild builds a small corpus through the store and checks that the
// file holds what the Stats say, and that a second build of the same
// Config exports the same bytes.
func TestBuild(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cfg := Config{Messages: 2000, Seed: 1}
	st, err := Build(ctx, filepath.Join(dir, "a.db"), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Build(ctx, filepath.Join(dir, "a.db"), cfg, nil); err == nil {
		t.Fatal("Build overwrote an existing file")
	}
	if _, err := Build(ctx, filepath.Join(dir, "b.db"), cfg, nil); err != nil {
		t.Fatal(err)
	}
	var exports [2]bytes.Buffer
	for i, name := range []string{"a.db", "b.db"} {
		s, err := store.Open(ctx, filepath.Join(dir, name), &store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		got, ok, err := ReadStats(ctx, s)
		if err != nil || !ok || got != st {
			t.Fatalf("%s: ReadStats = %+v, %v, %v; want %+v", name, got, ok, err, st)
		}
		n, err := s.MessageCount(ctx, "")
		if err != nil || n != 2000 {
			t.Fatalf("%s: %d messages, %v; want 2000", name, n, err)
		}
		sessions, err := s.SessionCount(ctx, "")
		if err != nil || sessions != int64(st.Sessions) {
			t.Fatalf("%s: %d sessions, %v; want %d", name, sessions, err, st.Sessions)
		}
		longest, err := s.MessageCount(ctx, st.Longest)
		if err != nil || longest != int64(st.LongestMessages) || st.LongestMessages != 200 {
			t.Fatalf("%s: longest session %s has %d messages, %v; want %d = 200", name, st.Longest, longest, err, st.LongestMessages)
		}
		rare, err := s.SearchMessages(ctx, RareQuery, store.SearchOptions{Limit: 50})
		if err != nil || len(rare) != RareCount {
			t.Fatalf("%s: search %q found %d, %v; want %d", name, RareQuery, len(rare), err, RareCount)
		}
		if _, err := s.ExportJSONL(ctx, &exports[i], store.ExportOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if exports[0].Len() == 0 || !bytes.Equal(exports[0].Bytes(), exports[1].Bytes()) {
		t.Fatalf("two builds of one Config export differently (%d and %d bytes)", exports[0].Len(), exports[1].Len())
	}
}

func TestSizes(t *testing.T) {
	for in, want := range map[string]int{"100k": 100_000, "1m": 1_000_000, "2000": 2000, " 2K ": 2000} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1", "k", "-5m", "1g"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) did not fail", in)
		}
	}
	if got := FileName(100_000, 3); got != "corpus-100k-s3.db" {
		t.Errorf("FileName = %q", got)
	}
	if got := SizeLabel(2500); got != "2500" {
		t.Errorf("SizeLabel(2500) = %q", got)
	}
}
