package fts

import "testing"

// TestCJKDetectionCoversAllRanges is reference-tests A.4's
// test_cjk_detection_covers_all_ranges, plus the edges of every range.
func TestCJKDetectionCoversAllRanges(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"记忆断裂", true}, {"こんにちは", true}, {"カタカナ", true}, {"안녕하세요", true}, {"기억", true},
		{"日本語mixedwithenglish", true}, {"hello world", false}, {"", false},
		{"ｶﾀｶﾅ", false}, {"\u1100", false}, {"\uF900", false}, {"\U0002A700", false}, {"。", true},
	} {
		if got := ContainsCJK(c.in); got != c.want {
			t.Errorf("ContainsCJK(%q) = %v, want %v", c.in, got, c.want)
		}
	}
	ranges := [][2]rune{
		{0x4E00, 0x9FFF}, {0x3400, 0x4DBF}, {0x20000, 0x2A6DF}, {0x3000, 0x303F},
		{0x3040, 0x309F}, {0x30A0, 0x30FF}, {0xAC00, 0xD7AF},
	}
	for _, r := range ranges {
		for _, c := range []struct {
			r    rune
			want bool
		}{{r[0], true}, {r[1], true}, {r[0] - 1, inRanges(ranges, r[0]-1)}, {r[1] + 1, inRanges(ranges, r[1]+1)}} {
			if got := IsCJK(c.r); got != c.want {
				t.Errorf("IsCJK(%U) = %v, want %v", c.r, got, c.want)
			}
		}
	}
}

func inRanges(ranges [][2]rune, r rune) bool {
	for _, x := range ranges {
		if r >= x[0] && r <= x[1] {
			return true
		}
	}
	return false
}

func TestCountCJK(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{
		"Agent通信": 2, `"Agent通信"`: 2, "记忆断裂": 4, "hello": 0, "": 0, "你好。": 3, "ｶﾀｶﾅ": 0, "a\u3000b": 1,
	} {
		if got := CountCJK(in); got != want {
			t.Errorf("CountCJK(%q) = %d, want %d", in, got, want)
		}
	}
}
