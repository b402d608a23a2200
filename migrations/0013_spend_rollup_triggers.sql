-- The spend rollups (spend_by_cell, spend_by_token; tables in spend_rollups) kept by statement-level
-- triggers on cost_logs, as the analytics rollups are (0004): one grouped upsert per table and
-- grain per statement, in key order. These triggers are named after the analytics ones, so
-- PostgreSQL fires them after those (alphabetical order) and every writer touches the rollup tables
-- in the same order: no deadlock between gateway processes. Deletes subtract; TRUNCATE clears.

CREATE FUNCTION spend_costs_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  sign int := CASE WHEN TG_OP = 'DELETE' THEN -1 ELSE 1 END;
BEGIN
  INSERT INTO spend_by_cell AS t (tenant_id, grain, bucket, provider, model, task_type, complexity, calls, cost, input_tokens, output_tokens)
  SELECT tenant_id, 'h', date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', provider, model, coalesce(task_type, ''), coalesce(complexity, ''),
         sign * count(*), sign * sum(cost), sign * sum(input_tokens), sign * sum(output_tokens)
  FROM changed
  GROUP BY 1, 2, 3, 4, 5, 6, 7
  ORDER BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT (tenant_id, grain, bucket, provider, model, task_type, complexity) DO UPDATE SET
    calls = t.calls + excluded.calls,
    cost = t.cost + excluded.cost,
    input_tokens = t.input_tokens + excluded.input_tokens,
    output_tokens = t.output_tokens + excluded.output_tokens;

  INSERT INTO spend_by_cell AS t (tenant_id, grain, bucket, provider, model, task_type, complexity, calls, cost, input_tokens, output_tokens)
  SELECT tenant_id, 'd', date_trunc('day', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', provider, model, coalesce(task_type, ''), coalesce(complexity, ''),
         sign * count(*), sign * sum(cost), sign * sum(input_tokens), sign * sum(output_tokens)
  FROM changed
  GROUP BY 1, 2, 3, 4, 5, 6, 7
  ORDER BY 1, 2, 3, 4, 5, 6, 7
  ON CONFLICT (tenant_id, grain, bucket, provider, model, task_type, complexity) DO UPDATE SET
    calls = t.calls + excluded.calls,
    cost = t.cost + excluded.cost,
    input_tokens = t.input_tokens + excluded.input_tokens,
    output_tokens = t.output_tokens + excluded.output_tokens;

  INSERT INTO spend_by_token AS t (tenant_id, grain, bucket, token_id, calls, cost, input_tokens, output_tokens)
  SELECT tenant_id, 'h', date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', coalesce(token_id, ''),
         sign * count(*), sign * sum(cost), sign * sum(input_tokens), sign * sum(output_tokens)
  FROM changed
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (tenant_id, grain, bucket, token_id) DO UPDATE SET
    calls = t.calls + excluded.calls,
    cost = t.cost + excluded.cost,
    input_tokens = t.input_tokens + excluded.input_tokens,
    output_tokens = t.output_tokens + excluded.output_tokens;

  INSERT INTO spend_by_token AS t (tenant_id, grain, bucket, token_id, calls, cost, input_tokens, output_tokens)
  SELECT tenant_id, 'd', date_trunc('day', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', coalesce(token_id, ''),
         sign * count(*), sign * sum(cost), sign * sum(input_tokens), sign * sum(output_tokens)
  FROM changed
  GROUP BY 1, 2, 3, 4
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (tenant_id, grain, bucket, token_id) DO UPDATE SET
    calls = t.calls + excluded.calls,
    cost = t.cost + excluded.cost,
    input_tokens = t.input_tokens + excluded.input_tokens,
    output_tokens = t.output_tokens + excluded.output_tokens;

  IF TG_OP = 'DELETE' THEN
    DELETE FROM spend_by_cell t USING (SELECT DISTINCT tenant_id FROM changed) d WHERE t.tenant_id = d.tenant_id AND t.calls <= 0;
    DELETE FROM spend_by_token t USING (SELECT DISTINCT tenant_id FROM changed) d WHERE t.tenant_id = d.tenant_id AND t.calls <= 0;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION spend_costs_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM spend_by_cell;
  DELETE FROM spend_by_token;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER spend_costs_added AFTER INSERT ON cost_logs REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION spend_costs_changed();
--> statement-breakpoint
CREATE TRIGGER spend_costs_removed AFTER DELETE ON cost_logs REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION spend_costs_changed();
--> statement-breakpoint
CREATE TRIGGER spend_costs_truncated AFTER TRUNCATE ON cost_logs FOR EACH STATEMENT EXECUTE FUNCTION spend_costs_truncated();
--> statement-breakpoint

-- Rows written before cost rows carried their cell take it from their request row; then backfill.
UPDATE cost_logs c SET task_type = r.task_type, complexity = r.complexity
FROM requests r
WHERE r.id = c.request_id AND r.tenant_id = c.tenant_id AND c.task_type IS NULL AND r.task_type IS NOT NULL;
--> statement-breakpoint
INSERT INTO spend_by_cell (tenant_id, grain, bucket, provider, model, task_type, complexity, calls, cost, input_tokens, output_tokens)
SELECT tenant_id, 'h', date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', provider, model, coalesce(task_type, ''), coalesce(complexity, ''),
       count(*), sum(cost), sum(input_tokens), sum(output_tokens)
FROM cost_logs
GROUP BY 1, 2, 3, 4, 5, 6, 7;
--> statement-breakpoint
INSERT INTO spend_by_cell (tenant_id, grain, bucket, provider, model, task_type, complexity, calls, cost, input_tokens, output_tokens)
SELECT tenant_id, 'd', date_trunc('day', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', provider, model, coalesce(task_type, ''), coalesce(complexity, ''),
       count(*), sum(cost), sum(input_tokens), sum(output_tokens)
FROM cost_logs
GROUP BY 1, 2, 3, 4, 5, 6, 7;
--> statement-breakpoint
INSERT INTO spend_by_token (tenant_id, grain, bucket, token_id, calls, cost, input_tokens, output_tokens)
SELECT tenant_id, 'h', date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', coalesce(token_id, ''),
       count(*), sum(cost), sum(input_tokens), sum(output_tokens)
FROM cost_logs
GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
INSERT INTO spend_by_token (tenant_id, grain, bucket, token_id, calls, cost, input_tokens, output_tokens)
SELECT tenant_id, 'd', date_trunc('day', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', coalesce(token_id, ''),
       count(*), sum(cost), sum(input_tokens), sum(output_tokens)
FROM cost_logs
GROUP BY 1, 2, 3, 4;
