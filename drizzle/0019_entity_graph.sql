CREATE TABLE "entities" (
	"id" uuid PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"user_id" text NOT NULL,
	"name" text NOT NULL,
	"name_key" text NOT NULL,
	"kind" text NOT NULL,
	"self" boolean DEFAULT false NOT NULL,
	"aliases" text[] DEFAULT '{}'::text[] NOT NULL,
	"keys" text[] DEFAULT '{}'::text[] NOT NULL,
	"summary" text,
	"embedding" halfvec,
	"embedding_model" text,
	"valid_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expired_at" timestamp with time zone,
	"merged_into" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "graph_history" (
	"id" uuid PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"user_id" text NOT NULL,
	"entity_id" uuid,
	"relation_id" uuid,
	"operation" text NOT NULL,
	"actor" text NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"position" bigint GENERATED ALWAYS AS IDENTITY (sequence name "graph_history_position_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1)
);
--> statement-breakpoint
CREATE TABLE "entity_mentions" (
	"entity_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"session_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"surface" text NOT NULL,
	"said" boolean DEFAULT false NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	CONSTRAINT "entity_mentions_entity_id_event_id_surface_pk" PRIMARY KEY("entity_id","event_id","surface")
);
--> statement-breakpoint
CREATE TABLE "relation_sources" (
	"relation_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"session_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	CONSTRAINT "relation_sources_relation_id_event_id_pk" PRIMARY KEY("relation_id","event_id")
);
--> statement-breakpoint
CREATE TABLE "relations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"user_id" text NOT NULL,
	"subject_id" uuid NOT NULL,
	"predicate" text NOT NULL,
	"object_id" uuid,
	"object_value" text,
	"content" text NOT NULL,
	"confidence" real DEFAULT 1 NOT NULL,
	"valid_at" timestamp with time zone NOT NULL,
	"invalid_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expired_at" timestamp with time zone,
	"superseded_by" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "entity_mentions" ADD CONSTRAINT "entity_mentions_entity_id_entities_id_fk" FOREIGN KEY ("entity_id") REFERENCES "public"."entities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "relation_sources" ADD CONSTRAINT "relation_sources_relation_id_relations_id_fk" FOREIGN KEY ("relation_id") REFERENCES "public"."relations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "relations" ADD CONSTRAINT "relations_subject_id_entities_id_fk" FOREIGN KEY ("subject_id") REFERENCES "public"."entities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "relations" ADD CONSTRAINT "relations_object_id_entities_id_fk" FOREIGN KEY ("object_id") REFERENCES "public"."entities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "entities_user_name_idx" ON "entities" USING btree ("app_id","user_id","kind","name_key") WHERE "entities"."expired_at" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "entities_user_self_idx" ON "entities" USING btree ("app_id","user_id") WHERE "entities"."self" AND "entities"."expired_at" IS NULL;--> statement-breakpoint
CREATE INDEX "entities_user_keys_idx" ON "entities" USING gin ("user_id","keys");--> statement-breakpoint
CREATE INDEX "entities_user_idx" ON "entities" USING btree ("app_id","user_id","created_at");--> statement-breakpoint
CREATE INDEX "graph_history_entity_idx" ON "graph_history" USING btree ("entity_id","position");--> statement-breakpoint
CREATE INDEX "graph_history_relation_idx" ON "graph_history" USING btree ("relation_id","position");--> statement-breakpoint
CREATE INDEX "graph_history_user_idx" ON "graph_history" USING btree ("app_id","user_id","created_at");--> statement-breakpoint
CREATE INDEX "entity_mentions_event_idx" ON "entity_mentions" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "entity_mentions_entity_time_idx" ON "entity_mentions" USING btree ("entity_id","occurred_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "relation_sources_event_idx" ON "relation_sources" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "relations_subject_idx" ON "relations" USING btree ("subject_id","predicate");--> statement-breakpoint
CREATE INDEX "relations_object_idx" ON "relations" USING btree ("object_id") WHERE "relations"."object_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "relations_user_idx" ON "relations" USING btree ("app_id","user_id","created_at");--> statement-breakpoint
ALTER TABLE "memories" DROP COLUMN "retention";