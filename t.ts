import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { connectDatabase } from "./src/db/connect.js";
import { migrateDatabase } from "./src/db/migrate.js";
import { percentile, time } from "./bench/stats.js";
const h = await connectDatabase({ DATA_DIR: "/tmp/by" + Date.now() } as any);
await migrateDatabase(h);
const db = h.db;
await db.execute(sql`CREATE TABLE r (id uuid PRIMARY KEY, session_id uuid NOT NULL, seq int NOT NULL, content text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`);
await db.execute(sql.raw(`CREATE FUNCTION append_events(p_session uuid, p_events jsonb) RETURNS TABLE(id uuid, seq int, app_id text, user_id text, last_seq int) LANGUAGE plpgsql AS $$
DECLARE n int := jsonb_array_length(p_events); s record;
BEGIN
  UPDATE sessions SET last_seq = sessions.last_seq + n, last_event_at = now(), updated_at = now() WHERE sessions.id = p_session AND ended_at IS NULL RETURNING sessions.app_id, sessions.user_id, sessions.last_seq INTO s;
  IF NOT FOUND THEN RETURN; END IF;
  RETURN QUERY INSERT INTO session_events AS ev (id, session_id, app_id, user_id, seq, type, role, content, data, token_count, idempotency_key, request_hash, occurred_at)
    SELECT e.id, p_session, s.app_id, s.user_id, s.last_seq - n + e.ord, e.type, e.role, e.content, e.data, e.token_count, e.idempotency_key, e.request_hash, coalesce(e.occurred_at, now())
    FROM jsonb_to_recordset(p_events) AS e(id uuid, ord int, type text, role text, content text, data jsonb, token_count int, idempotency_key text, request_hash text, occurred_at timestamptz)
    RETURNING ev.id, ev.seq, ev.app_id, ev.user_id, s.last_seq;
END $$`));
const sid = randomUUID();
await db.execute(sql`INSERT INTO sessions (id, app_id, user_id) VALUES (${sid}, 'a', 'u')`);
const c = "I moved to Lisbon last spring and I cycle along the river every morning before work.";
const ev = () => JSON.stringify([{ id: randomUUID(), ord: 1, type: "m", role: "user", content: c, data: null, token_count: 18, idempotency_key: null, request_hash: null, occurred_at: null }]);
const raw: number[] = [], cte: number[] = [], fn: number[] = [], single: number[] = [];
for (let i = 0; i < 600; i++) {
  raw.push(await time(() => db.execute(sql`INSERT INTO r (id, session_id, seq, content) VALUES (${randomUUID()}, ${sid}, ${i}, ${c})`)));
  const e = ev();
  cte.push(await time(() => db.execute(sql`
      WITH bumped AS (UPDATE sessions SET last_seq = last_seq + 1, last_event_at = now(), updated_at = now() WHERE id = ${sid} AND ended_at IS NULL RETURNING app_id, user_id, last_seq)
      INSERT INTO session_events (id, session_id, app_id, user_id, seq, type, role, content, data, token_count, idempotency_key, request_hash, occurred_at)
      SELECT e.id, ${sid}, b.app_id, b.user_id, b.last_seq - 1 + e.ord, e.type, e.role, e.content, e.data, e.token_count, e.idempotency_key, e.request_hash, coalesce(e.occurred_at, now())
        FROM bumped b, jsonb_to_recordset(${e}::jsonb) AS e(id uuid, ord int, type text, role text, content text, data jsonb, token_count int, idempotency_key text, request_hash text, occurred_at timestamptz)
      RETURNING id, seq, app_id, user_id, (SELECT last_seq FROM bumped) AS last_seq`)));
  const e2 = ev();
  fn.push(await time(() => db.execute(sql`SELECT * FROM append_events(${sid}, ${e2}::jsonb)`)));
  single.push(await time(() => db.execute(sql`
      WITH bumped AS (UPDATE sessions SET last_seq = last_seq + 1, last_event_at = now(), updated_at = now() WHERE id = ${sid} AND ended_at IS NULL RETURNING app_id, user_id, last_seq)
      INSERT INTO session_events (id, session_id, app_id, user_id, seq, type, role, content, token_count, occurred_at)
      SELECT ${randomUUID()}, ${sid}, b.app_id, b.user_id, b.last_seq, 'm', 'user', ${c}, 18, now() FROM bumped b RETURNING id, seq`)));
}
const p = (a: number[]) => percentile(a.slice(100), 50).toFixed(3);
console.log({ raw: p(raw), cte: p(cte), plpgsql: p(fn), singleRowCte: p(single) });
