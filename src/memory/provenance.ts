/** Provenance: one session event a memory was derived from. */
export interface SourceRef {
  session_id: string;
  event_id: string;
  seq: number;
}
