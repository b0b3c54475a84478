"""The Python original's SessionDB setup and _init_schema at schema v11,
transcribed from reference-spec.md §2, §3 and §5.3 (hermes_state.py blob
e2ca5964, NousResearch/hermes-agent 289cc476). The interoperability tests run
it against files this module writes, and use the files it writes, to show the
two implementations open each other's databases as their own.

usage: python3 reference_init.py PATH [seed]
  Opens PATH exactly as SessionDB(db_path=PATH) does, prints "version N",
  and with "seed" also writes one session and one message the way
  create_session and append_message do (without the counters).
"""
import sqlite3
import sys
import time

SCHEMA_SQL = """
CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    user_id TEXT,
    model TEXT,
    model_config TEXT,
    system_prompt TEXT,
    parent_session_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT,
    message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0,
    cache_read_tokens INTEGER DEFAULT 0,
    cache_write_tokens INTEGER DEFAULT 0,
    reasoning_tokens INTEGER DEFAULT 0,
    billing_provider TEXT,
    billing_base_url TEXT,
    billing_mode TEXT,
    estimated_cost_usd REAL,
    actual_cost_usd REAL,
    cost_status TEXT,
    cost_source TEXT,
    pricing_version TEXT,
    title TEXT,
    api_call_count INTEGER DEFAULT 0,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);

CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT,
    reasoning TEXT,
    reasoning_content TEXT,
    reasoning_details TEXT,
    codex_reasoning_items TEXT,
    codex_message_items TEXT
);

CREATE TABLE IF NOT EXISTS state_meta (
    key TEXT PRIMARY KEY,
    value TEXT
);

CREATE INDEX IF NOT EXISTS idx_sessions_source ON sessions(source);
CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX IF NOT EXISTS idx_sessions_started ON sessions(started_at DESC);
CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id, timestamp);
"""

FTS_SQL = """
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    content
);

CREATE TRIGGER IF NOT EXISTS messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (
        new.id,
        COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, '')
    );
END;

CREATE TRIGGER IF NOT EXISTS messages_fts_delete AFTER DELETE ON messages BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id;
END;

CREATE TRIGGER IF NOT EXISTS messages_fts_update AFTER UPDATE ON messages BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id;
    INSERT INTO messages_fts(rowid, content) VALUES (
        new.id,
        COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, '')
    );
END;
"""

FTS_TRIGRAM_SQL = """
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts_trigram USING fts5(
    content,
    tokenize='trigram'
);

CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts_trigram(rowid, content) VALUES (
        new.id,
        COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, '')
    );
END;

CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_delete AFTER DELETE ON messages BEGIN
    DELETE FROM messages_fts_trigram WHERE rowid = old.id;
END;

CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_update AFTER UPDATE ON messages BEGIN
    DELETE FROM messages_fts_trigram WHERE rowid = old.id;
    INSERT INTO messages_fts_trigram(rowid, content) VALUES (
        new.id,
        COALESCE(new.content, '') || ' ' || COALESCE(new.tool_name, '') || ' ' || COALESCE(new.tool_calls, '')
    );
END;
"""

SCHEMA_VERSION = 11


def parse_schema_columns(schema_sql):
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(schema_sql)
        out = {}
        for (tbl,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
        ).fetchall():
            cols = {}
            for _cid, name, typ, notnull, dflt, pk in conn.execute(f'PRAGMA table_info("{tbl}")'):
                parts = []
                if typ:
                    parts.append(typ)
                if notnull and not pk:
                    parts.append("NOT NULL")
                if dflt is not None:
                    parts.append(f"DEFAULT {dflt}")
                cols[name] = " ".join(parts)
            out[tbl] = cols
        return out
    finally:
        conn.close()


def reconcile_columns(cursor):
    for table, declared in parse_schema_columns(SCHEMA_SQL).items():
        try:
            live = {row[1] for row in cursor.execute(f'PRAGMA table_info("{table}")').fetchall()}
        except sqlite3.OperationalError:
            continue
        for name, col_type in declared.items():
            if name in live:
                continue
            safe_name = name.replace('"', '""')
            try:
                cursor.execute(f'ALTER TABLE "{table}" ADD COLUMN "{safe_name}" {col_type}')
            except sqlite3.OperationalError:
                pass


def init_schema(conn):
    cursor = conn.cursor()
    cursor.executescript(SCHEMA_SQL)
    reconcile_columns(cursor)
    row = cursor.execute("SELECT version FROM schema_version LIMIT 1").fetchone()
    if row is None:
        cursor.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
    else:
        current_version = row[0]
        if current_version < 10:
            try:
                cursor.execute("SELECT * FROM messages_fts_trigram LIMIT 0")
            except sqlite3.OperationalError:
                cursor.executescript(FTS_TRIGRAM_SQL)
                cursor.execute(
                    "INSERT INTO messages_fts_trigram(rowid, content) "
                    "SELECT id, content FROM messages WHERE content IS NOT NULL"
                )
        if current_version < 11:
            for trig in (
                "messages_fts_insert", "messages_fts_delete", "messages_fts_update",
                "messages_fts_trigram_insert", "messages_fts_trigram_delete", "messages_fts_trigram_update",
            ):
                try:
                    cursor.execute(f"DROP TRIGGER IF EXISTS {trig}")
                except sqlite3.OperationalError:
                    pass
            for tbl in ("messages_fts", "messages_fts_trigram"):
                try:
                    cursor.execute(f"DROP TABLE IF EXISTS {tbl}")
                except sqlite3.OperationalError:
                    pass
            cursor.executescript(FTS_SQL)
            cursor.executescript(FTS_TRIGRAM_SQL)
            projection = "COALESCE(content, '') || ' ' || COALESCE(tool_name, '') || ' ' || COALESCE(tool_calls, '')"
            cursor.execute(f"INSERT INTO messages_fts(rowid, content) SELECT id, {projection} FROM messages")
            cursor.execute(f"INSERT INTO messages_fts_trigram(rowid, content) SELECT id, {projection} FROM messages")
            cursor.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
    try:
        cursor.execute(
            "CREATE UNIQUE INDEX IF NOT EXISTS idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL"
        )
    except sqlite3.OperationalError:
        pass
    try:
        cursor.execute("SELECT * FROM messages_fts LIMIT 0")
    except sqlite3.OperationalError:
        cursor.executescript(FTS_SQL)
    try:
        cursor.execute("SELECT * FROM messages_fts_trigram LIMIT 0")
    except sqlite3.OperationalError:
        cursor.executescript(FTS_TRIGRAM_SQL)
    conn.commit()


def main():
    path = sys.argv[1]
    conn = sqlite3.connect(path, check_same_thread=False, timeout=1.0, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA foreign_keys=ON")
    init_schema(conn)
    if len(sys.argv) > 2 and sys.argv[2] == "seed":
        now = time.time()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(
            "INSERT OR IGNORE INTO sessions (id, source, user_id, model, model_config, "
            "system_prompt, parent_session_id, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            ("py-session", "cli", None, "m", '{"temperature": 0.5}', None, None, now),
        )
        conn.execute(
            "INSERT INTO messages (session_id, role, content, tool_name, timestamp) VALUES (?, ?, ?, ?, ?)",
            ("py-session", "user", "written by python", "PYTOOL", now),
        )
        conn.execute("COMMIT")
    print("version", conn.execute("SELECT version FROM schema_version LIMIT 1").fetchone()[0])
    try:
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
    except Exception:
        pass
    conn.close()


if __name__ == "__main__":
    main()
