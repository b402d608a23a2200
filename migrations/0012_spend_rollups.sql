CREATE TABLE "spend_by_cell" (
	"tenant_id" text NOT NULL,
	"grain" char(1) NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"task_type" text NOT NULL,
	"complexity" text NOT NULL,
	"calls" bigint DEFAULT 0 NOT NULL,
	"cost" numeric DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "spend_by_cell_pk" PRIMARY KEY("tenant_id","grain","bucket","provider","model","task_type","complexity")
);
--> statement-breakpoint
CREATE TABLE "spend_by_token" (
	"tenant_id" text NOT NULL,
	"grain" char(1) NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"token_id" text NOT NULL,
	"calls" bigint DEFAULT 0 NOT NULL,
	"cost" numeric DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "spend_by_token_pk" PRIMARY KEY("tenant_id","grain","bucket","token_id")
);
--> statement-breakpoint
ALTER TABLE "cost_logs" ADD COLUMN "task_type" text;--> statement-breakpoint
ALTER TABLE "cost_logs" ADD COLUMN "complexity" text;