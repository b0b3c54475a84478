package store

import (
	"context"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hermesstate/hermesstate/internal/backend"
)

// The snippet of a long full-text hit (see snippetMaxBytes): no FTS5
// function is used, since each costs time quadratic in the message's
// matches and cannot be interrupted. The store cuts longSnippetRunes
// characters of the indexed text starting longSnippetBefore before the
// first occurrence, in any case, of one of the query's words (runs of
// letters and digits), marks that occurrence >>> <<<, and writes "..."
// where it cut; with no occurrence (a word the tokenizer folded, such as
// one with diacritics) the cut starts at the text's start. All of it is
// linear in the text.
const (
	longSnippetRunes  = 160
	longSnippetBefore = 40
)

// longSnippet returns the snippet of hit id for the user's query.
func (s *Store) longSnippet(ctx context.Context, q backend.Tx, id int64, query string) (*string, error) {
	text, err := s.q.MessageSearchText(ctx, q, id)
	if err != nil {
		return nil, err
	}
	snippet := textSnippet(text, query)
	return &snippet, nil
}

// textSnippet is the store's snippet of a hit's search text text for the
// user's query.
func textSnippet(text, query string) string {
	return cutSnippet(text, firstQueryWord(text, query))
}

// firstQueryWord returns the byte range of the first case-insensitive
// occurrence in text of a word of query, or nil.
func firstQueryWord(text, query string) []int {
	words := strings.FieldsFunc(query, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	var alternatives []string
	for _, w := range words {
		if w != "AND" && w != "OR" && w != "NOT" && w != "NEAR" {
			alternatives = append(alternatives, regexp.QuoteMeta(w))
		}
	}
	if len(alternatives) == 0 {
		return nil
	}
	// RE2: linear in the text whatever the words.
	return regexp.MustCompile("(?i)" + strings.Join(alternatives, "|")).FindStringIndex(text)
}

// cutSnippet cuts text around the occurrence at match (a byte range, or
// nil for none).
func cutSnippet(text string, match []int) string {
	from, to := 0, 0
	if match != nil {
		from, to = match[0], match[1]
	}
	start := from
	for n := 0; n < longSnippetBefore && start > 0; n++ {
		_, size := utf8.DecodeLastRuneInString(text[:start])
		start -= size
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("...")
	}
	end := start
	for n := 0; n < longSnippetRunes && end < len(text); n++ {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
	}
	switch {
	case match == nil:
		b.WriteString(text[start:end])
	case to > end: // the occurrence runs past the cut
		b.WriteString(text[start:from] + ">>>" + text[from:end] + "<<<")
	default:
		b.WriteString(text[start:from] + ">>>" + text[from:to] + "<<<" + text[to:end])
	}
	if end < len(text) {
		b.WriteString("...")
	}
	return b.String()
}
