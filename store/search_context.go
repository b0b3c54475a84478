package store

import (
	"encoding/json"
	"strings"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/pytext"
)

// contextChars is how many code points of each message a hit's context
// shows (upstream's preview[:200]).
const contextChars = 200

// contextJSONPrefix starts upstream's multimodal content: "\x00json:" and
// the json.dumps of a list of parts (a NUL cannot start real text).
const contextJSONPrefix = "\x00json:"

// hitContext turns MessageContext's rows into a hit's Context as upstream
// renders it. A row whose preview upstream cannot render (a text part that
// is not a string) makes the whole context empty, as upstream's error
// handler does.
func hitContext(rows []db.MessageContextRow) []ContextMessage {
	out := make([]ContextMessage, len(rows))
	for i, r := range rows {
		content := r.Content
		if r.Raw != nil {
			var ok bool
			if content, ok = contextPreview(string(r.Raw)); !ok {
				return []ContextMessage{}
			}
		}
		out[i] = ContextMessage{Role: r.Role, Content: content}
	}
	return out
}

// contextPreview renders content that holds a NUL, which SQLite's substr
// cannot cut: multimodal content decoded to its text, anything else (and
// content whose JSON does not decode, which upstream shows raw) cut to
// contextChars code points. ok is false where upstream's rendering fails.
func contextPreview(content string) (preview string, ok bool) {
	if rest, found := strings.CutPrefix(content, contextJSONPrefix); found {
		var v any
		if err := json.Unmarshal([]byte(rest), &v); err == nil {
			switch v := v.(type) {
			case []any:
				text, ok := multimodalText(v)
				if !ok {
					return "", false
				}
				content = text
			case string:
				content = v
			default: // a dict, a number, null: no preview
				return "", true
			}
		}
	}
	return pytext.Truncate(content, contextChars), true
}

// multimodalText is upstream's text of a list of parts: the "text" of each
// {"type": "text"} part, the non-empty ones joined by spaces and stripped,
// or "[multimodal content]" when none is left. ok is false for a truthy
// text that is not a string (Python's join fails on it).
func multimodalText(parts []any) (string, bool) {
	var texts []string
	for _, p := range parts {
		part, isObject := p.(map[string]any)
		if !isObject || part["type"] != "text" {
			continue
		}
		switch t := part["text"].(type) {
		case nil:
		case string:
			if t != "" {
				texts = append(texts, t)
			}
		case bool:
			if t {
				return "", false
			}
		case float64:
			if t != 0 {
				return "", false
			}
		default: // a non-empty list or object
			if !isEmptyJSON(t) {
				return "", false
			}
		}
	}
	text := pytext.Strip(strings.Join(texts, " "))
	if text == "" {
		return "[multimodal content]", true
	}
	return text, true
}

// isEmptyJSON reports whether a decoded list or object is empty (falsy).
func isEmptyJSON(v any) bool {
	switch v := v.(type) {
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}
