import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "../db/database.js";
import { type PipelineStage, sessions } from "../db/schema/index.js";
import { releaseFailures } from "./failures.js";
import type { PipelineNotifier, SessionProgress } from "./notifier.js";
import { requestReflection } from "./reflection-backlog.js";

export interface RetryRequest {
  appId: string;
  userId: string;
  stage?: PipelineStage;
  sessionId?: string;
}

export interface RetryReport {
  replay: string[];
  reflection: string[];
  embedding: boolean;
}

/**
 * Retries a user's failed or parked stages (all, one stage, or one session's): their failure
 * counts are cleared and each is sent to the pipeline again. Returns what was retried.
 */
export async function retryStages(db: Database, notifier: PipelineNotifier, request: RetryRequest): Promise<RetryReport> {
  const released = await releaseFailures(db, request);
  const sessionIds = (stage: PipelineStage) =>
    released.filter((target) => target.stage === stage && target.sessionId).map((target) => target.sessionId as string);
  const replayIds = sessionIds("replay");
  const reflectionIds = sessionIds("reflection");
  const replay: SessionProgress[] =
    replayIds.length === 0
      ? []
      : (
          await db
            .select({ id: sessions.id, lastSeq: sessions.lastSeq })
            .from(sessions)
            .where(and(eq(sessions.appId, request.appId), eq(sessions.userId, request.userId), inArray(sessions.id, replayIds)))
        ).map((row) => ({ session_id: row.id, app_id: request.appId, user_id: request.userId, last_seq: row.lastSeq }));
  const reflection: SessionProgress[] = [];
  for (const sessionId of reflectionIds) {
    for (const row of await requestReflection(db, { appId: request.appId, userId: request.userId, sessionId })) {
      reflection.push({ session_id: row.id, app_id: row.appId, user_id: row.userId, last_seq: row.lastSeq });
    }
  }
  const embedding = released.some((target) => target.stage === "embedding");
  for (const progress of replay) await notifier.eventsAppended(progress);
  await notifier.reflect(reflection, "retry");
  if (embedding) await notifier.embed([{ app_id: request.appId, user_id: request.userId }]);
  return { replay: replay.map((row) => row.session_id), reflection: reflection.map((row) => row.session_id), embedding };
}
