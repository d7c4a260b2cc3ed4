import { isEvent, type RecordedEvents, typedEvent } from "../kafka/trace-events.js";
import type { Violation } from "./violation.js";
import type { TraceEvent, TraceValue } from "../sim/trace.js";

/**
 * The minimal counterexample as a short numbered story: one line per protocol step that matters
 * (faults included), in Kafka's terms, so a Kafka engineer reads the race in under a minute.
 * It selects from a recorded trace the events of the transactions the violation names, at the
 * partition and broker it names, and the faults on the connections that carried their markers.
 */
export function renderStory(trace: readonly TraceEvent[], violation: Violation): string[] {
  const txns = new Set([violation.transaction, violation.markerIssuedFor].filter((t): t is string => !!t));
  const markerConns = new Set<number>();
  for (const e of trace) {
    if (
      isEvent(e, "net.send") &&
      e.fields.msg === "WriteTxnMarkers" &&
      (!violation.broker || e.fields.to === violation.broker)
    )
      markerConns.add(e.fields.conn);
  }
  const lines: string[] = [];
  const generations = new Map<string, number>();
  // A zombie commit's story names the generations that began while its transaction ran, up to its offsets' write.
  let txnRunning = false;
  for (const e of trace) {
    if (e.timeMs > violation.atMs) break;
    const own = storyLine(e, txns, markerConns, violation);
    if (own && isEvent(e, "producer.begin")) txnRunning = true;
    if (own && isEvent(e, "group.txn-offsets")) txnRunning = false;
    const generation = generationLine(e, generations, violation);
    const line = own ?? (txnRunning ? generation : null);
    if (line && lines[lines.length - 1]?.endsWith(line) !== true) lines.push(`t=${e.timeMs}ms`.padEnd(10) + line);
    if (isTheViolation(e, violation)) break;
  }
  lines.push(`t=${violation.atMs}ms`.padEnd(10) + `=> ${violation.kind}: ${violation.summary}`);
  return lines.map((l, i) => `${String(i + 1).padStart(2)}. ${l}`);
}

/** The trace event at which the violation happened (a stale marker's append), if there is one. */
function isTheViolation(e: TraceEvent, v: Violation): boolean {
  return (
    e.timeMs === v.atMs &&
    isEvent(e, "marker.append") &&
    e.fields.txn === v.markerIssuedFor &&
    e.fields.partition === v.partition &&
    e.fields.closedFrom >= 0
  );
}

const str = (v: TraceValue | undefined) => String(v ?? "?");

/** For a zombie commit: a new generation of a group, seen in the first JoinGroup answer that names it. */
function generationLine(e: TraceEvent, seen: Map<string, number>, v: Violation): string | null {
  if (v.kind !== "zombie-commit" || !isEvent(e, "group.request")) return null;
  const f = e.fields;
  if (f.api !== "JoinGroup" || f.error !== 0) return null;
  const known = seen.get(f.group);
  seen.set(f.group, Math.max(known ?? f.gen, f.gen));
  if (known === undefined || f.gen <= known) return null;
  return `${e.node}: the join completes, group ${f.group} is at generation ${f.gen} (${f.member}'s JoinGroup answer)`;
}

function storyLine(e: TraceEvent, txns: Set<string>, markerConns: Set<number>, v: Violation): string | null {
  const involved = (txn: string | null) => txn !== null && txns.has(txn);
  const atPartition = (partition: string) => !v.partition || partition === v.partition;
  const { kind, fields: f } = typedEvent(e);
  switch (kind) {
    case "producer.begin":
      return involved(f.txn)
        ? `${e.node} begins ${str(f.txn)} (producerId ${str(f.pid)}, epoch ${str(f.epoch)})`
        : null;
    case "txn.add-partitions":
      return involved(f.txn) && (!v.partition || f.partitions.split(",").includes(v.partition))
        ? `${e.node} adds ${str(f.partitions)} to ${str(f.txn)}: Ongoing`
        : null;
    case "produce.append":
      return involved(f.txn) && atPartition(f.partition)
        ? `${e.node} appends ${str(f.txn)}'s record at ${str(f.partition)} offset ${str(f.offset)} (producer epoch ${str(f.epoch)})`
        : null;
    case "group.txn-offsets-validated":
      return involved(f.txn)
        ? `${e.node} validates ${str(f.txn)}'s TxnOffsetCommit on arrival (member ${str(f.member)}, generation ${str(f.gen)}; the group is at generation ${str(f.groupGen)}), then asks the transaction coordinator to verify it`
        : null;
    case "group.txn-offsets":
      return involved(f.txn)
        ? `${e.node} writes ${str(f.txn)}'s TxnOffsetCommit of group ${str(f.group)} (${str(f.offsets)}) as a transactional batch of producerId ${str(f.pid)}, epoch ${str(f.epoch)}`
        : null;
    case "producer.end":
      return involved(f.txn)
        ? `${e.node} calls ${f.commit ? "commitTransaction" : "abortTransaction"} for ${str(f.txn)} at epoch ${str(f.epoch)} (EndTxn once its batches are done)`
        : null;
    case "txn.prepare":
      if (!involved(f.txn)) return null;
      return `${e.node} writes ${str(f.state)} for ${str(f.txn)} at epoch ${str(f.epoch)}${f.tv === 2 ? ` (bumped from ${f.epoch - 1}: TV2` : " (TV0/1: epoch unchanged"}, coordinatorEpoch ${str(f.ce)}${f.by === "coordinator" ? ", coordinator-initiated" : ""})`;
    case "producer.outcome":
      return involved(f.txn)
        ? `${e.node} sees ${str(f.txn)} ${str(f.outcome)}; its epoch is now ${str(f.epoch)}`
        : null;
    case "markers.send": {
      if (!involved(f.txn) || (v.broker && f.broker !== v.broker)) return null;
      const copy = f.resend + 1;
      return `${e.node} sends marker #${str(f.marker)}${copy > 1 ? ` again (copy ${copy})` : ""} to ${str(f.broker)}: WriteTxnMarkers v${str(f.v)} ${str(f.result)} producerId ${str(f.pid)} epoch ${str(f.epoch)} coordinatorEpoch ${str(f.ce)}`;
    }
    case "net.slow":
      if (!markerConns.has(f.conn) || f.dir !== "request") return null;
      return f.copy === 1
        ? `fault: the duplicate is delayed ${str(f.delayMs)} ms in the network`
        : `fault: that request is delayed ${str(f.delayMs)} ms in the network`;
    case "net.duplicate":
      return markerConns.has(f.conn) && f.dir === "request" ? "fault: the network duplicates that request" : null;
    case "net.drop":
      return markerConns.has(f.conn) ? `fault: the network loses a ${str(f.dir)} of that connection` : null;
    case "net.retransmit":
      return markerConns.has(f.conn) && f.dir === "request"
        ? "fault: that request's first transmission is lost; TCP retransmits it"
        : null;
    case "net.partition-hold":
      return markerConns.has(f.conn)
        ? `fault: a partition holds a ${str(f.dir)} of that connection until t=${str(f.untilMs)}ms`
        : null;
    case "net.close":
      return markerConns.has(f.conn) && e.node === e.node.replace(/^p\d.*/, "")
        ? `${e.node} closes the connection to ${v.broker ?? "the broker"}: ${str(f.reason)}`
        : null;
    case "marker.append":
      if (!involved(f.txn) || !atPartition(f.partition)) return null;
      return `${e.node} accepts ${str(f.txn)}'s ${str(f.result)} marker at ${str(f.partition)} (${ruleText(f)}): offset ${str(f.offset)}${f.closedFrom >= 0 ? `, closing offsets ${str(f.closedFrom)}..${str(f.offset)}` : ", nothing open to close"}`;
    case "marker.idempotent":
      return involved(f.txn) && atPartition(f.partition)
        ? `${e.node} answers ${str(f.txn)}'s marker at ${str(f.partition)} as an idempotent retry (${ruleText(f)}): nothing appended`
        : null;
    case "marker.rejected":
      return involved(f.txn) && atPartition(f.partition)
        ? `${e.node} rejects ${str(f.txn)}'s marker at ${str(f.partition)} (${ruleText(f)}): error ${str(f.error)}`
        : null;
    case "txn.complete":
      return involved(f.txn) ? `${e.node} writes ${str(f.state)} for ${str(f.txn)}` : null;
    case "fault.stall":
      return v.broker === e.node ? `fault: ${e.node} stalls until t=${str(f.untilMs)}ms` : null;
    case "controller.leader":
      return atPartition(f.partition) || str(f.partition).startsWith("__transaction_state-")
        ? `${str(f.partition).startsWith("__transaction_state-") ? "coordinator failover" : "leader change"}: ${str(f.partition)} moves from ${str(f.from)} to ${str(f.leader)} (leader epoch ${str(f.leaderEpoch)}, ${str(f.cause)})`
        : null;
    case "replica.truncate":
      return atPartition(f.partition)
        ? `${e.node} truncates ${str(f.partition)} from ${str(f.from)} to ${str(f.to)} (its log diverged from the leader's at epoch ${str(f.epoch)})`
        : null;
    default:
      return null;
  }
}

function ruleText(f: RecordedEvents["marker.append" | "marker.rejected" | "marker.idempotent"]): string {
  const cmp = f.rule === "strict-tv2" ? ">" : ">=";
  const rule =
    f.rule === "kafka-19999-equal-epoch"
      ? "KAFKA-19999 equal epoch, no open transaction"
      : `${str(f.rule)} rule ${str(f.epoch)} ${cmp} ${str(f.stored)}`;
  return `TransactionVersion ${str(f.tv)} read, ${rule}`;
}
