import { sql } from "drizzle-orm";
import { type Queryable, queryRows } from "../../db/database.js";

/**
 * Removes a user's whole entity graph (entities, mentions, relations, their sources and history):
 * a rebuild derives it again from the log with everything else.
 *
 * @example
 * await resetGraph(tx, { appId, userId });
 */
export async function resetGraph(tx: Queryable, scope: { appId: string; userId: string }): Promise<void> {
  const user = sql`app_id = ${scope.appId} AND user_id = ${scope.userId}`;
  await tx.execute(sql`DELETE FROM relations WHERE ${user}`);
  await tx.execute(sql`DELETE FROM entities WHERE ${user}`);
  await tx.execute(sql`DELETE FROM graph_history WHERE ${user}`);
}

/** What a user's graph asserts at `at`: each current entity ("Maya (person)") and each relation true then ("Maya teacher Mr. Ortiz"). */
export interface GraphState {
  entities: string[];
  relations: string[];
}

export async function currentGraph(tx: Queryable, scope: { appId: string; userId: string }, at: Date): Promise<GraphState> {
  const entities = await queryRows<{ line: string }>(
    tx,
    sql`SELECT name || ' (' || kind || ')' AS line FROM entities WHERE app_id = ${scope.appId} AND user_id = ${scope.userId} AND expired_at IS NULL ORDER BY 1`,
  );
  const relations = await queryRows<{ line: string }>(
    tx,
    sql`SELECT s.name || ' ' || r.predicate || ' ' || coalesce(o.name, r.object_value) AS line
          FROM relations r JOIN entities s ON s.id = r.subject_id LEFT JOIN entities o ON o.id = r.object_id
         WHERE r.app_id = ${scope.appId} AND r.user_id = ${scope.userId} AND r.expired_at IS NULL
           AND (r.invalid_at IS NULL OR r.invalid_at > ${at.toISOString()}::timestamptz) ORDER BY 1`,
  );
  return { entities: entities.map((row) => row.line), relations: relations.map((row) => row.line) };
}

/** What a derivation adds to and removes from the graph, as lines (a changed relation is one removed and one added). */
export interface GraphDiff {
  added: GraphState;
  removed: GraphState;
}

export function diffGraph(stored: GraphState, derived: GraphState): GraphDiff {
  const minus = (a: string[], b: string[]) => {
    const left = [...b];
    return a.filter((line) => {
      const twin = left.indexOf(line);
      if (twin < 0) return true;
      left.splice(twin, 1);
      return false;
    });
  };
  return {
    added: { entities: minus(derived.entities, stored.entities), relations: minus(derived.relations, stored.relations) },
    removed: { entities: minus(stored.entities, derived.entities), relations: minus(stored.relations, derived.relations) },
  };
}
