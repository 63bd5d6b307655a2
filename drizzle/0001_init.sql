CREATE TABLE "consolidation_jobs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"user_id" text NOT NULL,
	"session_id" uuid,
	"job_type" text NOT NULL,
	"run_id" text,
	"status" text NOT NULL,
	"from_seq" integer,
	"to_seq" integer,
	"progress" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"result" jsonb,
	"error" text,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "executor_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"function_id" text NOT NULL,
	"status" text NOT NULL,
	"event" jsonb NOT NULL,
	"events" jsonb NOT NULL,
	"user_id" text,
	"debounce_key" text,
	"concurrency_key" text,
	"concurrency_limit" integer,
	"attempt" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer NOT NULL,
	"run_at" timestamp with time zone NOT NULL,
	"debounce_deadline" timestamp with time zone,
	"lease_until" timestamp with time zone,
	"output" jsonb,
	"error" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "executor_steps" (
	"run_id" text NOT NULL,
	"step_id" text NOT NULL,
	"position" integer NOT NULL,
	"name" text,
	"data" jsonb,
	"error" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "executor_steps_run_id_step_id_pk" PRIMARY KEY("run_id","step_id")
);
--> statement-breakpoint
CREATE TABLE "memories" (
	"id" uuid PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"user_id" text NOT NULL,
	"session_id" uuid,
	"type" text NOT NULL,
	"subtype" text,
	"content" text NOT NULL,
	"key" text,
	"value" jsonb,
	"importance" real DEFAULT 0.5 NOT NULL,
	"confidence" real DEFAULT 1 NOT NULL,
	"valid_at" timestamp with time zone DEFAULT now() NOT NULL,
	"invalid_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expired_at" timestamp with time zone,
	"version" integer DEFAULT 1 NOT NULL,
	"superseded_by" uuid,
	"content_hash" text NOT NULL,
	"access_count" integer DEFAULT 0 NOT NULL,
	"last_accessed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retention" real DEFAULT 1 NOT NULL,
	"pinned" boolean DEFAULT false NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"embedding" halfvec,
	"embedding_model" text,
	"embedded_at" timestamp with time zone,
	"content_tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', "memories"."content")) STORED,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "memory_history" (
	"id" uuid PRIMARY KEY NOT NULL,
	"memory_id" uuid NOT NULL,
	"app_id" text NOT NULL,
	"user_id" text NOT NULL,
	"operation" text NOT NULL,
	"actor" text NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "memory_sources" (
	"memory_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"session_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	CONSTRAINT "memory_sources_memory_id_event_id_pk" PRIMARY KEY("memory_id","event_id")
);
--> statement-breakpoint
CREATE TABLE "scoped_state" (
	"app_id" text NOT NULL,
	"scope" text NOT NULL,
	"owner_id" text NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "scoped_state_app_id_scope_owner_id_pk" PRIMARY KEY("app_id","scope","owner_id")
);
--> statement-breakpoint
CREATE TABLE "session_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"session_id" uuid NOT NULL,
	"app_id" text NOT NULL,
	"user_id" text NOT NULL,
	"seq" integer NOT NULL,
	"type" text NOT NULL,
	"role" text NOT NULL,
	"content" text NOT NULL,
	"data" jsonb,
	"token_count" integer NOT NULL,
	"idempotency_key" text,
	"request_hash" text,
	"occurred_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "session_events_seq_unique" UNIQUE("session_id","seq")
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"user_id" text NOT NULL,
	"agent_id" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"last_seq" integer DEFAULT 0 NOT NULL,
	"replayed_seq" integer DEFAULT 0 NOT NULL,
	"reflected_seq" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone,
	"last_event_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sessions_watermarks_check" CHECK ("sessions"."replayed_seq" <= "sessions"."last_seq" AND "sessions"."reflected_seq" <= "sessions"."last_seq")
);
--> statement-breakpoint
ALTER TABLE "executor_steps" ADD CONSTRAINT "executor_steps_run_id_executor_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."executor_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memories" ADD CONSTRAINT "memories_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memory_sources" ADD CONSTRAINT "memory_sources_memory_id_memories_id_fk" FOREIGN KEY ("memory_id") REFERENCES "public"."memories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "session_events" ADD CONSTRAINT "session_events_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "consolidation_jobs_user_idx" ON "consolidation_jobs" USING btree ("app_id","user_id","started_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "executor_runs_due_idx" ON "executor_runs" USING btree ("run_at") WHERE "executor_runs"."status" = 'queued';--> statement-breakpoint
CREATE INDEX "executor_runs_user_idx" ON "executor_runs" USING btree ("user_id","status");--> statement-breakpoint
CREATE UNIQUE INDEX "executor_runs_debounce_idx" ON "executor_runs" USING btree ("function_id","debounce_key") WHERE "executor_runs"."status" = 'queued' AND "executor_runs"."debounce_key" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "memories_user_time_idx" ON "memories" USING btree ("app_id","user_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "memories_user_hash_idx" ON "memories" USING btree ("app_id","user_id","content_hash");--> statement-breakpoint
CREATE INDEX "memories_tsv_idx" ON "memories" USING gin ("content_tsv");--> statement-breakpoint
CREATE INDEX "memories_unembedded_idx" ON "memories" USING btree ("created_at") WHERE "memories"."embedding" IS NULL AND "memories"."expired_at" IS NULL;--> statement-breakpoint
CREATE INDEX "memory_history_memory_idx" ON "memory_history" USING btree ("memory_id","created_at");--> statement-breakpoint
CREATE INDEX "memory_sources_event_idx" ON "memory_sources" USING btree ("event_id");--> statement-breakpoint
CREATE UNIQUE INDEX "session_events_idempotency_idx" ON "session_events" USING btree ("session_id","idempotency_key") WHERE "session_events"."idempotency_key" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "session_events_user_idx" ON "session_events" USING btree ("app_id","user_id","occurred_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "sessions" USING btree ("app_id","user_id","started_at" DESC NULLS LAST);