-- Deletes (the log-retention job, tenant removal) clean up emptied rollup rows only among the keys
-- the deleting statement itself just updated, instead of every row of the tenant: cheaper on long
-- histories, and the statement then only touches rows it already holds locks on, so a retention
-- delete and a log-writer insert can never wait on each other in opposite orders.
CREATE OR REPLACE FUNCTION analytics_requests_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_request_hourly AS t (tenant_id, bucket, provider, model, requests, latency_sum, latency_max, cache_hits, errors, feedback_count, feedback_score_sum)
  SELECT c.tenant_id, date_trunc('hour', c.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', coalesce(c.provider, ''), coalesce(c.model, ''),
         -count(*), -sum(c.latency_ms), 0, -count(*) FILTER (WHERE c.cached), -count(*) FILTER (WHERE c.status <> 'ok'),
         -sum(fb.n), -coalesce(sum(fb.s), 0)
  FROM changed c
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
  FROM changed c
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

  DELETE FROM analytics_request_hourly t
  USING (SELECT DISTINCT tenant_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket,
                coalesce(provider, '') AS provider, coalesce(model, '') AS model FROM changed) d
  WHERE t.tenant_id = d.tenant_id AND t.bucket = d.bucket AND t.provider = d.provider AND t.model = d.model
    AND t.requests <= 0 AND t.feedback_count <= 0;
  DELETE FROM analytics_request_totals t
  USING (SELECT DISTINCT tenant_id, coalesce(provider, '') AS provider, coalesce(model, '') AS model, routed_by,
                coalesce(task_type, '') AS task_type, coalesce(complexity, '') AS complexity FROM changed) d
  WHERE t.tenant_id = d.tenant_id AND t.provider = d.provider AND t.model = d.model AND t.routed_by = d.routed_by
    AND t.task_type = d.task_type AND t.complexity = d.complexity
    AND t.requests <= 0 AND t.feedback_count <= 0;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION analytics_costs_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  sign int := CASE WHEN TG_OP = 'DELETE' THEN -1 ELSE 1 END;
BEGIN
  INSERT INTO analytics_cost_hourly AS t (tenant_id, bucket, provider, model, calls, errors, cost, input_tokens, output_tokens)
  SELECT tenant_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', provider, model,
         sign * count(*), sign * count(*) FILTER (WHERE status <> 'ok'), sign * sum(cost), sign * sum(input_tokens), sign * sum(output_tokens)
  FROM changed
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (tenant_id, bucket, provider, model) DO UPDATE SET
    calls = t.calls + excluded.calls,
    errors = t.errors + excluded.errors,
    cost = t.cost + excluded.cost,
    input_tokens = t.input_tokens + excluded.input_tokens,
    output_tokens = t.output_tokens + excluded.output_tokens;

  INSERT INTO analytics_cost_totals AS t (tenant_id, provider, model, calls, errors, cost, input_tokens, output_tokens)
  SELECT tenant_id, provider, model,
         sign * count(*), sign * count(*) FILTER (WHERE status <> 'ok'), sign * sum(cost), sign * sum(input_tokens), sign * sum(output_tokens)
  FROM changed
  GROUP BY 1, 2, 3
  ORDER BY 1, 2, 3
  ON CONFLICT (tenant_id, provider, model) DO UPDATE SET
    calls = t.calls + excluded.calls,
    errors = t.errors + excluded.errors,
    cost = t.cost + excluded.cost,
    input_tokens = t.input_tokens + excluded.input_tokens,
    output_tokens = t.output_tokens + excluded.output_tokens;

  IF TG_OP = 'DELETE' THEN
    DELETE FROM analytics_cost_hourly t
    USING (SELECT DISTINCT tenant_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket, provider, model FROM changed) d
    WHERE t.tenant_id = d.tenant_id AND t.bucket = d.bucket AND t.provider = d.provider AND t.model = d.model AND t.calls <= 0;
    DELETE FROM analytics_cost_totals t
    USING (SELECT DISTINCT tenant_id, provider, model FROM changed) d
    WHERE t.tenant_id = d.tenant_id AND t.provider = d.provider AND t.model = d.model AND t.calls <= 0;
  END IF;
  RETURN NULL;
END
$$;
