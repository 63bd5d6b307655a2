CREATE TABLE "instructions" (
	"app_id" text NOT NULL,
	"key" text NOT NULL,
	"version" integer NOT NULL,
	"content" text NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "instructions_app_id_key_version_pk" PRIMARY KEY("app_id","key","version")
);
--> statement-breakpoint
CREATE TABLE "trait_evidence" (
	"id" uuid PRIMARY KEY NOT NULL,
	"trait_id" uuid NOT NULL,
	"direction" text NOT NULL,
	"quality" text NOT NULL,
	"content" text NOT NULL,
	"event_id" uuid,
	"observed_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "trait_stage" text;--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "reinforcement_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "contradiction_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "first_observed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "last_reinforced_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "window_start" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN "window_end" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "session_events" ADD COLUMN "importance" real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "trait_evidence" ADD CONSTRAINT "trait_evidence_trait_id_memories_id_fk" FOREIGN KEY ("trait_id") REFERENCES "public"."memories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "trait_evidence_trait_idx" ON "trait_evidence" USING btree ("trait_id","observed_at");--> statement-breakpoint
CREATE INDEX "memories_user_key_idx" ON "memories" USING btree ("app_id","user_id","key") WHERE "memories"."expired_at" IS NULL;