package backend

import "testing"

// TestContentEncoding: every content reads back as written, structured
// content's U+0000 is stored as U+0001, and one leading U+0001 is doubled.
func TestContentEncoding(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, stored string }{
		{"", ""},
		{"plain text", "plain text"},
		{"\x00json:[{\"type\": \"text\"}]", "\x01json:[{\"type\": \"text\"}]"},
		{"\x01starts with U+0001", "\x01\x01starts with U+0001"},
		{"\x01\x01two", "\x01\x01\x01two"},
		{"\x00", "\x01"},
		{"mid\x01dle", "mid\x01dle"},
	} {
		got := encodeContent(&c.in)
		if *got != c.stored {
			t.Errorf("encodeContent(%q) = %q, want %q", c.in, *got, c.stored)
		}
		if back := decodeContent(got); *back != c.in {
			t.Errorf("decodeContent(%q) = %q, want %q", *got, *back, c.in)
		}
		if back := string(decodeContentBytes([]byte(*got))); back != c.in {
			t.Errorf("decodeContentBytes(%q) = %q, want %q", *got, back, c.in)
		}
	}
	if encodeContent(nil) != nil || decodeContent(nil) != nil || decodeContentBytes(nil) != nil {
		t.Error("NULL content does not stay NULL")
	}
}
