package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/migrations"
)

// ProblemKind names the kind of a Problem.
type ProblemKind string

// The kinds of problem Check finds.
const (
	// ProblemIntegrity is damage PRAGMA integrity_check reports.
	ProblemIntegrity ProblemKind = "integrity"
	// ProblemSearchIndex is a full-text index that is damaged, missing,
	// empty or out of step with the messages (RebuildSearchIndex repairs
	// it).
	ProblemSearchIndex ProblemKind = "search_index"
	// ProblemCounter is a stored counter that disagrees with the rows.
	ProblemCounter ProblemKind = "counter"
	// ProblemOrphanMessages is messages whose session row is missing.
	ProblemOrphanMessages ProblemKind = "orphan_messages"
	// ProblemBadValue is a numeric column holding a value of another
	// storage class.
	ProblemBadValue ProblemKind = "bad_value"
	// ProblemSchema is a schema version other than this build's.
	ProblemSchema ProblemKind = "schema"
)

// Problem is one thing Check found wrong: its kind and a one-line
// description.
type Problem struct {
	Kind ProblemKind `json:"kind"`
	Text string      `json:"text"`
}

// BadValue is a numeric column of a row holding a value of another
// storage class than the column's, e.g. a REAL in an INTEGER column (see
// Session.Stored for how reads treat it).
type BadValue struct {
	Table  string `json:"table"`  // "sessions" or "messages"
	ID     string `json:"id"`     // the session id, or the message id in decimal
	Column string `json:"column"` // e.g. "input_tokens"
	Type   string `json:"type"`   // typeof() of the value: "real", "text", "blob" or "integer"
}

// maxBadValueRows is how many rows of each table Check lists in
// Health.BadValues.
const maxBadValueRows = 100

// Problems returns every problem h records, in a fixed order: integrity,
// search indexes, counters, orphan messages, bad values, schema version.
// It returns an empty slice for a healthy file.
func (h *Health) Problems() []Problem {
	out := []Problem{}
	add := func(kind ProblemKind, format string, args ...any) {
		out = append(out, Problem{kind, fmt.Sprintf(format, args...)})
	}
	if text := h.integrityProblems(); text != "" {
		add(ProblemIntegrity, "%s", text)
	}
	for _, f := range h.FTS {
		switch {
		case f.Problem == "":
		case f.Cause == FTSCauseNULText:
			add(ProblemSearchIndex, "%s: %s: the index was built by another SQLite version from text holding NUL bytes "+
				"(SQLite 3.40, Python's, indexes such text only up to the NUL); sessions doctor --fix-fts rebuilds it",
				f.Table, f.Problem)
		default:
			add(ProblemSearchIndex, "%s: %s", f.Table, f.Problem)
		}
	}
	for _, c := range h.Counters {
		add(ProblemCounter, "session %s: %s is %d, its rows say %d", c.SessionID, c.Column, c.Stored, c.Actual)
	}
	if h.OrphanMessages > 0 {
		add(ProblemOrphanMessages, "%s without a session", countOf(h.OrphanMessages, "message"))
	}
	for _, b := range h.BadValues {
		add(ProblemBadValue, "%s %s: %s is %s in %s column", strings.TrimSuffix(b.Table, "s"), b.ID, b.Column,
			storageClass[b.Type], storageClass[numericColumns[b.Table][b.Column]])
	}
	if h.BadValuesTruncated {
		add(ProblemBadValue, "more rows hold values of another storage class (%d of each table listed)", maxBadValueRows)
	}
	switch {
	case h.SchemaVersion < migrations.Latest:
		add(ProblemSchema, "schema version %d is older than this build's %d: run migrate up", h.SchemaVersion, migrations.Latest)
	case h.SchemaVersion > migrations.Latest:
		add(ProblemSchema, "schema version %d is newer than this build's %d: written by a later Hermes", h.SchemaVersion, migrations.Latest)
	}
	return out
}

// integrityProblems is the integrity problem's text, or "" for none:
// h.Integrity's lines unless they are "ok", less the line FTS5 writes for
// an index whose damage has a known cause (FTSCheck.Cause), which that
// index's problem names.
func (h *Health) integrityProblems() string {
	if len(h.Integrity) == 1 && h.Integrity[0] == "ok" {
		return ""
	}
	explained := map[string]bool{}
	for _, f := range h.FTS {
		if f.Cause != "" {
			explained["malformed inverted index for FTS5 table main."+f.Table] = true
		}
	}
	var lines []string
	for _, l := range h.Integrity {
		if !explained[l] {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 && len(h.Integrity) > 0 {
		return "" // every line explained
	}
	return "integrity_check: " + strings.Join(lines, "; ")
}

// countOf is "1 message", "2 messages".
func countOf(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}

// storageClass names a typeof() result in a problem's text.
var storageClass = map[string]string{"integer": "an INTEGER", "real": "a REAL", "text": "TEXT", "blob": "a BLOB"}

// numericColumns is each table's numeric columns with the storage class
// they hold (NULL aside).
var numericColumns = map[string]map[string]string{
	"sessions": {
		"started_at": "real", "ended_at": "real", "message_count": "integer", "tool_call_count": "integer",
		"input_tokens": "integer", "output_tokens": "integer", "cache_read_tokens": "integer",
		"cache_write_tokens": "integer", "reasoning_tokens": "integer", "estimated_cost_usd": "real",
		"actual_cost_usd": "real", "api_call_count": "integer",
	},
	"messages": {"timestamp": "real", "token_count": "integer"},
}

// badValues fills h.BadValues: the numeric columns of other storage
// classes, at most maxBadValueRows rows of each table.
func (s *Store) badValues(ctx context.Context, q backend.Tx, h *Health) error {
	sessions, err := s.q.HealthBadSessionValues(ctx, q)
	if err != nil {
		return err
	}
	for i, r := range sessions {
		if i == maxBadValueRows {
			h.BadValuesTruncated = true
			break
		}
		h.addBadValues("sessions", r.ID, []string{"started_at", r.StartedAt, "ended_at", r.EndedAt,
			"message_count", r.MessageCount, "tool_call_count", r.ToolCallCount, "input_tokens", r.InputTokens,
			"output_tokens", r.OutputTokens, "cache_read_tokens", r.CacheReadTokens,
			"cache_write_tokens", r.CacheWriteTokens, "reasoning_tokens", r.ReasoningTokens,
			"estimated_cost_usd", r.EstimatedCostUSD, "actual_cost_usd", r.ActualCostUSD,
			"api_call_count", r.APICallCount})
	}
	messages, err := s.q.HealthBadMessageValues(ctx, q)
	if err != nil {
		return err
	}
	for i, r := range messages {
		if i == maxBadValueRows {
			h.BadValuesTruncated = true
			break
		}
		h.addBadValues("messages", strconv.FormatInt(r.ID, 10), []string{"timestamp", r.Timestamp, "token_count", r.TokenCount})
	}
	return nil
}

// addBadValues records the columns of one row, given as column, typeof()
// pairs, whose class is neither the column's nor NULL.
func (h *Health) addBadValues(table, id string, classes []string) {
	for i := 0; i+1 < len(classes); i += 2 {
		column, class := classes[i], classes[i+1]
		if class != "null" && class != numericColumns[table][column] {
			h.BadValues = append(h.BadValues, BadValue{Table: table, ID: id, Column: column, Type: class})
		}
	}
}
