-- The full-text ranking of a large corpus asks the word index for one user's memories holding a
-- word. Keyed by the word alone, the index returned every user's matches, and the heap read all of
-- them to keep one user's: a common word in a million memories meant tens of thousands of rows
-- per query. btree_gin lets user_id be a key of the same GIN index, so the scan intersects the
-- user's entries with the word's before touching the heap. (app_id is not a key: nearly every row
-- shares one, and intersecting with that list would cost more than it saves; it is checked on the row.)
CREATE EXTENSION IF NOT EXISTS btree_gin;--> statement-breakpoint
CREATE INDEX "memories_user_tsv_idx" ON "memories" USING gin ("user_id","content_tsv");--> statement-breakpoint
DROP INDEX "memories_tsv_idx";
