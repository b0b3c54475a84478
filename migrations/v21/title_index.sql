-- The unique title index (reference-spec.md §2.2): not part of SCHEMA_SQL; the original
-- creates it after the version bookkeeping, so a file upgraded from before v4 has it last.
CREATE UNIQUE INDEX IF NOT EXISTS idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL;
