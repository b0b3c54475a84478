package transfer

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// v16Sessions and v16Messages are the column orders of
// testdata/upstream/state-v21-from-v16.db (a v16 file migrated by upstream
// c2a3b9ce5: the columns v17+ added come last, in upstream's reconcile
// order).
var (
	v16Sessions = strings.Fields(`id source user_id model model_config system_prompt parent_session_id
		started_at ended_at end_reason message_count tool_call_count input_tokens output_tokens
		cache_read_tokens cache_write_tokens reasoning_tokens cwd billing_provider billing_base_url
		billing_mode estimated_cost_usd actual_cost_usd cost_status cost_source pricing_version title
		api_call_count handoff_state handoff_platform handoff_error rewind_count archived session_key
		chat_id chat_type thread_id display_name origin_json expiry_finalized git_branch git_repo_root
		compression_failure_cooldown_until compression_failure_error compression_fallback_streak`)
	v16Messages = strings.Fields(`id session_id role content tool_call_id tool_calls tool_name timestamp
		token_count finish_reason reasoning reasoning_content reasoning_details codex_reasoning_items
		codex_message_items platform_message_id observed active effect_disposition compacted`)
)

// TestOrder: a line's keys follow the Order of the file it comes from; a
// column the file lacks comes after the others, a name the line does not
// know is ignored, and the line reads back the same whatever its order.
func TestOrder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name               string
		order              Order
		sessions, messages []string
	}{
		{"Fresh", Order{}, SessionColumns(), MessageColumns()},
		{"MigratedFromV16", NewOrder(v16Sessions, v16Messages), v16Sessions, v16Messages},
		{"UnknownAndMissing", NewOrder([]string{"title", "future_column", "id", "title"}, []string{"compacted", "role"}),
			append([]string{"title", "id"}, without(SessionColumns(), "title", "id")...),
			append([]string{"compacted", "role"}, without(MessageColumns(), "compacted", "role")...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.sessions, tc.order.Sessions()); diff != "" {
				t.Errorf("Sessions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.messages, tc.order.Messages()); diff != "" {
				t.Errorf("Messages (-want +got):\n%s", diff)
			}
			m := fullMessage
			m.ToolCalls = new(`[1]`) // no keys of its own; read back as written
			e := Entry{Session: fullSession, LastActive: fullSession.StartedAt, Messages: []Message{m}}
			line, err := AppendEntry(nil, e, tc.order)
			if err != nil {
				t.Fatal(err)
			}
			var want strings.Builder
			for i, key := range append(tc.sessions, "last_active", "messages") {
				want.WriteString(map[bool]string{true: "{", false: ","}[i == 0] + `"` + key + `":…`)
			}
			for i, key := range tc.messages {
				want.WriteString(map[bool]string{true: "[{", false: ","}[i == 0] + `"` + key + `":…`)
			}
			if diff := cmp.Diff(want.String(), keysOnly(string(line))); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
			back, err := Decode(line)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(e, back); diff != "" {
				t.Errorf("Decode of the line (-written +read):\n%s", diff)
			}
		})
	}
}

// without is cols without the names given.
func without(cols []string, names ...string) []string {
	var out []string
	for _, c := range cols {
		keep := true
		for _, n := range names {
			keep = keep && c != n
		}
		if keep {
			out = append(out, c)
		}
	}
	return out
}

// TestContentValues: content is written as upstream's get_messages returns
// it: structured content decoded (its JSON compacted), anything else as
// text, the NUL of the prefix included when the JSON does not decode.
func TestContentValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		col  *string
		want string
	}{
		{"NULL", nil, `null`},
		{"Text", new("plain <b>"), `"plain <b>"`},
		{"Empty", new(""), `""`},
		{"List", new("\x00json:" + `[{"type": "text", "text": "look \u00e9"}, {"type": "image_url", "image_url": {"url": "data:x"}}]`),
			`[{"type":"text","text":"look \u00e9"},{"type":"image_url","image_url":{"url":"data:x"}}]`},
		{"Dict", new("\x00json:" + `{"parts": [{"text": "hi"}]}`), `{"parts":[{"text":"hi"}]}`},
		{"AString", new("\x00json:" + `"hi"`), `"hi"`},
		{"NotJSON", new("\x00json:[1,"), `"\u0000json:[1,"`},
		{"PrefixWithoutNUL", new("json:[1]"), `"json:[1]"`},
		{"NULElsewhere", new("a\x00json:[1]"), `"a\u0000json:[1]"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := fullMessage
			m.Content = tc.col
			got, err := AppendEntry(nil, Entry{Session: fullSession, Messages: []Message{m}}, Order{})
			if err != nil {
				t.Fatal(err)
			}
			if want := `"role":"assistant","content":` + tc.want + `,"tool_call_id":`; !strings.Contains(string(got), want) {
				t.Errorf("the line lacks %s:\n%s", want, got)
			}
		})
	}
}

// TestEncodeContent: what a content value is stored as, and the values
// refused.
func TestEncodeContent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, raw string
		want      *string
		err       error
	}{
		{"Null", `null`, nil, nil},
		{"Nothing", ``, nil, nil},
		{"String", `"héllo \u00e9"`, new("héllo é"), nil},
		{"List", `[{"type":"text","text":"é"}]`, new("\x00json:" + `[{"type": "text", "text": "\u00e9"}]`), nil},
		{"Number", ` 1.50 `, new("\x00json:1.50"), nil},
		{"Bool", `true`, new("\x00json:true"), nil},
		{"NotJSON", `[1,`, nil, ErrInvalidJSON},
		{"StringNotJSON", `"open`, nil, ErrInvalidJSON},
		{"LoneSurrogate", `"\ud800"`, nil, ErrInvalidText},
		{"NotUTF8", "\"\xff\"", nil, ErrInvalidText},
		{"LoneSurrogateInsideAList", `["\ud800"]`, new("\x00json:" + `["\ud800"]`), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := EncodeContent("content", []byte(tc.raw))
			if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) {
				t.Fatalf("EncodeContent error = %v, want %v", err, tc.err)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "content: ") {
				t.Errorf("error %q does not name the field", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("EncodeContent (-want +got):\n%s", diff)
			}
			if got != nil && strings.HasPrefix(*got, ContentJSONPrefix) {
				if raw := StructuredContent(got); raw == nil {
					t.Errorf("StructuredContent(%q) = nil, want the JSON", *got)
				}
			}
		})
	}
}
