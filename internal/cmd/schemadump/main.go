// Command schemadump writes schema/schema.sql: the schema an empty database
// has after every migration, dumped from SQLite. Run it through
// `make generate`; it needs -tags sqlite_fts5.
//
//	go run -tags sqlite_fts5 ./internal/cmd/schemadump -o schema/schema.sql
//
// It builds its database in memory and writes only the dump: it never opens
// a state database.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/hermesstate/hermesstate/migrations"
)

func main() {
	out := flag.String("o", "", "write to this file instead of standard output")
	flag.Parse()
	if err := run(context.Background(), *out); err != nil {
		fmt.Fprintln(os.Stderr, "schemadump:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out string) error {
	sql, err := migrations.GenerateSchema(ctx)
	if err != nil {
		return err
	}
	if out == "" {
		_, err = os.Stdout.WriteString(sql)
		return err
	}
	return os.WriteFile(out, []byte(sql), 0o644)
}
