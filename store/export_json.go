package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/hermesstate/hermesstate/internal/pyjson"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// An export line is the original's export_all entry. For a row whose
// numeric columns hold what their Go fields cannot carry (Session.Stored,
// Message.Stored) it carries what the original's json.dumps writes for the
// value as Python reads it: a float in Python's repr (1.5, 1e+20,
// 9.223372036854776e+18), text as a string. Two exceptions, where Python's
// export has no answer: a BLOB (json.dumps fails on bytes, and the whole
// export with it) is written as its Go value, and an infinite REAL (Python
// writes Infinity, which is not JSON) as 1e999 or -1e999, which Python's
// json.loads reads back as inf. Import reads all of it back.

// exportFields is SessionExport without its methods, for encoding/json.
type exportFields SessionExport

// MarshalJSON returns the export line of e (without the newline): what
// ExportJSONL writes for the session, the original's export_all entry.
func (e SessionExport) MarshalJSON() ([]byte, error) {
	b, err := exportHead(e)
	if err != nil {
		return nil, err
	}
	for i, m := range e.Messages {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendMessageJSON(b, m); err != nil {
			return nil, err
		}
	}
	return append(b, ']', '}'), nil
}

// exportHead returns e's export object up to and including the "[" that
// opens its messages: "messages" is its last key. The costs are written
// as Python writes a float: 0.0, not 0, which Python would read as an int
// (the timestamps do that themselves, see Timestamp.MarshalJSON).
func exportHead(e SessionExport) ([]byte, error) {
	e.Messages = []Message{}
	replace := storedReplacements(e.Stored)
	for key, f := range map[string]*float64{"estimated_cost_usd": e.EstimatedCostUSD, "actual_cost_usd": e.ActualCostUSD} {
		if _, ok := replace[key]; !ok && f != nil && *f == math.Trunc(*f) && !math.IsInf(*f, 0) {
			replace[key] = pyjson.AppendFloat(nil, *f)
		}
	}
	b, err := marshalReplacing(exportFields(e), replace, len(e.Stored) > 0)
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b, []byte("]}")), nil
}

// appendMessageJSON appends one exported message.
func appendMessageJSON(b []byte, m Message) ([]byte, error) {
	j, err := marshalReplacing(m, storedReplacements(m.Stored), len(m.Stored) > 0)
	return append(b, j...), err
}

// storedReplacements is the JSON of each stored value the export writes
// in place of its field's.
func storedReplacements(stored map[string]any) map[string][]byte {
	replace := map[string][]byte{}
	for key, v := range stored {
		if j, ok := storedValueJSON(v); ok {
			replace[key] = j
		}
	}
	return replace
}

// marshalReplacing marshals the struct v (without HTML escaping or a
// newline) with the values of the keys in replace replaced. With
// placeholders, the fields of those keys hold a placeholder while
// encoding/json writes the object: a zero one would be left out by
// omitzero (a last_active of text reads as 0).
func marshalReplacing(v any, replace map[string][]byte, placeholders bool) ([]byte, error) {
	if len(replace) == 0 {
		b, err := marshalJSON(v)
		return bytes.TrimSuffix(b, []byte("\n")), err
	}
	if placeholders {
		c := reflect.New(reflect.TypeOf(v)).Elem()
		c.Set(reflect.ValueOf(v))
		setPlaceholders(c, replace)
		v = c.Interface()
	}
	b, err := marshalJSON(v)
	if err != nil {
		return nil, err
	}
	return replaceMembers(bytes.TrimSuffix(b, []byte("\n")), replace)
}

// storedValueJSON is the export's JSON for a stored value, and false for a
// BLOB, whose field's Go value is written instead.
func storedValueJSON(v any) ([]byte, bool) {
	switch v := v.(type) {
	case float64:
		return floatJSON(v), true
	case string:
		b, err := marshalJSON(v)
		return bytes.TrimSuffix(b, []byte("\n")), err == nil
	}
	return nil, false
}

// floatJSON is f as the export writes a float: Python's repr, and ±1e999
// for ±Inf (Python writes Infinity, which is not JSON; its json.loads reads
// 1e999 as inf). f is not NaN: SQLite stores NaN as NULL.
func floatJSON(f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return []byte("1e999")
	case math.IsInf(f, -1):
		return []byte("-1e999")
	}
	return pyjson.AppendFloat(nil, f)
}

// setPlaceholders sets the numeric fields of struct v (and of structs it
// embeds) whose JSON key is in keys to 1; a nil pointer field gets a 1.
func setPlaceholders(v reflect.Value, keys map[string][]byte) {
	for i := range v.NumField() {
		f, field := v.Type().Field(i), v.Field(i)
		if f.Anonymous && field.Kind() == reflect.Struct {
			setPlaceholders(field, keys)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if _, ok := keys[name]; !ok {
			continue
		}
		if field.Kind() == reflect.Pointer {
			field.Set(reflect.New(field.Type().Elem()))
			field = field.Elem()
		}
		switch field.Kind() {
		case reflect.Int64:
			field.SetInt(1)
		case reflect.Float64:
			field.SetFloat(1)
		}
	}
}

// replaceMembers replaces the values of the top-level members of the JSON
// object b named in replace.
func replaceMembers(b []byte, replace map[string][]byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	out := make([]byte, 0, len(b)+64)
	copied := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		j, ok := replace[tok.(string)]
		if !ok {
			continue
		}
		end := int(dec.InputOffset())
		out = append(append(out, b[copied:end-len(raw)]...), j...)
		copied = end
	}
	return append(out, b[copied:]...), nil
}

// UnmarshalJSON reads an export line: what MarshalJSON writes, or an entry
// of the original's export_all. A numeric key holding what its Go field
// cannot (1.5 or 1e+20 in a counter, text, 1e999) reads as the store reads
// such a column (CAST to the column's type) and is kept in Stored, so an
// import writes the value back as stored.
func (e *SessionExport) UnmarshalJSON(b []byte) error {
	err := json.Unmarshal(b, (*exportFields)(e))
	var typeErr *json.UnmarshalTypeError
	if !errors.As(err, &typeErr) {
		return err
	}
	lifted, stored, msgStored, lerr := liftNumbers(b)
	if lerr != nil {
		return err
	}
	*e = SessionExport{}
	if err := json.Unmarshal(lifted, (*exportFields)(e)); err != nil {
		return err
	}
	e.Stored = stored
	for i, st := range msgStored {
		if i < len(e.Messages) {
			e.Messages[i].Stored = st
		}
	}
	return nil
}

// numericKeys are the export's numeric keys, true for INTEGER columns.
var (
	sessionNumericKeys = map[string]bool{
		"started_at": false, "ended_at": false, "last_active": false,
		"message_count": true, "tool_call_count": true, "input_tokens": true,
		"output_tokens": true, "cache_read_tokens": true, "cache_write_tokens": true,
		"reasoning_tokens": true, "api_call_count": true,
		"estimated_cost_usd": false, "actual_cost_usd": false,
	}
	messageNumericKeys = map[string]bool{"timestamp": false, "token_count": true}
)

// liftNumbers rewrites an export object so that encoding/json can decode
// it: each numeric key whose value its Go field cannot hold gets the Go
// value, and the value is returned in the session's or its message's
// stored map.
func liftNumbers(b []byte) ([]byte, storedValues, []storedValues, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, nil, nil, err
	}
	stored, err := liftObject(obj, sessionNumericKeys)
	if err != nil {
		return nil, nil, nil, err
	}
	var msgStored []storedValues
	if raw, ok := obj["messages"]; ok {
		var msgs []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &msgs); err != nil {
			return nil, nil, nil, err
		}
		msgStored = make([]storedValues, len(msgs))
		for i, m := range msgs {
			if msgStored[i], err = liftObject(m, messageNumericKeys); err != nil {
				return nil, nil, nil, err
			}
		}
		if obj["messages"], err = json.Marshal(msgs); err != nil {
			return nil, nil, nil, err
		}
	}
	out, err := json.Marshal(obj)
	return out, stored, msgStored, err
}

// liftObject lifts the numeric keys of one object (see liftNumbers).
func liftObject(obj map[string]json.RawMessage, keys map[string]bool) (storedValues, error) {
	var st storedValues
	for key, integer := range keys {
		raw, ok := obj[key]
		if !ok {
			continue
		}
		var n sqlnum.Real
		switch {
		case len(raw) > 0 && raw[0] == '"':
			var text string
			if err := json.Unmarshal(raw, &text); err != nil {
				return nil, err
			}
			st.keep(key, text)
			n = sqlnum.Real{Float64: sqlnum.TextToReal(text), Valid: true}
			if integer {
				obj[key] = strconv.AppendInt(nil, sqlnum.TextToInt(text), 10)
				continue
			}
		case len(raw) > 0 && (raw[0] == '-' || '0' <= raw[0] && raw[0] <= '9'):
			if _, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
				continue // an integer either kind of field holds
			}
			f, err := strconv.ParseFloat(string(raw), 64)
			if err != nil && !math.IsInf(f, 0) {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			if integer {
				st.keep(key, f)
				obj[key] = strconv.AppendInt(nil, sqlnum.FloatToInt(f), 10)
				continue
			}
			if !math.IsInf(f, 0) {
				continue // a REAL field holds any finite number
			}
			st.keep(key, f)
			n = sqlnum.RealOf(f)
		default:
			continue // null, or not a number: the decoder reports it
		}
		obj[key] = pyjson.AppendFloat(nil, finite(n.Float64)) // as a read gives it
	}
	return st, nil
}
