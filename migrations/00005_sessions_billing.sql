-- Schema v5: token breakdown and billing columns on sessions. The quoted column names
-- are how the original's v5 step spelled them, so sqlite_master matches its files.

-- +goose Up
ALTER TABLE sessions ADD COLUMN "cache_read_tokens" INTEGER DEFAULT 0;
ALTER TABLE sessions ADD COLUMN "cache_write_tokens" INTEGER DEFAULT 0;
ALTER TABLE sessions ADD COLUMN "reasoning_tokens" INTEGER DEFAULT 0;
ALTER TABLE sessions ADD COLUMN "billing_provider" TEXT;
ALTER TABLE sessions ADD COLUMN "billing_base_url" TEXT;
ALTER TABLE sessions ADD COLUMN "billing_mode" TEXT;
ALTER TABLE sessions ADD COLUMN "estimated_cost_usd" REAL;
ALTER TABLE sessions ADD COLUMN "actual_cost_usd" REAL;
ALTER TABLE sessions ADD COLUMN "cost_status" TEXT;
ALTER TABLE sessions ADD COLUMN "cost_source" TEXT;
ALTER TABLE sessions ADD COLUMN "pricing_version" TEXT;

-- +goose Down
ALTER TABLE sessions DROP COLUMN "pricing_version";
ALTER TABLE sessions DROP COLUMN "cost_source";
ALTER TABLE sessions DROP COLUMN "cost_status";
ALTER TABLE sessions DROP COLUMN "actual_cost_usd";
ALTER TABLE sessions DROP COLUMN "estimated_cost_usd";
ALTER TABLE sessions DROP COLUMN "billing_mode";
ALTER TABLE sessions DROP COLUMN "billing_base_url";
ALTER TABLE sessions DROP COLUMN "billing_provider";
ALTER TABLE sessions DROP COLUMN "reasoning_tokens";
ALTER TABLE sessions DROP COLUMN "cache_write_tokens";
ALTER TABLE sessions DROP COLUMN "cache_read_tokens";
