CREATE TABLE "price_overrides" (
	"tenant_id" text NOT NULL,
	"provider" text DEFAULT '' NOT NULL,
	"model" text NOT NULL,
	"input" double precision NOT NULL,
	"output" double precision NOT NULL,
	"cached_input" double precision,
	"cache_write_5m" double precision,
	"cache_write_1h" double precision,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "price_overrides_pk" PRIMARY KEY("tenant_id","provider","model")
);
--> statement-breakpoint
ALTER TABLE "cost_logs" ADD COLUMN "cached_input_tokens" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "cost_logs" ADD COLUMN "cache_write_5m_tokens" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "cost_logs" ADD COLUMN "cache_write_1h_tokens" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "cost_logs" ADD COLUMN "service_tier" text;