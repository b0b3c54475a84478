package backend

import (
	"strings"

	"github.com/hermesstate/hermesstate/internal/sentinel"
	"github.com/hermesstate/hermesstate/internal/transfer"
)

// The content column on PostgreSQL. Upstream stores structured
// (multimodal) content as U+0000 "json:" and the JSON, and SQLite keeps it
// so; PostgreSQL's text cannot hold U+0000 at all. The PostgreSQL engine
// therefore stores a leading U+0000 as U+0001, and a content that itself
// begins with U+0001 with that character doubled, so every content reads
// back exactly as written. A U+0000 anywhere else is refused by the server
// (SQLSTATE 22021, which the store reports as ErrInvalidText).
const pgContentMarker = "\x01"

// encodeContent is the PostgreSQL form of content c.
func encodeContent(c *string) *string {
	if c == nil {
		return nil
	}
	s := *c
	switch {
	case strings.HasPrefix(s, "\x00"):
		s = pgContentMarker + s[1:]
	case strings.HasPrefix(s, pgContentMarker):
		s = pgContentMarker + s
	default:
		return c
	}
	return &s
}

// decodeContent undoes encodeContent.
func decodeContent(c *string) *string {
	if c == nil || !strings.HasPrefix(*c, pgContentMarker) {
		return c
	}
	s := decodeContentText(*c)
	return &s
}

// decodeContentText undoes encodeContent on a content read as text (a
// prefix of one, such as a search context's first 200 characters, too).
func decodeContentText(s string) string {
	switch {
	case strings.HasPrefix(s, pgContentMarker+pgContentMarker):
		return s[1:]
	case strings.HasPrefix(s, pgContentMarker):
		return "\x00" + s[1:]
	}
	return s
}

// decodeContentBytes is decodeContentText for content read as bytes.
func decodeContentBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return []byte(decodeContentText(string(b)))
}

// errNUL is the error of a write whose text holds U+0000, which
// PostgreSQL's text cannot store (the content column's leading marker
// aside, see encodeContent). It matches transfer.ErrInvalidText, the
// store's ErrInvalidText.
var errNUL = sentinel.New("text holds U+0000, which PostgreSQL cannot store", transfer.ErrInvalidText)

// noNUL returns errNUL when one of the texts (each a string or a *string)
// holds U+0000: checked before the statement is sent, so that every query
// exec mode refuses it alike (the server answers a NUL in a bound
// parameter with 22021, one in a simple-protocol literal with 08P01).
func noNUL(texts ...any) error {
	for _, t := range texts {
		var s string
		switch t := t.(type) {
		case string:
			s = t
		case *string:
			if t == nil {
				continue
			}
			s = *t
		}
		if strings.IndexByte(s, 0) >= 0 {
			return errNUL
		}
	}
	return nil
}
