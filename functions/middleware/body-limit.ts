import { bodyLimit } from "hono/body-limit";
import { errorResponse } from "./error-handler.js";

/** Rejects bodies over `maxBytes` with 413 before they are read into memory. */
export function limitBody(maxBytes = 1_048_576) {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) => errorResponse(c, "payload_too_large", `request body exceeds ${maxBytes} bytes`, { max_bytes: maxBytes }),
  });
}
