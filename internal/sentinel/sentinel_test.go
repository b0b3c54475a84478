package sentinel

import (
	"errors"
	"fmt"
	"testing"
)

// TestNew: a refined sentinel has its own text only, matches itself, its
// parent and its parent's parent, also wrapped, and not a stranger.
func TestNew(t *testing.T) {
	t.Parallel()
	root := errors.New("not found")
	child := New("no such session", root)
	grandchild := New("no such parent session", child)
	other := errors.New("not found")
	wrapped := fmt.Errorf("store: get session %q: %w", "x", grandchild)
	for _, tt := range []struct {
		err, target error
		want        bool
	}{
		{child, child, true},
		{child, root, true},
		{grandchild, root, true},
		{grandchild, child, true},
		{wrapped, root, true},
		{wrapped, grandchild, true},
		{child, grandchild, false},
		{root, child, false},
		{child, other, false},
	} {
		if got := errors.Is(tt.err, tt.target); got != tt.want {
			t.Errorf("errors.Is(%q, %q) = %v, want %v", tt.err, tt.target, got, tt.want)
		}
	}
	for err, want := range map[error]string{
		child:      "no such session",
		grandchild: "no such parent session",
		wrapped:    `store: get session "x": no such parent session`,
	} {
		if err.Error() != want {
			t.Errorf("message %q, want %q", err, want)
		}
	}
}
