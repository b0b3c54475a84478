-- The v10 file of the original's test_v10_to_v11_upgrade_backfills_tool_fields
-- (reference-tests.md §A.25): nullable source and started_at, no model or
-- billing columns, a messages.id without AUTOINCREMENT, and external-content
-- FTS indexes (insert triggers only) that never saw tool_name or tool_calls.
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version (version) VALUES (10);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, source TEXT, started_at REAL, ended_at REAL, title TEXT,
    parent_session_id TEXT, message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0,
    api_call_count INTEGER DEFAULT 0
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, timestamp REAL NOT NULL,
    role TEXT NOT NULL, content TEXT, tool_name TEXT, tool_calls TEXT, tool_call_id TEXT, token_count INTEGER,
    finish_reason TEXT, reasoning TEXT, reasoning_content TEXT, reasoning_details TEXT,
    codex_reasoning_items TEXT, codex_message_items TEXT
);
CREATE VIRTUAL TABLE messages_fts USING fts5(content, content=messages, content_rowid=id);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(content, content=messages, content_rowid=id, tokenize='trigram');
CREATE TRIGGER messages_fts_trigram_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts_trigram(rowid, content) VALUES (new.id, new.content);
END;
INSERT INTO sessions (id, source, started_at) VALUES ('s1', 'cli', 1000.0);
INSERT INTO messages (session_id, timestamp, role, content, tool_name, tool_calls)
    VALUES ('s1', 1001.0, 'assistant', '', 'LEGACYTOOL',
    '{"function":{"name":"web_search","arguments":"{\"q\":\"LEGACYARG\"}"}}');
