CREATE TABLE "semantic_cache_entries" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "semantic_cache_entries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" text NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"context_key" text NOT NULL,
	"embedding_model" text NOT NULL,
	"embedding" "bytea" NOT NULL,
	"completion" jsonb NOT NULL,
	"input_tokens" integer NOT NULL,
	"output_tokens" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "semantic_cache_tenant_created_idx" ON "semantic_cache_entries" USING btree ("tenant_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "semantic_cache_tenant_expires_idx" ON "semantic_cache_entries" USING btree ("tenant_id","expires_at");