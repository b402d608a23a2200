-- Cost rows get an idempotency key, (tenant_id, request_id, created_at, seq): the log writer
-- inserts them with ON CONFLICT DO NOTHING, so a batch retried after its commit went through but its
-- acknowledgement was lost adds no cost row twice (nor to the rollups and token_spend, whose
-- statement-level triggers see only the rows actually inserted). The unique index replaces the
-- (tenant_id, request_id) index: lookups by request still use its first two columns.
DROP INDEX "cost_logs_tenant_request_idx";--> statement-breakpoint
-- Added with a default and the default dropped at once: existing rows read 0 without the table being
-- rewritten; new rows carry the seq the log writer sets (null only from hand-written inserts).
ALTER TABLE "cost_logs" ADD COLUMN "seq" smallint DEFAULT 0;--> statement-breakpoint
ALTER TABLE "cost_logs" ALTER COLUMN "seq" DROP DEFAULT;--> statement-breakpoint
-- Rows logged before this migration: number the cost rows of each request in insertion order, so
-- that rows that could repeat the key (several calls of one request) get distinct ones. Only the
-- second and later rows of a request need writing.
UPDATE "cost_logs" c SET "seq" = n.seq
FROM (SELECT id, (row_number() OVER (PARTITION BY tenant_id, request_id ORDER BY id) - 1)::smallint AS seq FROM "cost_logs") n
WHERE c.id = n.id AND n.seq > 0;--> statement-breakpoint
CREATE UNIQUE INDEX "cost_logs_call_idx" ON "cost_logs" USING btree ("tenant_id","request_id","created_at","seq");
