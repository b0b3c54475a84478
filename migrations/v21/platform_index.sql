-- Upstream's idx_messages_platform_msg_id (c2a3b9ce5), sent as one line after the
-- reconcile (it names a column the reconcile may have just added).
CREATE INDEX IF NOT EXISTS idx_messages_platform_msg_id ON messages(session_id, platform_message_id) WHERE platform_message_id IS NOT NULL