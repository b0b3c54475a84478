package pytext

import (
	"strings"
	"testing"
)

func TestTruncate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{"Empty", "", 5, ""},
		{"ZeroN", "abc", 0, ""},
		{"Shorter", "abc", 5, "abc"},
		{"Exact", "abc", 3, "abc"},
		{"ASCII", "abcdef", 4, "abcd"},
		{"CJKNotSplit", "通信テスト", 2, "通信"},
		{"CJKFitsByRunes", "通信", 2, "通信"},
		{"Emoji", "🚀🎉x", 1, "🚀"},
		{"CombiningCountsSeparately", "e\u0301x", 1, "e"},
		{"Negative", "abcdef", -2, "abcd"},
		{"NegativeCJK", "通信テスト", -3, "通信"},
		{"NegativeBeyondLength", "ab", -5, ""},
		{"InvalidByteIsOneCodePoint", "\xffab", 2, "\xffa"},
		{"Preview60", strings.Repeat("語", 70), 60, strings.Repeat("語", 60)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Truncate(tt.in, tt.n); got != tt.want {
				t.Errorf("Truncate(%q, %d) = %q; want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}

func TestRuneCount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"abc", 3},
		{"通信", 2},
		{"🚀", 1},
		{"e\u0301", 2},
		{"👩\u200d💻", 3},
		{"\xff\xfe", 2},
	}
	for _, tt := range tests {
		if got := RuneCount(tt.in); got != tt.want {
			t.Errorf("RuneCount(%q) = %d; want %d", tt.in, got, tt.want)
		}
	}
}
