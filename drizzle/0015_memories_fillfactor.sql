-- Room on each page for a new version of a row, so that an update touching no indexed column
-- (access counts and times, retention) is a heap-only tuple update: no new entry in any index.
-- At 100 every such update went to another page and was inserted into every index again,
-- both HNSW graphs of a large user included: recording the accesses of one context window took
-- 1.5-2 s on a real Postgres with 100K memories for the user. Applies to pages written from now on.
ALTER TABLE "memories" SET (fillfactor = 80);
