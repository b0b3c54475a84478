package store

import "github.com/hermesstate/hermesstate/internal/transfer"

// JSONText is the stored text of a JSON column that the original hands back
// undecoded: sessions.model_config and messages.reasoning_details,
// codex_reasoning_items and codex_message_items (nil when NULL). The
// original's dicts carry these as Python strings, so a JSONText marshals as
// a JSON string holding the text, and an export reads exactly like the
// original's export_all. Decode it with json.Unmarshal([]byte(t), &v).
type JSONText []byte

// MarshalJSON returns null for nil, else the text as a JSON string (HTML
// characters unescaped, as Python's json.dumps writes them), as an export
// line carries it.
func (t JSONText) MarshalJSON() ([]byte, error) {
	if t == nil {
		return []byte("null"), nil
	}
	return transfer.AppendString(nil, string(t)), nil
}

// UnmarshalJSON reads what MarshalJSON writes: null as nil, a string as its
// text. Any other JSON value is kept as its own text, so a document that
// embeds the value itself reads the same.
func (t *JSONText) UnmarshalJSON(b []byte) (err error) {
	defer wrap(&err, "unmarshal JSON text")
	text, err := transfer.DecodeJSONText(b)
	if err != nil {
		return err
	}
	*t = text
	return nil
}
