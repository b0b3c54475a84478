package migrations

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/pressly/goose/v3"
)

// goMigration is a version whose step moves rows, which a goose SQL file
// cannot say the way upstream does (or, for v16 and v20, whose statement
// text must be the one Up sends, single-sourced in v21/): upstream's three
// data migrations, v16, v18 and v20. Each is a goose Go migration
// (goose.NewGoMigration, named after the file that defines it), so goose
// plans, lists and records it like the SQL files.
//
// How it runs inside the migration session: goose hands a Go migration the
// *sql.DB pool, not the session's connection, and under WithIsolateDDL it
// calls neither RunTx nor anything else on it; it only records the version
// through the store (versionStore.Insert, Delete). The writer pool has one
// connection, held by the session, so the step cannot run on what goose
// hands it. The version store runs it instead, on the session connection,
// right before it records the version (versionStore.runGo): the step is in
// the session's transaction and savepoint like a SQL migration, applied
// whole or not at all. The RunTx functions registered with goose only fail,
// so that a goose that one day calls them cannot run a step twice or on
// another connection unnoticed.
type goMigration struct {
	version int64
	name    string // the Go file that defines it, e.g. "00016_delegate_sessions.go"
	// schema returns the statements that change the schema, from the
	// declared v21 schema (nil for v16, which only moves rows). adopt runs
	// its own idempotent form of them instead (adopt.go).
	schema func(d *declaredSchema) []string
	// data is the data step, run after schema by up and by adopt.
	data func(ctx context.Context, conn dbConn, env stepEnv) error
	// down rolls the version back: its schema, and what can be told apart
	// of its data.
	down func(ctx context.Context, conn dbConn) error
}

// stepEnv is what a data step may read besides the database.
type stepEnv struct {
	hermesHome string
	log        *slog.Logger
}

// goMigrations are the Go migrations, by version.
var goMigrations = []*goMigration{delegateSessions, gatewayMetadata, sessionModelUsage}

// goMigrationAt returns the Go migration of version v, or nil.
func goMigrationAt(v int64) *goMigration {
	i := slices.IndexFunc(goMigrations, func(g *goMigration) bool { return g.version == v })
	if i < 0 {
		return nil
	}
	return goMigrations[i]
}

// up runs the migration's schema statements, then its data step.
func (g *goMigration) up(ctx context.Context, conn dbConn, env stepEnv) error {
	if g.schema != nil {
		d, err := loadDeclared()
		if err != nil {
			return err
		}
		if err := execAll(ctx, conn, g.schema(d)...); err != nil {
			return err
		}
	}
	return g.data(ctx, conn, env)
}

// errOutsideSession is what the functions registered with goose return: a Go
// migration runs only inside the migration session (see goMigration).
var errOutsideSession = errors.New("a Go migration runs only inside the migration session")

// gooseMigrations returns the Go migrations as goose registers them.
func gooseMigrations() []*goose.Migration {
	out := make([]*goose.Migration, 0, len(goMigrations))
	for _, g := range goMigrations {
		refuse := &goose.GoFunc{RunTx: func(context.Context, *sql.Tx) error {
			return fmt.Errorf("migrations: %s: %w", g.name, errOutsideSession)
		}}
		m := goose.NewGoMigration(g.version, refuse, refuse)
		m.Source = g.name
		out = append(out, m)
	}
	return out
}

// execAll runs stmts in order on conn.
func execAll(ctx context.Context, conn dbConn, stmts ...string) error {
	for _, stmt := range stmts {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return nil
}
