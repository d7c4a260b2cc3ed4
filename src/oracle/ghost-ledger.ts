import type { LogBatch } from "../kafka/broker/log-batch.js";
import type { PartitionKey, TransactionResult } from "../kafka/common/types.js";
import type {
  BatchAppended,
  CompletionWakeupLost,
  GhostObserver,
  IdempotentEpochBump,
  LeaderChangeSeen,
  MarkerOutcome,
  MarkerSend,
  ProducerEpochAssigned,
  ProducerFatal,
  ProduceRefused,
  SendFailed,
  TxnDecision,
} from "../kafka/ghost.js";
import type { ReleaseName } from "../kafka/release.js";
import { explainOutcomeMismatch, explainStaleMarker } from "./explain-marker.js";
import { checkFatalError } from "./fatal-error.js";
import { IdempotentLoopWatch } from "./idempotent-loop.js";
import { checkStuckSequence } from "./stuck-sequence.js";
import { attributeToUncleanElection } from "./unclean-election.js";
import type { Violation } from "./violation.js";

export interface AppendRecord {
  broker: string;
  partition: PartitionKey;
  firstOffset: number;
  lastOffset: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  /** The record values of the batch (unique per record: `${ghostTxn}/${index}`). */
  values: readonly string[];
  /** Set when the batch carried no transactional flag (KAFKA-5364's bug switch): plain records. */
  nonTransactional?: true;
  /** The lowest sequence of the leader's verification entry when it took the batch (absent: none). */
  verifiedFromSequence?: number;
  atMs: number;
}

export interface RefusedRequest {
  broker: string;
  brokerRelease: ReleaseName;
  version: number;
  reason: string;
  markerIds: number[];
  atMs: number;
}

export interface AbandonedSending {
  transactionalId: string;
  ghostTxn: string | null;
  coordinator: string;
  broker: string;
  errorCode: number;
  atMs: number;
}

export interface ProducerOutcome {
  outcome: "committed" | "aborted" | "unknown";
  detail: string;
  atMs: number;
}

function sameDecision(a: TxnDecision, b: TxnDecision): boolean {
  return (
    a.transactionalId === b.transactionalId &&
    a.ghostTxn === b.ghostTxn &&
    a.result === b.result &&
    a.producerId === b.producerId &&
    a.producerEpoch === b.producerEpoch
  );
}

export interface Truncation {
  broker: string;
  partition: PartitionKey;
  toOffset: number;
  removed: readonly LogBatch[];
  atMs: number;
}

/** Bound on violations kept per run: the first ones explain the run; the rest are counted. */
export const MAX_VIOLATIONS_PER_RUN = 50;

/**
 * The ghost ledger: identities Kafka does not have. Every transaction attempt, every data batch
 * and every marker is tied to the attempt it belongs to or was issued for; online checks run as
 * markers are applied, and the history explains each violation.
 */
export interface GhostLedgerOptions {
  /** Judge the error class a fenced producer's EndTxn(COMMIT) gets (KAFKA-20785's contract). */
  fencedCommitContract?: boolean;
}

export class GhostLedger implements GhostObserver {
  readonly fencedCommitContract: boolean;

  constructor(options: GhostLedgerOptions = {}) {
    this.fencedCommitContract = options.fencedCommitContract ?? false;
  }

  readonly begun = new Map<string, { producer: string; transactionalId: string; atMs: number }>();
  readonly appends = new Map<string, AppendRecord[]>();
  readonly decisions = new Map<string, TxnDecision[]>();
  /** Every PrepareCommit/PrepareAbort made durable, in order (including those without a ghost). */
  readonly decisionLog: TxnDecision[] = [];
  readonly completions = new Map<string, { result: TransactionResult; atMs: number; coordinator: string }>();
  readonly markerSends = new Map<number, MarkerSend[]>();
  readonly markerOutcomes = new Map<number, MarkerOutcome[]>();
  readonly refused: RefusedRequest[] = [];
  readonly abandoned: AbandonedSending[] = [];
  readonly lostWakeups: CompletionWakeupLost[] = [];
  readonly producerOutcomes = new Map<string, ProducerOutcome>();
  /** Sends that failed at once, by transaction attempt (KAFKA-9279: the commit must not go on without them). */
  readonly sendFailures = new Map<string, SendFailed[]>();
  /** Every InitProducerId write, in order (who moved each transactional.id's epoch). */
  readonly epochAssignments: ProducerEpochAssigned[] = [];
  /** Every leader change the controller made, in order (the leadership history of every partition). */
  readonly leaderChanges: LeaderChangeSeen[] = [];
  /** Every follower truncation, in order. */
  readonly truncations: Truncation[] = [];
  private readonly idempotentLoops = new IdempotentLoopWatch();
  /** Transaction attempts and partitions already reported stuck behind a later sequence. */
  private readonly stuckSequences = new Set<string>();
  readonly violations: Violation[] = [];
  droppedViolations = 0;
  markersApplied = 0;
  markersRejected = 0;

  /** Called with every reported violation (run-seed uses it to stop early and note the tape position). */
  onReport: ((v: Violation) => void) | null = null;

  /** Record a finding; one at a partition an unclean election had rewritten by then is that election's doing. */
  report(finding: Violation): void {
    const v = attributeToUncleanElection(this, finding);
    if (this.violations.length < MAX_VIOLATIONS_PER_RUN) this.violations.push(v);
    else this.droppedViolations++;
    this.onReport?.(v);
  }

  txnBegun(e: { ghostTxn: string; producer: string; transactionalId: string; atMs: number }): void {
    this.begun.set(e.ghostTxn, { producer: e.producer, transactionalId: e.transactionalId, atMs: e.atMs });
  }

  batchAppended(e: BatchAppended): void {
    const ghost = e.batch.ghostTxn;
    if (ghost === null) return;
    let list = this.appends.get(ghost);
    if (!list) {
      list = [];
      this.appends.set(ghost, list);
    }
    list.push({
      broker: e.broker,
      partition: e.partition,
      firstOffset: e.batch.baseOffset,
      lastOffset: e.batch.lastOffset,
      producerId: e.batch.producerId,
      producerEpoch: e.batch.producerEpoch,
      baseSequence: e.batch.baseSequence,
      values: e.batch.values,
      ...(e.batch.isTransactional ? {} : { nonTransactional: true as const }),
      ...(e.verifiedFromSequence !== undefined ? { verifiedFromSequence: e.verifiedFromSequence } : {}),
      atMs: e.atMs,
    });
  }

  txnDecided(e: TxnDecision): void {
    // A coordinator that loads a decision already seen (its writer heard it succeed) adds nothing.
    if (e.loadedFrom !== undefined && this.decisionLog.some((d) => sameDecision(d, e))) return;
    this.decisionLog.push(e);
    if (e.ghostTxn === null) return;
    const list = this.decisions.get(e.ghostTxn) ?? [];
    list.push(e);
    this.decisions.set(e.ghostTxn, list);
  }

  txnCompleted(e: {
    ghostTxn: string | null;
    transactionalId: string;
    result: TransactionResult;
    coordinator: string;
    atMs: number;
  }): void {
    if (e.ghostTxn !== null && !this.completions.has(e.ghostTxn))
      this.completions.set(e.ghostTxn, { result: e.result, atMs: e.atMs, coordinator: e.coordinator });
  }

  markerSent(e: MarkerSend): void {
    const list = this.markerSends.get(e.markerId) ?? [];
    list.push(e);
    this.markerSends.set(e.markerId, list);
  }

  markerApplied(e: MarkerOutcome): void {
    const list = this.markerOutcomes.get(e.markerId) ?? [];
    list.push(e);
    this.markerOutcomes.set(e.markerId, list);
    if (e.errorCode !== 0) {
      this.markersRejected++;
      return;
    }
    this.markersApplied++;
    if (!e.completed) return;
    const foreign = e.closedBatches.filter((b) => b.ghostTxn !== e.ghostTxn);
    if (foreign.length > 0) {
      this.report(explainStaleMarker(this, e, foreign));
      return;
    }
    const decided = e.ghostTxn !== null ? this.decisions.get(e.ghostTxn) : undefined;
    if (decided && !decided.some((d) => d.result === e.result)) this.report(explainOutcomeMismatch(this, e, decided));
  }

  markerRequestRefused(e: RefusedRequest): void {
    this.refused.push(e);
  }

  markerSendingAbandoned(e: AbandonedSending): void {
    this.abandoned.push(e);
  }

  markerCompletionWakeupLost(e: CompletionWakeupLost): void {
    this.lostWakeups.push(e);
  }

  producerEpochAssigned(e: ProducerEpochAssigned): void {
    this.epochAssignments.push(e);
  }

  /** The stuck-sequence check, online, once per transaction attempt and partition. */
  produceRefused(e: ProduceRefused): void {
    const key = `${e.ghostTxn}@${e.partition}`;
    if (this.stuckSequences.has(key)) return;
    const v = checkStuckSequence(this, e);
    if (!v) return;
    this.stuckSequences.add(key);
    this.report(v);
  }

  /** The fatal-error check, online: was this producer fenced by someone else since its own InitProducerId? */
  producerFatal(e: ProducerFatal): void {
    const v = checkFatalError(this, e);
    if (v) this.report(v);
  }

  /** The idempotent producer's liveness check, online: an endless OUT_OF_ORDER_SEQUENCE_NUMBER loop (KAFKA-12152). */
  idempotentEpochBumped(e: IdempotentEpochBump): void {
    const v = this.idempotentLoops.bumped(e);
    if (v) this.report(v);
  }

  producerOutcome(e: {
    ghostTxn: string;
    producer: string;
    outcome: "committed" | "aborted" | "unknown";
    detail: string;
    atMs: number;
  }): void {
    this.producerOutcomes.set(e.ghostTxn, { outcome: e.outcome, detail: e.detail, atMs: e.atMs });
  }

  sendFailed(e: SendFailed): void {
    const list = this.sendFailures.get(e.ghostTxn) ?? [];
    list.push(e);
    this.sendFailures.set(e.ghostTxn, list);
  }

  leaderChanged(e: LeaderChangeSeen): void {
    this.leaderChanges.push(e);
  }

  replicaTruncated(e: Truncation): void {
    this.truncations.push(e);
  }

  /** The leader changes of `partition` in [fromMs, toMs], oldest first. */
  leaderChangesOf(partition: PartitionKey, fromMs: number, toMs: number): LeaderChangeSeen[] {
    return this.leaderChanges.filter((c) => c.partition === partition && c.atMs >= fromMs && c.atMs <= toMs);
  }

  /** The marker sends of the transaction attempt `ghost`, oldest first. */
  sendsFor(ghost: string | null): MarkerSend[] {
    const out: MarkerSend[] = [];
    for (const sends of this.markerSends.values()) for (const s of sends) if (s.ghostTxn === ghost) out.push(s);
    return out.sort((a, b) => a.atMs - b.atMs);
  }
}
