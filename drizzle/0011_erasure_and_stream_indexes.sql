DROP INDEX "executor_runs_user_idx";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "app_id" text;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "user_id" text;--> statement-breakpoint
CREATE INDEX "consolidation_jobs_changed_idx" ON "consolidation_jobs" USING btree ("app_id","user_id",coalesce("completed_at", "started_at"));--> statement-breakpoint
CREATE INDEX "executor_runs_finished_idx" ON "executor_runs" USING btree ("finished_at") WHERE "executor_runs"."finished_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "memory_history_user_idx" ON "memory_history" USING btree ("app_id","user_id","created_at");--> statement-breakpoint
CREATE INDEX "executor_runs_user_idx" ON "executor_runs" USING btree ("app_id","user_id","status");