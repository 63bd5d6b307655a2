-- The memory change log that the embedded recall engine's in-process copies read (see
-- src/db/schema/memory-change-log.ts). Until now the embedded runtime installed these objects at
-- start; they are part of the schema on every database. The triggers write only while the setting
-- mnemo.change_log is on, which every embedded (PGlite) session sets: on a server the log stays empty
-- (the column null, the partial index empty, no deletion logged) and costs each write a trigger
-- call. IF NOT EXISTS / OR REPLACE: an embedded database that ran an earlier version has them already.
CREATE SEQUENCE IF NOT EXISTS "memories_change_seq";--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN IF NOT EXISTS "change_seq" bigint;--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "memory_deletions" (
	"change_seq" bigint PRIMARY KEY DEFAULT nextval('memories_change_seq') NOT NULL,
	"id" uuid NOT NULL
);--> statement-breakpoint
DROP INDEX IF EXISTS "memories_user_change_idx";--> statement-breakpoint
CREATE INDEX "memories_user_change_idx" ON "memories" USING btree ("app_id","user_id","change_seq") WHERE "memories"."change_seq" IS NOT NULL;--> statement-breakpoint
CREATE OR REPLACE FUNCTION memories_mark_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('mnemo.change_log', true) = 'on' THEN NEW.change_seq := nextval('memories_change_seq'); END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE OR REPLACE TRIGGER memories_mark_insert BEFORE INSERT ON memories FOR EACH ROW EXECUTE FUNCTION memories_mark_change();--> statement-breakpoint
CREATE OR REPLACE TRIGGER memories_mark_update
  BEFORE UPDATE OF content, embedding, embedding_model, type, subtype, session_id, metadata, created_at, valid_at, invalid_at, expired_at, trait_stage
  ON memories FOR EACH ROW EXECUTE FUNCTION memories_mark_change();--> statement-breakpoint
CREATE OR REPLACE FUNCTION memories_log_deletions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('mnemo.change_log', true) = 'on' THEN INSERT INTO memory_deletions (id) SELECT id FROM gone; END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE TRIGGER memories_log_deletions AFTER DELETE ON memories REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION memories_log_deletions();--> statement-breakpoint
-- Where the log is on (the embedded database), the rows written before it get a value once.
DO $$ BEGIN
  IF current_setting('mnemo.change_log', true) = 'on' THEN
    UPDATE memories SET change_seq = nextval('memories_change_seq') WHERE change_seq IS NULL;
  END IF;
END $$;
