-- Upstream's v18 data step (747386ecf, as at c2a3b9ce5; upstream-v21.md §2.2), as it
-- sends it once per entry of HERMES_HOME/sessions/sessions.json: fill the gateway
-- metadata a session lacks (COALESCE keeps what newer code already wrote) and raise
-- expiry_finalized when the entry says so. Parameters: session_key, chat_id,
-- chat_type, thread_id, display_name, origin_json, the 0/1 expiry flag, the id.
UPDATE sessions
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
                   WHERE id = ?