-- StateMetaGet reads one key of state_meta, the free key/value table (the
-- original keeps last_auto_prune there).
-- name: StateMetaGet :one
SELECT value FROM state_meta WHERE key = @key;

-- StateMetaSet writes one key, replacing its value.
-- name: StateMetaSet :exec
INSERT INTO state_meta (key, value) VALUES (@key, @value)
ON CONFLICT(key) DO UPDATE SET value = excluded.value;
