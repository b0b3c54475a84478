package store

// Tests of the import, export, backup, health and statistics calls after
// Close.

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewCallsAfterClose checks that each call returns ErrClosed once the
// store is closed, and that Backup then leaves no file.
func TestNewCallsAfterClose(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, quick(nil))
	mustCreate(t, s, NewSession{ID: "a", Source: "cli"})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	backup := filepath.Join(t.TempDir(), "backup.db")
	for name, call := range map[string]func(ctx context.Context) error{
		"ImportJSONL": func(ctx context.Context) error {
			_, err := s.ImportJSONL(ctx, strings.NewReader(`{"id": "b", "source": "cli", "started_at": 1}`), ImportOptions{})
			return err
		},
		"ExportJSONL": func(ctx context.Context) error {
			_, err := s.ExportJSONL(ctx, io.Discard, ExportOptions{})
			return err
		},
		"ExportJSONL with IDs": func(ctx context.Context) error {
			_, err := s.ExportJSONL(ctx, io.Discard, ExportOptions{IDs: []string{"a"}})
			return err
		},
		"ExportCount": func(ctx context.Context) error {
			_, err := s.ExportCount(ctx, ExportOptions{})
			return err
		},
		"ExportCount with IDs": func(ctx context.Context) error {
			_, err := s.ExportCount(ctx, ExportOptions{IDs: []string{"a"}})
			return err
		},
		"Backup": func(ctx context.Context) error { return s.Backup(ctx, backup, BackupOptions{}) },
		"Check": func(ctx context.Context) error {
			_, err := s.Check(ctx)
			return err
		},
		"RebuildSearchIndex": func(ctx context.Context) error { return s.RebuildSearchIndex(ctx) },
		"TokenStatsByModel": func(ctx context.Context) error {
			_, err := s.TokenStatsByModel(ctx)
			return err
		},
		"TokenStatsBySource": func(ctx context.Context) error {
			_, err := s.TokenStatsBySource(ctx)
			return err
		},
		"TopSessionsByTokens of none": func(ctx context.Context) error {
			_, err := s.TopSessionsByTokens(ctx, 0)
			return err
		},
		"TopSessionsByTokens": func(ctx context.Context) error {
			_, err := s.TopSessionsByTokens(ctx, 3)
			return err
		},
		"PruneSessions dry run": func(ctx context.Context) error {
			_, err := s.PruneSessions(ctx, PruneOptions{DryRun: true})
			return err
		},
	} {
		if err := call(t.Context()); !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: error = %v, want ErrClosed", name, err)
		}
	}
	if entries, err := os.ReadDir(filepath.Dir(backup)); err != nil || len(entries) != 0 {
		t.Errorf("Backup after Close left %d files (%v), want none", len(entries), err)
	}
}
