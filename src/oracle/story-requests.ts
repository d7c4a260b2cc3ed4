import { isEvent } from "../kafka/trace-events.js";
import type { TraceEvent } from "../sim/trace.js";

/**
 * The requests of a trace that belong to a transaction: the markers a coordinator sent for it and
 * the requests its producer sent while it ran (Produce, AddPartitionsToTxn, EndTxn, ...). A story
 * shows a fault, a timeout or an error answer only when it acts on one of its transactions'
 * requests, and shows that request first: a fault never stands without the request it acts on.
 */
export interface StoryRequest {
  /** `conn:corr`: what the network's events name a message by. */
  key: string;
  txn: string;
  from: string;
  to: string;
  msg: string;
  /** The request as the trace describes it ("v11 orders-0 pid 1000 epoch 2 seq 0 (2 records)"). */
  detail: string;
  corr: number;
  /** For a marker request: the marker's number and copy (1 for the first), else null. */
  marker: { number: number; copy: number } | null;
}

/** The requests a producer sends for its transaction (others, such as Fetch or Metadata, are not the transaction's). */
const TRANSACTION_APIS = new Set(["Produce", "AddPartitionsToTxn", "AddOffsetsToTxn", "TxnOffsetCommit", "EndTxn"]);

export function requestKey(conn: number, corr: number): string {
  return `${conn}:${corr}`;
}

/** Every request of the trace that belongs to a transaction, by `conn:corr`. */
export function transactionRequests(trace: readonly TraceEvent[]): Map<string, StoryRequest> {
  const requests = new Map<string, StoryRequest>();
  // A producer's transaction runs from its producer.begin to its next one (or its end).
  const running = new Map<string, string>();
  // markers.send comes right before the net.send that carries it, on the coordinator's node.
  const markerOf = new Map<string, { txn: string; number: number; copy: number }>();
  for (const e of trace) {
    if (isEvent(e, "producer.begin")) running.set(e.node, e.fields.txn);
    else if (isEvent(e, "markers.send") && e.fields.txn !== null)
      markerOf.set(`${e.node}#${e.fields.corr}`, {
        txn: e.fields.txn,
        number: e.fields.marker,
        copy: e.fields.resend + 1,
      });
    else if (isEvent(e, "net.send")) {
      const f = e.fields;
      const marker = f.msg === "WriteTxnMarkers" ? markerOf.get(`${e.node}#${f.corr}`) : undefined;
      const txn = marker?.txn ?? (TRANSACTION_APIS.has(f.msg) ? running.get(e.node) : undefined);
      if (txn === undefined) continue;
      const key = requestKey(f.conn, f.corr);
      requests.set(key, {
        key,
        txn,
        from: e.node,
        to: f.to,
        msg: f.msg,
        detail: String(f.detail ?? ""),
        corr: f.corr,
        marker: marker ? { number: marker.number, copy: marker.copy } : null,
      });
    }
  }
  return requests;
}

/** The story's line for a request it had not shown yet (a fault or an answer acts on it next). */
export function requestLine(r: StoryRequest): string {
  return `${r.from} sends ${r.msg}${r.detail ? ` ${r.detail}` : ""} to ${r.to} for ${r.txn} [request ${r.corr}]`;
}

/**
 * Errors a client answers by retrying the same request (Kafka's RetriableException subclasses):
 * the transaction goes on as if they had not happened, so a story leaves them out. A fault or a
 * timeout that made them matter is in the story on its own.
 */
const RETRIED = new Set([
  "UNKNOWN_TOPIC_OR_PARTITION",
  "NOT_LEADER_OR_FOLLOWER",
  "REQUEST_TIMED_OUT",
  "REPLICA_NOT_AVAILABLE",
  "COORDINATOR_LOAD_IN_PROGRESS",
  "COORDINATOR_NOT_AVAILABLE",
  "NOT_COORDINATOR",
  "NOT_ENOUGH_REPLICAS",
  "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
  "CONCURRENT_TRANSACTIONS",
  "NETWORK_EXCEPTION",
  "KAFKA_STORAGE_ERROR",
  "FENCED_LEADER_EPOCH",
  "UNKNOWN_LEADER_EPOCH",
  "UNSTABLE_OFFSET_COMMIT",
]);

/** Whether a client retries a request answered with `error` (a name, as an answer's detail gives it). */
export function isRetried(error: string): boolean {
  return RETRIED.has(error);
}

/** The error an answer carries (its detail's first word), or null when it is NONE. */
export function answerError(detail: string): string | null {
  const first = detail.split(" ")[0] ?? "";
  return first === "" || first === "NONE" ? null : first;
}
