CREATE TABLE "cost_migration_settings" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cost_migrations" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"task_type" text NOT NULL,
	"complexity" text NOT NULL,
	"from_provider" text NOT NULL,
	"from_model" text NOT NULL,
	"to_provider" text NOT NULL,
	"to_model" text NOT NULL,
	"status" text NOT NULL,
	"evidence" jsonb NOT NULL,
	"projected_monthly_savings_usd" double precision NOT NULL,
	"grace_until" timestamp with time zone NOT NULL,
	"grace_ended_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"rolled_back_at" timestamp with time zone,
	"rollback_kind" text,
	"rollback_reason" text,
	CONSTRAINT "cost_migrations_status_check" CHECK ("cost_migrations"."status" in ('active', 'rolled_back'))
);
--> statement-breakpoint
CREATE TABLE "regression_settings" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "regression_events" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"task_type" text NOT NULL,
	"complexity" text NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"sample_count" integer NOT NULL,
	"original_avg_score" double precision NOT NULL,
	"replay_avg_score" double precision NOT NULL,
	"score_delta" double precision NOT NULL,
	"severity" text NOT NULL,
	"example_request_ids" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	"resolution_note" text,
	CONSTRAINT "regression_events_severity_check" CHECK ("regression_events"."severity" in ('warning', 'critical'))
);
--> statement-breakpoint
CREATE INDEX "cost_migrations_tenant_created_idx" ON "cost_migrations" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "cost_migrations_active_cell_uq" ON "cost_migrations" USING btree ("tenant_id","task_type","complexity") WHERE "cost_migrations"."status" = 'active';--> statement-breakpoint
CREATE INDEX "regression_events_tenant_created_idx" ON "regression_events" USING btree ("tenant_id","created_at");