package cli

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// BuildInfo is what a binary says about itself for --version.
type BuildInfo struct {
	// Module is the main module's path, e.g. github.com/hermesstate/hermesstate.
	Module string
	// Version is the module version the binary was built at: a release tag
	// (go install …@v0.2.0), a pseudo-version the go command derived from
	// the checkout, or "(devel)" when it recorded none.
	Version string
	// Commit and Modified are the VCS revision of a binary built in a
	// checkout, and whether that checkout had uncommitted changes; Commit
	// is "" when the go command recorded no VCS information (go run, or a
	// build outside a checkout).
	Commit   string
	Modified bool
	// GoVersion is the toolchain that built the binary.
	GoVersion string
}

// ReadBuildInfo returns the binary's build information as the go command
// recorded it; fields it did not record are empty ("(devel)" for Version).
func ReadBuildInfo() BuildInfo {
	b := BuildInfo{Version: "(devel)"}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.Module, b.GoVersion = info.Main.Path, info.GoVersion
	if info.Main.Version != "" {
		b.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// PrintVersion writes command's --version text to w: the module version
// and commit from the build information, the linked SQLite's version and
// whether it has FTS5 and the trigram tokenizer, and schemaVersion, the
// schema version the binary creates and migrates to. For example:
//
//	migrate v0.2.0
//	module  github.com/hermesstate/hermesstate v0.2.0
//	commit  ace54c8f1234… (modified)
//	go      go1.26.8
//	sqlite  3.54.1, FTS5 yes, trigram yes
//	schema  version 21
//
// It fails only when the SQLite library cannot be asked (no database is
// opened: it asks an in-memory one).
func PrintVersion(ctx context.Context, w io.Writer, command string, schemaVersion int64) error {
	lib, err := linkedLibrary(ctx)
	if err != nil {
		return err
	}
	b := ReadBuildInfo()
	commit := b.Commit
	switch {
	case commit == "":
		commit = "unknown (no VCS information recorded)"
	case b.Modified:
		commit += " (modified)"
	}
	_, err = fmt.Fprintf(w, "%s %s\nmodule  %s %s\ncommit  %s\ngo      %s\nsqlite  %s, FTS5 %s, trigram %s\nschema  version %d\n",
		command, b.Version, b.Module, b.Version, commit, b.GoVersion,
		lib.Version, yesNo(lib.FTS5), yesNo(lib.Trigram), schemaVersion)
	return err
}

// linkedLibrary describes the SQLite library linked into the binary, read
// from an in-memory database so that no file is touched.
func linkedLibrary(ctx context.Context) (sqlite.Library, error) {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		return sqlite.Library{}, err
	}
	defer db.Close()
	return sqlite.ReadLibrary(ctx, db)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
