import { BoundExceeded } from "../../sim/bounds.js";
import { Errors } from "../common/errors.js";
import { NO_PRODUCER_EPOCH, type PartitionKey, type TransactionResult } from "../common/types.js";
import type { ReleaseFlags } from "../release.js";
import { ProducerStateEntry, type VerificationStateEntry } from "./producer-state.js";

export type Isolation = "READ_UNCOMMITTED" | "READ_COMMITTED";

/** One record batch in the log. Data batches carry values; control batches carry a marker. */
export interface LogBatch {
  baseOffset: number;
  lastOffset: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  isTransactional: boolean;
  control: { type: TransactionResult; coordinatorEpoch: number } | null;
  values: readonly string[];
  /** Ghost (not Kafka): the transaction attempt that wrote this batch or for which the marker was issued. */
  ghostTxn: string | null;
}

/** TransactionIndex entry (only aborted transactions are indexed). */
export interface AbortedTxn {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
  lastStableOffset: number;
}

export interface CompletedTxn {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
  isAborted: boolean;
}

export interface DataBatchInput {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  isTransactional: boolean;
  values: readonly string[];
  ghostTxn: string | null;
  /** Guard obtained from verification, or 0 when no verification was done. */
  verificationGuard: number;
}

export type DataAppendResult =
  | { kind: "appended"; batch: LogBatch }
  | { kind: "duplicate"; firstOffset: number; lastOffset: number }
  | { kind: "error"; errorCode: number; reason: string };

export interface MarkerInput {
  producerId: number;
  producerEpoch: number;
  result: TransactionResult;
  coordinatorEpoch: number;
  /** From the WriteTxnMarkers request: 0 for v1 (field absent), else the field's value. */
  transactionVersion: number;
  ghostTxn: string | null;
}

/** Which producer-epoch rule judged a marker, for explanations. */
export type MarkerEpochRule = "legacy" | "strict-tv2" | "kafka-19999-equal-epoch" | "unchecked";

export type MarkerAppendResult =
  | {
      kind: "appended";
      batch: LogBatch;
      completed: CompletedTxn | null;
      rule: MarkerEpochRule;
      storedEpochBefore: number;
      storedCoordinatorEpochBefore: number;
      openTxnBefore: boolean;
    }
  | {
      kind: "error";
      errorCode: number;
      rule: MarkerEpochRule;
      storedEpochBefore: number;
      storedCoordinatorEpochBefore: number;
      openTxnBefore: boolean;
      reason: string;
    };

export function describeRule(rule: MarkerEpochRule): string {
  switch (rule) {
    case "legacy":
      return "legacy rule (marker epoch >= producer epoch)";
    case "strict-tv2":
      return "KIP-1228 strict TV2 rule (marker epoch > producer epoch)";
    case "kafka-19999-equal-epoch":
      return "KAFKA-19999 tolerance (equal epoch, no open transaction)";
    case "unchecked":
      return "no producer-epoch check";
  }
}

/** Upper bound on batches in one partition log: a run that writes more is refused, not slowed. */
export const MAX_LOG_BATCHES = 200_000;

/**
 * One partition's log at its leader: UnifiedLog + ProducerStateManager + TransactionIndex,
 * reduced to what the transaction protocol needs. Check order follows
 * UnifiedLog.analyzeAndValidateProducerState and ProducerAppendInfo.
 */
export class PartitionLog {
  readonly batches: LogBatch[] = [];
  logEndOffset = 0;
  highWatermark = 0;
  readonly producers = new Map<number, ProducerStateEntry>();
  /** Open transactions by first offset (insertion order is offset order). */
  private readonly ongoingTxns = new Map<number, number>();
  /** Completed transactions whose marker is not yet below the high watermark. */
  private unreplicatedTxns: CompletedTxn[] = [];
  readonly abortedTxns: AbortedTxn[] = [];
  readonly verificationStates = new Map<number, VerificationStateEntry>();
  private nextGuard = 1;

  constructor(
    readonly partition: PartitionKey,
    private readonly flags: () => Readonly<ReleaseFlags>,
  ) {}

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
    return !!e && e.currentTxnFirstOffset !== null && e.producerEpoch === epoch;
  }

  /**
   * KIP-890 part 1: returns 0 (SENTINEL) when a txn at this epoch is already open, else the guard of
   * a (new or reused) verification entry that the append must present.
   */
  maybeStartTransactionVerification(
    producerId: number,
    sequence: number,
    epoch: number,
    supportsEpochBump: boolean,
  ): number {
    if (this.hasOngoingTransaction(producerId, epoch)) return 0;
    let v = this.verificationStates.get(producerId);
    if (!v) {
      v = { guard: this.nextGuard++, lowestSequence: sequence, epoch, supportsEpochBump };
      this.verificationStates.set(producerId, v);
    } else if (epoch > v.epoch || (epoch === v.epoch && sequence < v.lowestSequence)) {
      v.epoch = epoch;
      v.lowestSequence = sequence;
      v.supportsEpochBump = supportsEpochBump;
    }
    return v.guard;
  }

  appendData(input: DataAppendInput): DataAppendResult {
    const flags = this.flags();
    const existing = this.producers.get(input.producerId);
    const lastSeq = input.baseSequence + input.values.length - 1;
    if (flags.produceDuplicateDetection && existing) {
      const dup = existing.findDuplicate(input.producerEpoch, input.baseSequence, lastSeq);
      if (dup) return { kind: "duplicate", firstOffset: dup.firstOffset, lastOffset: dup.lastOffset };
    }
    const storedEpoch = existing ? existing.producerEpoch : NO_PRODUCER_EPOCH;
    const verification = this.verificationStates.get(input.producerId) ?? null;
    if (input.isTransactional && !this.hasOngoingTransaction(input.producerId, input.producerEpoch)) {
      if (input.producerEpoch < storedEpoch)
        return err(Errors.INVALID_PRODUCER_EPOCH, `epoch ${input.producerEpoch} < producer epoch ${storedEpoch}`);
      if (
        flags.transactionPartitionVerification &&
        (verification === null || verification.guard !== input.verificationGuard)
      ) {
        return err(
          Errors.INVALID_TXN_STATE,
          "Record was not part of an ongoing transaction (verification guard mismatch)",
        );
      }
    }
    if (input.producerEpoch < storedEpoch)
      return err(Errors.INVALID_PRODUCER_EPOCH, `epoch ${input.producerEpoch} < producer epoch ${storedEpoch}`);
    const seqProblem = this.sequenceProblem(existing, input, verification);
    if (seqProblem) return err(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, seqProblem);
    if (!input.isTransactional && existing?.currentTxnFirstOffset != null) {
      return err(Errors.INVALID_TXN_STATE, "non-transactional batch while a transaction is open");
    }
    if (this.batches.length >= MAX_LOG_BATCHES)
      throw new BoundExceeded(`batches in the log of ${this.partition}`, MAX_LOG_BATCHES);

    const e = this.entry(input.producerId);
    const batch: LogBatch = {
      baseOffset: this.logEndOffset,
      lastOffset: this.logEndOffset + input.values.length - 1,
      producerId: input.producerId,
      producerEpoch: input.producerEpoch,
      baseSequence: input.baseSequence,
      isTransactional: input.isTransactional,
      control: null,
      values: input.values,
      ghostTxn: input.ghostTxn,
    };
    this.batches.push(batch);
    this.logEndOffset = batch.lastOffset + 1;
    e.setEpoch(input.producerEpoch);
    e.addBatch({ firstSeq: input.baseSequence, lastSeq, firstOffset: batch.baseOffset, lastOffset: batch.lastOffset });
    if (input.isTransactional && e.currentTxnFirstOffset === null) {
      e.currentTxnFirstOffset = batch.baseOffset;
      this.ongoingTxns.set(batch.baseOffset, input.producerId);
    }
    if (input.isTransactional) this.verificationStates.delete(input.producerId);
    return { kind: "appended", batch };
  }

  private sequenceProblem(
    existing: ProducerStateEntry | undefined,
    input: DataAppendInput,
    verification: VerificationStateEntry | null,
  ): string | null {
    if (!this.flags().produceSequenceCheck) return null;
    const storedEpoch = existing ? existing.producerEpoch : NO_PRODUCER_EPOCH;
    const hasBatches = !!existing && existing.batchMetadata.length > 0;
    const first = input.baseSequence;
    if (verification?.supportsEpochBump && !hasBatches && first !== 0 && input.producerEpoch !== storedEpoch) {
      return `first sequence ${first} of a new epoch must be 0 (TV2 verification)`;
    }
    if (storedEpoch === NO_PRODUCER_EPOCH) return null;
    if (input.producerEpoch !== storedEpoch)
      return first === 0 ? null : `new epoch ${input.producerEpoch} must start at sequence 0, got ${first}`;
    const last = existing?.lastSeq() ?? -1;
    if (last === -1) return first === 0 ? null : `epoch was bumped by a marker: expected sequence 0, got ${first}`;
    const expected = last === 0x7fffffff ? 0 : last + 1;
    return first === expected ? null : `expected sequence ${expected}, got ${first}`;
  }

  /** ProducerAppendInfo.appendEndTxnMarker with the KIP-1228 epoch rule, in Kafka's check order. */
  appendMarker(input: MarkerInput): MarkerAppendResult {
    const flags = this.flags();
    const e = this.producers.get(input.producerId);
    const storedEpoch = e ? e.producerEpoch : NO_PRODUCER_EPOCH;
    const storedCe = e ? e.coordinatorEpoch : -1;
    const openTxn = !!e && e.currentTxnFirstOffset !== null;
    const { rule, valid } = judgeMarkerEpoch(
      flags,
      input.transactionVersion,
      input.producerEpoch,
      storedEpoch,
      openTxn,
    );
    const fail = (errorCode: number, reason: string): MarkerAppendResult => ({
      kind: "error",
      errorCode,
      rule,
      storedEpochBefore: storedEpoch,
      storedCoordinatorEpochBefore: storedCe,
      openTxnBefore: openTxn,
      reason,
    });
    if (!valid)
      return fail(
        Errors.INVALID_PRODUCER_EPOCH,
        `marker epoch ${input.producerEpoch} vs producer epoch ${storedEpoch} under ${describeRule(rule)}`,
      );
    if (flags.coordinatorEpochCheck && storedCe > input.coordinatorEpoch) {
      return fail(
        Errors.TRANSACTION_COORDINATOR_FENCED,
        `coordinator epoch ${input.coordinatorEpoch} < stored ${storedCe}`,
      );
    }
    if (this.batches.length >= MAX_LOG_BATCHES)
      throw new BoundExceeded(`batches in the log of ${this.partition}`, MAX_LOG_BATCHES);
    const entry = this.entry(input.producerId);
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
    this.batches.push(batch);
    this.logEndOffset = offset + 1;
    let completed: CompletedTxn | null = null;
    if (entry.currentTxnFirstOffset !== null) {
      completed = {
        producerId: input.producerId,
        firstOffset: entry.currentTxnFirstOffset,
        lastOffset: offset,
        isAborted: input.result === "ABORT",
      };
      this.completeTxn(completed);
    }
    entry.setEpoch(input.producerEpoch);
    entry.coordinatorEpoch = input.coordinatorEpoch;
    entry.currentTxnFirstOffset = null;
    const v = this.verificationStates.get(input.producerId);
    const keepVerification =
      !!v && input.transactionVersion >= 2 && v.supportsEpochBump && v.epoch === input.producerEpoch;
    if (v && !keepVerification) this.verificationStates.delete(input.producerId);
    return {
      kind: "appended",
      batch,
      completed,
      rule,
      storedEpochBefore: storedEpoch,
      storedCoordinatorEpochBefore: storedCe,
      openTxnBefore: openTxn,
    };
  }

  private completeTxn(txn: CompletedTxn): void {
    this.ongoingTxns.delete(txn.firstOffset);
    if (txn.isAborted) {
      let lastStableOffset = txn.lastOffset + 1;
      for (const [first, pid] of this.ongoingTxns) {
        if (pid !== txn.producerId) {
          lastStableOffset = first;
          break;
        }
      }
      this.abortedTxns.push({
        producerId: txn.producerId,
        firstOffset: txn.firstOffset,
        lastOffset: txn.lastOffset,
        lastStableOffset,
      });
    }
    this.unreplicatedTxns.push(txn);
  }

  /** Replication caught up to `hw`: completed transactions below it leave the unstable set. */
  onHighWatermarkUpdated(hw: number): void {
    if (hw <= this.highWatermark) return;
    this.highWatermark = Math.min(hw, this.logEndOffset);
    if (this.flags().advanceLsoOnCompletion) {
      this.unreplicatedTxns = this.unreplicatedTxns.filter((t) => t.lastOffset >= this.highWatermark);
    }
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

  lastStableOffset(): number {
    const unstable = this.firstUnstableOffset();
    return unstable !== null && unstable < this.highWatermark ? unstable : this.highWatermark;
  }

  openTransactionCount(): number {
    return this.ongoingTxns.size;
  }

  /** A fetch: batches from fetchOffset below the isolation's upper bound, plus aborted ranges. */
  read(
    fetchOffset: number,
    isolation: Isolation,
    maxBatches: number,
    ignoreLso = false,
    lastStableOffset = this.lastStableOffset(),
  ): { batches: LogBatch[]; abortedTransactions: AbortedTxn[]; upperBound: number } {
    const upperBound = isolation === "READ_COMMITTED" && !ignoreLso ? lastStableOffset : this.highWatermark;
    const batches: LogBatch[] = [];
    for (let i = this.firstBatchEndingAtOrAfter(fetchOffset); i < this.batches.length; i++) {
      const b = this.batches[i] as LogBatch;
      if (b.baseOffset >= upperBound || batches.length >= maxBatches) break;
      batches.push(b);
    }
    const abortedTransactions: AbortedTxn[] = [];
    if (isolation === "READ_COMMITTED") {
      for (const a of this.abortedTxns) {
        if (a.lastOffset >= fetchOffset && a.firstOffset < upperBound) abortedTransactions.push(a);
      }
    }
    return { batches, abortedTransactions, upperBound };
  }

  /** Index of the first batch whose last offset is >= offset (batches are in offset order). */
  private firstBatchEndingAtOrAfter(offset: number): number {
    let low = 0;
    let high = this.batches.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.batches[mid] as LogBatch).lastOffset < offset) low = mid + 1;
      else high = mid;
    }
    return low;
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

function err(errorCode: number, reason: string): DataAppendResult {
  return { kind: "error", errorCode, reason };
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
  const tolerated = flags.equalEpochNoOpenTxnTolerance && (!openTxn || flags.equalEpochToleranceIgnoresOpenTxn);
  if (markerEpoch === storedEpoch && tolerated) return { rule: "kafka-19999-equal-epoch", valid: true };
  return { rule: "strict-tv2", valid: false };
}
