CREATE TABLE "analytics_request_hourly" (
	"tenant_id" text NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	"latency_sum" bigint DEFAULT 0 NOT NULL,
	"latency_max" integer DEFAULT 0 NOT NULL,
	"cache_hits" bigint DEFAULT 0 NOT NULL,
	"errors" bigint DEFAULT 0 NOT NULL,
	"feedback_count" bigint DEFAULT 0 NOT NULL,
	"feedback_score_sum" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "analytics_request_hourly_pk" PRIMARY KEY("tenant_id","bucket","provider","model")
);
--> statement-breakpoint
CREATE TABLE "analytics_request_totals" (
	"tenant_id" text NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"routed_by" text NOT NULL,
	"task_type" text NOT NULL,
	"complexity" text NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	"latency_sum" bigint DEFAULT 0 NOT NULL,
	"fallback_count" bigint DEFAULT 0 NOT NULL,
	"fallback_latency_sum" bigint DEFAULT 0 NOT NULL,
	"llm_fallback_count" bigint DEFAULT 0 NOT NULL,
	"exact_hits" bigint DEFAULT 0 NOT NULL,
	"semantic_hits" bigint DEFAULT 0 NOT NULL,
	"tokens_saved_input" bigint DEFAULT 0 NOT NULL,
	"tokens_saved_output" bigint DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"errors" bigint DEFAULT 0 NOT NULL,
	"streamed" bigint DEFAULT 0 NOT NULL,
	"feedback_count" bigint DEFAULT 0 NOT NULL,
	"feedback_score_sum" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "analytics_request_totals_pk" PRIMARY KEY("tenant_id","provider","model","routed_by","task_type","complexity")
);
--> statement-breakpoint
CREATE TABLE "analytics_cost_hourly" (
	"tenant_id" text NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"calls" bigint DEFAULT 0 NOT NULL,
	"errors" bigint DEFAULT 0 NOT NULL,
	"cost" numeric DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "analytics_cost_hourly_pk" PRIMARY KEY("tenant_id","bucket","provider","model")
);
--> statement-breakpoint
CREATE TABLE "analytics_cost_totals" (
	"tenant_id" text NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"calls" bigint DEFAULT 0 NOT NULL,
	"errors" bigint DEFAULT 0 NOT NULL,
	"cost" numeric DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "analytics_cost_totals_pk" PRIMARY KEY("tenant_id","provider","model")
);
--> statement-breakpoint
CREATE INDEX "requests_tenant_latency_idx" ON "requests" USING btree ("tenant_id","latency_ms","id");