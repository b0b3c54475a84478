package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// badValueUpdates are values of another storage class in each numeric
// column of the deploy session and of its first message, as the original
// or another program may store them (a REAL where an integer belongs, the
// REAL of an overflowed sum, text, a BLOB, an infinite REAL).
var badValueUpdates = map[string]string{
	"message_count":      "1.5",
	"tool_call_count":    "'several'",
	"input_tokens":       "1234.5",
	"output_tokens":      "9223372036854775807 + 1",
	"cache_read_tokens":  "x'00ff'",
	"cache_write_tokens": "-1e20",
	"reasoning_tokens":   "'12 apples'",
	"api_call_count":     "2.5",
	"started_at":         "'early'",
	"ended_at":           "x'3132'",
	"estimated_cost_usd": "'free'",
	"actual_cost_usd":    "1e999",
	"timestamp":          "'yesterday'",
	"token_count":        "7.5",
}

// readingCommands are the commands that read a whole file, or a session
// of it, on every search route.
var readingCommands = [][]string{
	{"list"}, {"list", "--all"}, {"--json", "list", "--all"},
	{"show", idDeploy}, {"show", "--raw", idDeploy}, {"--json", "show", idDeploy}, {"--json", "show", "--raw", idDeploy},
	{"lineage", idSubA}, {"export"}, {"export", idDeploy, idRefactor2},
	{"stats"}, {"stats", "--by", "source"}, {"--json", "stats"},
	{"search", "docker"}, {"search", "通信"}, {"search", "实现细节"}, {"--json", "search", "docker"},
}

// update is the statement that stores a bad value in column.
func update(column, literal string) string {
	if column == "timestamp" || column == "token_count" {
		return "UPDATE messages SET " + column + " = " + literal + " WHERE id = 1"
	}
	return "UPDATE sessions SET " + column + " = " + literal + " WHERE id = '" + idDeploy + "'"
}

// TestReadingCommandsReadBadValues: with a value of another storage class
// in any numeric column (one at a time, then all at once), every reading
// command succeeds, quietly.
func TestReadingCommandsReadBadValues(t *testing.T) {
	t.Parallel()
	var all []string
	for column, literal := range badValueUpdates {
		all = append(all, update(column, literal))
		t.Run(column, func(t *testing.T) {
			t.Parallel()
			path := fixtureCopy(t)
			damage(t, path, update(column, literal))
			for _, args := range readingCommands {
				sessions(t, append([]string{"-db", path}, args...)...)
			}
		})
	}
	t.Run("AllAtOnce", func(t *testing.T) {
		t.Parallel()
		path := fixtureCopy(t)
		damage(t, path, all...)
		for _, args := range readingCommands {
			sessions(t, append([]string{"-db", path}, args...)...)
		}
	})
}

// TestBadValueOutputs: a REAL in an INTEGER column reads as its value
// truncated (show, stats: the 34 tokens past the session's usage row count
// under its model), and export writes it as the original's export does, a
// float; an infinite cost is exported as 1e999, which Python reads as inf,
// and stats shows it as the largest finite amount.
func TestBadValueOutputs(t *testing.T) {
	t.Parallel()
	path := fixtureCopy(t)
	damage(t, path, update("input_tokens", "1234.5"), update("actual_cost_usd", "1e999"))
	if got := sessions(t, "-db", path, "show", idDeploy); !strings.Contains(got, "\nTokens    1,234 in, 340 out\n") {
		t.Errorf("show: no line %q in\n%s", "Tokens    1,234 in, 340 out", got)
	}
	if got := sessions(t, "-db", path, "stats", "--top", "0"); !strings.Contains(got, "\nclaude-sonnet-4  1         0      1,234  340     0           0            0          $0.0123    $1.798e+308\n") {
		t.Errorf("stats:\n%s", got)
	}
	var line map[string]json.RawMessage
	if err := json.Unmarshal([]byte(sessions(t, "-db", path, "export", idDeploy)), &line); err != nil {
		t.Fatal(err)
	}
	if got := string(line["input_tokens"]) + " " + string(line["actual_cost_usd"]); got != "1234.5 1e999" {
		t.Errorf("export: input_tokens and actual_cost_usd = %s, want 1234.5 1e999", got)
	}
}

// TestLongSessionReference: an id, prefix or title longer than SQLite's
// LIKE pattern limit (50,000 bytes) names no session, as any unknown
// reference does, instead of failing in SQLite.
func TestLongSessionReference(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("20250301_", 6000)
	for _, command := range []string{"show", "lineage", "export"} {
		failure(t, 1, []string{fmt.Sprintf("sessions: no session has the id, id prefix or title %q", long)}, "-db", fixturePath, command, long)
	}
}
