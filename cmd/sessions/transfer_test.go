package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
	"github.com/hermesstate/hermesstate/store"
)

// exportOrder is the fixture's sessions in export_all's order: most
// recently active first.
var exportOrder = []string{idCJK, idRefactor2, idRefactor, idSubA1, idSubB, idSubA, idDeploy}

// lastActive is each fixture session's newest message, else its start.
var lastActive = map[string]float64{
	idCJK: ts(11, 0, 5), idRefactor2: ts(10, 31, 0), idRefactor: ts(10, 0, 10), idSubA1: ts(9, 4, 0),
	idSubB: ts(9, 3, 0), idSubA: ts(9, 2, 5), idDeploy: ts(9, 0, 30),
}

// exportLine is the export object of a fixture session: its columns,
// last_active and its messages.
func exportLine(id string) obj {
	return with(wantSessions[id], obj{"last_active": lastActive[id], "messages": wantMessages[id]})
}

// decodeLines decodes JSON Lines, one object a line.
func decodeLines(t *testing.T, out string) []obj {
	t.Helper()
	got := []obj{}
	for i, l := range lines(out) {
		var o obj
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Fatalf("line %d is not a JSON object: %v\n%s", i+1, err, l)
		}
		got = append(got, o)
	}
	return got
}

// TestExport writes the fixture as JSON Lines: everything, by source, by
// the sessions named, and to a file.
func TestExport(t *testing.T) {
	t.Parallel()
	all := make([]obj, len(exportOrder))
	for i, id := range exportOrder {
		all[i] = exportLine(id)
	}
	tests := []struct {
		name string
		args []string
		want []obj
	}{
		{"All", nil, all},
		{"Source", []string{"--source", "telegram"}, []obj{exportLine(idRefactor2), exportLine(idRefactor)}},
		// Named sessions come in the order given, each once; a title and
		// a prefix resolve as show resolves them.
		{"Named", []string{idDeploy, "Refactor plan", "20250301_0902", idDeploy}, []obj{
			exportLine(idDeploy), exportLine(idRefactor2), exportLine(idSubA)}},
		{"NamedOfSource", []string{"--source", "cli", idSubB}, []obj{exportLine(idSubB)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := sessions(t, append([]string{"-db", fixturePath, "export"}, tt.args...)...)
			if diff := cmp.Diff(tt.want, decodeLines(t, out)); diff != "" {
				t.Errorf("sessions export %v (-want +got):\n%s", tt.args, diff)
			}
			if strings.Contains(out, `\u003c`) || strings.Contains(out, `\u0026`) {
				t.Errorf("sessions export %v: HTML characters escaped:\n%s", tt.args, out)
			}
		})
	}

	t.Run("ToFile", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "export.jsonl")
		if got, want := sessions(t, "-db", fixturePath, "export", "-o", path), "exported 7 sessions to "+path+"\n"; got != want {
			t.Errorf("sessions export -o: stdout = %q, want %q", got, want)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(sessions(t, "-db", fixturePath, "export"), string(b)); diff != "" {
			t.Errorf("export -o FILE differs from export to standard output (-stdout +file):\n%s", diff)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("export file mode = %v (%v), want 0600", fi.Mode().Perm(), err)
		}
		// An existing file is replaced only with --force.
		got := sessionsJSON[obj](t, "-db", fixturePath, "export", "--source", "discord", "-o", path, "--force")
		if diff := cmp.Diff(obj{"exported": 1.0, "path": path}, got); diff != "" {
			t.Errorf("sessions --json export -o --force (-want +got):\n%s", diff)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != sessions(t, "-db", fixturePath, "export", "--source", "discord") {
			t.Errorf("the replaced file holds %q (%v), want the discord export", b, err)
		}
	})
	t.Run("UnknownSession", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "export.jsonl")
		failure(t, 1, []string{`sessions: no session has the id, id prefix or title "nope"`},
			"-db", fixturePath, "export", "-o", path, idDeploy, "nope")
		if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 0 {
			t.Errorf("a failed export left files behind: %v", entries)
		}
	})
}

// TestImportRoundTrip exports the fixture, imports it into a new file and
// exports that: the two exports are the same bytes. Importing again skips
// everything; the original's export_all JSON array imports the same.
func TestImportRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exported := sessions(t, "-db", fixturePath, "export")
	file := filepath.Join(dir, "export.jsonl")
	if err := os.WriteFile(file, []byte(exported), 0o600); err != nil {
		t.Fatal(err)
	}
	// A new file in an existing directory (an explicit -db's directory must
	// exist; only the default location's are created).
	fresh := filepath.Join(dir, "state.db")

	if got, want := sessions(t, "-db", fresh, "import", file), "created 7 sessions (10 messages), skipped 0 already present, retitled 0, unparented 0\n"; got != want {
		t.Errorf("first import: %q, want %q", got, want)
	}
	if diff := cmp.Diff(exported, sessions(t, "-db", fresh, "export")); diff != "" {
		t.Errorf("export of the imported file (-original +reimported):\n%s", diff)
	}
	if got, want := sessions(t, "-db", fresh, "import", file), "created 0 sessions (0 messages), skipped 7 already present, retitled 0, unparented 0\n"; got != want {
		t.Errorf("second import: %q, want %q", got, want)
	}
	// "-" reads standard input.
	r := runSessionsInput(t, nil, exported, "-db", fresh, "--json", "import", "-")
	want := result{stdout: `{"created":0,"skipped":7,"retitled":0,"unparented":0,"messages":0}` + "\n"}
	if diff := cmp.Diff(want, r, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("sessions --json import - (-want +got):\n%s", diff)
	}

	t.Run("OriginalsJSONArray", func(t *testing.T) {
		// The original's export_all written with json.dump: one array,
		// ", " and ": " separators, non-ASCII escaped as \uXXXX.
		var rows []json.RawMessage
		for _, l := range lines(exported) {
			rows = append(rows, json.RawMessage(l))
		}
		var dumped json.RawMessage
		dbtest.Python(t, "import json, sys; sys.stdout.write(json.dumps(json.load(sys.stdin)))", rows, &dumped)
		if !bytes.Contains(dumped, []byte(`\u4eca`)) || !bytes.HasPrefix(dumped, []byte(`[{"id": `)) {
			t.Fatalf("python3 did not write json.dump's format: %.80s", dumped)
		}
		arrayFile := filepath.Join(t.TempDir(), "export_all.json")
		if err := os.WriteFile(arrayFile, dumped, 0o600); err != nil {
			t.Fatal(err)
		}
		db := filepath.Join(t.TempDir(), "state.db")
		if got, want := sessions(t, "-db", db, "import", arrayFile), "created 7 sessions (10 messages), skipped 0 already present, retitled 0, unparented 0\n"; got != want {
			t.Errorf("import of the JSON array: %q, want %q", got, want)
		}
		if diff := cmp.Diff(exported, sessions(t, "-db", db, "export")); diff != "" {
			t.Errorf("export after importing the JSON array (-original +reimported):\n%s", diff)
		}
	})
}

// TestImportIntoUsedFile imports the fixture into a file that already has
// one of its ids and another session holding one of its titles.
func TestImportIntoUsedFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "export.jsonl")
	if err := os.WriteFile(file, []byte(sessions(t, "-db", fixturePath, "export")), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "state.db")
	ctx := context.Background()
	s := openTestStore(t, db, nil)
	for _, n := range []store.NewSession{{ID: "mine", Source: "cli"}, {ID: idCJK, Source: "slack"}} {
		if _, err := s.CreateSession(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetSessionTitle(ctx, "mine", "Deploy notes"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	// idCJK is skipped (the file's own session stays), and the imported
	// "Deploy notes" becomes "Deploy notes #2".
	if got, want := sessions(t, "-db", db, "import", file), "created 6 sessions (9 messages), skipped 1 already present, retitled 1, unparented 0\n"; got != want {
		t.Errorf("import: %q, want %q", got, want)
	}
	got := map[string]obj{}
	for _, id := range []string{"mine", idDeploy, idCJK} {
		o := sessionsJSON[obj](t, "-db", db, "show", "--raw", id)
		got[id] = obj{"title": o["title"], "source": o["source"], "messages": len(o["messages"].([]any))}
	}
	want := map[string]obj{
		"mine":   {"title": "Deploy notes", "source": "cli", "messages": 0},
		idDeploy: {"title": "Deploy notes #2", "source": "cli", "messages": 4},
		idCJK:    {"title": nil, "source": "slack", "messages": 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sessions after the import (-want +got):\n%s", diff)
	}
}

// TestImportMalformedLine imports a file whose fourth line is not JSON: the
// batch holding it is not written, the batches before it are, and the
// error names the line.
func TestImportMalformedLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := lines(sessions(t, "-db", fixturePath, "export"))
	file := filepath.Join(dir, "broken.jsonl")
	content := text(append(append(append([]string{}, good[:3]...), `{"id": broken`), good[3:]...)...)
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	const problem = "line 4: not a session object: invalid character 'b' looking for beginning of value"

	t.Run("SecondBatch", func(t *testing.T) {
		t.Parallel()
		db := filepath.Join(t.TempDir(), "state.db")
		// Batches of two: lines 1-2 are written, lines 3-4 are not.
		// refactor2 (line 2) is left a root: its parent comes after the
		// bad line.
		r := runSessions(t, nil, "-db", db, "import", "--batch", "2", file)
		want := result{code: 1,
			stdout: "created 2 sessions (3 messages), skipped 0 already present, retitled 0, unparented 1\n",
			stderr: "sessions: import " + file + ": " + problem + "\n"}
		if diff := cmp.Diff(want, r, cmp.AllowUnexported(result{})); diff != "" {
			t.Errorf("sessions import --batch 2 (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(text(idCJK, idRefactor2), listIDs(t, db)); diff != "" {
			t.Errorf("sessions in the file (-want +got):\n%s", diff)
		}
	})
	t.Run("OneBatch", func(t *testing.T) {
		t.Parallel()
		db := filepath.Join(t.TempDir(), "state.db")
		r := runSessions(t, nil, "-db", db, "--json", "import", file)
		want := result{code: 1,
			stdout: `{"created":0,"skipped":0,"retitled":0,"unparented":0,"messages":0}` + "\n",
			stderr: "sessions: import " + file + ": " + problem + "\n"}
		if diff := cmp.Diff(want, r, cmp.AllowUnexported(result{})); diff != "" {
			t.Errorf("sessions --json import (-want +got):\n%s", diff)
		}
		if got := listIDs(t, db); got != "" {
			t.Errorf("sessions in the file: %q, want none", got)
		}
	})
	t.Run("MissingFile", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		db := filepath.Join(dir, "state.db")
		missing := filepath.Join(dir, "none.jsonl")
		failure(t, 1, []string{"sessions: open " + missing + ": no such file or directory"}, "-db", db, "import", missing)
		if _, err := os.Stat(db); !os.IsNotExist(err) {
			t.Errorf("import of a missing file created the database (%v)", err)
		}
	})
}

// listIDs lists every session id in the file at path, newest first, one a
// line.
func listIDs(t *testing.T, path string) string {
	t.Helper()
	var b strings.Builder
	for _, row := range sessionsJSON[[]obj](t, "-db", path, "list", "--all", "--limit", "100") {
		b.WriteString(row["id"].(string) + "\n")
	}
	return b.String()
}

// TestTheDatabaseIsNeverImportOrExportFile names the database itself (or
// its -wal) as import's input or export's -o: both are refused before
// anything opens or replaces it, and the file keeps its bytes.
func TestTheDatabaseIsNeverImportOrExportFile(t *testing.T) {
	t.Parallel()
	db := fixtureCopy(t)
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	// Another spelling of the same file: a hard link.
	alias := filepath.Join(t.TempDir(), "alias.db")
	if err := os.Link(db, alias); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"import", db},
		{"import", alias},
		{"export", "-o", db},
		{"export", "-o", alias},
	} {
		failure(t, 1, []string{"sessions: " + args[len(args)-1] + " is the database itself (" + db + ")"}, append([]string{"-db", db}, args...)...)
	}
	after, err := os.ReadFile(db)
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("the database changed (%v)", err)
	}
}
