import { z } from "zod";
import { type ErrorCode, STATUS_BY_CODE } from "../../src/errors.js";

const ERROR_CODES = Object.keys(STATUS_BY_CODE) as [ErrorCode, ...ErrorCode[]];

/** Every error the API answers: `{ error: { code, message, details } }`; a 400's details list each field. */
export const ErrorSchema = z.object({
  error: z.object({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    details: z.unknown().optional(),
  }),
});

const error = (description: string) => ({ description, content: { "application/json": { schema: ErrorSchema } } });

/** Every error answer of the API, by status. */
export const ERROR_RESPONSES = {
  400: error("Invalid input; `details.issues[].field` names each field (`body.…`, `query.…`, `path.…`)"),
  401: error("Missing or invalid API key"),
  404: error("Not found (also anything of another app)"),
  413: error("The body is larger than MAX_BODY_BYTES"),
  415: error("The body is not application/json"),
  429: error("Rate limited (see `retry-after`)"),
  503: error("The database is unreachable (a restart, a failover); nothing was changed, retry after `retry-after` seconds"),
};

/** The error answers a route can give, by what it is: keyed, with a JSON body, or neither. */
export function errorResponses(options: { keyed: boolean; body: boolean }): Partial<typeof ERROR_RESPONSES> {
  const { 401: unauthorized, 413: tooLarge, 415: notJson, 429: limited, ...always } = ERROR_RESPONSES;
  return {
    ...always,
    ...(options.keyed ? { 401: unauthorized, 429: limited } : {}),
    ...(options.body ? { 413: tooLarge, 415: notJson } : {}),
  };
}
