CREATE TABLE "token_spend" (
	"token_id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"spent_usd" numeric(20, 12) DEFAULT 0 NOT NULL,
	"calls" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "cost_logs" ADD COLUMN "token_id" text;--> statement-breakpoint

-- token_spend is kept by a statement-level trigger on cost_logs, like the analytics rollups (0004):
-- the log writer's one INSERT per batch adds each token's share with one grouped upsert in key
-- order, so writers in several gateway processes wait for each other but cannot deadlock. Spend is
-- all time: deleting cost rows (retention) does not give a token its budget back.
CREATE FUNCTION token_spend_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO token_spend AS t (token_id, tenant_id, spent_usd, calls)
  SELECT token_id, min(tenant_id), sum(cost), count(*)
  FROM changed
  WHERE token_id IS NOT NULL
  GROUP BY token_id
  ORDER BY token_id
  ON CONFLICT (token_id) DO UPDATE SET
    spent_usd = t.spent_usd + excluded.spent_usd,
    calls = t.calls + excluded.calls;
  RETURN NULL;
END
$$;
--> statement-breakpoint

-- Trigger first: it locks cost_logs against writes until this migration commits, so the backfill
-- below sees every row committed before it and no row is counted twice or missed. Cost rows logged
-- before this migration have no token_id; their tokens are found through their request rows.
CREATE TRIGGER token_spend_added AFTER INSERT ON cost_logs REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION token_spend_added();
--> statement-breakpoint
INSERT INTO token_spend (token_id, tenant_id, spent_usd, calls)
SELECT r.token_id, min(r.tenant_id), sum(c.cost), count(*)
FROM cost_logs c
JOIN requests r ON r.id = c.request_id AND r.tenant_id = c.tenant_id
WHERE r.token_id IS NOT NULL
GROUP BY r.token_id;
