CREATE TABLE "guardrail_logs" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"rule_id" text NOT NULL,
	"rule_name" text NOT NULL,
	"action" text NOT NULL,
	"snippet" text NOT NULL,
	"request_id" text NOT NULL,
	"token_id" text,
	"endpoint" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "guardrail_rules" (
	"id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"name" text NOT NULL,
	"group" text NOT NULL,
	"type" text NOT NULL,
	"builtin_key" text,
	"pattern" text NOT NULL,
	"action" text NOT NULL,
	"enabled" boolean NOT NULL,
	"engine" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "budget_alerts" (
	"tenant_id" text NOT NULL,
	"month" text NOT NULL,
	"threshold_pct" integer NOT NULL,
	"spent_usd" numeric(20, 12) NOT NULL,
	"budget_usd" numeric(14, 4) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "budget_alerts_pk" PRIMARY KEY("tenant_id","month","threshold_pct")
);
--> statement-breakpoint
CREATE TABLE "workspace_budgets" (
	"tenant_id" text PRIMARY KEY NOT NULL,
	"monthly_usd" numeric(14, 4) NOT NULL,
	"alert_thresholds" jsonb NOT NULL,
	"hard_stop" boolean NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "guardrail_logs_tenant_created_idx" ON "guardrail_logs" USING btree ("tenant_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "guardrail_rules_tenant_idx" ON "guardrail_rules" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "guardrail_rules_tenant_builtin_idx" ON "guardrail_rules" USING btree ("tenant_id","builtin_key") WHERE "guardrail_rules"."builtin_key" is not null;