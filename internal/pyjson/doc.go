// Package pyjson writes JSON text exactly as CPython's json.dumps(x) does with its default
// arguments, so that the Go port stores byte-identical JSON columns (spec §8.1, §12).
//
// The default Python format is: item separator ", ", key separator ": ", ensure_ascii=True
// (every character outside 0x20–0x7E is written as a \uXXXX escape with lowercase hex digits,
// characters above U+FFFF as a UTF-16 surrogate pair, and \b \f \n \r \t, \" and \\ use their
// short escapes), no HTML escaping, "/" not escaped, keys in insertion order, and empty
// containers written as [] and {}.
//
// Input arrives as JSON text (typically a json.RawMessage from a Go caller). It is re-encoded
// token by token by a small non-recursive scanner, so memory use is linear in the input size.
// Nesting deeper than [MaxDepth] levels is refused: Python could not read it back.
//
// Deliberate differences from a literal json.dumps(json.loads(raw)) round trip:
//
//   - Number literals are copied verbatim after validation (1e5 stays 1e5, 1.50 stays 1.50),
//     where Python would re-format floats (100000.0, 1.5). The Go caller owns the number text;
//     callers that want Python's float formatting must send Python's repr.
//   - Duplicate object keys are kept, in the given order; Python's json.loads would keep only
//     the last value (at the position of the first occurrence).
//   - NaN, Infinity and -Infinity are rejected (Python's json.loads accepts them); they are
//     not JSON and no Go encoder produces them.
//   - Invalid UTF-8 inside strings is rejected: a Python str could never have produced it.
//
// Escapes in the input are decoded and re-escaped the way Python would: \u0041 becomes A,
// \u000a becomes \n, \/ becomes /, and a \uXXXX escape of a lone surrogate is kept as a
// lowercase \udxxx escape, exactly as Python round-trips it.
//
// It must not decide what a column holds or whether a value is allowed there
// (that is the store's rule); it only turns valid JSON into Python's text of
// it, and it never touches a database.
package pyjson
