/** Stable kind names of everything the oracle can report. */
export const VIOLATION_KINDS = [
  "stale-marker",
  "outcome-mismatch",
  "hanging-transaction",
  "aborted-read",
  "lost-write",
  "unclean-election",
  "torn-transaction",
  "premature-read",
  "duplicate",
  "non-monotonic",
  "duplicate-processing",
  "lost-processing",
  "zombie-commit",
  "fatal-error",
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
  /** For markers: the broker whose coordinator sent it, and that broker's release then. */
  coordinatorBroker?: string;
  coordinatorRelease?: string;
  /** For markers: the WriteTxnMarkers request version it travelled in (1 or 2). */
  markerVersion?: number;
  /** For markers: the leader epoch of the partition at the broker that judged it. */
  leaderEpoch?: number;
  /**
   * Set by a generic scenario's per-seed draw (`draw: everything`): why Kafka itself shows this
   * kind under what the seed drew (a known behaviour of its releases), so the run does not fail on it.
   */
  expectedBy?: string;
}

/** The optional fields that say where a violation happened, to which transactions, and how its marker travelled. */
const VIOLATION_PLACE_FIELDS = [
  "partition",
  "broker",
  "brokerRelease",
  "transaction",
  "markerIssuedFor",
  "coordinatorBroker",
  "coordinatorRelease",
  "expectedBy",
] as const;
const VIOLATION_MARKER_NUMBER_FIELDS = ["markerVersion", "leaderEpoch"] as const;

type PlaceFields = { [K in (typeof VIOLATION_PLACE_FIELDS)[number]]?: string } & {
  [K in (typeof VIOLATION_MARKER_NUMBER_FIELDS)[number]]?: number;
};

/** Copies the place fields a violation has (the run report, a merged report and a seed file keep the same ones). */
export function copyPlaceFields(from: PlaceFields, to: PlaceFields): void {
  for (const f of VIOLATION_PLACE_FIELDS) {
    const value = from[f];
    if (value !== undefined) to[f] = value;
  }
  for (const f of VIOLATION_MARKER_NUMBER_FIELDS) {
    const value = from[f];
    if (value !== undefined) to[f] = value;
  }
}
