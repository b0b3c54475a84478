package store

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// objectKeys returns the keys of the JSON object line, in
// order, and of the objects of its "messages" array (the first one's).
func objectKeys(t *testing.T, line []byte) (keys, messageKeys []string) {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(line, &top); err != nil {
		t.Fatal(err)
	}
	keys = orderedKeys(t, line)
	var msgs []json.RawMessage
	if err := json.Unmarshal(top["messages"], &msgs); err != nil || len(msgs) == 0 {
		t.Fatalf("messages: %v (%d)", err, len(msgs))
	}
	return keys, orderedKeys(t, msgs[0])
}

// orderedKeys lists the top-level keys of a JSON object in document order.
func orderedKeys(t *testing.T, obj []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestExportKeysInColumnOrder: an export line's keys are the session
// columns in the order of the original's v11 table (its dict(row)), then
// last_active and messages; a message's keys are the messages columns in
// table order. Read from the original's own new file.
func TestExportKeysInColumnOrder(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	fresh := rawDB(t, dbtest.CopyFixture(t, "state-v11-fresh.db"))
	wantSession := append(dbtest.Values[string](t, fresh, "SELECT name FROM pragma_table_info('sessions') ORDER BY cid"), "last_active", "messages")
	wantMessage := dbtest.Values[string](t, fresh, "SELECT name FROM pragma_table_info('messages') ORDER BY cid")
	fresh.Close()

	s, _ := openStore(t, nil)
	mustCreate(t, s, NewSession{ID: "s1", Source: "cli"})
	mustAppend(t, s, "s1", NewMessage{Role: "user", Content: new("hello")})
	var buf bytes.Buffer
	if _, err := s.ExportJSONL(ctx, &buf, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	keys, messageKeys := objectKeys(t, bytes.TrimSpace(buf.Bytes()))
	if diff := cmp.Diff(wantSession, keys); diff != "" {
		t.Errorf("export keys (-original's columns +ours):\n%s", diff)
	}
	if diff := cmp.Diff(wantMessage, messageKeys); diff != "" {
		t.Errorf("message keys (-original's columns +ours):\n%s", diff)
	}
}
