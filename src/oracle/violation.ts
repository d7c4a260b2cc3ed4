/** Stable kind names of everything the oracle can report. */
export const VIOLATION_KINDS = [
  "stale-marker",
  "outcome-mismatch",
  "hanging-transaction",
  "aborted-read",
  "lost-write",
  "torn-transaction",
  "premature-read",
  "duplicate",
  "non-monotonic",
  "model-error",
  "step-mismatch",
  "model-timeout",
] as const;

export type ViolationKind = (typeof VIOLATION_KINDS)[number];

export function isViolationKind(s: string): s is ViolationKind {
  return (VIOLATION_KINDS as readonly string[]).includes(s);
}

/** One finding of one run, with its causal explanation in Kafka's terms. */
export interface Violation {
  kind: ViolationKind;
  /** One line: what went wrong, where. */
  summary: string;
  /** The causal chain, one step per line, oldest first. */
  explanation: string[];
  /** Virtual time at which the violation happened (or was detected). */
  atMs: number;
  partition?: string;
  broker?: string;
  brokerRelease?: string;
  /** The transaction attempt whose records or state are affected. */
  transaction?: string;
  /** For stale markers: the transaction the marker was issued for. */
  markerIssuedFor?: string;
}
