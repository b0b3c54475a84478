package main

// export -o and backup publish their file by one rule (package publish):
// an existing path only with --force, and then only a regular file (never
// a link, named pipe, directory or device: not even root replaces
// /dev/null); the directory must exist; nothing half-written is ever left,
// and a temporary file's name never shows in an error.

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/internal/publish"
)

// publishers are the two commands that write a file, each as the
// arguments after -db that write to target, with or without --force.
var publishers = map[string]func(target string, force bool) []string{
	"export": func(target string, force bool) []string {
		if force {
			return []string{"export", "--source", "discord", "-o", target, "--force"}
		}
		return []string{"export", "--source", "discord", "-o", target}
	},
	"backup": func(target string, force bool) []string {
		if force {
			return []string{"backup", "--force", target}
		}
		return []string{"backup", target}
	},
}

// deviceState is what a device node is: its mode and device number.
func deviceState(t *testing.T, path string) [2]uint64 {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return [2]uint64{uint64(st.Mode), uint64(st.Rdev)}
}

func TestPublishRules(t *testing.T) {
	t.Parallel()
	for name, argv := range publishers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := fixtureCopy(t)
			dbHash := dbtest.FileHash(t, db)
			dir := t.TempDir()

			// An existing file: refused, then replaced with --force.
			target := filepath.Join(dir, "out")
			if err := os.WriteFile(target, []byte("precious"), 0o644); err != nil {
				t.Fatal(err)
			}
			before := dbtest.FileHash(t, target)
			failure(t, 1, []string{"sessions: " + target + " already exists; --force replaces it"}, append([]string{"-db", db}, argv(target, false)...)...)
			if dbtest.FileHash(t, target) != before {
				t.Error("a refused publish changed the existing file")
			}
			sessions(t, append([]string{"-db", db}, argv(target, true)...)...)
			if dbtest.FileHash(t, target) == before {
				t.Error("--force did not replace the file")
			}
			if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("the replaced file: %v, %v; want mode 0600", fi, err)
			}

			// Not regular files: refused even with --force, untouched.
			kept, kinds := dbtest.NotRegularFiles(t, dir)
			keptHash, null := dbtest.FileHash(t, kept), deviceState(t, "/dev/null")
			for path, kind := range kinds {
				failure(t, 1, []string{"sessions: " + path + " is " + kind + ", not a regular file"}, append([]string{"-db", db}, argv(path, true)...)...)
			}
			if dbtest.FileHash(t, kept) != keptHash {
				t.Error("the link's target changed")
			}
			if deviceState(t, "/dev/null") != null {
				t.Error("/dev/null changed")
			}
			if diff := cmp.Diff([]string{"fifo", "kept", "link", "out", "sub"}, dbtest.DirNames(t, dir)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if names := tempNames(t, "/dev"); len(names) != 0 {
				t.Errorf("temporary files in /dev: %q", names)
			}

			// A directory that does not exist: said, nothing created.
			missing := filepath.Join(dir, "no", "such")
			failure(t, 1, []string{"sessions: no such directory: " + missing}, append([]string{"-db", db}, argv(filepath.Join(missing, "out"), true)...)...)
			if _, err := os.Lstat(filepath.Join(dir, "no")); !os.IsNotExist(err) {
				t.Errorf("a missing directory was created (%v)", err)
			}

			// The database itself, even forced.
			for _, force := range []bool{false, true} {
				r := runSessions(t, nil, append([]string{"-db", db}, argv(db, force)...)...)
				if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "database") {
					t.Errorf("%s onto the database (force %v): %+v", name, force, r)
				}
			}
			if dbtest.FileHash(t, db) != dbHash {
				t.Error("the database changed")
			}
		})
	}
}

// tempNames lists the names in dir that start with publish.TempPrefix.
func tempNames(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, name := range dbtest.DirNames(t, dir) {
		if strings.HasPrefix(name, publish.TempPrefix) {
			out = append(out, name)
		}
	}
	return out
}

// TestPublishWriteFailure runs export -o and backup of the big fixture
// under a file size limit (RLIMIT_FSIZE, 64 KiB: room for the -shm of the
// read, not for the output): each fails, exit 1, leaves no file, and its
// one line of error says why without the temporary file's name.
func TestPublishWriteFailure(t *testing.T) {
	t.Parallel()
	db := bigCopy(t)
	for name, want := range map[string]string{
		"export": "sessions: store: export: write %s: file too large\n",
		"backup": "sessions: store: backup: disk I/O error: file too large\n",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			target := filepath.Join(dir, "out")
			args := []string{"-test.run=^$", "--", sessionsBin, "-db", db, name, target}
			if name == "export" {
				args = []string{"-test.run=^$", "--", sessionsBin, "-db", db, name, "-o", target}
			}
			r := runProgram(t, []string{helperEnv + "=fsize", fsizeEnv + "=65536"}, "", os.Args[0], args...)
			if want := strings.ReplaceAll(want, "%s", target); r.code != 1 || r.stdout != "" || r.stderr != want {
				t.Errorf("%s over the size limit: exit %d, stdout %q, stderr %q; want exit 1, %q", name, r.code, r.stdout, r.stderr, want)
			}
			if diff := cmp.Diff([]string{}, dbtest.DirNames(t, dir)); diff != "" {
				t.Errorf("files left (-want +got):\n%s", diff)
			}
		})
	}
}
