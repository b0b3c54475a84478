// Package sqlitesearch is the SQLite engine's half of message search: it
// turns a search plan ([fts.Plan], decided by package fts) and the search's
// filters and page ([Options]) into the one statement that runs it, as SQL
// text and named arguments ([Build], [Statement]).
//
// It exists so that the query language, the sanitiser and the routing
// decisions stay in fts, the rules of the store (query size limits, the
// default page size, one read snapshot, a hit's context) stay in store, and
// what is particular to SQLite is here alone: which FTS5 table a route
// reads, bm25 order and snippet(), the LIKE scan's statements, and binding
// lists as JSON arrays for json_each. Another engine brings its own builder
// over the same plans.
//
// A large search can also be split by rowid ranges that the store runs at
// the same time ([Statement.RangeSQL], [Statement.PageSQL],
// [Statement.ProbeSQL]; ranges.go says why each range ranks its hits as
// the whole statement does).
//
// It must not access a database (the store runs the statements, in its
// read snapshot), nor hold a rule of the store, nor decide anything about
// the query itself (routes, terms, escaping: fts's). Its SQL text is built
// from constants only; every value a statement needs is a bound parameter,
// named (@match, @sources, …) and bound by name ([Statement.Named]), so no
// argument is placed by its position. The static tests in store check both
// (TestSQLIsNeverBuiltFromInput, TestINListsAreSubqueries) and prepare
// every statement [All] lists against the real schema
// (TestHandWrittenSQLPrepares).
package sqlitesearch
