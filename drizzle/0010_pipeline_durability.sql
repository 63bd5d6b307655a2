CREATE TABLE "pipeline_failures" (
	"app_id" text NOT NULL,
	"user_id" text NOT NULL,
	"stage" text NOT NULL,
	"subject" text NOT NULL,
	"attempts" integer NOT NULL,
	"last_error" text NOT NULL,
	"first_failed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_failed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"parked_at" timestamp with time zone,
	CONSTRAINT "pipeline_failures_app_id_user_id_stage_subject_pk" PRIMARY KEY("app_id","user_id","stage","subject")
);
--> statement-breakpoint
ALTER TABLE "executor_runs" ADD COLUMN "app_id" text;--> statement-breakpoint
ALTER TABLE "executor_runs" ADD COLUMN "claim_token" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "reflection_requested_seq" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "pipeline_failures_stage_idx" ON "pipeline_failures" USING btree ("stage","subject");--> statement-breakpoint
CREATE INDEX "executor_runs_lease_idx" ON "executor_runs" USING btree ("lease_until") WHERE "executor_runs"."status" = 'running';--> statement-breakpoint
-- Runs queued before this migration: their app from the event, and no debounce key once started
-- (a started or retrying run must never take events or collide with a newer queued run).
UPDATE "executor_runs" SET "app_id" = "event" -> 'data' ->> 'app_id' WHERE "app_id" IS NULL;--> statement-breakpoint
UPDATE "executor_runs" r SET "debounce_key" = NULL
 WHERE r."debounce_key" IS NOT NULL
   AND (r."status" <> 'queued' OR r."attempt" > 0 OR EXISTS (SELECT 1 FROM "executor_steps" s WHERE s."run_id" = r."id"));
