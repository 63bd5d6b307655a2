import { Middleware } from "inngest";
import { recordStep } from "../src/telemetry/metrics.js";
import { inSpan } from "../src/telemetry/tracing.js";
import { withLogContext } from "../src/util/log-context.js";

/**
 * A span per attempt of each durable step (`step.run`, `step.sendEvent`), with the run, function
 * and step ids and the attempt, and a latency observation by function and outcome; log lines
 * written inside a step carry the run and function ids. It runs where the step runs, so it works
 * alike under the embedded executor and Inngest Cloud (whose call's `traceparent` the server span
 * of `/api/inngest` continues).
 *
 * @example
 * new Inngest({ id, middleware: [StepTelemetry] });
 */
export class StepTelemetry extends Middleware.BaseMiddleware {
  readonly id = "mnemo:step-telemetry";

  override async wrapStepHandler(args: Middleware.WrapStepHandlerArgs): Promise<unknown> {
    const functionId = args.fn.opts.id;
    const step = args.stepInfo.options.id;
    const started = performance.now();
    let outcome: "ok" | "error" = "error";
    try {
      return await inSpan(
        `step ${functionId}/${step}`,
        {
          "inngest.function.id": functionId,
          "inngest.run.id": args.ctx.runId,
          "inngest.step.id": step,
          "inngest.step.attempt": args.ctx.attempt,
        },
        () =>
          withLogContext({ run_id: args.ctx.runId, function_id: functionId, step }, async () => {
            const result = await args.next();
            outcome = "ok";
            return result;
          }),
      );
    } finally {
      recordStep((performance.now() - started) / 1000, { function: functionId, outcome });
    }
  }
}
