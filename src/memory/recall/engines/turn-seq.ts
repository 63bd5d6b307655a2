import { sql } from "drizzle-orm";
import { m } from "../../visibility.js";

/** A turn's place in its session (null for every other memory) of the row `m`: what makes two turns neighbours. */
export const TURN_SEQ = sql`CASE WHEN ${m.subtype} = 'turn' THEN (${m.metadata} ->> 'seq')::int END`;
