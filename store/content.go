package store

import (
	"bytes"
	"encoding/json"

	"github.com/hermesstate/hermesstate/internal/transfer"
)

// decodeContent reads a stored content column as upstream's
// _decode_content does: structured content ("\x00json:" and a JSON value)
// as its JSON, which a JSON string leaves as text; anything else, prefixed
// text that does not decode included, as the text it is.
func decodeContent(col *string) (*string, json.RawMessage) {
	raw := transfer.StructuredContent(col)
	if raw == nil {
		return col, nil
	}
	if bytes.TrimLeft(raw, " \t\n\r")[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return &s, nil
		}
		return col, nil
	}
	return nil, raw
}

// storedContent is decodeContent undone: the column value of a content
// and a structured content.
func storedContent(text *string, structured json.RawMessage) *string {
	if structured == nil {
		return text
	}
	return new(transfer.ContentJSONPrefix + string(structured))
}
