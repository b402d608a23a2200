-- Embeddings calls have request rows too (endpoint 'embeddings'), but the analytics are of chat
-- completions (SPEC.md: one request row per /v1/chat/completions call): the rollup triggers now
-- count only chat rows. The trigger functions are the latest versions (0004, 0008) with `changed`
-- narrowed to chat rows, and the latency maximum recomputed over chat rows only.
ALTER TABLE "requests" ADD COLUMN "endpoint" text DEFAULT 'chat' NOT NULL;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION analytics_requests_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_request_hourly AS t (tenant_id, bucket, provider, model, requests, latency_sum, latency_max, cache_hits, errors)
  SELECT tenant_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', coalesce(provider, ''), coalesce(model, ''),
         count(*), sum(latency_ms), max(latency_ms), count(*) FILTER (WHERE cached), count(*) FILTER (WHERE status <> 'ok')
  FROM (SELECT * FROM changed WHERE endpoint = 'chat') changed
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (tenant_id, bucket, provider, model) DO UPDATE SET
    requests = t.requests + excluded.requests,
    latency_sum = t.latency_sum + excluded.latency_sum,
    latency_max = greatest(t.latency_max, excluded.latency_max),
    cache_hits = t.cache_hits + excluded.cache_hits,
    errors = t.errors + excluded.errors;

  INSERT INTO analytics_request_totals AS t (tenant_id, provider, model, routed_by, task_type, complexity, requests, latency_sum,
         fallback_count, fallback_latency_sum, llm_fallback_count, exact_hits, semantic_hits, tokens_saved_input, tokens_saved_output,
         input_tokens, output_tokens, errors, streamed)
  SELECT tenant_id, coalesce(provider, ''), coalesce(model, ''), routed_by, coalesce(task_type, ''), coalesce(complexity, ''),
         count(*), sum(latency_ms),
         count(*) FILTER (WHERE used_fallback), coalesce(sum(latency_ms) FILTER (WHERE used_fallback), 0),
         count(*) FILTER (WHERE used_llm_fallback),
         count(*) FILTER (WHERE cached AND cache_type IS DISTINCT FROM 'semantic'),
         count(*) FILTER (WHERE cached AND cache_type = 'semantic'),
         sum(tokens_saved_input), sum(tokens_saved_output), sum(input_tokens), sum(output_tokens),
         count(*) FILTER (WHERE status <> 'ok'), count(*) FILTER (WHERE streamed)
  FROM (SELECT * FROM changed WHERE endpoint = 'chat') changed
  GROUP BY 1, 2, 3, 4, 5, 6
  ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (tenant_id, provider, model, routed_by, task_type, complexity) DO UPDATE SET
    requests = t.requests + excluded.requests,
    latency_sum = t.latency_sum + excluded.latency_sum,
    fallback_count = t.fallback_count + excluded.fallback_count,
    fallback_latency_sum = t.fallback_latency_sum + excluded.fallback_latency_sum,
    llm_fallback_count = t.llm_fallback_count + excluded.llm_fallback_count,
    exact_hits = t.exact_hits + excluded.exact_hits,
    semantic_hits = t.semantic_hits + excluded.semantic_hits,
    tokens_saved_input = t.tokens_saved_input + excluded.tokens_saved_input,
    tokens_saved_output = t.tokens_saved_output + excluded.tokens_saved_output,
    input_tokens = t.input_tokens + excluded.input_tokens,
    output_tokens = t.output_tokens + excluded.output_tokens,
    errors = t.errors + excluded.errors,
    streamed = t.streamed + excluded.streamed;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION analytics_requests_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_request_hourly AS t (tenant_id, bucket, provider, model, requests, latency_sum, latency_max, cache_hits, errors, feedback_count, feedback_score_sum)
  SELECT c.tenant_id, date_trunc('hour', c.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', coalesce(c.provider, ''), coalesce(c.model, ''),
         -count(*), -sum(c.latency_ms), 0, -count(*) FILTER (WHERE c.cached), -count(*) FILTER (WHERE c.status <> 'ok'),
         -sum(fb.n), -coalesce(sum(fb.s), 0)
  FROM (SELECT * FROM changed WHERE endpoint = 'chat') c
  CROSS JOIN LATERAL (SELECT count(*) AS n, sum(f.score) AS s FROM feedback f WHERE f.tenant_id = c.tenant_id AND f.request_id = c.id) fb
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (tenant_id, bucket, provider, model) DO UPDATE SET
    requests = t.requests + excluded.requests,
    latency_sum = t.latency_sum + excluded.latency_sum,
    cache_hits = t.cache_hits + excluded.cache_hits,
    errors = t.errors + excluded.errors,
    feedback_count = t.feedback_count + excluded.feedback_count,
    feedback_score_sum = t.feedback_score_sum + excluded.feedback_score_sum;

  INSERT INTO analytics_request_totals AS t (tenant_id, provider, model, routed_by, task_type, complexity, requests, latency_sum,
         fallback_count, fallback_latency_sum, llm_fallback_count, exact_hits, semantic_hits, tokens_saved_input, tokens_saved_output,
         input_tokens, output_tokens, errors, streamed, feedback_count, feedback_score_sum)
  SELECT c.tenant_id, coalesce(c.provider, ''), coalesce(c.model, ''), c.routed_by, coalesce(c.task_type, ''), coalesce(c.complexity, ''),
         -count(*), -sum(c.latency_ms),
         -count(*) FILTER (WHERE c.used_fallback), -coalesce(sum(c.latency_ms) FILTER (WHERE c.used_fallback), 0),
         -count(*) FILTER (WHERE c.used_llm_fallback),
         -count(*) FILTER (WHERE c.cached AND c.cache_type IS DISTINCT FROM 'semantic'),
         -count(*) FILTER (WHERE c.cached AND c.cache_type = 'semantic'),
         -sum(c.tokens_saved_input), -sum(c.tokens_saved_output), -sum(c.input_tokens), -sum(c.output_tokens),
         -count(*) FILTER (WHERE c.status <> 'ok'), -count(*) FILTER (WHERE c.streamed),
         -sum(fb.n), -coalesce(sum(fb.s), 0)
  FROM (SELECT * FROM changed WHERE endpoint = 'chat') c
  CROSS JOIN LATERAL (SELECT count(*) AS n, sum(f.score) AS s FROM feedback f WHERE f.tenant_id = c.tenant_id AND f.request_id = c.id) fb
  GROUP BY 1, 2, 3, 4, 5, 6
  ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (tenant_id, provider, model, routed_by, task_type, complexity) DO UPDATE SET
    requests = t.requests + excluded.requests,
    latency_sum = t.latency_sum + excluded.latency_sum,
    fallback_count = t.fallback_count + excluded.fallback_count,
    fallback_latency_sum = t.fallback_latency_sum + excluded.fallback_latency_sum,
    llm_fallback_count = t.llm_fallback_count + excluded.llm_fallback_count,
    exact_hits = t.exact_hits + excluded.exact_hits,
    semantic_hits = t.semantic_hits + excluded.semantic_hits,
    tokens_saved_input = t.tokens_saved_input + excluded.tokens_saved_input,
    tokens_saved_output = t.tokens_saved_output + excluded.tokens_saved_output,
    input_tokens = t.input_tokens + excluded.input_tokens,
    output_tokens = t.output_tokens + excluded.output_tokens,
    errors = t.errors + excluded.errors,
    streamed = t.streamed + excluded.streamed,
    feedback_count = t.feedback_count + excluded.feedback_count,
    feedback_score_sum = t.feedback_score_sum + excluded.feedback_score_sum;

  -- A maximum cannot be taken back by subtraction: the hours the statement removed rows from (a
  -- retention cutoff falls mid-hour) get the maximum of the rows they still hold.
  UPDATE analytics_request_hourly t
  SET latency_max = coalesce((
    SELECT max(r.latency_ms) FROM requests r
    WHERE r.tenant_id = t.tenant_id AND r.created_at >= t.bucket AND r.created_at < t.bucket + interval '1 hour'
      AND coalesce(r.provider, '') = t.provider AND coalesce(r.model, '') = t.model AND r.endpoint = 'chat'), 0)
  FROM (SELECT DISTINCT tenant_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket,
               coalesce(provider, '') AS provider, coalesce(model, '') AS model FROM (SELECT * FROM changed WHERE endpoint = 'chat') changed) d
  WHERE t.tenant_id = d.tenant_id AND t.bucket = d.bucket AND t.provider = d.provider AND t.model = d.model
    AND t.requests > 0;

  DELETE FROM analytics_request_hourly t
  USING (SELECT DISTINCT tenant_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket,
                coalesce(provider, '') AS provider, coalesce(model, '') AS model FROM (SELECT * FROM changed WHERE endpoint = 'chat') changed) d
  WHERE t.tenant_id = d.tenant_id AND t.bucket = d.bucket AND t.provider = d.provider AND t.model = d.model
    AND t.requests <= 0 AND t.feedback_count <= 0;
  DELETE FROM analytics_request_totals t
  USING (SELECT DISTINCT tenant_id, coalesce(provider, '') AS provider, coalesce(model, '') AS model, routed_by,
                coalesce(task_type, '') AS task_type, coalesce(complexity, '') AS complexity FROM (SELECT * FROM changed WHERE endpoint = 'chat') changed) d
  WHERE t.tenant_id = d.tenant_id AND t.provider = d.provider AND t.model = d.model AND t.routed_by = d.routed_by
    AND t.task_type = d.task_type AND t.complexity = d.complexity
    AND t.requests <= 0 AND t.feedback_count <= 0;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- Embeddings calls logged before this migration were counted as chat. They are told apart by what
-- only they have: an embedding model, pinned, no output, neither streamed nor cached. Feedback on
-- them goes (an embedding has no answer to rate, and the API now refuses it), then they leave the
-- rollups: deleted as chat rows, which the trigger subtracts, and written back as embeddings rows,
-- which it does not count.
DELETE FROM feedback f USING requests r
WHERE r.id = f.request_id AND r.tenant_id = f.tenant_id AND r.routed_by = 'user-override' AND r.model ILIKE '%embed%' AND r.output_tokens = 0 AND NOT r.streamed AND NOT r.cached;
--> statement-breakpoint
CREATE TEMP TABLE embeddings_requests_moved ON COMMIT DROP AS SELECT * FROM requests WHERE routed_by = 'user-override' AND model ILIKE '%embed%' AND output_tokens = 0 AND NOT streamed AND NOT cached;
--> statement-breakpoint
DELETE FROM requests r USING embeddings_requests_moved m WHERE r.id = m.id;
--> statement-breakpoint
UPDATE embeddings_requests_moved SET endpoint = 'embeddings';
--> statement-breakpoint
INSERT INTO requests SELECT * FROM embeddings_requests_moved;
--> statement-breakpoint
DROP TABLE embeddings_requests_moved;
