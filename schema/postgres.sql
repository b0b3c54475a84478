-- schema/postgres.sql: the PostgreSQL schema at version 21, as pg_dump
-- --schema-only --no-owner --no-privileges prints a database that
-- migrations/postgres brought there (migrate -db postgres://... up), for
-- DBAs and reviewers. Generated, never edited: the migrations are the
-- source. TestSchemaDump fails when the two drift; rewrite it with
--   go test -tags sqlite_fts5 -run TestSchemaDump ./migrations/postgres -update
-- (with HERMESSTATE_TEST_PG set). pg_dump's version lines and its
-- per-run \restrict key are left out.
--
-- PostgreSQL database dump
--



SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: pg_trgm; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;


--
-- Name: EXTENSION pg_trgm; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION pg_trgm IS 'text similarity measurement and index searching based on trigrams';


--
-- Name: hermes_add(double precision, double precision); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hermes_add(a double precision, b double precision) RETURNS double precision
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
    SELECT CASE
        WHEN a > 0 AND b > 0 AND a > 1.7976931348623157e308::float8 - b THEN 'Infinity'::float8
        WHEN a < 0 AND b < 0 AND a < -1.7976931348623157e308::float8 - b THEN '-Infinity'::float8
        ELSE a + b
    END
$$;


--
-- Name: hermes_content(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hermes_content(c text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
    SELECT CASE
        WHEN left(c, 2) = chr(1) || chr(1) THEN substr(c, 2)
        WHEN left(c, 1) = chr(1) THEN ''
        ELSE c
    END
$$;


--
-- Name: hermes_json_or_null(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hermes_json_or_null(t text) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
BEGIN
    RETURN t::jsonb;
EXCEPTION WHEN data_exception OR program_limit_exceeded OR statement_too_complex THEN
    RETURN NULL;
END
$$;


--
-- Name: hermes_total_final(double precision[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hermes_total_final(state double precision[]) RETURNS double precision
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
    SELECT CASE WHEN state[2] IN ('Infinity', '-Infinity', 'NaN') THEN state[1]
        ELSE state[1] + state[2] END
$$;


--
-- Name: hermes_total_step(double precision[], double precision); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.hermes_total_step(state double precision[], x double precision) RETURNS double precision[]
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
    SELECT ARRAY[t, hermes_add(state[2], CASE WHEN abs(state[1]) > abs(x)
        THEN (state[1] - t) + x ELSE (x - t) + state[1] END)]
    FROM (SELECT hermes_add(state[1], x) AS t) s
$$;


--
-- Name: hermes_total(double precision); Type: AGGREGATE; Schema: public; Owner: -
--

CREATE AGGREGATE public.hermes_total(double precision) (
    SFUNC = public.hermes_total_step,
    STYPE = double precision[],
    INITCOND = '{0,0}',
    FINALFUNC = public.hermes_total_final
);


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: async_delegations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.async_delegations (
    delegation_id text NOT NULL,
    origin_session text NOT NULL,
    origin_ui_session_id text DEFAULT ''::text NOT NULL,
    parent_session_id text,
    state text NOT NULL,
    dispatched_at double precision NOT NULL,
    completed_at double precision,
    updated_at double precision NOT NULL,
    event_json text,
    result_json text,
    delivery_state text DEFAULT 'pending'::text NOT NULL,
    delivery_attempts bigint DEFAULT 0 NOT NULL,
    delivered_at double precision,
    owner_pid bigint,
    owner_started_at bigint,
    task_json text,
    delivery_claim text,
    delivery_claimed_at double precision
);


--
-- Name: compression_locks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.compression_locks (
    session_id text NOT NULL,
    holder text NOT NULL,
    acquired_at double precision NOT NULL,
    expires_at double precision NOT NULL
);


--
-- Name: gateway_routing; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.gateway_routing (
    scope text DEFAULT ''::text NOT NULL,
    session_key text NOT NULL,
    entry_json text NOT NULL,
    updated_at double precision NOT NULL
);


--
-- Name: messages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.messages (
    id bigint NOT NULL,
    session_id text NOT NULL COLLATE pg_catalog."C",
    role text NOT NULL,
    content text,
    tool_call_id text,
    tool_calls text,
    tool_name text,
    effect_disposition text,
    "timestamp" double precision NOT NULL,
    token_count bigint,
    finish_reason text,
    reasoning text,
    reasoning_content text,
    reasoning_details text,
    codex_reasoning_items text,
    codex_message_items text,
    platform_message_id text,
    observed bigint DEFAULT 0,
    active bigint DEFAULT 1 NOT NULL,
    compacted bigint DEFAULT 0 NOT NULL
);


--
-- Name: messages_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.messages ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.messages_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: messages_search; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.messages_search (
    id bigint NOT NULL,
    tokens tsvector NOT NULL
);


--
-- Name: schema_version; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_version (
    version bigint NOT NULL
);


--
-- Name: session_model_usage; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.session_model_usage (
    session_id text NOT NULL COLLATE pg_catalog."C",
    model text NOT NULL,
    billing_provider text DEFAULT ''::text NOT NULL,
    billing_base_url text DEFAULT ''::text NOT NULL,
    billing_mode text DEFAULT ''::text NOT NULL,
    api_call_count bigint DEFAULT 0 NOT NULL,
    input_tokens bigint DEFAULT 0 NOT NULL,
    output_tokens bigint DEFAULT 0 NOT NULL,
    cache_read_tokens bigint DEFAULT 0 NOT NULL,
    cache_write_tokens bigint DEFAULT 0 NOT NULL,
    reasoning_tokens bigint DEFAULT 0 NOT NULL,
    estimated_cost_usd double precision DEFAULT 0 NOT NULL,
    actual_cost_usd double precision DEFAULT 0 NOT NULL,
    cost_status text,
    cost_source text,
    first_seen double precision,
    last_seen double precision
);


--
-- Name: sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sessions (
    id text NOT NULL COLLATE pg_catalog."C",
    source text NOT NULL,
    user_id text,
    session_key text,
    chat_id text,
    chat_type text,
    thread_id text,
    display_name text,
    origin_json text,
    expiry_finalized bigint DEFAULT 0,
    model text,
    model_config text,
    system_prompt text,
    parent_session_id text COLLATE pg_catalog."C",
    started_at double precision NOT NULL,
    ended_at double precision,
    end_reason text,
    message_count bigint DEFAULT 0,
    tool_call_count bigint DEFAULT 0,
    input_tokens bigint DEFAULT 0,
    output_tokens bigint DEFAULT 0,
    cache_read_tokens bigint DEFAULT 0,
    cache_write_tokens bigint DEFAULT 0,
    reasoning_tokens bigint DEFAULT 0,
    cwd text,
    git_branch text,
    git_repo_root text,
    billing_provider text,
    billing_base_url text,
    billing_mode text,
    estimated_cost_usd double precision,
    actual_cost_usd double precision,
    cost_status text,
    cost_source text,
    pricing_version text,
    title text,
    api_call_count bigint DEFAULT 0,
    handoff_state text,
    handoff_platform text,
    handoff_error text,
    compression_failure_cooldown_until double precision,
    compression_failure_error text,
    compression_fallback_streak bigint DEFAULT 0 NOT NULL,
    rewind_count bigint DEFAULT 0 NOT NULL,
    archived bigint DEFAULT 0 NOT NULL
);


--
-- Name: state_meta; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.state_meta (
    key text NOT NULL,
    value text
);


--
-- Name: async_delegations async_delegations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.async_delegations
    ADD CONSTRAINT async_delegations_pkey PRIMARY KEY (delegation_id);


--
-- Name: compression_locks compression_locks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.compression_locks
    ADD CONSTRAINT compression_locks_pkey PRIMARY KEY (session_id);


--
-- Name: gateway_routing gateway_routing_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.gateway_routing
    ADD CONSTRAINT gateway_routing_pkey PRIMARY KEY (scope, session_key);


--
-- Name: messages messages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT messages_pkey PRIMARY KEY (id);


--
-- Name: messages_search messages_search_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages_search
    ADD CONSTRAINT messages_search_pkey PRIMARY KEY (id);


--
-- Name: session_model_usage session_model_usage_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.session_model_usage
    ADD CONSTRAINT session_model_usage_pkey PRIMARY KEY (session_id, model, billing_provider, billing_base_url, billing_mode);


--
-- Name: sessions sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (id);


--
-- Name: state_meta state_meta_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.state_meta
    ADD CONSTRAINT state_meta_pkey PRIMARY KEY (key);


--
-- Name: idx_async_delegations_delivery; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_async_delegations_delivery ON public.async_delegations USING btree (delivery_state, completed_at);


--
-- Name: idx_compression_locks_expires; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_compression_locks_expires ON public.compression_locks USING btree (expires_at);


--
-- Name: idx_messages_active_null; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_messages_active_null ON public.messages USING btree (active) WHERE (active IS NULL);


--
-- Name: idx_messages_platform_msg_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_messages_platform_msg_id ON public.messages USING btree (session_id, platform_message_id) WHERE (platform_message_id IS NOT NULL);


--
-- Name: idx_messages_search_tokens; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_messages_search_tokens ON public.messages_search USING gin (tokens);


--
-- Name: idx_messages_search_trgm; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_messages_search_trgm ON public.messages USING gin ((((((COALESCE(content, ''::text) || ' '::text) || COALESCE(tool_name, ''::text)) || ' '::text) || COALESCE(tool_calls, ''::text))) public.gin_trgm_ops);


--
-- Name: idx_messages_session; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_messages_session ON public.messages USING btree (session_id, "timestamp");


--
-- Name: idx_messages_session_active; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_messages_session_active ON public.messages USING btree (session_id, active, "timestamp");


--
-- Name: idx_session_model_usage_model; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_session_model_usage_model ON public.session_model_usage USING btree (model);


--
-- Name: idx_session_model_usage_session; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_session_model_usage_session ON public.session_model_usage USING btree (session_id);


--
-- Name: idx_sessions_gateway_peer; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_sessions_gateway_peer ON public.sessions USING btree (source, user_id, chat_id, chat_type, thread_id, started_at DESC);


--
-- Name: idx_sessions_handoff_state; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_sessions_handoff_state ON public.sessions USING btree (handoff_state, started_at);


--
-- Name: idx_sessions_parent; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_sessions_parent ON public.sessions USING btree (parent_session_id);


--
-- Name: idx_sessions_session_key; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_sessions_session_key ON public.sessions USING btree (session_key, started_at DESC);


--
-- Name: idx_sessions_source; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_sessions_source ON public.sessions USING btree (source);


--
-- Name: idx_sessions_source_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_sessions_source_id ON public.sessions USING btree (source, id);


--
-- Name: idx_sessions_started; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_sessions_started ON public.sessions USING btree (started_at DESC);


--
-- Name: idx_sessions_title_unique; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_sessions_title_unique ON public.sessions USING btree (title) WHERE (title IS NOT NULL);


--
-- Name: messages_search messages_search_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages_search
    ADD CONSTRAINT messages_search_id_fkey FOREIGN KEY (id) REFERENCES public.messages(id) ON DELETE CASCADE;


--
-- Name: messages messages_session_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT messages_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.sessions(id);


--
-- Name: session_model_usage session_model_usage_session_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.session_model_usage
    ADD CONSTRAINT session_model_usage_session_id_fkey FOREIGN KEY (session_id) REFERENCES public.sessions(id) ON DELETE CASCADE;


--
-- Name: sessions sessions_parent_session_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_parent_session_id_fkey FOREIGN KEY (parent_session_id) REFERENCES public.sessions(id);


--
-- PostgreSQL database dump complete
--


