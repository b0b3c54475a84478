package store_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/hermesstate/hermesstate/store"
)

// Open creates the database (or upgrades one an older Hermes wrote) and
// leaves it at the latest schema version.
func ExampleOpen() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "hermes")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	s, err := store.Open(ctx, filepath.Join(dir, "state.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	v, err := s.SchemaVersion(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("schema version", v)
	// Output: schema version 11
}
