package pytext

import (
	"regexp"
	"strings"
)

// The three substitutions of agent.memory_manager.sanitize_context, in order (spec §8.4; the
// banner's second form, "Treat as authoritative reference data…", is upstream c2a3b9ce5's):
//
//	re.sub(r'<\s*memory-context\s*>[\s\S]*?</\s*memory-context\s*>', '', text, flags=re.I)
//	re.sub(r'\[System note:\s*The following is recalled memory context,\s*NOT new user input\.\s*Treat as (?:informational background data|authoritative reference data[^\]]*)\.\]\s*', '', text, flags=re.I)
//	re.sub(r'</?\s*memory-context\s*>', '', text, flags=re.I)
//
// translated to RE2 with Python's Unicode \s (pySpace) and Python's IGNORECASE letter
// equivalences spelled out (foldLiteral), since Go's \s is ASCII-only and Go's (?i) folds
// differently. [\s\S]*? becomes (?s:.)*?; RE2's leftmost-first matching of these patterns
// selects the same spans as Python's backtracking engine.
var (
	memoryContextBlock = regexp.MustCompile(`<` + pySpace + `*` + foldLiteral("memory-context") + pySpace + `*>` +
		`(?s:.)*?` +
		`</` + pySpace + `*` + foldLiteral("memory-context") + pySpace + `*>`)
	memorySystemNote = regexp.MustCompile(foldLiteral("[System note:") + pySpace + `*` +
		foldLiteral("The following is recalled memory context,") + pySpace + `*` +
		foldLiteral("NOT new user input.") + pySpace + `*` +
		foldLiteral("Treat as ") + `(?:` + foldLiteral("informational background data") + `|` +
		foldLiteral("authoritative reference data") + `[^\]]*)` + foldLiteral(".]") + pySpace + `*`)
	memoryContextTag = regexp.MustCompile(`</?` + pySpace + `*` + foldLiteral("memory-context") + pySpace + `*>`)
)

// SanitizeContext is agent.memory_manager.sanitize_context: it removes whole
// <memory-context>…</memory-context> blocks (shortest match, across lines), then the
// "[System note: The following is recalled memory context, …]" banner (either form) with the whitespace
// after it, then any leftover opening or closing memory-context tag, all case-insensitively
// and with Python's Unicode whitespace inside the tags. It returns the result without
// stripping it (callers strip with Strip). Invalid UTF-8 bytes match as U+FFFD and are
// otherwise copied through unchanged.
func SanitizeContext(text string) string {
	// Every pattern starts with '<' or '['; most messages contain neither,
	// and skipping the three regexp scans makes conversation replay of a
	// long history several times cheaper.
	if !strings.ContainsAny(text, "<[") {
		return text
	}
	text = memoryContextBlock.ReplaceAllLiteralString(text, "")
	text = memorySystemNote.ReplaceAllLiteralString(text, "")
	return memoryContextTag.ReplaceAllLiteralString(text, "")
}

// pythonFoldExtras lists, for the ASCII letters that have them, the non-ASCII characters
// Python's re.IGNORECASE also matches (verified by brute force over every code point with
// CPython 3.11: i ↔ İ ı, k ↔ K (Kelvin), s ↔ ſ).
var pythonFoldExtras = map[rune]string{
	'i': `\x{130}\x{131}`,
	'k': `\x{212a}`,
	's': `\x{17f}`,
}

// foldLiteral returns an RE2 pattern matching lit the way a Python re.IGNORECASE pattern
// consisting of lit (taken literally) matches: each ASCII letter becomes a class of both
// cases plus Python's extra equivalents; everything else is quoted.
func foldLiteral(lit string) string {
	var b strings.Builder
	for _, r := range lit {
		lower := r | 0x20
		if 'a' <= lower && lower <= 'z' {
			b.WriteString("[" + string(lower-0x20) + string(lower) + pythonFoldExtras[lower] + "]")
			continue
		}
		b.WriteString(regexp.QuoteMeta(string(r)))
	}
	return b.String()
}
