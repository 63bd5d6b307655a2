import type { OperationKind } from "../../vocabulary/operation-kind.js";

export type { OperationKind } from "../../vocabulary/operation-kind.js";

export interface AppliedOperation {
  op: OperationKind;
  kind: "fact" | "insight" | "trait";
  memory_id: string;
  key: string | null;
  reason: string;
}

/** Whose memory is written: one user of one app. */
export interface Scope {
  appId: string;
  userId: string;
}
