package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/pyjson"
)

// importRecord is one session of an import, checked and encoded for its
// columns.
type importRecord struct {
	line     int
	session  db.SessionImportParams
	messages []db.MessageImportParams
	// ids is the JSON array of the messages' ids when they can be kept
	// (all positive and distinct), else "".
	ids string
}

// parseImportRecord decodes and checks one session object.
func parseImportRecord(raw []byte) (importRecord, error) {
	if err := checkImportText(raw); err != nil {
		return importRecord{}, err
	}
	var e SessionExport
	if err := json.Unmarshal(raw, &e); err != nil {
		return importRecord{}, fmt.Errorf("not a session object: %w", err)
	}
	switch {
	case e.ID == "":
		return importRecord{}, errors.New(`"id" is missing or empty`)
	case e.Source == "":
		return importRecord{}, errors.New(`"source" is missing or empty`)
	case e.StartedAt == 0 && e.Stored["started_at"] == nil:
		return importRecord{}, errors.New(`"started_at" is missing or zero`)
	}
	rec := importRecord{session: sessionImportParams(e.Session)}
	if err := checkJSONText("model_config", e.ModelConfig); err != nil {
		return importRecord{}, err
	}
	ids := make([]byte, 0, 8*len(e.Messages)+2)
	ids = append(ids, '[')
	seen := make(map[int64]bool, len(e.Messages))
	keep := true
	for i, m := range e.Messages {
		p, err := messageImportParams(e.ID, m)
		if err != nil {
			return importRecord{}, fmt.Errorf("message %d: %w", i+1, err)
		}
		keep = keep && m.ID > 0 && !seen[m.ID]
		seen[m.ID] = true
		if i > 0 {
			ids = append(ids, ',')
		}
		ids = strconv.AppendInt(ids, m.ID, 10)
		rec.messages = append(rec.messages, p)
	}
	if keep && len(e.Messages) > 0 {
		rec.ids = string(append(ids, ']'))
	}
	return rec, nil
}

// messageImportParams checks one exported message and encodes its columns.
func messageImportParams(session string, m Message) (db.MessageImportParams, error) {
	switch {
	case m.SessionID != "" && m.SessionID != session:
		return db.MessageImportParams{}, fmt.Errorf("belongs to session %q, not %q", m.SessionID, session)
	case m.Role == "":
		return db.MessageImportParams{}, errors.New(`"role" is missing or empty`)
	case m.Timestamp == 0 && m.Stored["timestamp"] == nil:
		return db.MessageImportParams{}, errors.New(`"timestamp" is missing or zero`)
	}
	// tool_calls is exported decoded (get_messages decodes it); storing it
	// again writes the Python json.dumps text the original stored.
	calls, _, err := encodeJSON("tool_calls", m.ToolCalls)
	if err != nil {
		return db.MessageImportParams{}, err
	}
	for _, c := range []struct {
		name string
		text JSONText
	}{{"reasoning_details", m.ReasoningDetails}, {"codex_reasoning_items", m.CodexReasoningItems}, {"codex_message_items", m.CodexMessageItems}} {
		if err := checkJSONText(c.name, c.text); err != nil {
			return db.MessageImportParams{}, err
		}
	}
	p := db.MessageImportParams{
		SessionID: session, Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID,
		ToolCalls: calls, ToolName: m.ToolName, Timestamp: realColumn(float64(m.Timestamp), m.Stored, "timestamp"),
		TokenCount: optionalIntColumn(m.TokenCount, m.Stored, "token_count"), FinishReason: m.FinishReason, Reasoning: m.Reasoning,
		ReasoningContent: m.ReasoningContent, ReasoningDetails: textColumn(m.ReasoningDetails),
		CodexReasoningItems: textColumn(m.CodexReasoningItems), CodexMessageItems: textColumn(m.CodexMessageItems),
	}
	if m.ID > 0 {
		p.ID = &m.ID
	}
	return p, nil
}

// sessionImportParams is every column of an exported session.
func sessionImportParams(s Session) db.SessionImportParams {
	return db.SessionImportParams{
		ID: s.ID, Source: s.Source, UserID: s.UserID, Model: s.Model,
		ModelConfig: textColumn(s.ModelConfig), SystemPrompt: s.SystemPrompt,
		ParentSessionID: s.ParentSessionID, StartedAt: realColumn(float64(s.StartedAt), s.Stored, "started_at"),
		EndedAt: optionalRealColumn((*float64)(s.EndedAt), s.Stored, "ended_at"), EndReason: s.EndReason,
		MessageCount:     intColumn(s.MessageCount, s.Stored, "message_count"),
		ToolCallCount:    intColumn(s.ToolCallCount, s.Stored, "tool_call_count"),
		InputTokens:      intColumn(s.InputTokens, s.Stored, "input_tokens"),
		OutputTokens:     intColumn(s.OutputTokens, s.Stored, "output_tokens"),
		Title:            s.Title,
		CacheReadTokens:  intColumn(s.CacheReadTokens, s.Stored, "cache_read_tokens"),
		CacheWriteTokens: intColumn(s.CacheWriteTokens, s.Stored, "cache_write_tokens"),
		ReasoningTokens:  intColumn(s.ReasoningTokens, s.Stored, "reasoning_tokens"),
		BillingProvider:  s.BillingProvider,
		BillingBaseURL:   s.BillingBaseURL, BillingMode: s.BillingMode,
		EstimatedCostUSD: optionalRealColumn(s.EstimatedCostUSD, s.Stored, "estimated_cost_usd"),
		ActualCostUSD:    optionalRealColumn(s.ActualCostUSD, s.Stored, "actual_cost_usd"),
		CostStatus:       s.CostStatus, CostSource: s.CostSource,
		PricingVersion: s.PricingVersion, APICallCount: intColumn(s.APICallCount, s.Stored, "api_call_count"),
	}
}

// checkJSONText refuses a JSON column whose text is not JSON, or is JSON
// nested deeper than Python reads (pyjson.MaxDepth): every JSON column the
// store writes holds what the original can read back. The text itself is
// stored as it is.
func checkJSONText(field string, t JSONText) error {
	if t == nil {
		return nil
	}
	if _, err := pyjson.Encode(t); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrInvalidJSON, field, err)
	}
	return nil
}

// textColumn is a JSONText as its column value: NULL for nil.
func textColumn(t JSONText) *string {
	if t == nil {
		return nil
	}
	return new(string(t))
}

// readRecords calls fn with each session object of r and the line it
// starts on: the lines of a JSON Lines file (blank lines skipped), or the
// elements of a JSON array. A record fn cannot parse, or a broken array,
// stops the reading with an *ImportError.
func readRecords(r io.Reader, fn func(line int, raw []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	line := 1
	for {
		b, err := br.ReadByte()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch b {
		case '\n':
			line++
			continue
		case ' ', '\t', '\r':
			continue
		case 0xEF: // a UTF-8 byte-order mark
			if rest, err := br.Peek(2); err == nil && string(rest) == "\xBB\xBF" {
				br.Discard(2)
				continue
			}
		}
		br.UnreadByte()
		if b == '[' {
			return readArray(br, line, fn)
		}
		return readLines(br, line, fn)
	}
}

// readLines reads JSON Lines from the current line on.
func readLines(br *bufio.Reader, line int, fn func(int, []byte) error) error {
	for ; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return err
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			if ferr := fn(line, t); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// readArray reads the elements of one JSON array starting on line.
func readArray(br *bufio.Reader, line int, fn func(int, []byte) error) error {
	lr := &lineReader{r: br, first: line}
	dec := json.NewDecoder(lr)
	if _, err := dec.Token(); err != nil { // the '['
		return &ImportError{Line: line, Err: err}
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return &ImportError{Line: lr.lineAt(elementStart(dec)), Err: fmt.Errorf("not a JSON array of session objects: %w", err)}
		}
		start := dec.InputOffset() - int64(len(raw))
		if err := fn(lr.lineAt(start), raw); err != nil {
			return err
		}
		lr.forget(start)
	}
	if _, err := dec.Token(); err != nil { // the ']'
		return &ImportError{Line: lr.lineAt(dec.InputOffset()), Err: err}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &ImportError{Line: lr.lineAt(dec.InputOffset()), Err: errors.New("data after the JSON array")}
	}
	return nil
}

// elementStart is the offset of the array element a failed Decode was
// reading: InputOffset stays before the white space after the comma, so the
// decoder's buffered bytes are skipped up to the first one that is not
// white space.
func elementStart(dec *json.Decoder) int64 {
	off := dec.InputOffset()
	rest, _ := io.ReadAll(dec.Buffered())
	for _, c := range rest {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			break
		}
		off++
	}
	return off
}

// lineReader passes bytes through and remembers where the newlines are, so
// an offset the JSON decoder reports can be turned into a line number. The
// offsets before the current record are forgotten as reading goes on, so
// memory stays bounded by one record's lines.
type lineReader struct {
	r      io.Reader
	first  int     // the line the reading starts on
	read   int64   // bytes read so far
	passed int     // newlines forgotten (all before the current record)
	nl     []int64 // offsets of the newlines remembered
}

func (l *lineReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			l.nl = append(l.nl, l.read+int64(i))
		}
	}
	l.read += int64(n)
	return n, err
}

// lineAt returns the line the byte at offset is on.
func (l *lineReader) lineAt(offset int64) int {
	n := 0
	for n < len(l.nl) && l.nl[n] < offset {
		n++
	}
	return l.first + l.passed + n
}

// forget drops the newlines before offset.
func (l *lineReader) forget(offset int64) {
	n := 0
	for n < len(l.nl) && l.nl[n] < offset {
		n++
	}
	l.passed += n
	l.nl = append(l.nl[:0], l.nl[n:]...)
}
