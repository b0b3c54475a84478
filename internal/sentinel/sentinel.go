// Package sentinel makes the sentinel errors that refine another one: a
// sentinel with a text of its own that errors.Is also finds its parent in,
// e.g. "no such session", which matches the store's "not found" without
// saying "not found: no such session". A sentinel's text never names its
// package; the exported function that returns it does (see package store's
// Errors section).
package sentinel

// New returns an error with text as its whole message that matches parent
// too (and every sentinel parent matches): errors.Is(New(t, p), p) is true.
func New(text string, parent error) error { return &refined{text, parent} }

// refined is a sentinel that unwraps to the one it refines.
type refined struct {
	text   string
	parent error
}

func (e *refined) Error() string { return e.text }

// Unwrap returns the parent sentinel, which errors.Is and errors.As follow.
func (e *refined) Unwrap() error { return e.parent }
