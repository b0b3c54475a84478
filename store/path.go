package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// DefaultPath returns where the original keeps the state database:
// $HERMES_HOME/state.db when HERMES_HOME is set and not blank (surrounding
// whitespace trimmed), else ~/.hermes/state.db. The environment is read on
// every call (the original reads it once, at import). It fails only when
// HERMES_HOME is unset and the home directory is unknown.
func DefaultPath() (string, error) {
	if home := strings.TrimSpace(os.Getenv("HERMES_HOME")); home != "" {
		return filepath.Join(home, "state.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.Join(errors.New("store: HERMES_HOME is not set and the home directory is unknown"), err)
	}
	return filepath.Join(home, ".hermes", "state.db"), nil
}
