import { durationMs, type Env } from "../config/env.js";
import { type Clock, offsetClock, systemClock } from "./clock.js";

/** The system clock, or the one CLOCK_OFFSET shifts. */
export function clockFromEnv(env: Pick<Env, "CLOCK_OFFSET">): Clock {
  return env.CLOCK_OFFSET ? offsetClock(durationMs(env.CLOCK_OFFSET)) : systemClock;
}
