-- Schema v16 (hermes-agent d62979a6f): tag delegate subagent sessions with
-- model_config._delegate_from (placeholder SQL form; see backfill_v16.sql).

-- +goose Up
UPDATE sessions SET model_config = json_set(COALESCE(model_config, '{}'), '$._delegate_from', parent_session_id) WHERE parent_session_id IS NOT NULL AND json_extract(COALESCE(model_config, '{}'), '$._delegate_from') IS NULL AND (sessions.parent_session_id IS NOT NULL AND NOT (json_extract(COALESCE(sessions.model_config, '{}'), '$._branched_from') IS NOT NULL OR EXISTS (SELECT 1 FROM sessions p            WHERE p.id = sessions.parent_session_id            AND p.end_reason = 'branched'            AND sessions.started_at >= p.ended_at)) AND NOT (EXISTS (SELECT 1 FROM sessions p        WHERE p.id = sessions.parent_session_id        AND p.end_reason = 'compression')));

-- +goose Down
SELECT 1;
