-- Analytics rollups (tables in 0003) kept by statement-level triggers, so the log writer's one
-- multi-row INSERT per batch maintains them in its own transaction with one grouped upsert per
-- rollup table. Deletes subtract (latency_max is never lowered); TRUNCATE clears. Feedback counts
-- are attributed to the request they rate (its UTC hour and its routing cell), as a join on
-- request_id would; feedback whose request row does not exist is not counted.
--
-- Every statement upserts in key order and the tables are always touched in the same order
-- (request hourly, request totals, cost hourly, cost totals), so concurrent writers in several
-- gateway processes wait for each other but cannot deadlock. '' stands for NULL in key columns.
ALTER TABLE "analytics_request_hourly" SET (fillfactor = 70);
--> statement-breakpoint
ALTER TABLE "analytics_request_totals" SET (fillfactor = 70);
--> statement-breakpoint
ALTER TABLE "analytics_cost_hourly" SET (fillfactor = 70);
--> statement-breakpoint
ALTER TABLE "analytics_cost_totals" SET (fillfactor = 70);
--> statement-breakpoint

-- requests ------------------------------------------------------------------------------------

CREATE FUNCTION analytics_requests_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_request_hourly AS t (tenant_id, bucket, provider, model, requests, latency_sum, latency_max, cache_hits, errors)
  SELECT tenant_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', coalesce(provider, ''), coalesce(model, ''),
         count(*), sum(latency_ms), max(latency_ms), count(*) FILTER (WHERE cached), count(*) FILTER (WHERE status <> 'ok')
  FROM changed
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
  FROM changed
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

-- Deleted requests take their measures and the feedback attributed to them out of the rollups.
CREATE FUNCTION analytics_requests_removed() RETURNS trigger LANGUAGE plpgsql AS $$
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

  DELETE FROM analytics_request_hourly t USING (SELECT DISTINCT tenant_id FROM changed) d
  WHERE t.tenant_id = d.tenant_id AND t.requests <= 0 AND t.feedback_count <= 0;
  DELETE FROM analytics_request_totals t USING (SELECT DISTINCT tenant_id FROM changed) d
  WHERE t.tenant_id = d.tenant_id AND t.requests <= 0 AND t.feedback_count <= 0;
  RETURN NULL;
END
$$;
--> statement-breakpoint

CREATE FUNCTION analytics_requests_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM analytics_request_hourly;
  DELETE FROM analytics_request_totals;
  RETURN NULL;
END
$$;
--> statement-breakpoint

-- cost_logs -----------------------------------------------------------------------------------

CREATE FUNCTION analytics_costs_changed() RETURNS trigger LANGUAGE plpgsql AS $$
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
    DELETE FROM analytics_cost_hourly t USING (SELECT DISTINCT tenant_id FROM changed) d WHERE t.tenant_id = d.tenant_id AND t.calls <= 0;
    DELETE FROM analytics_cost_totals t USING (SELECT DISTINCT tenant_id FROM changed) d WHERE t.tenant_id = d.tenant_id AND t.calls <= 0;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint

CREATE FUNCTION analytics_costs_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM analytics_cost_hourly;
  DELETE FROM analytics_cost_totals;
  RETURN NULL;
END
$$;
--> statement-breakpoint

-- feedback ------------------------------------------------------------------------------------

CREATE FUNCTION analytics_feedback_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_request_hourly AS t (tenant_id, bucket, provider, model, feedback_count, feedback_score_sum)
  SELECT r.tenant_id, date_trunc('hour', r.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', coalesce(r.provider, ''), coalesce(r.model, ''),
         count(*), sum(f.score)
  FROM changed f JOIN requests r ON r.id = f.request_id AND r.tenant_id = f.tenant_id
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (tenant_id, bucket, provider, model) DO UPDATE SET
    feedback_count = t.feedback_count + excluded.feedback_count,
    feedback_score_sum = t.feedback_score_sum + excluded.feedback_score_sum;

  INSERT INTO analytics_request_totals AS t (tenant_id, provider, model, routed_by, task_type, complexity, feedback_count, feedback_score_sum)
  SELECT r.tenant_id, coalesce(r.provider, ''), coalesce(r.model, ''), r.routed_by, coalesce(r.task_type, ''), coalesce(r.complexity, ''),
         count(*), sum(f.score)
  FROM changed f JOIN requests r ON r.id = f.request_id AND r.tenant_id = f.tenant_id
  GROUP BY 1, 2, 3, 4, 5, 6
  ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (tenant_id, provider, model, routed_by, task_type, complexity) DO UPDATE SET
    feedback_count = t.feedback_count + excluded.feedback_count,
    feedback_score_sum = t.feedback_score_sum + excluded.feedback_score_sum;
  RETURN NULL;
END
$$;
--> statement-breakpoint

CREATE FUNCTION analytics_feedback_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_request_hourly AS t (tenant_id, bucket, provider, model, feedback_count, feedback_score_sum)
  SELECT r.tenant_id, date_trunc('hour', r.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', coalesce(r.provider, ''), coalesce(r.model, ''),
         -count(*), -sum(f.score)
  FROM changed f JOIN requests r ON r.id = f.request_id AND r.tenant_id = f.tenant_id
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (tenant_id, bucket, provider, model) DO UPDATE SET
    feedback_count = t.feedback_count + excluded.feedback_count,
    feedback_score_sum = t.feedback_score_sum + excluded.feedback_score_sum;

  INSERT INTO analytics_request_totals AS t (tenant_id, provider, model, routed_by, task_type, complexity, feedback_count, feedback_score_sum)
  SELECT r.tenant_id, coalesce(r.provider, ''), coalesce(r.model, ''), r.routed_by, coalesce(r.task_type, ''), coalesce(r.complexity, ''),
         -count(*), -sum(f.score)
  FROM changed f JOIN requests r ON r.id = f.request_id AND r.tenant_id = f.tenant_id
  GROUP BY 1, 2, 3, 4, 5, 6
  ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (tenant_id, provider, model, routed_by, task_type, complexity) DO UPDATE SET
    feedback_count = t.feedback_count + excluded.feedback_count,
    feedback_score_sum = t.feedback_score_sum + excluded.feedback_score_sum;
  RETURN NULL;
END
$$;
--> statement-breakpoint

-- A re-rating (upsert on tenant, request, source) changes the score: old rows out, new rows in.
CREATE FUNCTION analytics_feedback_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_request_hourly AS t (tenant_id, bucket, provider, model, feedback_count, feedback_score_sum)
  SELECT r.tenant_id, date_trunc('hour', r.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', coalesce(r.provider, ''), coalesce(r.model, ''),
         sum(f.n), sum(f.s)
  FROM (SELECT tenant_id, request_id, 1 AS n, score AS s FROM after_rows
        UNION ALL SELECT tenant_id, request_id, -1, -score FROM before_rows) f
  JOIN requests r ON r.id = f.request_id AND r.tenant_id = f.tenant_id
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (tenant_id, bucket, provider, model) DO UPDATE SET
    feedback_count = t.feedback_count + excluded.feedback_count,
    feedback_score_sum = t.feedback_score_sum + excluded.feedback_score_sum;

  INSERT INTO analytics_request_totals AS t (tenant_id, provider, model, routed_by, task_type, complexity, feedback_count, feedback_score_sum)
  SELECT r.tenant_id, coalesce(r.provider, ''), coalesce(r.model, ''), r.routed_by, coalesce(r.task_type, ''), coalesce(r.complexity, ''),
         sum(f.n), sum(f.s)
  FROM (SELECT tenant_id, request_id, 1 AS n, score AS s FROM after_rows
        UNION ALL SELECT tenant_id, request_id, -1, -score FROM before_rows) f
  JOIN requests r ON r.id = f.request_id AND r.tenant_id = f.tenant_id
  GROUP BY 1, 2, 3, 4, 5, 6
  ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (tenant_id, provider, model, routed_by, task_type, complexity) DO UPDATE SET
    feedback_count = t.feedback_count + excluded.feedback_count,
    feedback_score_sum = t.feedback_score_sum + excluded.feedback_score_sum;
  RETURN NULL;
END
$$;
--> statement-breakpoint

CREATE FUNCTION analytics_feedback_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE analytics_request_hourly SET feedback_count = 0, feedback_score_sum = 0 WHERE feedback_count <> 0 OR feedback_score_sum <> 0;
  UPDATE analytics_request_totals SET feedback_count = 0, feedback_score_sum = 0 WHERE feedback_count <> 0 OR feedback_score_sum <> 0;
  RETURN NULL;
END
$$;
--> statement-breakpoint

-- Triggers first: CREATE TRIGGER locks each table against writes until this migration commits, so
-- the backfill below sees every row committed before it and no write slips between the two.
CREATE TRIGGER analytics_requests_added AFTER INSERT ON requests REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_requests_added();
--> statement-breakpoint
CREATE TRIGGER analytics_requests_removed AFTER DELETE ON requests REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_requests_removed();
--> statement-breakpoint
CREATE TRIGGER analytics_requests_truncated AFTER TRUNCATE ON requests FOR EACH STATEMENT EXECUTE FUNCTION analytics_requests_truncated();
--> statement-breakpoint
CREATE TRIGGER analytics_costs_added AFTER INSERT ON cost_logs REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_costs_changed();
--> statement-breakpoint
CREATE TRIGGER analytics_costs_removed AFTER DELETE ON cost_logs REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_costs_changed();
--> statement-breakpoint
CREATE TRIGGER analytics_costs_truncated AFTER TRUNCATE ON cost_logs FOR EACH STATEMENT EXECUTE FUNCTION analytics_costs_truncated();
--> statement-breakpoint
CREATE TRIGGER analytics_feedback_added AFTER INSERT ON feedback REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_feedback_added();
--> statement-breakpoint
CREATE TRIGGER analytics_feedback_removed AFTER DELETE ON feedback REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION analytics_feedback_removed();
--> statement-breakpoint
CREATE TRIGGER analytics_feedback_updated AFTER UPDATE ON feedback REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_feedback_updated();
--> statement-breakpoint
CREATE TRIGGER analytics_feedback_truncated AFTER TRUNCATE ON feedback FOR EACH STATEMENT EXECUTE FUNCTION analytics_feedback_truncated();
--> statement-breakpoint

-- Backfill from the rows already there.
INSERT INTO analytics_request_hourly (tenant_id, bucket, provider, model, requests, latency_sum, latency_max, cache_hits, errors)
SELECT tenant_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', coalesce(provider, ''), coalesce(model, ''),
       count(*), sum(latency_ms), max(latency_ms), count(*) FILTER (WHERE cached), count(*) FILTER (WHERE status <> 'ok')
FROM requests
GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
INSERT INTO analytics_request_totals (tenant_id, provider, model, routed_by, task_type, complexity, requests, latency_sum,
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
FROM requests
GROUP BY 1, 2, 3, 4, 5, 6;
--> statement-breakpoint
UPDATE analytics_request_hourly t SET feedback_count = x.n, feedback_score_sum = x.s
FROM (
  SELECT r.tenant_id, date_trunc('hour', r.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket, coalesce(r.provider, '') AS provider,
         coalesce(r.model, '') AS model, count(*) AS n, sum(f.score) AS s
  FROM feedback f JOIN requests r ON r.id = f.request_id AND r.tenant_id = f.tenant_id
  GROUP BY 1, 2, 3, 4
) x
WHERE t.tenant_id = x.tenant_id AND t.bucket = x.bucket AND t.provider = x.provider AND t.model = x.model;
--> statement-breakpoint
UPDATE analytics_request_totals t SET feedback_count = x.n, feedback_score_sum = x.s
FROM (
  SELECT r.tenant_id, coalesce(r.provider, '') AS provider, coalesce(r.model, '') AS model, r.routed_by,
         coalesce(r.task_type, '') AS task_type, coalesce(r.complexity, '') AS complexity, count(*) AS n, sum(f.score) AS s
  FROM feedback f JOIN requests r ON r.id = f.request_id AND r.tenant_id = f.tenant_id
  GROUP BY 1, 2, 3, 4, 5, 6
) x
WHERE t.tenant_id = x.tenant_id AND t.provider = x.provider AND t.model = x.model AND t.routed_by = x.routed_by
  AND t.task_type = x.task_type AND t.complexity = x.complexity;
--> statement-breakpoint
INSERT INTO analytics_cost_hourly (tenant_id, bucket, provider, model, calls, errors, cost, input_tokens, output_tokens)
SELECT tenant_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', provider, model,
       count(*), count(*) FILTER (WHERE status <> 'ok'), sum(cost), sum(input_tokens), sum(output_tokens)
FROM cost_logs
GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
INSERT INTO analytics_cost_totals (tenant_id, provider, model, calls, errors, cost, input_tokens, output_tokens)
SELECT tenant_id, provider, model, count(*), count(*) FILTER (WHERE status <> 'ok'), sum(cost), sum(input_tokens), sum(output_tokens)
FROM cost_logs
GROUP BY 1, 2, 3;
