CREATE TABLE "judge_samples" (
	"request_id" text PRIMARY KEY NOT NULL,
	"tenant_id" text NOT NULL,
	"prompt" jsonb NOT NULL,
	"answer" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "judge_samples_tenant_created_idx" ON "judge_samples" USING btree ("tenant_id","created_at");