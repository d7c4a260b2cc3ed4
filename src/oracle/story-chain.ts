import { errorName } from "../kafka/common/errors.js";
import { typedEvent } from "../kafka/trace-events.js";
import type { TraceEvent } from "../sim/trace.js";
import {
  answerError,
  isRetried,
  requestKey,
  requestLine,
  type StoryRequest,
  transactionRequests,
} from "./story-requests.js";
import type { Violation } from "./violation.js";

/**
 * The story's events that the violation depends on beyond its transactions' own steps: the
 * feature change its producer acted on, the requests of its transactions that a fault, a timeout,
 * a failed verification or an error answer acted on (each shown before what acted on it), and the
 * producer's abortable and fatal errors. A fault on a request of another transaction is not in the
 * story: the violation does not depend on it.
 */
export interface CausalChain {
  /** `node#corr` of the marker sends the story showed (their markers.send line stands for the request). */
  markerLines: Set<string>;
  /** The lines event `e` adds to the story, oldest first (none when the violation does not depend on it). */
  linesOf(e: TraceEvent): string[];
}

export function causalChainOf(trace: readonly TraceEvent[], txns: ReadonlySet<string>, v: Violation): CausalChain {
  const requests = transactionRequests(trace);
  const producers = new Set<string>();
  // The EndTxn a coordinator took as the end of a story transaction, by its txn.prepare's index:
  // when another transaction sent it (a late copy, KAFKA-17754), that request is in the story too.
  const endedBy = new Map<number, StoryRequest>();
  const lastEndTxn = new Map<string, StoryRequest>();
  for (const e of trace) {
    const { kind, fields: f } = typedEvent(e);
    if (kind === "producer.begin" && txns.has(f.txn)) producers.add(e.node);
    if (kind === "net.deliver" && f.msg === "EndTxn") {
      const r = requests.get(requestKey(f.conn, f.corr));
      if (r) lastEndTxn.set(e.node, r);
    }
    if (kind === "txn.prepare" && f.by === "client" && f.txn !== null && txns.has(f.txn)) {
      const r = lastEndTxn.get(e.node);
      if (r && r.txn !== f.txn) endedBy.set(e.index, r);
    }
  }
  const decisive = new Set([...endedBy.values()].map((r) => r.key));
  // The Produce a leader is handling, by `leader partition`: what its verification judges.
  const handling = new Map<string, StoryRequest>();
  // A marker request counts where the violation happened (its broker); a producer's request anywhere.
  const relevant = (r: StoryRequest | undefined): r is StoryRequest =>
    r !== undefined &&
    (decisive.has(r.key) || (txns.has(r.txn) && (r.msg !== "WriteTxnMarkers" || !v.broker || r.to === v.broker)));
  const shown = new Set<string>();
  const inFlight = new Map<number, Set<string>>();
  const markerLines = new Set<string>();
  /** The request's line when the story has not shown it yet, then `line`. */
  const after = (r: StoryRequest, line: string): string[] => {
    const first = shown.has(r.key) ? [] : [requestLine(r)];
    shown.add(r.key);
    return [...first, line];
  };
  const linesOf = (e: TraceEvent): string[] => {
    const { kind, fields: f } = typedEvent(e);
    switch (kind) {
      case "net.send": {
        const r = requests.get(requestKey(f.conn, f.corr));
        if (!relevant(r)) return [];
        let open = inFlight.get(f.conn);
        if (!open) inFlight.set(f.conn, (open = new Set()));
        open.add(r.key);
        if (markerLines.has(`${e.node}#${f.corr}`)) shown.add(r.key);
        return [];
      }
      case "net.deliver": {
        const r = requests.get(requestKey(f.conn, f.corr));
        if (relevant(r) && r.msg === "Produce") {
          const partition = r.detail.split(" ")[1] ?? "";
          handling.set(`${e.node} ${partition}`, r);
        }
        return [];
      }
      case "net.response":
      case "net.late-response":
        inFlight.get(f.conn)?.delete(requestKey(f.conn, f.corr));
        return [];
      case "net.close": {
        const open = [...(inFlight.get(f.conn) ?? [])].filter((k) => shown.has(k));
        if (open.length === 0) return [];
        inFlight.delete(f.conn);
        return [
          `${e.node} closes the connection to ${requests.get(open[0] as string)?.to ?? "the broker"}: ${f.reason}`,
        ];
      }
      case "net.reply": {
        const r = requests.get(requestKey(f.conn, f.corr));
        const error = answerError(String(f.detail ?? ""));
        if (!relevant(r) || error === null || isRetried(error)) return [];
        return after(r, `${e.node} answers request ${r.corr} (${r.msg} of ${r.txn}): ${error}`);
      }
      case "net.slow":
      case "net.overtake":
      case "net.duplicate":
      case "net.retransmit":
      case "net.partition-hold":
      case "net.hold":
      case "net.release":
      case "net.held-copy":
      case "net.drop-held":
      case "net.drop": {
        if (!("corr" in f)) return [];
        const r = requests.get(requestKey(f.conn, f.corr));
        // A fault counts on a marker request of the story, on a request another step of the story
        // needs (a late EndTxn, a Produce whose verification failed), not on every request of its
        // transactions: a delayed Produce response the producer simply waits for changes nothing.
        if (!relevant(r) || (r.msg !== "WriteTxnMarkers" && !decisive.has(r.key) && !shown.has(r.key))) return [];
        return after(r, faultLine(e, r));
      }
      case "produce.verify-failed": {
        // A retried verification changes nothing; the one that fails the transaction is the cause.
        const r = handling.get(`${e.node} ${f.partition}`);
        if (!relevant(r) || isRetried(errorName(f.error))) return [];
        return after(
          r,
          `${e.node} fails the verification of ${r.txn}'s Produce at ${f.partition} (producerId ${f.pid}, epoch ${f.epoch}): ${errorName(f.error)}`,
        );
      }
      case "txn.prepare": {
        const r = endedBy.get(e.index);
        return r
          ? after(
              r,
              `${e.node} takes request ${r.corr} (${r.from}'s EndTxn for ${r.txn}, arriving late) as the end of ${f.txn}: the epoch is the same`,
            )
          : [];
      }
      case "producer.abortable":
        return f.txn !== null && txns.has(f.txn)
          ? [`${e.node} enters an abortable error for ${f.txn}: ${f.reason}`]
          : [];
      case "producer.fatal":
        return f.txn !== null && txns.has(f.txn) ? [`${e.node} enters a fatal error for ${f.txn}: ${f.reason}`] : [];
      case "producer.give-up":
        return f.txn !== null && txns.has(f.txn) ? [`${e.node} gives up ${f.txn}: ${f.reason}`] : [];
      case "admin.describe-producers":
        return f.txn !== null && txns.has(f.txn)
          ? [
              `${e.node} describes the producers of ${f.partition}: ${f.txn} open there from offset ${f.startOffset} (producerId ${f.pid}, epoch ${f.epoch}, coordinatorEpoch ${f.ce}) and aborts it`,
            ]
          : [];
      case "admin.abort-transaction":
        return f.txn !== null && txns.has(f.txn)
          ? [
              `${e.node} sends Admin.abortTransaction's ABORT marker for ${f.txn} to ${f.broker} at ${f.partition}: WriteTxnMarkers v${f.v}, producerId ${f.pid} epoch ${f.epoch} coordinatorEpoch ${f.ce}, TransactionVersion 0`,
            ]
          : [];
      case "controller.features":
        return f.errorCode === 0
          ? [`the controller finalizes transaction.version ${f.transactionVersion} (feature epoch ${f.epoch})`]
          : [];
      case "producer.transaction-version":
        return producers.has(e.node)
          ? [`${e.node} takes transaction.version ${f.version} from the brokers' ApiVersions answer`]
          : [];
      default:
        return [];
    }
  };
  return { markerLines, linesOf };
}

/** What a fault or a script did to a request (or to its response) of the story. */
function faultLine(e: TraceEvent, r: StoryRequest): string {
  const { kind, fields: f } = typedEvent(e);
  const what = `request ${r.corr} (${r.msg})`;
  const message = "dir" in f && f.dir === "response" ? `the response to ${what}` : what;
  switch (kind) {
    case "net.slow":
      return `fault: ${f.copy === 1 ? `the duplicate of ${message}` : message} is delayed ${f.delayMs} ms in the network`;
    case "net.overtake":
      return `fault: a copy of ${message} overtakes earlier messages of its connection (${f.delayMs} ms)`;
    case "net.duplicate":
      return `fault: the network duplicates ${message}`;
    case "net.retransmit":
      return `fault: the first transmission of ${message} is lost; TCP retransmits it`;
    case "net.partition-hold":
      return `fault: a network partition holds ${message} until t=${f.untilMs}ms`;
    case "net.drop":
      return `fault: the network loses ${message}`;
    case "net.hold":
      return `script: ${message} is held in the network`;
    case "net.release":
      return `script: the held ${message} is delivered`;
    case "net.held-copy":
      return `script: a copy of the held ${message} is delivered; the original stays held`;
    case "net.drop-held":
      return `script: the held ${what} is dropped`;
    default:
      return `fault: ${kind} on ${message}`;
  }
}
