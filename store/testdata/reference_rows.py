"""Checks that the rows of a state database are shaped as upstream Hermes
c2a3b9ce5 writes them (upstream-v21.md §1, §3, §4 and the traps of §5), with
nothing but Python's sqlite3 and json: what a Python reader of the file,
upstream's own code included, relies on. This module's own code; the
declared schema comes from reference_init.py (the v21 transcription).

usage: python3 reference_rows.py PATH
  Prints "TABLE N" (its rows) for each table of the schema, in declaration
  order, then "ok"; or one line per problem and exits with status 1.

For a file new at v21 (the column order of a migrated file differs: trap 1):
- every table has the declared columns in the declared order, with their
  declared type, NOT NULL, default and primary key;
- every value has the storage class upstream binds for its column (REAL
  columns floats, INTEGER columns ints, TEXT columns str: a BLOB in a TEXT
  column, an int in a REAL one is not what upstream writes), NULL only where
  upstream ever leaves NULL;
- the 0/1 flags hold 0 or 1;
- the JSON columns upstream writes with json.dumps hold json.dumps's own text
  (", " and ": " separators, ensure_ascii), and so does structured message
  content after its "\\x00json:" prefix (trap 11).
"""
import json
import sqlite3
import sys

import reference_init as ref

# Columns upstream never leaves NULL although the schema allows it: it binds
# a value on every insert (append_message binds timestamp and observed,
# §3.4; the DEFAULT 0 counters are only ever incremented or set; the
# times of the v21 tables are time.time()).
NEVER_NULL = {
    "sessions": {"expiry_finalized", "message_count", "tool_call_count", "input_tokens", "output_tokens",
                 "cache_read_tokens", "cache_write_tokens", "reasoning_tokens", "api_call_count"},
    "messages": {"timestamp", "observed"},
    "session_model_usage": {"api_call_count", "input_tokens", "output_tokens", "cache_read_tokens",
                            "cache_write_tokens", "reasoning_tokens", "estimated_cost_usd", "actual_cost_usd",
                            "first_seen", "last_seen"},
    "gateway_routing": {"updated_at"},
    "compression_locks": {"acquired_at", "expires_at"},
    "async_delegations": {"updated_at", "delivery_attempts"},
}

# The 0/1 flags.
FLAGS = {
    "sessions": {"expiry_finalized", "archived"},
    "messages": {"observed", "active", "compacted"},
}

# The columns upstream fills with json.dumps(value) (trap 10); origin_json
# and entry_json are the caller's text, and model_config's compact text is
# the v16 step's (json_set), which a new file never runs.
PYTHON_JSON = {
    "sessions": {"model_config"},
    "messages": {"tool_calls", "reasoning_details", "codex_reasoning_items", "codex_message_items"},
    "async_delegations": {"task_json", "event_json", "result_json"},
}

# What upstream binds for each declared type.
CLASS_OF = {"REAL": "real", "INTEGER": "integer", "TEXT": "text"}

STRUCTURED = "\x00json:"


def declared():
    """The tables of SCHEMA_SQL, in order, with PRAGMA table_info of each."""
    mem = sqlite3.connect(":memory:")
    mem.executescript(ref.SCHEMA_SQL)
    names = [r[0] for r in mem.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")]
    return [(n, [tuple(r[1:6]) for r in mem.execute("SELECT * FROM pragma_table_info(?)", (n,))]) for n in names]


def python_text(text):
    """json.dumps of text's value, or None when text is not JSON."""
    try:
        return json.dumps(json.loads(text))
    except ValueError:
        return None


def check(path):
    conn = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    problems, counts = [], []
    for table, columns in declared():
        got = [tuple(r[1:6]) for r in conn.execute("SELECT * FROM pragma_table_info(?)", (table,))]
        if got != columns:
            problems.append("%s: columns %s, upstream declares %s" % (table, got, columns))
            continue
        names = [c[0] for c in columns]
        select = ", ".join('"%s", typeof("%s")' % (n, n) for n in names)
        key = "rowid" if table != "state_meta" else "key"
        rows = conn.execute("SELECT %s, %s FROM %s ORDER BY %s" % (key, select, table, key)).fetchall()
        counts.append("%s %d" % (table, len(rows)))
        for row in rows:
            where = "%s %s" % (table, row[0])
            for i, (name, decl, notnull, _default, _pk) in enumerate(columns):
                value, cls = row[1 + 2 * i], row[2 + 2 * i]
                if cls == "null":
                    if name in NEVER_NULL.get(table, ()):
                        problems.append("%s: %s is NULL, upstream always writes it" % (where, name))
                    continue
                if cls != CLASS_OF[decl]:
                    problems.append("%s: %s holds %s in a %s column" % (where, name, cls, decl))
                    continue
                if name in FLAGS.get(table, ()) and value not in (0, 1):
                    problems.append("%s: %s is %r, not 0 or 1" % (where, name, value))
                if name in PYTHON_JSON.get(table, ()) and python_text(value) != value:
                    problems.append("%s: %s is %r, json.dumps writes %r" % (where, name, value, python_text(value)))
                if table == "messages" and name == "content" and value.startswith(STRUCTURED):
                    body = value[len(STRUCTURED):]
                    if python_text(body) != body:
                        problems.append("%s: structured content %r, json.dumps writes %r" % (where, body, python_text(body)))
    conn.close()
    return counts, problems


def main():
    counts, problems = check(sys.argv[1])
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print("\n".join(counts + ["ok"]))


if __name__ == "__main__":
    main()
