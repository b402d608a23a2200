CREATE TABLE "eval_cases" (
	"tenant_id" text NOT NULL,
	"dataset_id" text NOT NULL,
	"idx" integer NOT NULL,
	"input" jsonb NOT NULL,
	"expected" text,
	"metadata" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "eval_cases_pk" PRIMARY KEY("tenant_id","dataset_id","idx")
);
--> statement-breakpoint
CREATE TABLE "eval_datasets" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"case_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "eval_results" (
	"tenant_id" text NOT NULL,
	"run_id" text NOT NULL,
	"case_index" integer NOT NULL,
	"output" text,
	"score" integer,
	"error" text,
	"latency_ms" integer NOT NULL,
	"cost_usd" numeric(20, 12) DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "eval_results_pk" PRIMARY KEY("tenant_id","run_id","case_index")
);
--> statement-breakpoint
CREATE TABLE "eval_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"dataset_id" text NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"scorer" text NOT NULL,
	"status" text NOT NULL,
	"total_cases" integer NOT NULL,
	"completed_cases" integer DEFAULT 0 NOT NULL,
	"scored_cases" integer DEFAULT 0 NOT NULL,
	"score_sum" integer DEFAULT 0 NOT NULL,
	"errored_cases" integer DEFAULT 0 NOT NULL,
	"cost_usd" numeric(20, 12) DEFAULT 0 NOT NULL,
	"judge_model" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	CONSTRAINT "eval_runs_scorer_check" CHECK ("eval_runs"."scorer" in ('llm-judge', 'exact-match', 'regex-match')),
	CONSTRAINT "eval_runs_status_check" CHECK ("eval_runs"."status" in ('queued', 'running', 'completed', 'failed', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "prompt_rollouts" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"template_id" text NOT NULL,
	"stable_version_id" text NOT NULL,
	"canary_version_id" text NOT NULL,
	"rollout_pct" real NOT NULL,
	"min_samples" integer NOT NULL,
	"window_hours" real NOT NULL,
	"max_avg_score_delta" real NOT NULL,
	"status" text NOT NULL,
	"completion_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "prompt_rollouts_status_check" CHECK ("prompt_rollouts"."status" in ('active', 'promoted', 'reverted'))
);
--> statement-breakpoint
CREATE TABLE "prompt_templates" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"published_version_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "prompt_versions" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"template_id" text NOT NULL,
	"version" integer NOT NULL,
	"messages" jsonb NOT NULL,
	"variables" jsonb NOT NULL,
	"note" text,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "prompt_versions_status_check" CHECK ("prompt_versions"."status" in ('draft', 'published', 'retired', 'rejected'))
);
--> statement-breakpoint
CREATE TABLE "captured_exchanges" (
	"tenant_id" text NOT NULL,
	"request_id" text NOT NULL,
	"messages" jsonb NOT NULL,
	"answer" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "captured_exchanges_pk" PRIMARY KEY("tenant_id","request_id")
);
--> statement-breakpoint
CREATE TABLE "exchange_capture_settings" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"sample_rate" real DEFAULT 1 NOT NULL,
	"retention_days" integer DEFAULT 30 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "eval_cases" ADD CONSTRAINT "eval_cases_dataset_fk" FOREIGN KEY ("dataset_id") REFERENCES "public"."eval_datasets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "eval_results" ADD CONSTRAINT "eval_results_run_fk" FOREIGN KEY ("run_id") REFERENCES "public"."eval_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "eval_runs" ADD CONSTRAINT "eval_runs_dataset_id_eval_datasets_id_fk" FOREIGN KEY ("dataset_id") REFERENCES "public"."eval_datasets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_rollouts" ADD CONSTRAINT "prompt_rollouts_template_id_prompt_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."prompt_templates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_versions" ADD CONSTRAINT "prompt_versions_template_id_prompt_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."prompt_templates"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "eval_datasets_tenant_created_idx" ON "eval_datasets" USING btree ("tenant_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "eval_runs_tenant_created_idx" ON "eval_runs" USING btree ("tenant_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "eval_runs_tenant_status_idx" ON "eval_runs" USING btree ("tenant_id","status");--> statement-breakpoint
CREATE INDEX "prompt_rollouts_tenant_created_idx" ON "prompt_rollouts" USING btree ("tenant_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "prompt_rollouts_one_active_idx" ON "prompt_rollouts" USING btree ("tenant_id","template_id") WHERE status = 'active';--> statement-breakpoint
CREATE UNIQUE INDEX "prompt_templates_tenant_name_idx" ON "prompt_templates" USING btree ("tenant_id","name");--> statement-breakpoint
CREATE INDEX "prompt_templates_tenant_created_idx" ON "prompt_templates" USING btree ("tenant_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "prompt_versions_tenant_template_version_idx" ON "prompt_versions" USING btree ("tenant_id","template_id","version");--> statement-breakpoint
CREATE INDEX "captured_exchanges_tenant_created_idx" ON "captured_exchanges" USING btree ("tenant_id","created_at");