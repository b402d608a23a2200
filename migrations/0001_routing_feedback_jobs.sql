CREATE TABLE "feedback" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"request_id" text NOT NULL,
	"score" integer NOT NULL,
	"source" text NOT NULL,
	"comment" text,
	"provider" text,
	"model" text,
	"task_type" text,
	"complexity" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ab_tests" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"status" text NOT NULL,
	"task_type" text,
	"complexity" text,
	"variants" jsonb NOT NULL,
	"auto_generated" boolean DEFAULT false NOT NULL,
	"completion_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "judge_config" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"model" text,
	"sample_rate" real DEFAULT 0.05 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job_runs" (
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"last_started_at" timestamp with time zone,
	"last_finished_at" timestamp with time zone,
	"outcome" text,
	"error" text,
	"summary" text,
	"run_count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "job_runs_tenant_id_name_pk" PRIMARY KEY("tenant_id","name")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "feedback_tenant_request_source_idx" ON "feedback" USING btree ("tenant_id","request_id","source");--> statement-breakpoint
CREATE INDEX "feedback_tenant_created_idx" ON "feedback" USING btree ("tenant_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "feedback_tenant_cell_idx" ON "feedback" USING btree ("tenant_id","task_type","complexity","provider","model");--> statement-breakpoint
CREATE INDEX "ab_tests_tenant_status_idx" ON "ab_tests" USING btree ("tenant_id","status");