/** What consolidation did with one extracted item (C2): the operation model ADD / UPDATE / DELETE / NOOP. */
export type OperationKind = "ADD" | "UPDATE" | "DELETE" | "NOOP";

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
