import { apiName as apiNameOf, type RequestInfo } from "./request-info.js";

/**
 * A fault the proxy injects into one request: hold it until the plan releases it (then it is
 * delivered on a connection of its own, as a late copy), delay it (the connection's later requests
 * wait behind it, as TCP would), drop it (both connections close and the broker never sees it), or
 * duplicate it (the broker gets it twice on the same connection and the extra response is
 * swallowed, since a client rejects a response whose correlation id it did not expect).
 */
export type FaultAction = { kind: "hold" } | { kind: "delay"; ms: number } | { kind: "drop" } | { kind: "duplicate" };

/** Which requests a rule matches: every field given must match. */
export interface FaultMatch {
  /** Kafka's API key (27 WriteTxnMarkers, 26 EndTxn, 0 Produce, ...). */
  apiKey: number;
  /** The request is about this producer id (a marker for it, its EndTxn, its batch). */
  producerId?: number;
  /** WriteTxnMarkers only: the markers' result. */
  result?: "COMMIT" | "ABORT";
  /** The request's client id starts with this ("broker-2-txn-marker-sender": markers from node 2's coordinator). */
  clientIdPrefix?: string;
  /** The request names this partition (Produce, WriteTxnMarkers). */
  partition?: string;
}

export interface FaultRule {
  /** The plan's name for it: "hold-1". */
  id: string;
  /** The broker whose listener it sits on ("broker-0") and which listener. */
  broker: string;
  listener: "INTERNAL" | "CLIENT";
  match: FaultMatch;
  /** The n-th matching request after the rule was armed fires it (1 = the first). */
  nth: number;
  action: FaultAction;
}

/** One firing of a rule: the request it hit. */
export interface FaultFiring {
  ruleId: string;
  action: FaultAction["kind"];
  atMs: number;
  request: RequestSummary;
}

/** A request as the proxy's log keeps it. */
export interface RequestSummary {
  api: string;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
  producerIds: number[];
  partitions: string[];
  /** WriteTxnMarkers: each marker's fields as sent. */
  markers?: {
    producerId: number;
    producerEpoch: number;
    result: "COMMIT" | "ABORT";
    coordinatorEpoch: number;
    transactionVersion: number;
    partitions: string[];
  }[];
}

export function summarize(info: RequestInfo): RequestSummary {
  return {
    api: apiNameOf(info.apiKey),
    apiVersion: info.apiVersion,
    correlationId: info.correlationId,
    clientId: info.clientId,
    producerIds: info.producerIds,
    partitions: info.partitions,
    ...(info.markers
      ? {
          markers: info.markers.map((m) => ({
            producerId: m.producerId,
            producerEpoch: m.producerEpoch,
            result: m.transactionResult ? ("COMMIT" as const) : ("ABORT" as const),
            coordinatorEpoch: m.coordinatorEpoch,
            transactionVersion: m.transactionVersion,
            partitions: m.topics.flatMap((t) => t.partitionIndexes.map((p) => `${t.name}-${p}`)),
          })),
        }
      : {}),
  };
}

export function matches(match: FaultMatch, info: RequestInfo): boolean {
  if (info.apiKey !== match.apiKey) return false;
  if (match.producerId !== undefined && !info.producerIds.includes(match.producerId)) return false;
  if (match.clientIdPrefix !== undefined && !(info.clientId ?? "").startsWith(match.clientIdPrefix)) return false;
  if (match.partition !== undefined && !info.partitions.includes(match.partition)) return false;
  if (match.result !== undefined) {
    const want = match.result === "COMMIT";
    if (
      !info.markers?.some(
        (m) => m.transactionResult === want && (match.producerId === undefined || m.producerId === match.producerId),
      )
    )
      return false;
  }
  return true;
}

/** A rule armed in a proxy: how many matching requests it has seen, and its firings. */
export class ArmedRule {
  seen = 0;
  readonly firings: FaultFiring[] = [];

  constructor(readonly rule: FaultRule) {}

  /** Count a matching request; true when this one is the rule's n-th (it fires). */
  offer(info: RequestInfo): boolean {
    if (!matches(this.rule.match, info)) return false;
    this.seen++;
    return this.seen === this.rule.nth;
  }
}
