"""The original's SessionDB.search_messages at schema v11, transcribed from
reference-spec.md §9.3 (hermes_state.py blob e2ca5964, NousResearch/hermes-agent
289cc476), with its sanitiser and CJK helpers imported from
fts/testdata/reference_sanitize.py. The interoperability test runs it on a
file this module wrote to show the original finds what the store finds.

usage: python3 reference_search.py PATH < queries.json
  Reads a JSON list of queries and prints a JSON list with, for each query,
  the original's results as [id, snippet, [context contents...]].
"""
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "fts", "testdata"))
from reference_sanitize import _contains_cjk, _count_cjk, _sanitize_fts5_query  # noqa: E402

FTS_SQL = """
SELECT m.id, m.session_id, m.role,
    snippet({table}, 0, '>>>', '<<<', '...', 40) AS snippet,
    m.content, m.timestamp, m.tool_name, s.source, s.model, s.started_at AS session_started
FROM {table}
JOIN messages m ON m.id = {table}.rowid
JOIN sessions s ON s.id = m.session_id
WHERE {table} MATCH ?
ORDER BY rank
LIMIT ? OFFSET ?
"""

LIKE_SQL = """
SELECT m.id, m.session_id, m.role,
       substr(m.content, max(1, instr(m.content, ?) - 40), 120) AS snippet,
       m.content, m.timestamp, m.tool_name,
       s.source, s.model, s.started_at AS session_started
FROM messages m
JOIN sessions s ON s.id = m.session_id
WHERE (m.content LIKE ? ESCAPE '\\' OR m.tool_name LIKE ? ESCAPE '\\' OR m.tool_calls LIKE ? ESCAPE '\\')
ORDER BY m.timestamp DESC
LIMIT ? OFFSET ?
"""

CONTEXT_SQL = """
WITH target AS (
       SELECT session_id, timestamp, id
       FROM messages
       WHERE id = ?
   )
   SELECT role, content
   FROM (
       SELECT m.id, m.timestamp, m.role, m.content
       FROM messages m
       JOIN target t ON t.session_id = m.session_id
       WHERE (m.timestamp < t.timestamp)
          OR (m.timestamp = t.timestamp AND m.id < t.id)
       ORDER BY m.timestamp DESC, m.id DESC
       LIMIT 1
   )
   UNION ALL
   SELECT role, content
   FROM messages
   WHERE id = ?
   UNION ALL
   SELECT role, content
   FROM (
       SELECT m.id, m.timestamp, m.role, m.content
       FROM messages m
       JOIN target t ON t.session_id = m.session_id
       WHERE (m.timestamp > t.timestamp)
          OR (m.timestamp = t.timestamp AND m.id > t.id)
       ORDER BY m.timestamp ASC, m.id ASC
       LIMIT 1
   )
"""


def search_messages(conn, query, limit=20, offset=0):
    if not query or not query.strip():
        return []
    query = _sanitize_fts5_query(query)
    if not query:
        return []
    if _contains_cjk(query):
        raw_query = query.strip('"').strip()
        if _count_cjk(raw_query) >= 3:
            tokens = []
            for tok in raw_query.split():
                if tok.upper() in ("AND", "OR", "NOT"):
                    tokens.append(tok)
                else:
                    tokens.append('"' + tok.replace('"', '""') + '"')
            try:
                rows = conn.execute(FTS_SQL.format(table="messages_fts_trigram"),
                                    [" ".join(tokens), limit, offset]).fetchall()
            except sqlite3.OperationalError:
                rows = []
        else:
            escaped = raw_query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            pattern = "%" + escaped + "%"
            rows = conn.execute(LIKE_SQL, [raw_query, pattern, pattern, pattern, limit, offset]).fetchall()
    else:
        try:
            rows = conn.execute(FTS_SQL.format(table="messages_fts"), [query, limit, offset]).fetchall()
        except sqlite3.OperationalError:
            return []
    out = []
    for row in rows:
        try:
            ctx = conn.execute(CONTEXT_SQL, (row[0], row[0])).fetchall()
            context = [(c[1] or "")[:200] for c in ctx]
        except Exception:
            context = []
        out.append([row[0], row[3], context])
    return out


def main():
    conn = sqlite3.connect(sys.argv[1], timeout=1.0, isolation_level=None)
    queries = json.loads(sys.stdin.read())
    print(json.dumps([search_messages(conn, q) for q in queries]))


if __name__ == "__main__":
    main()
