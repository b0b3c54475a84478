package dbpath

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestDefault: $HERMES_HOME/state.db (trimmed), else ~/.hermes/state.db,
// read at every call.
func TestDefault(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HOME", filepath.Join(root, "h"))
	for _, c := range []struct{ env, want string }{
		{"  " + filepath.Join(root, "home") + "\t", filepath.Join(root, "home", "state.db")},
		{" \t ", filepath.Join(root, "h", ".hermes", "state.db")},
		{"", filepath.Join(root, "h", ".hermes", "state.db")},
	} {
		t.Setenv("HERMES_HOME", c.env)
		if got, err := Default(); err != nil || got != c.want {
			t.Errorf("HERMES_HOME=%q: Default() = %q, %v; want %q", c.env, got, err, c.want)
		}
	}
}

func TestIsPostgresURL(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"postgres://host/db": true, "postgresql://u:p@h:5432/d?sslmode=disable": true, "postgres:": false,
		"mysql://host/db": false, "file:///tmp/x.db": false, "state.db": false, "POSTGRES://h/d": false, "": false,
	} {
		if got := IsPostgresURL(s); got != want {
			t.Errorf("IsPostgresURL(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestIsURL(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"postgres://host/db": true, "postgresql://u:p@h:5432/d?sslmode=disable": true, "file:///tmp/x.db": true,
		"sqlite+file://x": true, "state.db": false, "/home/me/.hermes/state.db": false, "./a:b/state.db": false,
		"C:\\hermes\\state.db": false, "postgres:": false, "1http://x": false, "": false,
	} {
		if got := IsURL(s); got != want {
			t.Errorf("IsURL(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestCheckExplicit: a URL and a path in a missing directory are refused
// with their sentinels and messages; nothing is created.
func TestCheckExplicit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := CheckExplicit(filepath.Join(root, "state.db")); err != nil {
		t.Errorf("existing directory: %v", err)
	}
	missing := filepath.Join(root, "a", "b")
	if err := CheckExplicit(filepath.Join(missing, "state.db")); !errors.Is(err, ErrNoDirectory) || err.Error() != "no such directory: "+missing {
		t.Errorf("missing directory: %v", err)
	}
	file := filepath.Join(root, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckExplicit(filepath.Join(file, "state.db")); !errors.Is(err, ErrNoDirectory) || err.Error() != "no such directory: "+file+" (not a directory)" {
		t.Errorf("a file as the directory: %v", err)
	}
	if err := CheckExplicit("postgres://host/db"); !errors.Is(err, ErrURL) || err.Error() != "postgres://host/db "+ErrURL.Error() {
		t.Errorf("URL: %v", err)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 1 {
		t.Errorf("created: %v", ents)
	}
}

// TestMakeDefaultDir creates every missing directory private.
func TestMakeDefaultDir(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX permission bits")
	}
	root := t.TempDir()
	if err := MakeDefaultDir(filepath.Join(root, "a", "b", "state.db")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(root, "a"), filepath.Join(root, "a", "b")} {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want 0700", d, fi.Mode(), err)
		}
	}
}
