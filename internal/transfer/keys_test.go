package transfer

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKeysAgree: the writer writes exactly the keys Decode reads, in the
// same order, and those are the columns of Session and Message in their
// order (the generated rows', a fresh file's), then last_active and
// messages; SessionColumns and MessageColumns name them in that order.
func TestKeysAgree(t *testing.T) {
	t.Parallel()
	m := fullMessage
	m.ToolCalls = nil // JSON whose keys would read as the line's
	e := Entry{Session: fullSession, LastActive: fullSession.StartedAt, Messages: []Message{m}}
	line, err := AppendEntry(nil, e, Order{})
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i, key := range tagNames(exportLine{}) {
		want.WriteString(map[bool]string{true: "{", false: ","}[i == 0] + `"` + key + `":…`)
	}
	for i, key := range tagNames(exportMessage{}) {
		want.WriteString(map[bool]string{true: "[{", false: ","}[i == 0] + `"` + key + `":…`)
	}
	got := keysOnly(string(line))
	if diff := cmp.Diff(want.String(), got); diff != "" {
		t.Errorf("keys written (-read by Decode +written):\n%s", diff)
	}
	n := reflect.TypeFor[Session]().NumField()
	if diff := cmp.Diff(fieldNames(Session{}), fieldNames(exportLine{})[:n]); diff != "" {
		t.Errorf("Session's fields vs the line's (-Session +line):\n%s", diff)
	}
	if diff := cmp.Diff(fieldNames(Message{}), fieldNames(exportMessage{})); diff != "" {
		t.Errorf("Message's fields vs the line's (-Message +line):\n%s", diff)
	}
	if diff := cmp.Diff(tagNames(exportLine{})[:n], SessionColumns()); diff != "" {
		t.Errorf("SessionColumns (-line +SessionColumns):\n%s", diff)
	}
	if diff := cmp.Diff(tagNames(exportMessage{}), MessageColumns()); diff != "" {
		t.Errorf("MessageColumns (-line +MessageColumns):\n%s", diff)
	}
	if n != 45 || len(MessageColumns()) != 20 {
		t.Errorf("%d session columns and %d message columns, want v21's 45 and 20", n, len(MessageColumns()))
	}
}

// memberKey matches a member's key in an export line whose values hold
// no JSON of their own (the JSON text columns are strings, their quotes
// escaped).
var memberKey = regexp.MustCompile(`(\{|,|\[\{)"([a-z_]+)":`)

// keysOnly is an export line with each member's value replaced by "…",
// and the closing brackets dropped.
func keysOnly(line string) string {
	var b strings.Builder
	for _, m := range memberKey.FindAllStringSubmatch(line, -1) {
		b.WriteString(m[1] + `"` + m[2] + `":…`)
	}
	return b.String()
}

// tagNames returns the JSON keys of struct v's fields, in order.
func tagNames(v any) []string {
	var out []string
	for f := range reflect.TypeOf(v).Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
}

// fieldNames returns the names of struct v's fields, in order.
func fieldNames(v any) []string {
	var out []string
	for f := range reflect.TypeOf(v).Fields() {
		out = append(out, f.Name)
	}
	return out
}
