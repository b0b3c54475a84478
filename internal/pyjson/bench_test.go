package pyjson

import "testing"

func BenchmarkEncode(b *testing.B) {
	in := []byte(largeValue(1 << 20))
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeASCII(b *testing.B) {
	in := []byte(`[{"id":"call_1","type":"function","function":{"name":"web_search","arguments":"{\"query\":\"golang sqlite fts5 trigram tokenizer\"}"}}]`)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(in); err != nil {
			b.Fatal(err)
		}
	}
}
