package store

import "github.com/hermesstate/hermesstate/internal/dbpath"

// DefaultPath returns where the original keeps the state database:
// $HERMES_HOME/state.db when HERMES_HOME is set and not blank (surrounding
// whitespace trimmed), else ~/.hermes/state.db. The environment is read on
// every call (the original reads it once, at import). It fails only when
// HERMES_HOME is unset and the home directory is unknown. [Open] with an
// empty path opens it, creating its directories (0700) when missing.
func DefaultPath() (_ string, err error) {
	defer wrap(&err, "default path")
	return dbpath.Default()
}
