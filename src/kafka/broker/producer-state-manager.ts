import { Errors } from "../common/errors.js";
import { MAX_PRODUCER_EPOCH, NO_PRODUCER_EPOCH, type TransactionResult } from "../common/types.js";
import type { ReleaseFlags } from "../release.js";
import type { LogBatch } from "./log-batch.js";
import { producersNotRetained } from "./log-start-offset.js";
import {
  type BatchMetadata,
  ProducerStateEntry,
  SENTINEL_GUARD,
  type VerificationStateEntry,
} from "./producer-state-entry.js";

/**
 * Who is appending (Kafka's AppendOrigin): a client's Produce, the coordinator's marker, or a
 * follower copying its leader. Followers skip every producer check but the open-transaction one.
 */
export type AppendOrigin = "CLIENT" | "COORDINATOR" | "REPLICATION";

/** A marker the log appended at `offset`, for the producer state to take (appendEndTxnMarker). */
export interface EndTxnMarkerAppend {
  readonly producerId: number;
  readonly markerEpoch: number;
  readonly coordinatorEpoch: number;
  readonly result: TransactionResult;
  readonly offset: number;
  /** Who appended it: the leader (COORDINATOR) or a follower replaying its leader's log (REPLICATION). */
  readonly origin: AppendOrigin;
  /** The batch's max timestamp (absent when the log has no clock). */
  readonly timestamp?: number;
}

/** A completed transaction: the producer's open range closed by a marker at `lastOffset`. */
export interface CompletedTxn {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
  isAborted: boolean;
}

/** A data batch as the producer state sees it (what UnifiedLog hands ProducerAppendInfo). */
export interface DataBatchFacts {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  lastSequence: number;
  isTransactional: boolean;
  firstOffset: number;
  lastOffset: number;
  /** The batch's max timestamp (the leader's clock at its append; absent: unknown, -1). */
  timestamp?: number;
}

/** The problem a data batch has at the leader, in Kafka's check order, or null. */
export type DataBatchCheck =
  | { kind: "ok" }
  | { kind: "duplicate"; firstOffset: number; lastOffset: number }
  | { kind: "error"; errorCode: number; reason: string };

/** Which producer-epoch rule judged a marker, for explanations. */
export type MarkerEpochRule = "legacy" | "strict-tv2" | "kafka-19999-equal-epoch" | "unchecked" | "tv-unknown";

/** TransactionVersion.TV_UNKNOWN: a marker whose transaction version nobody stated. */
export const TV_UNKNOWN = -1;

export interface MarkerJudgement {
  rule: MarkerEpochRule;
  /** NONE, INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED or UNKNOWN_SERVER_ERROR (TV_UNKNOWN). */
  errorCode: number;
  reason: string;
  storedEpochBefore: number;
  storedCoordinatorEpochBefore: number;
  openTxnBefore: boolean;
}

const OK: DataBatchCheck = { kind: "ok" };

/**
 * ProducerStateManager: per producer id, the epoch, the last batches (for duplicate and sequence
 * checks), the coordinator epoch and the open transaction of one partition replica; the set of
 * open and not-yet-replicated completed transactions (the first unstable offset); and the leader's
 * KIP-890 verification entries. The checks are ProducerAppendInfo's and UnifiedLog's
 * analyzeAndValidateProducerState's, in their order. Every replica keeps one, built from its own log.
 */
/** One producer's entry in a producer-state snapshot file (ProducerStateManager.writeSnapshot). */
export interface ProducerSnapshotEntry {
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly coordinatorEpoch: number;
  readonly lastTimestamp: number;
  readonly currentTxnFirstOffset: number | null;
  /** The last batch's metadata: the only one a snapshot keeps (null: the producer wrote no data). */
  readonly lastBatch: BatchMetadata | null;
}

export class ProducerStateManager {
  readonly producers = new Map<number, ProducerStateEntry>();
  /** Open transactions by first offset (insertion order is offset order). */
  private readonly ongoingTxns = new Map<number, number>();
  /** Completed transactions whose marker is not yet below the high watermark. */
  private unreplicatedTxns: CompletedTxn[] = [];
  /** Leader memory only: never replicated, lost on a leader change (a new leader re-verifies). */
  readonly verificationStates = new Map<number, VerificationStateEntry>();
  private nextGuard = 1;

  constructor(private readonly flags: () => Readonly<ReleaseFlags>) {}

  private entry(producerId: number): ProducerStateEntry {
    let e = this.producers.get(producerId);
    if (!e) {
      e = new ProducerStateEntry(producerId);
      this.producers.set(producerId, e);
    }
    return e;
  }

  /** hasOngoingTransaction(pid, epoch): the newest code requires the stored epoch to match. */
  hasOngoingTransaction(producerId: number, epoch: number): boolean {
    const e = this.producers.get(producerId);
    if (!e || e.currentTxnFirstOffset === null) return false;
    return !this.flags().ongoingTransactionMatchesEpoch || e.producerEpoch === epoch;
  }

  /**
   * The first step of Kafka's UnifiedLog.maybeStartTransactionVerification (KAFKA-18042): a batch
   * whose epoch is below the producer's stored epoch is refused (INVALID_PRODUCER_EPOCH) before any
   * verification starts, so the coordinator is not asked. The reason, or null.
   */
  staleEpochBeforeVerification(producerId: number, epoch: number): string | null {
    if (!this.flags().rejectStaleEpochBeforeVerification) return null;
    const e = this.producers.get(producerId);
    return e && epoch < e.producerEpoch ? `epoch ${epoch} < producer epoch ${e.producerEpoch}` : null;
  }

  /**
   * KIP-890 part 1 (maybeCreateVerificationStateEntry): 0 (SENTINEL) when a transaction at this
   * epoch is already open, else the guard of a (new or reused) entry that the append must present.
   */
  maybeStartTransactionVerification(
    producerId: number,
    sequence: number,
    epoch: number,
    supportsEpochBump: boolean,
    nowMs: number,
  ): number {
    if (this.hasOngoingTransaction(producerId, epoch)) return SENTINEL_GUARD;
    let v = this.verificationStates.get(producerId);
    if (!v) {
      const knowsBump = this.flags().verificationEntryKnowsEpochBump;
      v = {
        guard: this.nextGuard++,
        timestamp: nowMs,
        lowestSequence: sequence,
        epoch,
        supportsEpochBump: knowsBump && supportsEpochBump,
      };
      this.verificationStates.set(producerId, v);
    } else if (epoch > v.epoch || (epoch === v.epoch && sequence < v.lowestSequence)) {
      // VerificationStateEntry.maybeUpdateLowestSequenceAndEpoch: the epoch and the lowest sequence
      // move; the entry's timestamp and supportsEpochBump stay those of its creation.
      v.epoch = epoch;
      v.lowestSequence = sequence;
    }
    return v.guard;
  }

  /** The broker's process stopped: the verification entries were memory. */
  clearVerificationStates(): void {
    this.verificationStates.clear();
  }

  /** A copy of the verification entries, to put back with restoreVerificationStates. */
  saveVerificationStates(): Map<number, VerificationStateEntry> {
    return new Map([...this.verificationStates].map(([pid, v]) => [pid, { ...v }]));
  }

  restoreVerificationStates(saved: ReadonlyMap<number, VerificationStateEntry>): void {
    this.verificationStates.clear();
    for (const [pid, v] of saved) this.verificationStates.set(pid, v);
  }

  // ------------------------------------------------------------------ data batches

  /**
   * The leader's checks of a data batch (origin CLIENT), in Kafka's order: duplicate, then for a
   * transactional batch that opens a transaction the epoch and the verification guard, then the
   * epoch, the sequence, and a plain batch inside an open transaction.
   */
  checkDataBatch(batch: DataBatchFacts, verificationGuard: number, origin: AppendOrigin = "CLIENT"): DataBatchCheck {
    const flags = this.flags();
    const existing = this.producers.get(batch.producerId);
    // UnifiedLog.analyzeAndValidateProducerState looks for a duplicate only for origin CLIENT.
    if (flags.produceDuplicateDetection && existing && origin === "CLIENT") {
      const dup = existing.findDuplicate(batch.producerEpoch, batch.baseSequence, batch.lastSequence);
      if (dup) return { kind: "duplicate", firstOffset: dup.firstOffset, lastOffset: dup.lastOffset };
    }
    const storedEpoch = existing ? existing.producerEpoch : NO_PRODUCER_EPOCH;
    const verification = this.verificationStates.get(batch.producerId) ?? null;
    if (batch.isTransactional && !this.hasOngoingTransaction(batch.producerId, batch.producerEpoch)) {
      // KAFKA-19690: the stale epoch is refused (recoverable) before the guard is looked at.
      if (flags.staleEpochRefusedBeforeGuard && batch.producerEpoch < storedEpoch)
        return error(Errors.INVALID_PRODUCER_EPOCH, `epoch ${batch.producerEpoch} < producer epoch ${storedEpoch}`);
      // KAFKA-14884's bug switch: 3.5 verified, but did not check at the append that nothing (a
      // marker) came in between; only an append that skipped verification is refused.
      const guardMismatch = flags.verificationWithoutGuard
        ? verificationGuard === 0
        : verification === null || verification.guard !== verificationGuard;
      // KAFKA-15449's bug switch: 3.6 checked the guard of origin CLIENT only, so a group
      // coordinator's unverified write (origin COORDINATOR) opened a transaction unchecked.
      const checked = origin === "CLIENT" || !flags.txnOffsetCommitUnverified;
      if (flags.transactionPartitionVerification && checked && guardMismatch)
        return error(
          Errors.INVALID_TXN_STATE,
          "Record was not part of an ongoing transaction (verification guard mismatch)",
        );
    }
    if (batch.producerEpoch < storedEpoch)
      return error(Errors.INVALID_PRODUCER_EPOCH, `epoch ${batch.producerEpoch} < producer epoch ${storedEpoch}`);
    // ProducerAppendInfo.maybeValidateDataBatch checks sequences only for origin CLIENT: a group
    // coordinator's transactional offset commit always carries sequence 0.
    const seqProblem = origin === "CLIENT" ? this.sequenceProblem(existing, batch, verification) : null;
    if (seqProblem) return error(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, seqProblem);
    if (!batch.isTransactional && existing?.currentTxnFirstOffset != null)
      return error(Errors.INVALID_TXN_STATE, "non-transactional batch while a transaction is open");
    return OK;
  }

  private sequenceProblem(
    existing: ProducerStateEntry | undefined,
    batch: DataBatchFacts,
    verification: VerificationStateEntry | null,
  ): string | null {
    if (!this.flags().produceSequenceCheck) return null;
    const storedEpoch = existing ? existing.producerEpoch : NO_PRODUCER_EPOCH;
    const hasBatches = !!existing && existing.batchMetadata.length > 0;
    const first = batch.baseSequence;
    // ProducerAppendInfo.checkSequence, in its order: a TV2-verified producer with no retained
    // batch must start at 0; then no batch may come after the lowest sequence its verification saw
    // (KIP-890 part 1: an earlier batch of the same transaction is still on its way).
    if (this.flags().tv2FirstSequenceMustBeZero && verification?.supportsEpochBump && !hasBatches && first !== 0) {
      return `first sequence ${first} with no producer state must be 0 (TV2 verification)`;
    }
    // KAFKA-14920's bug switch: before 3.6.0 the entry had no floor, and a later batch of a producer
    // without state went in ahead of an earlier one still being verified.
    if (verification && first > verification.lowestSequence && !this.flags().verificationNoSequenceFloor) {
      return `sequence ${first} above the lowest verified sequence ${verification.lowestSequence}`;
    }
    if (storedEpoch === NO_PRODUCER_EPOCH) return this.unknownProducerProblem(first);
    if (batch.producerEpoch !== storedEpoch)
      return first === 0 ? null : `new epoch ${batch.producerEpoch} must start at sequence 0, got ${first}`;
    const last = existing?.lastSeq() ?? -1;
    if (last === -1) return first === 0 ? null : `epoch was bumped by a marker: expected sequence 0, got ${first}`;
    const expected = last === 0x7fffffff ? 0 : last + 1;
    return first === expected ? null : `expected sequence ${expected}, got ${first}`;
  }

  /**
   * A batch of a producer this replica has no state for: accepted at any sequence (since 2.5), but
   * refused OUT_OF_ORDER_SEQUENCE_NUMBER unless it starts at 0 under KAFKA-5793's bug switch (0.11:
   * the missing entry's epoch differs from the batch's, so the sequence must be 0).
   */
  private unknownProducerProblem(firstSequence: number): string | null {
    if (!this.flags().unknownProducerReportedAsOutOfOrder || firstSequence === 0) return null;
    return this.unknownProducerProblemText(firstSequence);
  }

  /**
   * KAFKA-6003's bug switch at a follower (origin REPLICATION): the sequence check of a replicated
   * batch whose producer this replica has no state for; the reason it fails, or null.
   */
  followerSequenceProblem(batch: DataBatchFacts): string | null {
    if (!this.flags().followerChecksSequenceWithoutState || this.producers.has(batch.producerId)) return null;
    return batch.baseSequence === 0 ? null : this.unknownProducerProblemText(batch.baseSequence);
  }

  private unknownProducerProblemText(firstSequence: number): string {
    return `no state for the producer (expired or never seen): sequence ${firstSequence} must be 0`;
  }

  /**
   * ProducerStateManager.removeExpiredProducers: producers idle for at least `expirationMs` since
   * their last timestamp, with no open transaction, are forgotten, and so are verification entries
   * made that long ago. Returns the producer ids removed.
   */
  removeExpiredProducers(nowMs: number, expirationMs: number): number[] {
    const removed = this.dropExpiredProducers(nowMs, expirationMs);
    // Verification entries expire by their own creation time (ProducerStateManager.removeExpiredProducers).
    const staleEntries: number[] = [];
    for (const [pid, v] of this.verificationStates) if (nowMs - v.timestamp >= expirationMs) staleEntries.push(pid);
    for (const pid of staleEntries) this.verificationStates.delete(pid);
    return removed;
  }

  /** The expired producers only (isProducerExpired), as a snapshot load leaves them out. Returns their ids. */
  dropExpiredProducers(nowMs: number, expirationMs: number): number[] {
    const removed: number[] = [];
    for (const [pid, e] of this.producers) {
      if (e.currentTxnFirstOffset === null && nowMs - e.lastTimestamp >= expirationMs) removed.push(pid);
    }
    for (const pid of removed) this.producers.delete(pid);
    return removed;
  }

  /**
   * ProducerAppendInfo.appendDataBatch after the checks passed (or unchecked, for a follower): the
   * entry takes the epoch and the batch, and a transactional batch opens the producer's transaction.
   */
  appendDataBatch(batch: DataBatchFacts): void {
    const e = this.entry(batch.producerId);
    e.setEpoch(batch.producerEpoch);
    if (batch.timestamp !== undefined) e.lastTimestamp = Math.max(e.lastTimestamp, batch.timestamp);
    e.addBatch({
      firstSeq: batch.baseSequence,
      lastSeq: batch.lastSequence,
      firstOffset: batch.firstOffset,
      lastOffset: batch.lastOffset,
    });
    if (batch.isTransactional && e.currentTxnFirstOffset === null) {
      e.currentTxnFirstOffset = batch.firstOffset;
      this.ongoingTxns.set(batch.firstOffset, batch.producerId);
    }
    // UnifiedLog.updateProducers, whatever the origin (a follower that led before may hold entries).
    if (batch.isTransactional) this.verificationStates.delete(batch.producerId);
  }

  // ------------------------------------------------------------------ markers

  /**
   * The leader's checks of a coordinator's marker (origin COORDINATOR), in Kafka's order:
   * UnifiedLog.analyzeAndValidateProducerState's stale-epoch refusal (a control batch is
   * transactional, KAFKA-19690), then ProducerAppendInfo.appendEndTxnMarker: the TV_UNKNOWN refusal,
   * the producer-epoch rule of the marker's transaction version (with KAFKA-19999's tolerance, which
   * lets the copy on to the append), then the coordinator epoch.
   */
  checkEndTxnMarker(
    producerId: number,
    markerEpoch: number,
    coordinatorEpoch: number,
    transactionVersion: number,
  ): MarkerJudgement {
    const flags = this.flags();
    const e = this.producers.get(producerId);
    const storedEpoch = e ? e.producerEpoch : NO_PRODUCER_EPOCH;
    const storedCe = e ? e.coordinatorEpoch : -1;
    const openTxn = !!e && e.currentTxnFirstOffset !== null;
    // A KIP-1228 leader refuses a coordinator's marker that states no transaction version (Kafka
    // throws IllegalArgumentException, answered UNKNOWN_SERVER_ERROR); only a follower may append
    // one, by the legacy rule (testLeaderRejectsTVUnknownForTransactionMarker).
    const tvUnknown = transactionVersion === TV_UNKNOWN && flags.maxWriteTxnMarkersVersion >= 2;
    const { rule, valid } = tvUnknown
      ? { rule: "tv-unknown" as const, valid: false }
      : judgeMarkerEpoch(flags, transactionVersion, markerEpoch, storedEpoch, openTxn);
    const judged = (errorCode: number, reason: string): MarkerJudgement => ({
      rule,
      errorCode,
      reason,
      storedEpochBefore: storedEpoch,
      storedCoordinatorEpochBefore: storedCe,
      openTxnBefore: openTxn,
    });
    // A marker below the stored epoch never has its transaction ongoing (that needs the same epoch).
    if (flags.staleEpochRefusedBeforeGuard && e && markerEpoch < storedEpoch)
      return judged(Errors.INVALID_PRODUCER_EPOCH, `epoch ${markerEpoch} < producer epoch ${storedEpoch}`);
    if (tvUnknown)
      return judged(Errors.UNKNOWN_SERVER_ERROR, "transactionVersion must be explicitly specified (TV_UNKNOWN)");
    if (!valid)
      return judged(
        Errors.INVALID_PRODUCER_EPOCH,
        `marker epoch ${markerEpoch} vs producer epoch ${storedEpoch} under ${describeRule(rule)}`,
      );
    // KAFKA-19999 as merged: checkProducerEpoch returns for the tolerated copy, and the coordinator
    // epoch is checked and the copy appended like any marker (it closes nothing: no transaction is open).
    if (flags.coordinatorEpochCheck && storedCe > coordinatorEpoch)
      return judged(
        Errors.TRANSACTION_COORDINATOR_FENCED,
        `coordinator epoch ${coordinatorEpoch} < stored ${storedCe}`,
      );
    return judged(Errors.NONE, "");
  }

  /**
   * ProducerAppendInfo.appendEndTxnMarker's update, at `offset`: the open transaction (if any) is
   * completed, the entry takes the marker's epochs. A follower (REPLICATION) keeps its leader's
   * verification entries out of it: it has none.
   */
  appendEndTxnMarker(marker: EndTxnMarkerAppend): CompletedTxn | null {
    const { producerId, markerEpoch, coordinatorEpoch, result, offset, timestamp } = marker;
    const entry = this.entry(producerId);
    // KAFKA-9144's fix: the marker refreshes the producer's last timestamp (the bug: data only).
    if (timestamp !== undefined && !this.flags().psmExpiryIgnoresMarkerTimestamps)
      entry.lastTimestamp = Math.max(entry.lastTimestamp, timestamp);
    let completed: CompletedTxn | null = null;
    if (entry.currentTxnFirstOffset !== null) {
      completed = {
        producerId,
        firstOffset: entry.currentTxnFirstOffset,
        lastOffset: offset,
        isAborted: result === "ABORT",
      };
    }
    entry.setEpoch(markerEpoch);
    entry.coordinatorEpoch = coordinatorEpoch;
    entry.currentTxnFirstOffset = null;
    // The next transaction's guard survives a marker at its own epoch when it was verified for a
    // TV2 produce (UnifiedLog.updateProducers, for every origin: whatever the marker's transaction
    // version; only the verification entry's supportsEpochBump counts).
    const v = this.verificationStates.get(producerId);
    const keep = !!v && v.supportsEpochBump && v.epoch === markerEpoch;
    if (v && !keep) this.verificationStates.delete(producerId);
    return completed;
  }

  /**
   * A completed transaction leaves the open set (it stays unstable until its marker is below the
   * high watermark). Returns the LSO to record in the aborted index: the first offset of the
   * earliest other open transaction, else just past the marker (Kafka's lastStableOffset(txn)).
   */
  completeTxn(txn: CompletedTxn): number {
    this.ongoingTxns.delete(txn.firstOffset);
    let lastStableOffset = txn.lastOffset + 1;
    for (const [first, pid] of this.ongoingTxns) {
      if (pid !== txn.producerId) {
        lastStableOffset = first;
        break;
      }
    }
    this.unreplicatedTxns.push(txn);
    return lastStableOffset;
  }

  /** Replication caught up to `highWatermark`: completed transactions below it leave the unstable set. */
  onHighWatermarkUpdated(highWatermark: number): void {
    if (this.unreplicatedTxns.length > 0 && this.flags().advanceLsoOnCompletion) {
      this.unreplicatedTxns = this.unreplicatedTxns.filter((t) => t.lastOffset >= highWatermark);
    }
  }

  /** ProducerStateManager.onLogStartOffsetIncremented (see log-start-offset.ts): the producer ids evicted. */
  onLogStartOffsetIncremented(logStartOffset: number): number[] {
    this.unreplicatedTxns = this.unreplicatedTxns.filter((t) => t.lastOffset >= logStartOffset);
    const evicted = this.flags().psmDropsStateWithLogSegments
      ? producersNotRetained(this.producers, logStartOffset)
      : [];
    for (const pid of evicted) {
      const first = this.producers.get(pid)?.currentTxnFirstOffset ?? null;
      if (first !== null) this.ongoingTxns.delete(first);
      this.producers.delete(pid);
    }
    return evicted;
  }

  /** Completed transactions above the high watermark are forgotten (a log recovered after a restart). */
  forgetUnreplicatedTransactions(): void {
    this.unreplicatedTxns = [];
  }

  firstUnstableOffset(): number | null {
    let first: number | null = null;
    for (const offset of this.ongoingTxns.keys()) {
      first = offset;
      break;
    }
    for (const t of this.unreplicatedTxns) if (first === null || t.firstOffset < first) first = t.firstOffset;
    return first;
  }

  /** ProducerStateManager.isEmpty: no producer and no completed transaction awaiting the high watermark. */
  isEmpty(): boolean {
    return this.producers.size === 0 && this.unreplicatedTxns.length === 0;
  }

  openTransactionCount(): number {
    return this.ongoingTxns.size;
  }

  /**
   * ProducerStateManager.takeSnapshot: what the snapshot file holds of each producer (writeSnapshot):
   * its epochs, its last batch only (sequence range and offset), its last timestamp and its open
   * transaction's first offset. Not the verification entries (memory), not the completed transactions.
   */
  writeSnapshot(): ProducerSnapshotEntry[] {
    const entries: ProducerSnapshotEntry[] = [];
    for (const e of this.producers.values()) {
      const last = e.batchMetadata.at(-1);
      entries.push({
        producerId: e.producerId,
        producerEpoch: e.producerEpoch,
        coordinatorEpoch: e.coordinatorEpoch,
        lastTimestamp: e.lastTimestamp,
        currentTxnFirstOffset: e.currentTxnFirstOffset,
        lastBatch: last ? { ...last } : null,
      });
    }
    return entries;
  }

  /**
   * ProducerStateManager.loadFromSnapshot after a reset: every entry of the file but those expired by
   * `nowMs` (isProducerExpired: no open transaction and idle past the expiration), each with its last
   * batch as its only retained one; an entry's open transaction is open again.
   */
  loadSnapshot(
    entries: readonly ProducerSnapshotEntry[],
    expiry: { nowMs: number; expirationMs: number } | null,
  ): void {
    const open: [number, number][] = [];
    for (const s of entries) {
      const expired =
        expiry !== null && s.currentTxnFirstOffset === null && expiry.nowMs - s.lastTimestamp >= expiry.expirationMs;
      if (expired) continue;
      const e = this.entry(s.producerId);
      e.producerEpoch = s.producerEpoch;
      e.coordinatorEpoch = s.coordinatorEpoch;
      e.lastTimestamp = s.lastTimestamp;
      e.currentTxnFirstOffset = s.currentTxnFirstOffset;
      e.batchMetadata.length = 0;
      if (s.lastBatch) e.addBatch({ ...s.lastBatch });
      if (s.currentTxnFirstOffset !== null) open.push([s.currentTxnFirstOffset, s.producerId]);
    }
    // ongoingTxns is kept in first-offset order (firstUnstableOffset reads its first key).
    open.sort((a, b) => a[0] - b[0]);
    for (const [first, pid] of open) this.ongoingTxns.set(first, pid);
  }

  /**
   * Forget what the log rebuilds (before UnifiedLog.rebuildProducerState after a truncation): the
   * producers and transactions. The leader's verification entries are not log state and stay
   * (ProducerStateManager.truncateAndReload leaves them); the replay clears those its batches reach.
   */
  reset(): void {
    this.producers.clear();
    this.ongoingTxns.clear();
    this.unreplicatedTxns = [];
  }
}

function error(errorCode: number, reason: string): DataBatchCheck {
  return { kind: "error", errorCode, reason };
}

export function describeRule(rule: MarkerEpochRule): string {
  switch (rule) {
    case "legacy":
      return "legacy rule (marker epoch >= producer epoch)";
    case "strict-tv2":
      return "KIP-1228 strict TV2 rule (marker epoch > producer epoch)";
    case "kafka-19999-equal-epoch":
      return "KAFKA-19999 tolerance (equal epoch, no open transaction: the copy is appended)";
    case "unchecked":
      return "no producer-epoch check";
    case "tv-unknown":
      return "refusal of a coordinator's marker with transaction version unknown (TV_UNKNOWN)";
  }
}

/**
 * The producer-epoch rule for a marker. tv >= 2 under a KIP-1228 leader: markerEpoch must be
 * strictly greater, except (KAFKA-19999) an equal epoch when no txn is open. Otherwise legacy: >=.
 */
export function judgeMarkerEpoch(
  flags: Readonly<ReleaseFlags>,
  transactionVersion: number,
  markerEpoch: number,
  storedEpoch: number,
  openTxn: boolean,
): { rule: MarkerEpochRule; valid: boolean } {
  if (!flags.markerProducerEpochCheck) return { rule: "unchecked", valid: true };
  const strict = (transactionVersion >= 2 && flags.strictMarkerEpochForTv2) || flags.strictMarkerEpochForLegacy;
  if (!strict) return { rule: "legacy", valid: markerEpoch >= storedEpoch };
  if (markerEpoch > storedEpoch) return { rule: "strict-tv2", valid: true };
  const atMax = flags.equalEpochToleranceAtMaxEpoch && markerEpoch === MAX_PRODUCER_EPOCH;
  const tolerated =
    flags.equalEpochNoOpenTxnTolerance && (!openTxn || atMax || flags.equalEpochToleranceIgnoresOpenTxn);
  if (markerEpoch === storedEpoch && tolerated) return { rule: "kafka-19999-equal-epoch", valid: true };
  return { rule: "strict-tv2", valid: false };
}

/** A data batch as the producer state sees it: a client's at `firstOffset`, or one of the log (a follower's copy, a rebuild). */
export function factsOf(
  batch: Pick<LogBatch, "producerId" | "producerEpoch" | "baseSequence" | "isTransactional" | "values">,
  firstOffset: number,
  timestamp: number | undefined,
): DataBatchFacts {
  const facts: DataBatchFacts = {
    producerId: batch.producerId,
    producerEpoch: batch.producerEpoch,
    baseSequence: batch.baseSequence,
    lastSequence: batch.baseSequence + batch.values.length - 1,
    isTransactional: batch.isTransactional,
    firstOffset,
    lastOffset: firstOffset + batch.values.length - 1,
  };
  if (timestamp !== undefined) facts.timestamp = timestamp;
  return facts;
}

/** A batch of the log as the producer state sees it. */
export function factsOfLogBatch(batch: LogBatch): DataBatchFacts {
  return factsOf(batch, batch.baseOffset, batch.maxTimestamp);
}
