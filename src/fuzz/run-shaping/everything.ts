import type { ClusterSpec, Range } from "../../kafka/cluster-spec.js";
import type { TransactionVersion } from "../../kafka/common/types.js";
import { isReleaseName, type ReleaseName, releaseProfile } from "../../kafka/release.js";
import { UNINDEXED_ABORT_TEXT } from "../../oracle/client/aborted-read.js";
import { DELAYED_END_TXN_TEXT } from "../../oracle/client/explain-client.js";
import { CLOSED_IN_LOG_TEXT } from "../../oracle/liveness.js";
import { LOST_TXN_LOG_RECORD_TEXT } from "../../oracle/lost-txn-log-record.js";
import { LATE_MARKER_CLEARED_TEXT } from "../../oracle/late-marker-verification.js";
import { NO_LOWER_VERIFIED_TEXT, STUCK_SEQUENCE_TEXT } from "../../oracle/stuck-sequence.js";
import type { ViolationKind } from "../../oracle/violation.js";
import type { ChoiceSource, Stream } from "../../sim/choice-tape.js";

/** The choice stream of a generic scenario's per-seed draw (scenario field `draw: everything`). */
export const EVERYTHING_STREAM = "everything";

/**
 * Why Kafka itself shows a kind of violation under what a seed drew: the seed's own expectation.
 * `legacyOnly`: only where the broker that judged it, or the coordinator that sent its marker, runs
 * a release without KIP-1228's strict TV2 marker check (a stale marker at a strict broker from a
 * strict coordinator stays a finding).
 */
export interface DrawnAllowance {
  reason: string;
  legacyOnly?: boolean;
  /** Only a violation whose summary names this (e.g. an error code). */
  summaryIncludes?: string;
  /** Not a violation whose summary names this (a symptom the allowance's reason does not lead to). */
  summaryExcludes?: string;
  /**
   * Only where the run shows the cause: a violation of one of `besideKinds` in the same run, a
   * summary in the run that names one of `runNames`, or this violation's explanation naming one of
   * `explained` (the allowance's consequence kinds have other causes, some of them bugs).
   */
  withCause?: { besideKinds: readonly ViolationKind[]; runNames: readonly string[]; explained: readonly string[] };
}

/** What drawnReason reads of a violation and of the run it came from. */
export interface JudgedViolation {
  kind: ViolationKind;
  summary: string;
  brokerRelease?: string;
  coordinatorRelease?: string;
  explanation?: readonly string[];
}

export interface EverythingDraw {
  spec: ClusterSpec;
  /** One line: what this seed drew. */
  summary: string;
  /** The kinds Kafka itself shows under this draw (known behaviour of its releases), with why. */
  expected: Map<ViolationKind, DrawnAllowance[]>;
}

/**
 * The release settings a seed may draw (option 0 the simplest: one current release everywhere).
 * `from` is where the brokers start; `to`, for a rolling upgrade, where they end.
 */
interface ReleaseRegime {
  name: string;
  /** The brokers' releases, one per broker in order (cycled). */
  brokers: readonly ReleaseName[];
  /** A rolling upgrade to this release during the run (one broker at a time). */
  rollTo?: readonly ReleaseName[];
  /** TV1 producers on a cluster finalized at transaction.version 0 (3.x's protocol). */
  tv1?: boolean;
}

const REGIMES: readonly ReleaseRegime[] = [
  { name: "4.4 everywhere", brokers: ["4.4"] },
  { name: "4.3 everywhere", brokers: ["4.3"] },
  { name: "4.2.1 everywhere", brokers: ["4.2.1"] },
  { name: "4.1 everywhere (TV2 without KIP-1228)", brokers: ["4.1"] },
  { name: "4.0 everywhere (TV2 without KIP-1228)", brokers: ["4.0"] },
  { name: "the KIP-1228 gap (4.2.1 with one 4.1 broker)", brokers: ["4.2.1", "4.2.1", "4.1"] },
  { name: "a rolling upgrade from 4.1", brokers: ["4.1"], rollTo: ["4.2.1", "4.3", "4.4"] },
  { name: "a rolling upgrade from 4.2.1 to 4.4", brokers: ["4.2.1"], rollTo: ["4.4"] },
  { name: "3.x with TV1 producers", brokers: ["3.x"], tv1: true },
];

/** Rate multipliers of a fault kind that is on (option 0: the scenario's rate, its most). */
const LEVELS: readonly (readonly [number, number])[] = [
  [1, 1],
  [1, 4],
  [1, 16],
  [1, 64],
];

function levelText([num, den]: readonly [number, number]): string {
  return den === 1 ? `x${num}` : `x1/${den}`;
}

/** A legacy marker release: no strict TV2 marker epoch check (before KIP-1228, 4.2.0). */
export function isLegacyMarkerRelease(release: string): boolean {
  return isReleaseName(release) && !releaseProfile(release).flags.strictMarkerEpochForTv2;
}

/**
 * What a stale marker of KAFKA-17754 / KAFKA-19446 leads to at once when consumers read around it:
 * records read as they stand. (A lost or torn write may have other causes: WRONG_WRITE_CAUSE.)
 */
const WRONG_READS: readonly ViolationKind[] = ["aborted-read", "premature-read"];
/**
 * A lost or torn write under TV1, a transaction.version change or a 4.0/4.1 release is a wrong
 * marker's consequence only beside its cause: a stale marker in the run, a delayed EndTxn that
 * decided a later transaction (KAFKA-17754, which the explanation names), or an ABORT marker the
 * transaction index lacks (an aborted read beside it names it). Without one, it is a finding:
 * KAFKA-6119's timeout abort that kept the epoch (Z01) tears a transaction under TV1 with no marker
 * of another transaction involved. Under 4.0/4.1 the bug-off runs over 5,000 seeds showed none
 * without one (seeds 3,188 and 4,864: an unindexed ABORT each).
 */
const WRONG_WRITE_CAUSE = {
  besideKinds: ["stale-marker"],
  runNames: [UNINDEXED_ABORT_TEXT],
  explained: [DELAYED_END_TXN_TEXT],
} as const satisfies DrawnAllowance["withCause"];
/** Where a stale marker passes: what consumers read of it at once, and lost or torn writes beside their cause. */
function allowStaleMarkerConsequences(d: Draw, reason: string): void {
  d.allow(WRONG_READS, { reason });
  d.allow(["lost-write", "torn-transaction"], { reason, withCause: WRONG_WRITE_CAUSE });
}
const PROCESSING_CONSEQUENCES: readonly ViolationKind[] = ["duplicate-processing", "lost-processing", "fatal-error"];

class Draw {
  readonly parts: string[] = [];
  readonly expected = new Map<ViolationKind, DrawnAllowance[]>();

  constructor(readonly stream: Stream) {}

  /** On or off (option 0: off), named in the summary when on. */
  flag(name: string): boolean {
    const on = this.stream.pick(2) === 1;
    if (on) this.parts.push(name);
    return on;
  }

  /** A rate: off, or the base rate times a level. Always two draws, so the tape layout stays put. */
  rate(name: string, basePpm: number): number {
    const on = this.stream.pick(2) === 1;
    const level = LEVELS[this.stream.pick(LEVELS.length)] as readonly [number, number];
    if (!on || basePpm <= 0) return 0;
    this.parts.push(`${name} ${levelText(level)}`);
    return Math.max(1, Math.floor((basePpm * level[0]) / level[1]));
  }

  allow(kinds: readonly ViolationKind[], allowance: DrawnAllowance): void {
    for (const kind of kinds) this.expected.set(kind, [...(this.expected.get(kind) ?? []), allowance]);
  }
}

/** Scale a range's upper end down to at most `max` (never below its lower end). */
function capped(r: Range, max: number): Range {
  return { min: Math.min(r.min, max), max: Math.max(Math.min(r.min, max), Math.min(r.max, max)) };
}

/**
 * The generic scenario's draw (swarm testing, as TigerBeetle's VOPR options_swarm): before anything
 * runs, each seed draws which releases the brokers run (one release everywhere, a mixed cluster or a
 * rolling upgrade, TV1 on 3.x), transaction.version changes, producer epochs near exhaustion,
 * producer-state and transactional.id expiry clocks, an operator's admin aborts, the processors, the
 * client behaviours (slow requests re-sent, think time, gaps between sends, short transaction
 * timeouts, failing sends, empty transactions, aborts without flush), and which of the scenario's
 * faults are on and how strongly (each off, or 1, 1/4, 1/16 or 1/64 of the scenario's rate: the
 * scenario's rates are the most a seed draws), and last an idempotent producer (its client-side
 * epoch bump), half the time with a delivery.timeout.ms its retried batches can outlive. Every draw is on the choice tape (stream
 * "everything"), option 0 the simplest, so a seed replays and shrinks as any other.
 *
 * It also says what Kafka itself shows under the draw (a known behaviour of the drawn releases, as
 * the built-in scenarios of those settings expect it): the seed's expectation.
 */
export function drawEverything(base: ClusterSpec, choices: ChoiceSource): EverythingDraw {
  const d = new Draw(choices.stream(EVERYTHING_STREAM));
  const spec = structuredClone(base);
  const regime = REGIMES[d.stream.pick(REGIMES.length)] as ReleaseRegime;
  const rollTo = regime.rollTo ? (regime.rollTo[d.stream.pick(regime.rollTo.length)] as ReleaseName) : null;
  const rollStartMs = d.stream.between(1_000, 6_000);
  spec.brokers.forEach((b, i) => {
    b.release = regime.brokers[i % regime.brokers.length] as ReleaseName;
  });
  d.parts.push(rollTo ? `${regime.name} to ${rollTo} from ${rollStartMs} ms` : regime.name);
  spec.faults.upgrades = [];
  spec.faults.rollingUpgrade = rollTo
    ? { startMs: rollStartMs, release: rollTo, order: spec.brokers.map((b) => b.id), downtimeMs: 300 }
    : null;
  const everRuns = new Set<ReleaseName>([...spec.brokers.map((b) => b.release), ...(rollTo ? [rollTo] : [])]);
  const legacy = [...everRuns].some((r) => isLegacyMarkerRelease(r));
  const tv: TransactionVersion = regime.tv1 ? 0 : 2;
  spec.broker.finalizedTransactionVersion = tv;
  spec.producers.transactionVersion = regime.tv1 ? 1 : 2;
  spec.producers.release = regime.tv1 ? "3.x" : base.producers.release;
  spec.faults.featureUpdates = [];

  // transaction.version changes under load: only where every broker knows TV2 all along.
  const tvChange = d.stream.pick(3);
  const tvChangeAtMs = d.stream.between(2_000, 6_000);
  if (!regime.tv1 && tvChange === 1) {
    spec.faults.featureUpdates = [{ atMs: tvChangeAtMs, transactionVersion: 1 }];
    d.parts.push(`transaction.version 2 -> 1 at ${tvChangeAtMs} ms`);
  } else if (!regime.tv1 && tvChange === 2) {
    spec.broker.finalizedTransactionVersion = 1;
    spec.faults.featureUpdates = [{ atMs: tvChangeAtMs, transactionVersion: 2 }];
    d.parts.push(`transaction.version 1 -> 2 at ${tvChangeAtMs} ms`);
  }
  const tvChanges = spec.faults.featureUpdates.length > 0;

  // Epochs near exhaustion: TV2 only on releases with KAFKA-20090's recovery (4.3+), TV1 anywhere.
  const exhaustion = d.flag("epochs near exhaustion");
  const recovers = [...everRuns].every((r) => releaseProfile(r).flags.maxEpochRecovery);
  if (exhaustion && (regime.tv1 || (recovers && !tvChanges)))
    spec.producers.initialProducerEpoch = regime.tv1 ? 32_740 : 32_758;
  else if (exhaustion) d.parts.pop();

  // Expiry clocks.
  if (d.flag("producer-state expiry 300 ms"))
    spec.broker.producerIdExpiration = { expirationMs: 300, checkIntervalMs: 50 };
  else delete spec.broker.producerIdExpiration;
  // 1 s: longer than any think time drawn (600 ms), so only a paused producer's id expires (Z02's ground).
  if (d.flag("transactional.id expiry 1 s")) {
    spec.broker.transactionalIdExpirationMs = 1_000;
    spec.broker.removeExpiredTransactionalIdsIntervalMs = 100;
  } else spec.broker.transactionalIdExpirationMs = null;

  // An operator's admin aborts (KIP-664), where the releases end a transaction as 4.2.1+ or 3.x do.
  const adminAbort = d.flag("admin aborts");
  const adminOk = regime.tv1 || [...everRuns].every((r) => !isLegacyMarkerRelease(r));
  if (adminAbort && adminOk)
    spec.faults.adminAbortTransaction = {
      checkIntervalMs: 100,
      openForMs: 1_500,
      operatorDelayMs: { min: 0, max: 300 },
      retryBackoffMs: 20,
    };
  else {
    if (adminAbort) d.parts.pop();
    spec.faults.adminAbortTransaction = null;
  }

  // Client behaviours.
  const p = spec.producers;
  if (!d.flag("think time up to 600 ms")) p.thinkMs = capped(base.producers.thinkMs, 20);
  if (!d.flag("sends up to 200 ms apart")) p.sendGapMs = { min: 0, max: 0 };
  if (d.flag("transaction.timeout.ms 1000"))
    p.transactionTimeoutMs = Math.min(1_000, base.producers.transactionTimeoutMs);
  if (d.flag("request.timeout.ms 300")) {
    p.requestTimeoutMs = Math.min(300, base.producers.requestTimeoutMs);
    spec.consumers.requestTimeoutMs = p.requestTimeoutMs;
    // Kafka's clients keep fetch.max.wait.ms well below request.timeout.ms (500 ms and 30 s): a
    // long poll that outlives the request timeout would time out every fetch.
    spec.consumers.fetchMaxWaitMs = Math.min(base.consumers.fetchMaxWaitMs, 200);
  }
  p.sendErrorPpm = d.flag("failing sends") ? (base.producers.sendErrorPpm ?? 0) : 0;
  p.emptyTxnPpm = d.flag("empty transactions") ? (base.producers.emptyTxnPpm ?? 0) : 0;
  if (d.flag("aborts without flush") && base.globalOverrides.appAbortsWithoutFlush === undefined)
    spec.globalOverrides = { ...spec.globalOverrides, appAbortsWithoutFlush: true };

  // Processors (consume-transform-produce), with their own faults.
  const processors = d.flag("processors");
  const procs = spec.consumerOffsets?.processors;
  const pause = d.rate("processor pause", procs?.pause.ppm ?? 0);
  const crash = d.rate("processor crash", procs?.crash.ppm ?? 0);
  const leave = d.rate("processor leave", procs?.leave.ppm ?? 0);
  if (spec.consumerOffsets && procs && processors) {
    procs.pause.ppm = pause;
    procs.crash.ppm = crash;
    procs.leave.ppm = leave;
  } else if (spec.consumerOffsets) {
    if (processors) d.parts.pop();
    delete spec.consumerOffsets.processors;
  }

  // The faults, each off or at a level of the scenario's rate.
  const f = spec.faults;
  f.network.delay.slowPpm = d.rate("slow requests", base.faults.network.delay.slowPpm);
  if (f.markerRequests && base.faults.markerRequests)
    f.markerRequests.delay.slowPpm = d.rate("slow markers", base.faults.markerRequests.delay.slowPpm);
  f.brokerStall.ppm = d.rate("broker stalls", base.faults.brokerStall.ppm);
  f.linkPartition.ppm = d.rate("link partitions", base.faults.linkPartition.ppm);
  f.coordinatorFailover.ppm = d.rate("coordinator failovers", base.faults.coordinatorFailover.ppm);
  f.transactionLogOutage.ppm = d.rate("__transaction_state outages", base.faults.transactionLogOutage.ppm);
  f.leaderMove.ppm = d.rate("leader moves", base.faults.leaderMove.ppm);
  f.controlledShutdown.ppm = d.rate("controlled shutdowns", base.faults.controlledShutdown.ppm);
  f.brokerCrash.ppm = d.rate("broker crashes", base.faults.brokerCrash.ppm);
  f.producerPause.ppm = d.rate("producer pauses", base.faults.producerPause.ppm);
  f.producerRestart.ppm = d.rate("producer restarts", base.faults.producerRestart.ppm);

  // An idempotent producer beside the transactional ones (its client-side epoch bump), half the
  // time with delivery.timeout.ms at one and a half request timeouts (Kafka asks at least
  // request.timeout.ms + linger.ms), so that a retried batch can expire while its retry is on the
  // wire. Drawn last, both draws always: the draws before keep their places on the tape.
  const idempotent = d.flag("an idempotent producer");
  const tightDelivery = d.stream.pick(2) === 1;
  if (idempotent) {
    const least = p.requestTimeoutMs + p.lingerMs;
    const deliveryTimeoutMs = tightDelivery
      ? Math.max(least, Math.round(1.5 * p.requestTimeoutMs))
      : Math.max(least, p.deliveryTimeoutMs);
    if (tightDelivery) d.parts.push(`its delivery.timeout.ms ${deliveryTimeoutMs}`);
    p.idempotent = { count: 1, rounds: 4 * p.transactions, deliveryTimeoutMs };
  } else delete p.idempotent;
  // Consumers committing with a plain OffsetCommit and offset metadata (KAFKA-16371's ground), drawn
  // after everything else so that the draws before it keep their place on the tape.
  const committers = d.flag("plain committers");
  if (!committers && spec.consumerOffsets) delete spec.consumerOffsets.committers;
  else if (committers && !spec.consumerOffsets?.committers) d.parts.pop();
  // An application deleting records below the high watermark (the log start offset moves), drawn after the committers.
  f.deleteRecords.ppm = d.rate("DeleteRecords", base.faults.deleteRecords.ppm);
  // Drawn last, so that the draws before keep their place on the tape. Brokers that read one request
  // per connection at a time (Kafka's SocketServer mutes a connection while a request is in
  // flight), and producers whose batches hold one record (a small batch.size): a leader then
  // verifies a producer's pipelined batches one after another (KAFKA-14904's ground under TV1).
  if (d.flag("one request per connection")) spec.broker.oneRequestPerConnection = true;
  else delete spec.broker.oneRequestPerConnection;
  if (d.flag("one record a batch")) p.recordsPerBatch = 1;

  // What Kafka itself shows under this draw (each as the built-in scenarios of it expect).
  const withProcessors = spec.consumerOffsets?.processors !== undefined;
  if (regime.tv1) {
    const why =
      "TV1 (3.x's protocol): a late marker copy passes the legacy epoch rule (KAFKA-17754, fixed only by TV2)";
    d.allow(["stale-marker"], { reason: why });
    allowStaleMarkerConsequences(d, why);
    d.allow(["fatal-error"], { reason: why, summaryExcludes: STUCK_SEQUENCE_TEXT });
    if (withProcessors) d.allow(PROCESSING_CONSEQUENCES, { reason: why, summaryExcludes: STUCK_SEQUENCE_TEXT });
  } else if (legacy) {
    const why =
      "a release without KIP-1228's strict TV2 marker check runs (4.0, 4.1: KAFKA-19446): a late marker copy passes there";
    d.allow(["stale-marker"], { reason: why, legacyOnly: true });
    allowStaleMarkerConsequences(d, why);
    if (withProcessors) d.allow(PROCESSING_CONSEQUENCES, { reason: why, summaryExcludes: STUCK_SEQUENCE_TEXT });
  }
  if (tvChanges) {
    const why =
      "transaction.version changed under load: transactions of the old version and markers of the new meet (tv-upgrade/downgrade-under-load)";
    d.allow(["stale-marker"], { reason: why });
    allowStaleMarkerConsequences(d, why);
    d.allow(["fatal-error"], { reason: why, summaryExcludes: STUCK_SEQUENCE_TEXT });
    if (withProcessors) d.allow(PROCESSING_CONSEQUENCES, { reason: why, summaryExcludes: STUCK_SEQUENCE_TEXT });
  }
  if (spec.faults.adminAbortTransaction) {
    d.allow(["lost-write", "torn-transaction", "outcome-mismatch"], {
      reason:
        "an operator aborted a transaction its producer then committed (Admin.abortTransaction, KIP-664: the admin abort is not fenced by epoch)",
    });
    if (withProcessors)
      d.allow(["duplicate-processing", "lost-processing"], {
        reason: "an operator aborted a processor's transaction that its producer then committed (KIP-664)",
      });
  }
  if (spec.broker.transactionalIdExpirationMs !== null)
    d.allow(["fatal-error"], {
      reason:
        "the transactional.id expired while its producer was idle (transactional.id.expiration.ms): the coordinator answers INVALID_PRODUCER_ID_MAPPING, fatal to the client",
      summaryIncludes: "INVALID_PRODUCER_ID_MAPPING",
    });
  // A verification entry expires by its creation time, never refreshed by a retried verification
  // (ProducerStateManager.removeExpiredProducers); a first write whose AddPartitionsToTxn kept
  // failing for longer than the expiry then finds no entry. Kafka's UnifiedLog of every release
  // answers so (test/conform/harness-verification.test.ts).
  if (spec.broker.producerIdExpiration)
    d.allow(["fatal-error"], {
      reason:
        "producer state expired (producer.id.expiration.ms) while a transaction's first write waited for its verification: the entry is gone and the write is refused INVALID_TXN_STATE, fatal to the client",
      summaryIncludes: "INVALID_TXN_STATE",
    });
  // The same expiry takes away the lowest sequence the entry kept (KAFKA-14920's floor): while a
  // transaction's first batch at a partition keeps failing its verification, a later batch read
  // after the entry expired makes a new entry at its own sequence and is written first (the
  // producer has no state there, so ProducerAppendInfo.checkSequence takes any sequence); the first
  // batch is refused OUT_OF_ORDER_SEQUENCE_NUMBER ever after. Kafka's UnifiedLog answers so where
  // KAFKA-18202 (4.1.0) does not refuse a TV2 producer's first batch at a sequence other than 0:
  // under TV1 (the check needs a TV2 verification), or at a 3.x/4.0 leader
  // (test/conform/stuck-sequence-cases.ts).
  const tv1Verification = regime.tv1 || tvChanges;
  // The faults that move partition leaders, __transaction_state's and data partitions' alike.
  const leaderMoves =
    f.leaderMove.ppm > 0 || f.controlledShutdown.ppm > 0 || f.brokerCrash.ppm > 0 || f.rollingUpgrade !== null;
  const withoutKafka18202 = [...everRuns].some((r) => !releaseProfile(r).flags.tv2FirstSequenceMustBeZero);
  if (spec.broker.producerIdExpiration && (tv1Verification || withoutKafka18202))
    d.allow(["fatal-error"], {
      reason:
        "producer state expired (producer.id.expiration.ms) while a transaction's first batch at a partition waited for its verification: the entry's lowest sequence is gone, a later batch is written first, and the earlier one is stuck behind it",
      summaryIncludes: STUCK_SEQUENCE_TEXT,
    });
  // A leader change between a transaction's batches at one partition: Kafka's RecordAccumulator
  // drains a new batch to the new leader while an earlier one is still in flight to the old
  // (shouldStopDrainBatchesForPartition holds back only a retried batch), and the new leader, with
  // no state for the producer and a verification entry begun at the later batch's sequence, writes
  // it first; the earlier batch, retried there, is stuck behind it. Kafka's UnifiedLog of every
  // release does so where KAFKA-18202 does not refuse the later batch, as above
  // (test/conform/stuck-sequence-cases.ts; everything's seed 2853 with aborts without flush).
  // Data leaders move with every fault that moves leaders, and with a broker fenced after a stall
  // or a partition cut it off from the controller.
  const dataLeaderMoves = leaderMoves || f.brokerStall.ppm > 0 || f.linkPartition.ppm > 0;
  if (dataLeaderMoves && (tv1Verification || withoutKafka18202))
    d.allow(["fatal-error"], {
      reason:
        "a leader change between a transaction's batches at one partition: the new leader, whose verification entry began at a later batch's sequence, wrote that batch first (a producer without state there may start at any sequence), and the earlier one is stuck behind it",
      summaryIncludes: NO_LOWER_VERIFIED_TEXT,
    });
  // A late copy of an earlier transaction's marker, written at the stored epoch while no
  // transaction of the producer is open (KAFKA-19999 from 4.2.0, the legacy rule before), clears
  // the verification entry of the producer's next write there (UnifiedLog.updateProducers keeps it
  // only for a TV2 marker at the entry's own epoch): the write is refused INVALID_TXN_STATE, fatal
  // to the client. Kafka's UnifiedLog of every release does so
  // (test/conform/late-marker-verification-cases.ts; everything's seed 182 with aborts without
  // flush). Only where a fault can hold a marker request's first copy back past its re-send.
  const lateMarkerCopies =
    f.network.delay.slowPpm > 0 ||
    (f.markerRequests?.delay.slowPpm ?? 0) > 0 ||
    f.brokerStall.ppm > 0 ||
    f.linkPartition.ppm > 0;
  if (lateMarkerCopies)
    d.allow(["fatal-error"], {
      reason:
        "a late copy of an earlier transaction's marker was written again at the producer's stored epoch, closing nothing, and cleared the verification of the producer's next write there (UnifiedLog.updateProducers): the write is refused INVALID_TXN_STATE, fatal to the client",
      summaryIncludes: LATE_MARKER_CLEARED_TEXT,
    });
  // A producer snapshot (written at every restart and truncation) can hold a transaction still
  // open; once its marker is written and every producer of the log has expired, a truncation
  // finds the state empty, loads that snapshot and replays nothing after it
  // (UnifiedLog.rebuildProducerState's isEmptyBeforeTruncation): the closed transaction is open
  // again for good, and the last stable offset stays behind it. Kafka's UnifiedLog of every release
  // answers so (test/conform/stale-snapshot-cases.ts; everything's seed 3911).
  if (spec.broker.producerIdExpiration)
    d.allow(["hanging-transaction"], {
      reason:
        "producer state expired (producer.id.expiration.ms), then a truncation reloaded a producer snapshot taken while a transaction was open and replayed nothing after it (UnifiedLog.rebuildProducerState skips the replay of an empty state): the transaction its marker had closed is open again, and the last stable offset stays behind it",
      summaryIncludes: CLOSED_IN_LOG_TEXT,
    });
  // The same skipped replay forgets a transaction instead when no snapshot holds it: a follower
  // whose own ABORT marker (written while it led) was above the high watermark expires the
  // producer, a leader change truncates the marker, the empty state stays empty, and the new
  // leader's copy of the marker finds no open transaction (ProducerAppendInfo.appendEndTxnMarker
  // emits no CompletedTxn): no AbortedTxn, so read_committed reads the aborted records there once
  // that replica leads. Kafka's UnifiedLog of every release does so (everything's seed 397).
  if (spec.broker.producerIdExpiration)
    d.allow(["aborted-read"], {
      reason:
        "producer state expired (producer.id.expiration.ms), then a truncation removed the ABORT marker above it and replayed nothing (UnifiedLog.rebuildProducerState skips the replay of an empty state): the replicated marker closed no open transaction, the transaction index has no entry, and read_committed reads the aborted records",
      summaryIncludes: UNINDEXED_ABORT_TEXT,
    });
  // A coordinator loads its __transaction_state partition to the log end, uncommitted records
  // included, and answers an AddPartitionsToTxn for partitions that state holds at once, with no
  // write; a leader change then truncates the record, and no coordinator after it knows the
  // partition: no marker reaches it, and the producer's EndTxn finds the transaction Empty
  // (INVALID_TXN_STATE). Kafka's TransactionStateManager and TransactionCoordinator of every
  // release do so (everything's seed 4222). Only where a fault moves __transaction_state leaders.
  const txnLogLeaderMoves = leaderMoves || f.coordinatorFailover.ppm > 0;
  if (txnLogLeaderMoves)
    d.allow(["hanging-transaction", "fatal-error"], {
      reason:
        "a coordinator loaded an uncommitted __transaction_state record (loads read to the log end) and answered AddPartitionsToTxn from it without a write; a leader change truncated the record, so no coordinator knows the partition: no marker closes its records, and the producer's EndTxn finds the transaction without it (INVALID_TXN_STATE, fatal)",
      summaryIncludes: LOST_TXN_LOG_RECORD_TEXT,
    });
  // A retried batch of a producer whose state expired is not found among its retained batches and
  // is written again, after the batches that followed it; under TV1 its verification cannot tell
  // the next transaction at the same epoch from its own (everything's seed 2711 with aborts
  // without flush: TV1 before a change to TV2). Under TV2 the bumped epoch refuses it.
  if (spec.broker.producerIdExpiration && tv1Verification)
    d.allow(["duplicate", "non-monotonic"], {
      reason:
        "producer state expired (producer.id.expiration.ms) under TV1: a retried batch of a forgotten producer is not recognised, and is written again after the batches that followed it",
    });
  return {
    spec,
    summary: `everything: ${d.parts.join(", ")}`,
    expected: d.expected,
  };
}

/**
 * Why Kafka itself shows this violation under the draw, or null: it is a finding. `run` is every
 * violation of the same run (for an allowance that asks for its cause there).
 */
export function drawnReason(
  drawn: EverythingDraw,
  v: JudgedViolation,
  run: readonly JudgedViolation[] = [v],
): string | null {
  const legacyPlace = [v.brokerRelease, v.coordinatorRelease].some((r) => r !== undefined && isLegacyMarkerRelease(r));
  for (const a of drawn.expected.get(v.kind) ?? []) {
    if (a.legacyOnly && !legacyPlace) continue;
    if (a.summaryIncludes !== undefined && !v.summary.includes(a.summaryIncludes)) continue;
    if (a.summaryExcludes !== undefined && v.summary.includes(a.summaryExcludes)) continue;
    if (a.withCause && !causeShown(a.withCause, v, run)) continue;
    return a.reason;
  }
  return null;
}

function causeShown(
  cause: NonNullable<DrawnAllowance["withCause"]>,
  v: JudgedViolation,
  run: readonly JudgedViolation[],
): boolean {
  const explanation = (v.explanation ?? []).join("\n");
  return (
    run.some((o) => cause.besideKinds.includes(o.kind) || cause.runNames.some((t) => o.summary.includes(t))) ||
    cause.explained.some((t) => explanation.includes(t))
  );
}
