// Package pgsearch is the PostgreSQL engine's half of message search, as
// internal/sqlitesearch is SQLite's: it turns a search plan ([fts.Plan],
// decided by package fts: the same query language, sanitiser and CJK
// routing on both engines) and the search's filters and page ([Options],
// the SQLite builder's own type) into the one statement that runs it
// ([Build], [Statement]), and says how a message is indexed ([IndexSQL],
// [IndexArgs]).
//
// The routes, on the v21 schema of migrations/postgres:
//
//   - unicode61 (messages_fts on SQLite): messages_search.tokens, a
//     tsvector written by the store from [fts.TSVector] (unicode61's own
//     tokens, folded as FTS5 folds them), @@ the plan rendered by
//     [fts.TSQuery] as a tsquery literal, through its GIN index. Best
//     first by ts_rank_cd normalised by the document's length (as bm25
//     weighs a match in a short message higher), ties by id ascending.
//   - trigram (messages_fts_trigram): the plan's phrases as substrings,
//     ILIKE … ESCAPE '\' on the indexed expression (content, tool name and
//     tool calls joined by spaces, what the FTS triggers index), which the
//     pg_trgm GIN index serves; phrases under 3 characters, which FTS5's
//     trigram tokenizer makes nothing of, are resolved as FTS5 resolves
//     them ([fts.Expr.Resolve]). Ranked by the indexed text's length,
//     shortest first, in bm25's stead.
//   - like (the short-CJK scan): the plan's groups, each term matched as
//     SQLite's LIKE matches it (case-insensitive in ASCII only, on each of
//     content, tool_name and tool_calls), with an ILIKE on the indexed
//     expression in front so that pg_trgm can narrow the rows; newest first.
//
// Snippets are computed for the page only, in Go. On the full-text routes
// the statements return no snippet and mark every hit long (long_hit): the
// engine then reads the hit's search text (MessageSearchText) and, on the
// unicode61 route, makes SQLite's own snippet() with [Snippet] (the same
// text as SQLite's for every hit of the parity corpus), or, on the
// trigram route, the store's snippet of a long hit (store/search_snippet.go:
// 160 characters around the first query word, >>> <<< around it). The
// LIKE route returns the original's 120 characters of content around the
// anchor, as SQLite does (the same text).
//
// What differs from SQLite (the hit sets are the same; see
// parity_test.go): the order of hits of equal timestamp under a sort, and
// the order of ranked hits (neither stand-in is bm25: on the parity
// corpus the first hit is SQLite's for 89% of the unicode61 queries and
// 90% of the trigram ones, the whole order for 74% and 85%); the trigram
// route's snippet text (FTS5's snippet() over trigrams is not
// reproduced); a unicode61 snippet where FTS5 would report instances
// otherwise than [Snippet] models (none in the corpus); the tsvector
// limits of
// [fts.TSVector] (phrases past position 16383 or past a word's 256th
// occurrence, words past 1 MiB of lexemes); and case folding on the
// trigram route (PostgreSQL's lower() against FTS5's fold, which differ for
// a few characters outside the common scripts).
//
// Like sqlitesearch, it never touches a database and builds its SQL text
// from constants and parameter numbers only: every value is a bound
// argument.
package pgsearch
