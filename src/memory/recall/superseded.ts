import { type SQL, sql } from "drizzle-orm";
import { current, memoriesAs, trueAt } from "../visibility.js";

/** One statement of an episode that was replaced. */
export interface Replacement {
  /** When the statement stopped being true (the newer statement's time, or the retraction's). */
  at: Date;
  /** The statement that holds now; null when the old one was retracted without a new one. */
  by: string | null;
  byId: string | null;
}

/** What replaced the statements an episode records (a summary can hold several), oldest first. */
export type Superseded = Replacement[];

/** At most this many replacements are reported per episode. */
const MAX_REPLACEMENTS = 3;

/**
 * For an episode (a turn or a summary) aliased `r` with `id`, `type`, `app_id` and `user_id`: the
 * facts it gave rise to that are no longer true at `now` — superseded ("I love cats" → "I hate
 * cats") or retracted — each with what holds instead, as a JSON array, or NULL. An assistant's reply
 * counts with the user turn it answers, so "Sushi is great!" after "I love sushi" is marked too —
 * when it speaks of what ended (`mentionsWhatEnded`). A fact stated again later (the current
 * version has the same value) makes nothing stale.
 */
export function supersededSql(now: Date): SQL {
  const f = memoriesAs("f");
  const c = memoriesAs("c");
  return sql`(SELECT json_agg(json_build_object('at', x.at, 'by', x.by, 'by_id', x.by_id) ORDER BY x.at) FROM (
     SELECT DISTINCT ON (${f.key}) ${f.invalidAt} AS at, n.content AS by, n.id AS by_id
       FROM memory_sources ms
       JOIN session_events own ON own.id = ms.event_id
       JOIN session_events e ON e.id = own.id
         OR (own.role <> 'user' AND e.session_id = own.session_id AND e.seq = own.seq - 1 AND e.role = 'user')
       JOIN memory_sources fs ON fs.event_id = e.id
       JOIN memories f ON ${f.id} = fs.memory_id
       LEFT JOIN LATERAL (
         SELECT ${c.id}, ${c.content}, ${c.value} FROM memories c
          WHERE ${c.appId} = ${f.appId} AND ${c.userId} = ${f.userId} AND ${c.type} = 'semantic' AND ${c.key} = ${f.key}
            AND ${current(c)} AND ${trueAt(c, now)}
          ORDER BY ${c.validAt} DESC LIMIT 1) n ON true
      WHERE ms.memory_id = r.id AND r.type = 'episodic'
        AND ${f.type} = 'semantic' AND ${f.appId} = r.app_id AND ${f.userId} = r.user_id
        AND ${f.invalidAt} IS NOT NULL AND ${f.invalidAt} <= ${now.toISOString()}::timestamptz
        AND n.value IS DISTINCT FROM ${f.value}
        AND ${mentionsWhatEnded(f)}
      ORDER BY ${f.key}, ${f.invalidAt} DESC
   ) x)`;
}

/**
 * Whether the episode `r` speaks of what the ended fact `f` was about — its value ("Lisbon"), the
 * object of a taste or habit ("cats"), the person it named — so that "Congratulations! How do you
 * like it so far?" after "I moved to Lisbon" is not marked when the user moves on, while the turn
 * that said Lisbon is. A fact whose object cannot be read marks every episode it came from.
 */
function mentionsWhatEnded(f: ReturnType<typeof memoriesAs>): SQL {
  const object = sql`coalesce(${f.value} ->> 'object', ${f.value} ->> 'name', CASE WHEN jsonb_typeof(${f.value}) = 'string' THEN ${f.value} #>> '{}' END)`;
  return sql`(${object} IS NULL OR numnode(plainto_tsquery('english', ${object})) = 0
              OR to_tsvector('english', r.content) @@ plainto_tsquery('english', ${object}))`;
}

export function toSuperseded(value: unknown): Superseded | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  return (value as { at: string; by: string | null; by_id: string | null }[])
    .slice(-MAX_REPLACEMENTS)
    .map((row) => ({ at: new Date(row.at), by: row.by ?? null, byId: row.by_id ?? null }));
}

/** The marker an episode carries in a prompt once what it says was replaced: each change, when, and what holds now. */
export function supersededMarker(superseded: Superseded): string {
  const changes = superseded.map((replacement) => {
    const day = replacement.at.toISOString().slice(0, 10);
    return replacement.by ? `on ${day} by: ${replacement.by}` : `on ${day}: retracted`;
  });
  return `[superseded ${changes.join("; ")}]`;
}
