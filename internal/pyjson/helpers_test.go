package pyjson

import (
	"strconv"
	"strings"
)

// largeValue returns a tool_calls-like JSON array of roughly size bytes: mixed ASCII,
// escapes, CJK, emoji and numbers, with compact separators like Go's encoder writes.
func largeValue(size int) string {
	var b strings.Builder
	b.Grow(size + 512)
	b.WriteByte('[')
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":"call_`)
		b.WriteString(strconv.Itoa(i))
		b.WriteString(`","type":"function","function":{"name":"terminal","arguments":"{\"command\":\"grep -rn 'TODO' src/ | head -n 20\",\"timeout\":30,\"note\":\"通信テスト 🚀 <ok> & done\\n\"}"},"index":`)
		b.WriteString(strconv.Itoa(i % 7))
		b.WriteString(`,"score":1.25,"ok":true,"extra":null}`)
	}
	b.WriteByte(']')
	return b.String()
}
