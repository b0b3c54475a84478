package store

import (
	"bytes"
	"encoding/json"
)

// JSONText is the stored text of a JSON column that the original hands back
// undecoded: sessions.model_config and messages.reasoning_details,
// codex_reasoning_items and codex_message_items (nil when NULL). The
// original's dicts carry these as Python strings, so a JSONText marshals as
// a JSON string holding the text, and an export reads exactly like the
// original's export_all. Decode it with json.Unmarshal([]byte(t), &v).
type JSONText []byte

// MarshalJSON returns null for nil, else the text as a JSON string (HTML
// characters unescaped, as Python's json.dumps writes them).
func (t JSONText) MarshalJSON() ([]byte, error) {
	if t == nil {
		return []byte("null"), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(string(t)); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads what MarshalJSON writes: null as nil, a string as its
// text. Any other JSON value is kept as its own text, so a document that
// embeds the value itself reads the same.
func (t *JSONText) UnmarshalJSON(b []byte) error {
	switch {
	case bytes.Equal(b, []byte("null")):
		*t = nil
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = JSONText(s)
	default:
		*t = append(JSONText(nil), b...)
	}
	return nil
}
