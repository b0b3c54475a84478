package fts

// IsCJK reports whether r is one of the code points the original treats as
// CJK (reference spec §9.2): CJK Unified Ideographs U+4E00–U+9FFF,
// Extension A U+3400–U+4DBF, Extension B U+20000–U+2A6DF, CJK Symbols and
// Punctuation U+3000–U+303F (。 and the ideographic space among them),
// Hiragana U+3040–U+309F, Katakana U+30A0–U+30FF and Hangul Syllables
// U+AC00–U+D7AF. Half-width katakana, Hangul Jamo, compatibility
// ideographs and Extensions C and later are not.
func IsCJK(r rune) bool {
	switch {
	case r >= 0x4E00 && r <= 0x9FFF,
		r >= 0x3400 && r <= 0x4DBF,
		r >= 0x20000 && r <= 0x2A6DF,
		r >= 0x3000 && r <= 0x303F,
		r >= 0x3040 && r <= 0x309F,
		r >= 0x30A0 && r <= 0x30FF,
		r >= 0xAC00 && r <= 0xD7AF:
		return true
	}
	return false
}

// ContainsCJK reports whether s has at least one [IsCJK] code point.
func ContainsCJK(s string) bool {
	for _, r := range s {
		if IsCJK(r) {
			return true
		}
	}
	return false
}

// CountCJK returns how many code points of s are [IsCJK] ("Agent通信" has
// 2).
func CountCJK(s string) int {
	n := 0
	for _, r := range s {
		if IsCJK(r) {
			n++
		}
	}
	return n
}
