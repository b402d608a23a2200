ALTER TABLE "requests" ADD CONSTRAINT "requests_status_check" CHECK ("requests"."status" in ('ok', 'error', 'client_closed'));--> statement-breakpoint
ALTER TABLE "requests" ADD CONSTRAINT "requests_endpoint_check" CHECK ("requests"."endpoint" in ('chat', 'embeddings'));--> statement-breakpoint
ALTER TABLE "cost_logs" ADD CONSTRAINT "cost_logs_status_check" CHECK ("cost_logs"."status" in ('ok', 'error'));--> statement-breakpoint
ALTER TABLE "feedback" ADD CONSTRAINT "feedback_source_check" CHECK ("feedback"."source" in ('user', 'judge'));--> statement-breakpoint
ALTER TABLE "ab_tests" ADD CONSTRAINT "ab_tests_status_check" CHECK ("ab_tests"."status" in ('active', 'paused', 'completed'));--> statement-breakpoint
ALTER TABLE "job_runs" ADD CONSTRAINT "job_runs_outcome_check" CHECK ("job_runs"."outcome" in ('running', 'succeeded', 'failed'));