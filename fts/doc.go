// Package fts turns what a user types into the search box into a search
// plan for the session store: which index to use and what to look for on
// it. It is pure: it never touches a database, and it writes no statement.
//
// [Parse] is the entry point; it returns a final [Plan], everything an
// engine needs, so that every engine runs the same query language with the
// same sanitiser and the same CJK routing, and brings only its own
// statements (the SQLite ones are in internal/sqlitesearch). Its [Route] is
// one of [RouteUnicode61] (an FTS5 MATCH expression for messages_fts),
// [RouteTrigram] (one for messages_fts_trigram), [RouteLike] (a substring
// scan, described by groups of type [LikeGroup] and the snippet's anchor) or
// [RouteNone] (nothing to search for). The LIKE groups come normalised
// (operators folded, every group with a positive term), and each term comes
// both as its literal text and as an escaped LIKE pattern ([LikeTerm]): the
// text for an engine that matches substrings without LIKE and for the
// anchor, the pattern for one that uses LIKE ... ESCAPE '\'. What the plan
// leaves to an engine is only how it writes the statement: how it binds the
// groups and the filters, and which statement shape it picks.
//
// For an engine without FTS5 (PostgreSQL: internal/pgsearch), [Tokens] is
// unicode61's tokenizer in Go, [TSVector] a document's tokens as a tsvector
// literal, [ParseMatch] a plan's MATCH expression as a tree ([Expr], with
// FTS5's rule for phrases without tokens in [Expr.Resolve]) and [TSQuery]
// a unicode61 plan as a tsquery literal: the same words match on both.
//
// [Sanitize] is the Python original's sanitiser as upstream has it at
// schema v21 (c2a3b9ce5), reproduced exactly;
// [IsCJK], [ContainsCJK] and [CountCJK] are its CJK helpers; [EscapeLike]
// escapes LIKE patterns as it does.
//
// # What users may type
//
//   - Words: docker deploy finds messages with both words (implicit AND).
//     In the unicode61 index words match whole, ignoring case and
//     diacritics.
//   - "Quoted phrases": the words next to each other, in that order.
//   - A prefix: deploy* also finds deployment.
//   - AND, OR and NOT in upper case between terms: docker OR podman,
//     python NOT java. NOT binds tighter than AND, AND tighter than OR.
//     As in FTS5, lower-case and, or and not are ordinary words, and a
//     quoted "OR" searches for the word.
//
// A ':' is read as a space, as upstream does since v21 (TODO: fix is TODO
// fix): FTS5's column filter (content:word) is not available.
//
// Anything else is searched as literally as the index allows; see below.
//
// # How a query is read
//
// Parse starts from Sanitize's output, as the original does: the first
// [MaxQueryChars] code points are read, balanced phrases are kept,
// + { } ( ) : ^ and unbalanced double quotes become spaces, a leading '*' is dropped, one leading and one trailing AND/OR/NOT
// (any case) are removed, and words joined by '.', '-' or '_' are quoted
// (chat-send → "chat-send", P2.2 → "P2.2", sp_new → "sp_new"). Python's
// Unicode \w, \b and \s are reproduced by hand (Go's regexp classes are
// ASCII-only).
//
// When SQLite accepts that output as an FTS5 query, it is the MATCH
// expression, unchanged: every query the original could run, runs the same
// way. When SQLite would reject it (the original then silently returned no
// results), Parse repairs it word by word, a word being a run of
// characters between whitespace (a quoted phrase, spaces and all, belongs
// to the word it starts in):
//
//   - A word FTS5 accepts on its own (a bareword of ASCII letters, digits,
//     '_' or non-ASCII characters, perhaps with a '*' after it, a "phrase")
//     stays as it is.
//   - Any other word becomes a phrase of its literal text, quotes inside
//     doubled: it's → "it's", gateway/run.py →
//     "gateway/run.py", user@example.com → "user@example.com", --force →
//     "--force", .env → ".env". The unicode61 tokenizer splits the phrase
//     into its words, so it finds exactly that sequence of words.
//   - A word with no letter or digit (-, ..., an emoji) is dropped: the
//     index holds no such token, and FTS5 would treat it as matching
//     nothing, so "a AND -" would find nothing at all.
//   - An operator counts only between two terms. Operators before the first
//     term or after the last are dropped, and of several in a row the last
//     wins: a AND OR b → a OR b, a AND NOT b → a NOT b. A query of only
//     operators searches for them as words: OR OR → "OR". (A lone OR or
//     AND is removed by Sanitize and searches for nothing.)
//   - NEAR( cannot hurt: Sanitize removes the parenthesis and NEAR is then
//     an ordinary word.
//   - Whitespace FTS5 does not skip (\v, \f, U+001C–U+001F, Unicode spaces)
//     separates words like a space; NUL, where SQLite would stop reading,
//     does too, and never reaches the query.
//   - FTS5 refuses expressions nested more than 256 deep, which only a
//     chain of more than 256 NOTs builds; such a query is run with its
//     operators dropped.
//
// Invalid UTF-8 bytes are read as U+FFFD, as Python would have received
// them decoded; no tokenizer indexes U+FFFD, so on their own they search
// for nothing. Empty or whitespace-only input, and input that leaves
// nothing to search for (***, AND, "", …), gives RouteNone.
//
// # Routing
//
// Routing is decided on the sanitised text, as in the original:
//
//   - No CJK code point ([IsCJK]): the unicode61 index.
//   - CJK, at least 3 CJK code points in all, and every non-operator word
//     that has CJK has at least 3 of them: the trigram index. Every word is
//     quoted as a phrase, operators are kept between terms as above, and a
//     prefix '*' after an unquoted word is dropped (trigram terms match
//     inside words anyway): 记忆系统 OR 断裂连接 → "记忆系统" OR "断裂连接".
//   - Otherwise (fewer CJK characters than a trigram needs): the LIKE scan.
//     The words are split at OR into groups ([LikeGroup]), which are
//     ORed; within a group the words are ANDed, a word after NOT must be
//     absent and AND only separates; a group left without a positive term
//     is dropped. Terms are literal substrings (100%完成 looks for the '%':
//     its pattern is %100\%完成%). 广西 OR 桂林 OR 漓江 OR 旅游 is four
//     groups of one term. The snippet is centred on the first occurrence of
//     the first group's first term, the anchor.
//
// U+3000, the ideographic space, is one of the CJK code points: a query
// with it takes one of the CJK routes even when its words have no CJK.
//
// # Differences from the original
//
//   - The original returned no results, silently, whenever its sanitised
//     query was invalid FTS5 (a AND OR b, it's, x - y, rm -rf,
//     user@example.com, 3/7, gateway/run.py, …; upstream still does at
//     v21, which fixed only the colon). Parse repairs those queries as
//     described above; queries the original could run are unchanged.
//   - OR-combined short CJK words (广西 OR 桂林 OR 漓江 OR 旅游) go to the
//     LIKE scan, as upstream's later fix 058c50816 has it: the original
//     sent them to the trigram index, where words under 3 characters match
//     nothing. Where that fix ORs every word, Parse keeps AND, OR and NOT.
//   - The original's LIKE path searched for the whole sanitised query as
//     one substring, operators included; Parse searches for the words.
//   - The original's trigram path stripped the outer quotes of the whole
//     query and then split it at whitespace, so "记忆 断裂" became two
//     phrases; Parse keeps a quoted phrase as one term, spaces included.
//     It also treats only upper-case AND/OR/NOT as operators, where the
//     original passed lower-case ones through as words anyway.
//
// Terms under 3 characters in a trigram query behave as SQLite makes them:
// they are ignored next to a longer term (记忆断裂 ab), but an explicit AND
// with one matches nothing.
package fts
