/** The kinds of sensitive value write-time redaction can detect (`REDACT=email,phone,card,secret`). */
export const REDACTION_KINDS = ["email", "phone", "card", "secret"] as const;
export type RedactionKind = (typeof REDACTION_KINDS)[number];
