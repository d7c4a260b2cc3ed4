import { NODE_FAULT_LIST } from "../kafka/faults/registry.js";
import { errorName, Errors } from "../kafka/common/errors.js";
import { isEvent, type RecordedEvents, typedEvent } from "../kafka/trace-events.js";
import { causalChainOf } from "./story-chain.js";
import { foldRepeats } from "./story-fold.js";
import type { Violation } from "./violation.js";
import type { TraceEvent, TraceValue } from "../sim/trace.js";

/**
 * The minimal counterexample as a short numbered story: one line per protocol step that matters
 * (faults included), in Kafka's terms, so a Kafka engineer reads the race in under a minute.
 * It selects from a recorded trace the events of the transactions the violation names, at the
 * partition and broker it names, and what the violation depends on besides (story-chain.ts): the
 * feature change, each request a fault or an error answer acted on, the verification that failed.
 * A loop (a marker re-sent a hundred times) is told once (story-fold.ts).
 */
export function renderStory(trace: readonly TraceEvent[], violation: Violation): string[] {
  const txns = new Set([violation.transaction, violation.markerIssuedFor].filter((t): t is string => !!t));
  const chain = causalChainOf(trace, txns, violation);
  const group = groupSideOf(trace, txns);
  const lines: string[] = [];
  const generations = new Map<string, number>();
  // A zombie commit's story names the generations that began while its transaction ran, up to its offsets' write.
  let txnRunning = false;
  const push = (e: TraceEvent, line: string) => {
    if (lines[lines.length - 1]?.endsWith(line) !== true) lines.push(`t=${e.timeMs}ms`.padEnd(10) + line);
  };
  for (const e of trace) {
    if (e.timeMs > violation.atMs) break;
    const own = storyLine(e, txns, violation);
    if (own && isEvent(e, "markers.send")) chain.markerLines.add(`${e.node}#${e.fields.corr}`);
    const caused = chain.linesOf(e);
    const groupLine = own === null && caused.length === 0 ? groupStoryLine(e, txns, group, violation) : null;
    if (own && isEvent(e, "producer.begin")) txnRunning = true;
    if (groupLine && isEvent(e, "group.txn-offsets")) txnRunning = false;
    // A generation that began while the zombie's transaction ran is told as such, in place of the join's answer.
    const generation = generationLine(e, generations, violation);
    const line = own ?? (txnRunning && generation !== null ? generation : groupLine);
    for (const c of caused) push(e, c);
    if (line) push(e, line);
    if (isTheViolation(e, violation)) break;
  }
  lines.push(`t=${violation.atMs}ms`.padEnd(10) + `=> ${violation.kind}: ${violation.summary}`);
  return foldRepeats(lines).map((l, i) => `${String(i + 1).padStart(2)}. ${l}`);
}

/** The group members and processors of the story's transactions (from their TxnOffsetCommits and names). */
interface GroupSide {
  members: Set<string>;
  processors: Set<string>;
  /** Trace index of a group.complete-txn -> the transaction whose TxnOffsetCommit wrote the offsets it decided. */
  decided: Map<number, string>;
  /** The generation the story last showed each member join at (routine rejoins at the same generation are left out). */
  shownGeneration: Map<string, number>;
}

function groupSideOf(trace: readonly TraceEvent[], txns: ReadonlySet<string>): GroupSide {
  const members = new Set<string>();
  // The group coordinator keeps pending offsets by producer id alone: the next marker of that
  // producer id decides them, whichever transaction wrote them (one group: one offsets partition).
  const pendingOf = new Map<number, string>();
  const decided = new Map<number, string>();
  for (const e of trace) {
    if (isEvent(e, "group.txn-offsets") && e.fields.txn !== null) {
      if (txns.has(e.fields.txn)) members.add(e.fields.member);
      if (!pendingOf.has(e.fields.pid)) pendingOf.set(e.fields.pid, e.fields.txn);
    }
    if (isEvent(e, "group.complete-txn") && e.fields.pending > 0) {
      const writer = pendingOf.get(e.fields.pid);
      if (writer !== undefined) decided.set(e.index, writer);
      pendingOf.delete(e.fields.pid);
    }
  }
  // A processor's transactions are named `q1.t3` (or `q1#2.t3` after a restart): the processor is q1.
  const processors = new Set([...txns].map((t) => (t.split(".t")[0] ?? "").split("#")[0] ?? ""));
  return { members, processors, decided, shownGeneration: new Map() };
}

/**
 * The group side of the story (exactly-once processing, issue 17): the TxnOffsetCommits of the
 * story's transactions with their group, member and generation (KIP-447's group metadata), the
 * group coordinator deciding their pending offsets on a marker, its answers to those members
 * (joins, syncs, fences), members expiring, and the processors' pauses and crashes.
 */
function groupStoryLine(e: TraceEvent, txns: ReadonlySet<string>, group: GroupSide, v: Violation): string | null {
  const involved = (txn: string | null) => txn !== null && txns.has(txn);
  const { kind, fields: f } = typedEvent(e);
  switch (kind) {
    case "group.txn-offsets":
      return involved(f.txn)
        ? `${e.node}'s group coordinator writes ${str(f.txn)}'s TxnOffsetCommit for group ${f.group} (member ${f.member}, generation ${f.gen}, producerId ${f.pid} epoch ${f.epoch}): input offsets ${f.offsets} pending until its marker`
        : null;
    case "group.complete-txn":
      if (
        !involved(f.txn) ||
        f.pending === 0 ||
        (v.partition && f.partition !== v.partition && v.kind === "stale-marker")
      )
        return null;
      {
        const writer = group.decided.get(e.index);
        const whose = `the ${f.pending} pending offsets of producerId ${f.pid}${writer ? ` (written by ${writer}'s TxnOffsetCommit${writer === f.txn ? "" : ", another transaction"})` : ""}`;
        return f.result === "COMMIT"
          ? `${e.node}'s group coordinator takes ${str(f.txn)}'s COMMIT marker at ${f.partition}: ${f.moved} of ${whose} become the group's committed offsets`
          : `${e.node}'s group coordinator takes ${str(f.txn)}'s ABORT marker at ${f.partition}: ${whose} are discarded`;
      }
    case "group.request": {
      // A hang of a group's committed offsets (KAFKA-16371) starts at a commit refused for its metadata.
      if (refusedMetadataOf(f, v))
        return `${e.node} refuses part of an OffsetCommit of group ${f.group}: OFFSET_METADATA_TOO_LARGE (metadata longer than offset.metadata.max.bytes); the partitions whose metadata fits are written`;
      if (!group.members.has(f.member)) return null;
      if (f.api === "JoinGroup" && f.error === Errors.NONE) {
        if (group.shownGeneration.get(f.member) === f.gen) return null;
        group.shownGeneration.set(f.member, f.gen);
        return `${e.node} answers JoinGroup of member ${f.member} of group ${f.group}: generation ${f.gen}`;
      }
      // Routine answers stay out; fences (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID) and leaves stay in.
      if (f.api !== "LeaveGroup" && (f.error === Errors.NONE || f.error === Errors.REBALANCE_IN_PROGRESS)) return null;
      return `${e.node} answers ${f.api} of member ${f.member} of group ${f.group} (generation ${f.gen}): ${errorName(f.error)}`;
    }
    case "group.members-expired": {
      const gone = f.members.split(",").filter((m) => group.members.has(m));
      return gone.length > 0
        ? `${e.node}: member ${gone.join(", ")} of group ${f.group} expired (silent past the session timeout); the group rebalances to a new generation`
        : null;
    }
    case "fault.processor-pause":
      return group.processors.has(f.processor)
        ? `fault: processor ${f.processor} stalls until t=${f.untilMs}ms (heartbeats and sends)`
        : null;
    case "fault.processor-crash":
      return group.processors.has(f.processor)
        ? `fault: processor ${f.processor} crashes; it restarts in ${f.restartInMs} ms with the same transactional.id and a new member id`
        : null;
    default:
      return null;
  }
}

/** An OffsetCommit answer OFFSET_METADATA_TOO_LARGE of the group whose offsets the violation finds unreadable. */
function refusedMetadataOf(f: { api: string; group: string; error: number }, v: Violation): boolean {
  return (
    v.kind === "hanging-transaction" &&
    f.api === "OffsetCommit" &&
    f.error === Errors.OFFSET_METADATA_TOO_LARGE &&
    v.summary.startsWith(`group ${f.group}:`)
  );
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

function storyLine(e: TraceEvent, txns: Set<string>, v: Violation): string | null {
  const involved = (txn: string | null) => txn !== null && txns.has(txn);
  const atPartition = (partition: string) => !v.partition || partition === v.partition;
  const fault = NODE_FAULT_LIST.find((f) => f.traceEvent === e.kind);
  if (fault?.storyLine) return fault.storyLine(e, { broker: v.broker ?? null });
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
      return `${e.node} sends marker #${str(f.marker)}${copy > 1 ? ` again (copy ${copy})` : ""} to ${str(f.broker)}: WriteTxnMarkers v${str(f.v)} ${str(f.result)} producerId ${str(f.pid)} epoch ${str(f.epoch)} coordinatorEpoch ${str(f.ce)} [request ${f.corr}]`;
    }
    case "marker.append":
      if (!involved(f.txn) || !atPartition(f.partition)) return null;
      return `${e.node} accepts ${str(f.txn)}'s ${str(f.result)} marker at ${str(f.partition)} (${ruleText(f)}): offset ${str(f.offset)}${f.closedFrom >= 0 ? `, closing offsets ${str(f.closedFrom)}..${str(f.offset)}` : ", nothing open to close"}`;
    case "marker.rejected":
      return involved(f.txn) && atPartition(f.partition)
        ? `${e.node} rejects ${str(f.txn)}'s marker at ${str(f.partition)} (${ruleText(f)}): error ${str(f.error)}`
        : null;
    case "txn.complete":
      return involved(f.txn) ? `${e.node} writes ${str(f.state)} for ${str(f.txn)}` : null;
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

function ruleText(f: RecordedEvents["marker.append" | "marker.rejected"]): string {
  const cmp = f.rule === "strict-tv2" ? ">" : ">=";
  const rule =
    f.rule === "kafka-19999-equal-epoch"
      ? "KAFKA-19999 equal epoch, no open transaction"
      : `${str(f.rule)} rule ${str(f.epoch)} ${cmp} ${str(f.stored)}`;
  return `TransactionVersion ${str(f.tv)} read, ${rule}`;
}
