package pgsearch

import "github.com/hermesstate/hermesstate/fts"

// IndexSQL writes (or rewrites) one message's row of messages_search, the
// unicode61 route's index, with the arguments [IndexArgs] returns. The
// PostgreSQL engine runs it in the transaction of every write that inserts
// a message or changes its content, tool_name or tool_calls (SQLite's
// FTS triggers do this on SQLite; PostgreSQL has no unicode61 tokenizer to
// run in a trigger). A deleted message's row goes with it (ON DELETE
// CASCADE). The trigram route needs no write: its index is on the
// messages row itself.
//
// Hand-written: $2 is a tsvector literal made in Go ([fts.TSVector]).
const IndexSQL = `INSERT INTO messages_search (id, tokens) VALUES ($1, CAST($2 AS tsvector))
ON CONFLICT (id) DO UPDATE SET tokens = excluded.tokens`

// SearchText is the text a message is searched by: content, tool name and
// tool calls joined by spaces, a NULL one as the empty text, exactly as
// SQLite's FTS triggers index it (and as MessageSearchText reads it).
func SearchText(content, toolName, toolCalls *string) string {
	s := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	return s(content) + " " + s(toolName) + " " + s(toolCalls)
}

// IndexArgs returns [IndexSQL]'s arguments for message id with these
// columns: the id and the tsvector literal of its [SearchText].
func IndexArgs(id int64, content, toolName, toolCalls *string) []any {
	return []any{id, fts.TSVector(SearchText(content, toolName, toolCalls))}
}

// IndexEmptySQL reports whether there are messages but no row of
// messages_search: the unicode61 route's index is empty, what SQLite's
// wordIndexEmptySQL detects for messages_fts (the store's
// ErrSearchIndexEmpty when a search finds nothing). The trigram and LIKE
// routes read the messages rows themselves and cannot be empty so.
//
// Hand-written: a constant probe without parameters.
const IndexEmptySQL = `SELECT EXISTS (SELECT 1 FROM messages) AND NOT EXISTS (SELECT 1 FROM messages_search)`
