/** What consolidation did with one extracted item: the operation model ADD / UPDATE / DELETE / NOOP. */
export type OperationKind = "ADD" | "UPDATE" | "DELETE" | "NOOP";
