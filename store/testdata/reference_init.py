"""Upstream Hermes's SessionDB setup and _init_schema at schema v21
(hermes-agent c2a3b9ce5), transcribed from upstream-v21.md §1 and §2 (the
delta from reference-spec.md's v11, §2, §3 and §5.3). The interoperability
tests run it against files this module writes, and use the files it writes,
to show the two implementations open each other's databases as their own.
The DDL strings are upstream's statements byte for byte (sqlite_master keeps
their text); the code around them is this module's own, in the order the
reference describes.

usage: python3 reference_init.py PATH [seed]
  Opens PATH as SessionDB(db_path=PATH) does, prints "version N", and with
  "seed" also writes one session and one message the way create_session and
  append_message do at v21 (without the counters). The v18 step reads
  $HERMES_HOME/sessions/sessions.json (else ~/.hermes/...), as upstream does.
"""
import json
import os
import sqlite3
import sys
import time
from pathlib import Path

SCHEMA_SQL = """
CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    user_id TEXT,
    session_key TEXT,
    chat_id TEXT,
    chat_type TEXT,
    thread_id TEXT,
    display_name TEXT,
    origin_json TEXT,
    expiry_finalized INTEGER DEFAULT 0,
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
    cwd TEXT,
    git_branch TEXT,
    git_repo_root TEXT,
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
    handoff_state TEXT,
    handoff_platform TEXT,
    handoff_error TEXT,
    compression_failure_cooldown_until REAL,
    compression_failure_error TEXT,
    compression_fallback_streak INTEGER NOT NULL DEFAULT 0,
    rewind_count INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0,
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
    effect_disposition TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT,
    reasoning TEXT,
    reasoning_content TEXT,
    reasoning_details TEXT,
    codex_reasoning_items TEXT,
    codex_message_items TEXT,
    platform_message_id TEXT,
    observed INTEGER DEFAULT 0,
    active INTEGER NOT NULL DEFAULT 1,
    compacted INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS session_model_usage (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    billing_provider TEXT NOT NULL DEFAULT '',
    billing_base_url TEXT NOT NULL DEFAULT '',
    billing_mode TEXT NOT NULL DEFAULT '',
    api_call_count INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens INTEGER NOT NULL DEFAULT 0,
    estimated_cost_usd REAL NOT NULL DEFAULT 0,
    actual_cost_usd REAL NOT NULL DEFAULT 0,
    cost_status TEXT,
    cost_source TEXT,
    first_seen REAL,
    last_seen REAL,
    PRIMARY KEY (session_id, model, billing_provider, billing_base_url, billing_mode)
);

CREATE TABLE IF NOT EXISTS state_meta (
    key TEXT PRIMARY KEY,
    value TEXT
);

CREATE TABLE IF NOT EXISTS gateway_routing (
    scope TEXT NOT NULL DEFAULT '',
    session_key TEXT NOT NULL,
    entry_json TEXT NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (scope, session_key)
);

CREATE TABLE IF NOT EXISTS compression_locks (
    session_id TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    acquired_at REAL NOT NULL,
    expires_at REAL NOT NULL
);

CREATE TABLE IF NOT EXISTS async_delegations (
    delegation_id TEXT PRIMARY KEY,
    origin_session TEXT NOT NULL,
    origin_ui_session_id TEXT NOT NULL DEFAULT '',
    parent_session_id TEXT,
    state TEXT NOT NULL,
    dispatched_at REAL NOT NULL,
    completed_at REAL,
    updated_at REAL NOT NULL,
    event_json TEXT,
    result_json TEXT,
    delivery_state TEXT NOT NULL DEFAULT 'pending',
    delivery_attempts INTEGER NOT NULL DEFAULT 0,
    delivered_at REAL,
    owner_pid INTEGER,
    owner_started_at INTEGER,
    task_json TEXT,
    delivery_claim TEXT,
    delivery_claimed_at REAL
);

CREATE INDEX IF NOT EXISTS idx_sessions_source ON sessions(source);
CREATE INDEX IF NOT EXISTS idx_sessions_source_id ON sessions(source, id);
CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX IF NOT EXISTS idx_sessions_started ON sessions(started_at DESC);
CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id, timestamp);
CREATE INDEX IF NOT EXISTS idx_compression_locks_expires ON compression_locks(expires_at);
CREATE INDEX IF NOT EXISTS idx_session_model_usage_session ON session_model_usage(session_id);
CREATE INDEX IF NOT EXISTS idx_session_model_usage_model ON session_model_usage(model);
CREATE INDEX IF NOT EXISTS idx_async_delegations_delivery
    ON async_delegations(delivery_state, completed_at);
"""

DEFERRED_INDEX_SQL = """
CREATE INDEX IF NOT EXISTS idx_messages_session_active
    ON messages(session_id, active, timestamp);
CREATE INDEX IF NOT EXISTS idx_messages_active_null
    ON messages(active) WHERE active IS NULL;
CREATE INDEX IF NOT EXISTS idx_sessions_session_key
    ON sessions(session_key, started_at DESC);
CREATE INDEX IF NOT EXISTS idx_sessions_gateway_peer
    ON sessions(source, user_id, chat_id, chat_type, thread_id, started_at DESC);
CREATE INDEX IF NOT EXISTS idx_sessions_handoff_state
    ON sessions(handoff_state, started_at);
"""

PLATFORM_INDEX_SQL = (
    "CREATE INDEX IF NOT EXISTS idx_messages_platform_msg_id "
    "ON messages(session_id, platform_message_id) "
    "WHERE platform_message_id IS NOT NULL"
)

TITLE_INDEX_SQL = (
    "CREATE UNIQUE INDEX IF NOT EXISTS idx_sessions_title_unique "
    "ON sessions(title) WHERE title IS NOT NULL"
)

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

FTS_TRIGGERS = (
    "messages_fts_insert", "messages_fts_delete", "messages_fts_update",
    "messages_fts_trigram_insert", "messages_fts_trigram_delete", "messages_fts_trigram_update",
)

# What both FTS indexes hold for a message row (§1.2 step 9).
INDEXED_TEXT = "COALESCE(content, '') || ' ' || COALESCE(tool_name, '') || ' ' || COALESCE(tool_calls, '')"

# The gated data steps (§2.2), as upstream sends them.
V16_TAG_CHILDREN = "UPDATE sessions SET model_config = json_set(COALESCE(model_config, '{}'), '$._delegate_from', parent_session_id) WHERE parent_session_id IS NOT NULL AND json_extract(COALESCE(model_config, '{}'), '$._delegate_from') IS NULL AND (sessions.parent_session_id IS NOT NULL AND NOT (json_extract(COALESCE(sessions.model_config, '{}'), '$._branched_from') IS NOT NULL OR EXISTS (SELECT 1 FROM sessions p            WHERE p.id = sessions.parent_session_id            AND p.end_reason = 'branched'            AND sessions.started_at >= p.ended_at)) AND NOT (EXISTS (SELECT 1 FROM sessions p        WHERE p.id = sessions.parent_session_id        AND p.end_reason = 'compression')))"
V16_TAG_ORPHANS = "UPDATE sessions SET model_config = json_set(COALESCE(model_config, '{}'), '$._delegate_from', '__orphaned__') WHERE parent_session_id IS NULL AND json_extract(COALESCE(model_config, '{}'), '$._delegate_from') IS NULL AND json_extract(COALESCE(model_config, '{}'), '$._branched_from') IS NULL AND title IS NULL AND message_count <= 25 AND EXISTS (SELECT 1 FROM messages m             WHERE m.session_id = sessions.id AND m.role = 'tool') AND NOT EXISTS (SELECT 1 FROM sessions ch                 WHERE ch.parent_session_id = sessions.id)"
V18_GATEWAY_METADATA = """UPDATE sessions
                   SET session_key = COALESCE(session_key, ?),
                       chat_id = COALESCE(chat_id, ?),
                       chat_type = COALESCE(chat_type, ?),
                       thread_id = COALESCE(thread_id, ?),
                       display_name = COALESCE(display_name, ?),
                       origin_json = COALESCE(origin_json, ?),
                       expiry_finalized = CASE
                           WHEN COALESCE(expiry_finalized, 0) = 0 AND ? = 1 THEN 1
                           ELSE expiry_finalized
                       END
                   WHERE id = ?"""
V20_SEED_USAGE = """INSERT OR IGNORE INTO session_model_usage (
                               session_id, model, billing_provider,
                               billing_base_url, billing_mode,
                               api_call_count, input_tokens,
                               output_tokens, cache_read_tokens,
                               cache_write_tokens, reasoning_tokens,
                               estimated_cost_usd, actual_cost_usd,
                               cost_status, cost_source, first_seen, last_seen
                           )
                           SELECT id, COALESCE(model, 'unknown'),
                                  COALESCE(billing_provider, ''),
                                  COALESCE(billing_base_url, ''),
                                  COALESCE(billing_mode, ''),
                                  COALESCE(api_call_count, 0),
                                  COALESCE(input_tokens, 0),
                                  COALESCE(output_tokens, 0),
                                  COALESCE(cache_read_tokens, 0),
                                  COALESCE(cache_write_tokens, 0),
                                  COALESCE(reasoning_tokens, 0),
                                  COALESCE(estimated_cost_usd, 0),
                                  COALESCE(actual_cost_usd, 0),
                                  cost_status, cost_source,
                                  started_at, COALESCE(ended_at, started_at)
                           FROM sessions
                           WHERE COALESCE(input_tokens, 0)
                                 + COALESCE(output_tokens, 0)
                                 + COALESCE(cache_read_tokens, 0)
                                 + COALESCE(cache_write_tokens, 0)
                                 + COALESCE(reasoning_tokens, 0) > 0"""

SCHEMA_VERSION = 21


def declared_columns(schema_sql):
    """Each table's declared columns with the type expression ALTER TABLE
    ADD COLUMN gets: type, NOT NULL unless primary key, DEFAULT (§2.1 step 2)."""
    ref = sqlite3.connect(":memory:")
    try:
        ref.executescript(schema_sql)
        tables = [r[0] for r in ref.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
        out = {}
        for table in tables:
            cols = {}
            for _cid, name, typ, notnull, dflt, pk in ref.execute(f'PRAGMA table_info("{table}")'):
                expr = [typ] if typ else []
                if notnull and not pk:
                    expr.append("NOT NULL")
                if dflt is not None:
                    expr.append(f"DEFAULT {dflt}")
                cols[name] = " ".join(expr)
            out[table] = cols
        return out
    finally:
        ref.close()


def add_missing_columns(cur):
    for table, declared in declared_columns(SCHEMA_SQL).items():
        try:
            have = {r[1] for r in cur.execute(f'PRAGMA table_info("{table}")')}
        except sqlite3.OperationalError:
            continue
        for name, expr in declared.items():
            if name in have:
                continue
            quoted = name.replace('"', '""')
            try:
                cur.execute(f'ALTER TABLE "{table}" ADD COLUMN "{quoted}" {expr}')
            except sqlite3.OperationalError:
                pass  # upstream logs and goes on


def hermes_home():
    home = os.environ.get("HERMES_HOME", "").strip()
    return Path(home) if home else Path.home() / ".hermes"


def copy_gateway_metadata(cur):
    """§2.2 v18: fill what each sessions.json entry knows into its session."""
    path = hermes_home() / "sessions" / "sessions.json"
    if not path.exists():
        return
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        return
    for key, entry in data.items():
        if str(key).startswith("_") or not isinstance(entry, dict) or not entry.get("session_id"):
            continue
        origin = entry.get("origin")
        has_origin = isinstance(origin, dict)
        cur.execute(V18_GATEWAY_METADATA, (
            entry.get("session_key") or key,
            origin.get("chat_id") if has_origin else None,
            entry.get("chat_type"),
            origin.get("thread_id") if has_origin else None,
            entry.get("display_name"),
            json.dumps(origin) if has_origin else None,
            1 if (entry.get("expiry_finalized") or entry.get("memory_flushed")) else 0,
            str(entry["session_id"]),
        ))


def trigger_count(cur):
    marks = ",".join("?" * len(FTS_TRIGGERS))
    return cur.execute(
        f"SELECT COUNT(*) FROM sqlite_master WHERE type='trigger' AND name IN ({marks})", FTS_TRIGGERS
    ).fetchone()[0]


def refill(cur, table):
    cur.execute(f"DELETE FROM {table}")
    cur.execute(f"INSERT INTO {table}(rowid, content) SELECT id, {INDEXED_TEXT} FROM messages")


def init_schema(conn):
    """§1.2 / §2.1, in order, every statement on its own (autocommit)."""
    cur = conn.cursor()
    cur.executescript(SCHEMA_SQL)                                    # 1
    add_missing_columns(cur)                                         # 2
    try:
        cur.execute(PLATFORM_INDEX_SQL)                              # 3
    except sqlite3.OperationalError:
        pass
    cur.executescript(DEFERRED_INDEX_SQL)                            # 4
    try:
        cur.execute("UPDATE messages SET active = 1 WHERE active IS NULL")  # 5
    except sqlite3.OperationalError:
        pass
    # 6: the FTS5 probe; this module's builds always have FTS5 and trigram.
    row = cur.execute("SELECT version FROM schema_version LIMIT 1").fetchone()
    if row is None:                                                  # 7
        cur.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
    else:
        current = row[0]
        if current < 11:                                             # 8: v11
            for trigger in FTS_TRIGGERS:
                cur.execute(f"DROP TRIGGER IF EXISTS {trigger}")
            for table in ("messages_fts", "messages_fts_trigram"):
                cur.execute(f"DROP TABLE IF EXISTS {table}")
            cur.executescript(FTS_SQL)
            cur.execute(f"INSERT INTO messages_fts(rowid, content) SELECT id, {INDEXED_TEXT} FROM messages")
            cur.executescript(FTS_TRIGRAM_SQL)
            cur.execute(f"INSERT INTO messages_fts_trigram(rowid, content) SELECT id, {INDEXED_TEXT} FROM messages")
        if current < 16:                                             # v16
            try:
                cur.execute(V16_TAG_CHILDREN)
                cur.execute(V16_TAG_ORPHANS)
            except sqlite3.OperationalError:
                pass
        if current < 18:                                             # v18
            try:
                copy_gateway_metadata(cur)
            except Exception:
                pass
        if current < 20:                                             # v20
            try:
                cur.execute(V20_SEED_USAGE)
            except sqlite3.OperationalError:
                pass
        if current < SCHEMA_VERSION:                                 # 9
            cur.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
    try:
        cur.execute(TITLE_INDEX_SQL)                                 # 10
    except sqlite3.OperationalError:
        pass
    repair = trigger_count(cur) < len(FTS_TRIGGERS)
    cur.executescript(FTS_SQL)
    cur.executescript(FTS_TRIGRAM_SQL)
    if repair:
        refill(cur, "messages_fts")
        refill(cur, "messages_fts_trigram")
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
        # create_session is an upsert that fills NULL columns (§3.2).
        conn.execute(
            "INSERT INTO sessions (id, source, user_id, model, model_config, system_prompt, "
            "parent_session_id, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET model = COALESCE(sessions.model, excluded.model)",
            ("py-session", "cli", None, "m", '{"temperature": 0.5}', None, None, now),
        )
        # append_message binds observed and active itself (§3.4).
        conn.execute(
            "INSERT INTO messages (session_id, role, content, tool_name, timestamp, observed, active) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            ("py-session", "user", "written by python", "PYTOOL", now, 0, 1),
        )
        conn.execute("COMMIT")
    print("version", conn.execute("SELECT version FROM schema_version LIMIT 1").fetchone()[0])
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except Exception:
        pass
    conn.close()


if __name__ == "__main__":
    main()
