import { BoundExceeded } from "../../sim/bounds.js";
import { assert } from "../common/assert.js";
import {
  Errors,
  InvalidTxnStateException,
  OutOfOrderSequenceException,
  TransactionCoordinatorFencedException,
} from "../common/errors.js";
import type { PartitionKey } from "../common/types.js";
import type { ReleaseFlags } from "../release.js";
import type { DataAppendResult, DataBatchInput, MarkerAppendResult, MarkerInput } from "./log-append.js";
import type {
  AbortedTxn,
  GroupMetadataRecord,
  Isolation,
  LogBatch,
  OffsetCommitRecord,
  TxnLogRecord,
} from "./log-batch.js";
import { batchesBetween } from "./log-batch.js";
import { LeaderEpochCache } from "./leader-epoch-cache.js";
import type { LogOperation, PartitionLogObserver } from "./partition-log-observer.js";
import type { ProducerStateEntry, VerificationStateEntry } from "./producer-state-entry.js";
import { ProducerSnapshots } from "./producer-snapshots.js";
import { type CompletedTxn, factsOf, factsOfLogBatch, ProducerStateManager } from "./producer-state-manager.js";

export type { CompletedTxn, MarkerEpochRule } from "./producer-state-manager.js";
export { describeRule, judgeMarkerEpoch } from "./producer-state-manager.js";

/** What a replica's log is given besides its partition and its broker's flags. */
export interface PartitionLogOptions {
  /** The broker's clock: batches get timestamps and producer state can expire. */
  clock?: () => number;
  /** producer.id.expiration.ms (with a clock). */
  producerIdExpirationMs?: number;
  observer?: PartitionLogObserver | null;
}

/** Upper bound on batches in one partition log: a run that writes more is refused, not slowed. */
export const MAX_LOG_BATCHES = 200_000;

/**
 * One partition's log on one replica: UnifiedLog (batches, log end offset, high watermark, last
 * stable offset) with its TransactionIndex (aborted transactions) and its ProducerStateManager.
 * The leader appends through Kafka's checks (UnifiedLog.analyzeAndValidateProducerState and
 * ProducerAppendInfo, in their order); see producer-state-manager.ts for the checks.
 */
export class PartitionLog {
  readonly batches: LogBatch[] = [];
  logEndOffset = 0;
  highWatermark = 0;
  /** UnifiedLog.logStartOffset: DeleteRecords moves it (log-start-offset.ts); the batches below it stay. */
  logStartOffset = 0;
  readonly producerState: ProducerStateManager;
  readonly abortedTxns: AbortedTxn[] = [];
  /** The producer-state snapshot files of the log's directory. */
  private readonly snapshots = new ProducerSnapshots();
  /**
   * UnifiedLog's cached first unstable offset, which the last stable offset reads: refreshed after an
   * append, a high-watermark update and a restart, but neither by a producer expiry nor by a truncation
   * that leaves the high watermark below the new log end, so the last stable offset can lag until the
   * next of those.
   */
  private firstUnstableCache: number | null = null;
  readonly leaderEpochCache = new LeaderEpochCache();
  /** The epoch a leader stamps on what it appends (0 until a leader election says otherwise). */
  private appendEpoch = 0;

  /** The broker's clock, for batch timestamps and producer-state expiry (absent: no timestamps). */
  private readonly clock: (() => number) | null;
  /** producer.id.expiration.ms (null: none): a rebuilt state leaves out who expired (and trace validation reads it). */
  readonly producerIdExpirationMs: number | null;
  /** Hears every judging or changing call (trace validation); absent in fuzzing. */
  private readonly observer: PartitionLogObserver | null;

  constructor(
    readonly partition: PartitionKey,
    /** The release flags of the broker holding this replica (they change with an upgrade). */
    readonly flags: () => Readonly<ReleaseFlags>,
    options: PartitionLogOptions = {},
  ) {
    this.clock = options.clock ?? null;
    this.producerIdExpirationMs = options.producerIdExpirationMs ?? null;
    this.observer = options.observer ?? null;
    this.producerState = new ProducerStateManager(flags);
  }

  private observe(op: LogOperation): void {
    this.observer?.onOperation(op, this, this.clock ? this.clock() : null);
  }

  /** The producer state of every producer id this log has seen (ProducerStateManager.activeProducers). */
  get producers(): ReadonlyMap<number, ProducerStateEntry> {
    return this.producerState.producers;
  }

  get verificationStates(): ReadonlyMap<number, VerificationStateEntry> {
    return this.producerState.verificationStates;
  }

  hasOngoingTransaction(producerId: number, epoch: number): boolean {
    return this.producerState.hasOngoingTransaction(producerId, epoch);
  }

  /** See ProducerStateManager.staleEpochBeforeVerification. */
  staleEpochBeforeVerification(producerId: number, epoch: number): string | null {
    const refused = this.producerState.staleEpochBeforeVerification(producerId, epoch);
    // Kafka's maybeStartTransactionVerification refuses in its first step; the observer hears one verify.
    if (refused !== null && this.observer)
      this.observe({
        kind: "verify",
        producerId,
        producerEpoch: epoch,
        sequence: -1,
        supportsEpochBump: false,
        refused,
        guard: 0,
      });
    return refused;
  }

  /** See ProducerStateManager.maybeStartTransactionVerification. */
  maybeStartTransactionVerification(
    producerId: number,
    sequence: number,
    epoch: number,
    supportsEpochBump: boolean,
  ): number {
    const guard = this.producerState.maybeStartTransactionVerification(
      producerId,
      sequence,
      epoch,
      supportsEpochBump,
      this.clock ? this.clock() : 0,
    );
    if (this.observer)
      this.observe({
        kind: "verify",
        producerId,
        producerEpoch: epoch,
        sequence,
        supportsEpochBump,
        refused: null,
        guard,
      });
    return guard;
  }

  /** A batch at the leader (origin CLIENT, or COORDINATOR for a group coordinator's write): checked, then appended at the log end. */
  appendData(input: DataAppendInput): DataAppendResult {
    const result = this.appendDataChecked(input);
    if (this.observer) this.observe({ kind: "data", input, result });
    return result;
  }

  private appendDataChecked(input: DataAppendInput): DataAppendResult {
    const origin = input.origin ?? "CLIENT";
    const facts = factsOf(input, this.logEndOffset, this.clock ? this.clock() : undefined);
    const check = this.producerState.checkDataBatch(facts, input.verificationGuard, origin);
    if (check.kind !== "ok") return check;
    this.assertRoom();
    const batch: LogBatch = {
      baseOffset: facts.firstOffset,
      lastOffset: facts.lastOffset,
      producerId: input.producerId,
      producerEpoch: input.producerEpoch,
      baseSequence: input.baseSequence,
      isTransactional: input.isTransactional,
      control: null,
      values: input.values,
      ghostTxn: input.ghostTxn,
    };
    if (input.offsetCommits) batch.offsetCommits = input.offsetCommits;
    if (this.appendEpoch !== 0) batch.partitionLeaderEpoch = this.appendEpoch;
    if (facts.timestamp !== undefined) batch.maxTimestamp = facts.timestamp;
    this.pushBatch(batch);
    this.producerState.appendDataBatch(facts);
    this.refreshFirstUnstableOffset();
    return { kind: "appended", batch };
  }

  /** ProducerAppendInfo.appendEndTxnMarker with the KIP-1228 epoch rule (origin COORDINATOR), in Kafka's check order. */
  appendMarker(input: MarkerInput): MarkerAppendResult {
    const result = this.appendMarkerChecked(input);
    if (this.observer) this.observe({ kind: "marker", input, result });
    return result;
  }

  private appendMarkerChecked(input: MarkerInput): MarkerAppendResult {
    const judged = this.producerState.checkEndTxnMarker(
      input.producerId,
      input.producerEpoch,
      input.coordinatorEpoch,
      input.transactionVersion,
    );
    if (judged.errorCode !== Errors.NONE) {
      return {
        kind: "error",
        errorCode: judged.errorCode,
        rule: judged.rule,
        storedEpochBefore: judged.storedEpochBefore,
        storedCoordinatorEpochBefore: judged.storedCoordinatorEpochBefore,
        openTxnBefore: judged.openTxnBefore,
        reason: judged.reason,
      };
    }
    this.assertRoom();
    const offset = this.logEndOffset;
    const batch: LogBatch = {
      baseOffset: offset,
      lastOffset: offset,
      producerId: input.producerId,
      producerEpoch: input.producerEpoch,
      baseSequence: -1,
      isTransactional: true,
      control: { type: input.result, coordinatorEpoch: input.coordinatorEpoch },
      values: [],
      ghostTxn: input.ghostTxn,
    };
    if (this.appendEpoch !== 0) batch.partitionLeaderEpoch = this.appendEpoch;
    if (this.clock) batch.maxTimestamp = this.clock();
    this.pushBatch(batch);
    const completed = this.producerState.appendEndTxnMarker({
      producerId: input.producerId,
      markerEpoch: input.producerEpoch,
      coordinatorEpoch: input.coordinatorEpoch,
      result: input.result,
      offset,
      origin: "COORDINATOR",
      timestamp: batch.maxTimestamp,
    });
    if (completed) this.completeTxn(completed);
    this.refreshFirstUnstableOffset();
    return {
      kind: "appended",
      batch,
      completed,
      rule: judged.rule,
      storedEpochBefore: judged.storedEpochBefore,
      storedCoordinatorEpochBefore: judged.storedCoordinatorEpochBefore,
      openTxnBefore: judged.openTxnBefore,
    };
  }

  /** A __transaction_state record at the leader (non-transactional, no producer: no producer-state checks). */
  appendTxnRecord(record: TxnLogRecord): LogBatch {
    return this.appendCoordinatorRecord({ txnRecord: record });
  }

  /** A plain OffsetCommit at the leader (non-transactional, no producer: no producer-state checks). */
  appendOffsetCommitRecords(records: readonly OffsetCommitRecord[]): LogBatch {
    return this.appendCoordinatorRecord({ offsetCommits: records });
  }

  /** A GroupMetadata record at the leader (non-transactional, no producer). */
  appendGroupMetadataRecord(record: GroupMetadataRecord): LogBatch {
    return this.appendCoordinatorRecord({ groupMetadata: record });
  }

  /** A coordinator's own record (a transaction coordinator's or a group coordinator's): no producer, no checks. */
  private appendCoordinatorRecord(content: Pick<LogBatch, "txnRecord" | "offsetCommits" | "groupMetadata">): LogBatch {
    this.assertRoom();
    const batch: LogBatch = {
      baseOffset: this.logEndOffset,
      lastOffset: this.logEndOffset,
      producerId: -1,
      producerEpoch: -1,
      baseSequence: -1,
      isTransactional: false,
      control: null,
      values: [],
      ghostTxn: null,
      partitionLeaderEpoch: this.appendEpoch,
      ...content,
    };
    this.pushBatch(batch);
    this.refreshFirstUnstableOffset();
    if (this.observer) this.observe({ kind: "coordinatorRecord", batch });
    return batch;
  }

  /** The batch at the log end: the log, its end offset, and the epoch it starts (LeaderEpochFileCache.assign). */
  private pushBatch(batch: LogBatch): void {
    // Every append (leader, follower, coordinator record) lands at the log end: offsets have no gap.
    assert(
      batch.baseOffset === this.logEndOffset,
      () => `${this.partition}: batch at ${batch.baseOffset}, log end ${this.logEndOffset}`,
    );
    this.batches.push(batch);
    this.logEndOffset = batch.lastOffset + 1;
    this.leaderEpochCache.assign(batch.partitionLeaderEpoch ?? 0, batch.baseOffset);
  }

  // ------------------------------------------------------------------ replication

  /**
   * This replica leads from now on at `leaderEpoch`: the epoch starts at the log end
   * (Partition.makeLeader). The producer state, verification entries included, is left as it is:
   * a broker that led before keeps the entries of its earlier leadership (Kafka's UnifiedLog does).
   */
  becomeLeader(leaderEpoch: number): void {
    this.appendEpoch = leaderEpoch;
    this.leaderEpochCache.assign(leaderEpoch, this.logEndOffset);
    if (this.observer) this.observe({ kind: "becomeLeader", leaderEpoch });
  }

  /** This replica follows from now on (Partition.makeFollower): the producer state is left as it is. */
  becomeFollower(): void {
    if (this.observer) this.observe({ kind: "becomeFollower" });
  }

  /**
   * The broker's process stops (`clean`: a controlled shutdown, else a crash): the log stays on
   * disk, and what UnifiedLog keeps in memory only, the verification entries, goes with it. The
   * restarted log (LogLoader) keeps its latest snapshot, loads it (producers expired by then left
   * out, no completed transaction above the high watermark tracked: a snapshot holds none) and
   * replays the batches after it; after a crash the transaction index is rebuilt as well.
   */
  onBrokerStop(clean: boolean): void {
    this.producerState.clearVerificationStates();
    // A clean shutdown wrote memory to a snapshot at the log end (UnifiedLog.close). After a crash,
    // LogLoader.recoverSegment's truncateAndReload deletes every snapshot, replays the segment from the
    // log start (rebuilding the transaction index) and writes the result at the log end. Either way the
    // restarted log then loads the snapshot at its log end.
    if (clean) {
      this.takeSnapshot(this.logEndOffset);
      this.snapshots.removeStray();
    } else {
      this.snapshots.deleteAll();
      this.rebuildProducerState({ rebuildAbortedIndex: true });
      this.takeSnapshot(this.logEndOffset);
    }
    this.rebuildProducerState({ rebuildAbortedIndex: false });
    this.refreshFirstUnstableOffset();
    if (this.observer) this.observe({ kind: "restart", clean });
  }

  /**
   * UnifiedLog.appendAsFollower (origin REPLICATION): the leader's batch at its own offsets, with no
   * producer check but the open-transaction one; markers are taken with transaction version
   * unknown (read as 0) and never judged. Returns the completed transaction of a marker, if any.
   */
  appendAsFollower(batch: LogBatch): CompletedTxn | null {
    if (batch.baseOffset !== this.logEndOffset)
      throw new Error(`${this.partition}: follower append at ${batch.baseOffset}, log end ${this.logEndOffset}`);
    this.assertRoom();
    if (batch.producerId >= 0 && !batch.control) {
      const problem = this.producerState.followerSequenceProblem(factsOfLogBatch(batch));
      if (problem)
        throw new OutOfOrderSequenceException(
          `${this.partition}: replicated batch of producer ${batch.producerId} at offset ${batch.baseOffset}: ${problem} (KAFKA-6003)`,
        );
    }
    this.checkReplayedBatch(batch);
    this.pushBatch(batch);
    const completed = this.replayProducerState(batch);
    this.refreshFirstUnstableOffset();
    if (this.observer) this.observe({ kind: "follower", batch });
    return completed;
  }

  /** What a batch does to the producer state, as a follower or a rebuild sees it (origin REPLICATION). */
  private replayProducerState(batch: LogBatch): CompletedTxn | null {
    if (batch.producerId < 0) return null;
    if (batch.control) {
      this.maybeEnforceCoordinatorEpochOnReplay(batch);
      const completed = this.producerState.appendEndTxnMarker({
        producerId: batch.producerId,
        markerEpoch: batch.producerEpoch,
        coordinatorEpoch: batch.control.coordinatorEpoch,
        result: batch.control.type,
        offset: batch.baseOffset,
        origin: "REPLICATION",
        timestamp: batch.maxTimestamp,
      });
      if (completed) this.completeTxn(completed);
      return completed;
    }
    this.producerState.appendDataBatch(factsOfLogBatch(batch));
    return null;
  }

  /**
   * ProducerAppendInfo's one check of a replicated data batch, before anything is appended: a
   * non-transactional batch inside the producer's open transaction (InvalidTxnStateException). A
   * leader never writes one, so here it is a bug of the model's leader.
   */
  private checkReplayedBatch(batch: LogBatch): void {
    if (batch.producerId < 0 || batch.control || batch.isTransactional) return;
    const open = this.producerState.producers.get(batch.producerId)?.currentTxnFirstOffset ?? null;
    if (open !== null)
      throw new InvalidTxnStateException(
        `${this.partition}: non-transactional batch at ${batch.baseOffset} inside an open transaction`,
      );
  }

  /**
   * KAFKA-9144's bug switch: ProducerAppendInfo.appendEndTxnMarker checked the coordinator epoch
   * whatever the origin, so a marker the leader took (its entry had expired, then a late marker of
   * an older coordinator came) fails when a follower or a rebuild replays it after the newer one.
   */
  private maybeEnforceCoordinatorEpochOnReplay(marker: LogBatch): void {
    if (!this.flags().replayEnforcesCoordinatorEpoch || !marker.control) return;
    const stored = this.producerState.producers.get(marker.producerId)?.coordinatorEpoch ?? -1;
    if (stored > marker.control.coordinatorEpoch)
      throw new TransactionCoordinatorFencedException(
        `${this.partition}: replaying the marker at offset ${marker.baseOffset} of producer ${marker.producerId}: coordinator epoch ${marker.control.coordinatorEpoch} < stored ${stored} (KAFKA-9144)`,
      );
  }

  /**
   * UnifiedLog.truncateTo: batches at or above `offset` go, with their epochs and aborted-index entries;
   * the producer state is rebuilt from what is left (rebuildProducerState). Returns the batches removed.
   */
  truncateTo(offset: number): LogBatch[] {
    // Epochs that start at the truncation point go even when no batch does (a leader that wrote nothing in its epoch).
    this.leaderEpochCache.truncateFromEnd(offset);
    if (offset >= this.logEndOffset) return [];
    const emptyBefore = this.producerState.isEmpty();
    let keep = this.batches.length;
    while (keep > 0 && (this.batches[keep - 1] as LogBatch).baseOffset >= offset) keep--;
    const removed = this.batches.splice(keep);
    this.logEndOffset = keep > 0 ? (this.batches[keep - 1] as LogBatch).lastOffset + 1 : 0;
    this.leaderEpochCache.truncateFromEnd(this.logEndOffset);
    // The transaction index is truncated with its segment, not rebuilt.
    const keptAborted = this.abortedTxns.filter((a) => a.lastOffset < this.logEndOffset);
    this.abortedTxns.splice(0, this.abortedTxns.length, ...keptAborted);
    // ProducerStateManager.truncateAndReload drops the snapshots above the new log end.
    this.snapshots.dropAbove(this.logEndOffset);
    // UnifiedLog.rebuildProducerState skips the replay when the state held no producer before the
    // truncation (isEmptyBeforeTruncation): truncating cannot bring one back, though a replay would.
    this.rebuildProducerState({ rebuildAbortedIndex: false, skipReplay: emptyBefore });
    this.takeSnapshot(this.logEndOffset);
    // UnifiedLog.truncateTo moves the high watermark (and so drops completed transactions below it)
    // only when it is at or past the new log end: otherwise they stay until its next move.
    if (this.highWatermark >= this.logEndOffset) {
      this.highWatermark = this.logEndOffset;
      this.producerState.onHighWatermarkUpdated(this.highWatermark);
      this.refreshFirstUnstableOffset();
    }
    if (this.observer) this.observe({ kind: "truncate", offset });
    return removed;
  }

  /** ProducerStateManager.takeSnapshot at `offset`: the state now, as its file holds it. */
  private takeSnapshot(offset: number): void {
    this.snapshots.take(offset, this.producerState.writeSnapshot());
  }

  /**
   * UnifiedLog.rebuildProducerState: the producer state as its latest snapshot at or below the log
   * end holds it (ProducerStateManager.truncateAndReload: producers expired by now are not loaded, and
   * a snapshot holds no completed transaction), then the batches after the snapshot replayed (origin
   * REPLICATION). Without a snapshot everything is replayed and nothing is dropped for expiry.
   */
  private rebuildProducerState(options: { rebuildAbortedIndex: boolean; skipReplay?: boolean }): void {
    const snapshot = this.snapshots.latestAtOrBelow(this.logEndOffset);
    const aborted = options.rebuildAbortedIndex ? [] : [...this.abortedTxns];
    this.producerState.reset();
    this.abortedTxns.length = 0;
    let i = 0;
    if (snapshot !== null) {
      const expiry =
        this.clock && this.producerIdExpirationMs !== null
          ? { nowMs: this.clock(), expirationMs: this.producerIdExpirationMs }
          : null;
      this.producerState.loadSnapshot(snapshot.entries, expiry);
      while (i < this.batches.length && (this.batches[i] as LogBatch).baseOffset < snapshot.offset) i++;
    }
    if (!options.skipReplay) for (; i < this.batches.length; i++) this.replayProducerState(this.batches[i] as LogBatch);
    if (!options.rebuildAbortedIndex) this.abortedTxns.splice(0, this.abortedTxns.length, ...aborted);
  }

  /**
   * UnifiedLog.maybeUpdateHighWatermark (updateHighWatermark), a follower's: the leader's, but never
   * past its own log end.
   */
  updateFollowerHighWatermark(leaderHighWatermark: number): boolean {
    const hw = Math.min(leaderHighWatermark, this.logEndOffset);
    // UnifiedLog.maybeUpdateHighWatermark refreshes the first unstable offset even when hw does not move.
    if (hw === this.highWatermark) this.refreshFirstUnstableOffset();
    if (hw <= this.highWatermark) return false;
    this.highWatermark = hw;
    this.producerState.onHighWatermarkUpdated(hw);
    this.refreshFirstUnstableOffset();
    if (this.observer) this.observe({ kind: "highWatermark", highWatermark: hw });
    return true;
  }

  private assertRoom(): void {
    if (this.batches.length >= MAX_LOG_BATCHES)
      throw new BoundExceeded(`batches in the log of ${this.partition}`, MAX_LOG_BATCHES);
  }

  /** The transaction leaves the open set; an aborted one enters the TransactionIndex. */
  private completeTxn(txn: CompletedTxn): void {
    const lastStableOffset = this.producerState.completeTxn(txn);
    if (txn.isAborted) {
      this.abortedTxns.push({
        producerId: txn.producerId,
        firstOffset: txn.firstOffset,
        lastOffset: txn.lastOffset,
        lastStableOffset,
      });
    }
  }

  /** Replication caught up to `hw`: completed transactions below it leave the unstable set. */
  onHighWatermarkUpdated(hw: number): void {
    if (hw <= this.highWatermark) return;
    this.highWatermark = Math.min(hw, this.logEndOffset);
    this.producerState.onHighWatermarkUpdated(this.highWatermark);
    this.refreshFirstUnstableOffset();
    if (this.observer) this.observe({ kind: "highWatermark", highWatermark: this.highWatermark });
  }

  /** UnifiedLog.firstUnstableOffset: the cached value the last stable offset reads (see firstUnstableCache). */
  firstUnstableOffset(): number | null {
    return this.firstUnstableCache;
  }

  /** ProducerStateManager.firstUnstableOffset: the producer state's own answer, always current. */
  producerStateFirstUnstableOffset(): number | null {
    return this.producerState.firstUnstableOffset();
  }

  /** UnifiedLog.maybeIncrementFirstUnstableOffset. */
  refreshFirstUnstableOffset(): void {
    this.firstUnstableCache = this.producerState.firstUnstableOffset();
  }

  /** The periodic producer-expiration check of this replica (leader or follower); the ids removed. */
  removeExpiredProducers(expirationMs: number): number[] {
    if (!this.clock) return [];
    // UnifiedLog.removeExpiredProducers leaves the cached first unstable offset alone, stale or not.
    const removed = this.producerState.removeExpiredProducers(this.clock(), expirationMs);
    if (this.observer) this.observe({ kind: "expire", expirationMs, removed });
    return removed;
  }

  lastStableOffset(): number {
    const unstable = this.firstUnstableOffset();
    return unstable !== null && unstable < this.highWatermark ? unstable : this.highWatermark;
  }

  /** The first read of KAFKA-9807's two: the first unstable offset when it is below the high watermark, else null. */
  unstableBelowHighWatermark(): number | null {
    const unstable = this.firstUnstableOffset();
    return unstable !== null && unstable < this.highWatermark ? unstable : null;
  }

  /** The second read of KAFKA-9807's two: the first read's offset, else the high watermark as it is now. */
  lastStableOffsetAfterSecondRead(unstableBelowHw: number | null): number {
    return unstableBelowHw ?? this.highWatermark;
  }

  openTransactionCount(): number {
    return this.producerState.openTransactionCount();
  }

  /**
   * A fetch: batches from fetchOffset below the isolation's upper bound, plus aborted ranges; `at`
   * the last stable offset the fetch already read (KAFKA-9807's reads), else the log's now.
   */
  read(
    fetchOffset: number,
    isolation: Isolation,
    maxBatches: number,
    at: { lastStableOffset?: number } = {},
  ): { batches: LogBatch[]; abortedTransactions: AbortedTxn[]; upperBound: number } {
    const lastStableOffset = at.lastStableOffset ?? this.lastStableOffset();
    const upperBound = isolation === "READ_COMMITTED" ? lastStableOffset : this.highWatermark;
    const batches = batchesBetween(this.batches, fetchOffset, upperBound, maxBatches);
    const abortedTransactions: AbortedTxn[] = [];
    if (isolation === "READ_COMMITTED") {
      for (const a of this.abortedTxns) {
        if (a.lastOffset >= fetchOffset && a.firstOffset < upperBound) abortedTransactions.push(a);
      }
    }
    return { batches, abortedTransactions, upperBound };
  }

  /** A follower's fetch: everything from fetchOffset to the log end. */
  readToLogEnd(fetchOffset: number, maxBatches: number): LogBatch[] {
    return batchesBetween(this.batches, fetchOffset, this.logEndOffset, maxBatches);
  }

  /** Data batches of `producerId` in [firstOffset, lastOffset] (the records a marker closed). */
  dataBatchesOf(producerId: number, firstOffset: number, lastOffset: number): LogBatch[] {
    const out: LogBatch[] = [];
    for (let i = this.batches.length - 1; i >= 0; i--) {
      const b = this.batches[i] as LogBatch;
      if (b.lastOffset < firstOffset) break;
      if (b.baseOffset <= lastOffset && b.producerId === producerId && b.control === null) out.push(b);
    }
    return out.reverse();
  }
}

type DataAppendInput = DataBatchInput;
