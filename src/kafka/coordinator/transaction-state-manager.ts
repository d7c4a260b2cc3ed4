import type { LogBatch, TxnLogRecord } from "../broker/log-batch.js";
import { Errors, IllegalStateException } from "../common/errors.js";
import { TransactionMetadata, type TxnTransitMetadata } from "./transaction-metadata.js";
import { transactionStatePartitionFor } from "./transaction-partitioning.js";

export type StateLookup =
  | { kind: "error"; errorCode: number }
  | { kind: "ok"; partition: number; coordinatorEpoch: number; metadata: TransactionMetadata | null };

/**
 * The coordinator's access to its broker's __transaction_state replicas: an acks=all append to a
 * partition it leads (answering with Kafka's append error), and the local log a load reads.
 */
export interface TransactionLogAccess {
  append(
    partition: number,
    transactionalId: string,
    record: TxnTransitMetadata,
    timeoutMs: number,
    onDone: (errorCode: number) => void,
  ): void;
  /** The partition's local log, to its end (a load reads to the log end, not the high watermark). */
  read(partition: number): readonly LogBatch[];
}

/** One pass of removeExpiredTransactionalIds. */
export interface TransactionalIdExpiration {
  readonly nowMs: number;
  /** transactional.id.expiration.ms */
  readonly expirationMs: number;
  /** The tombstone write's timeout. */
  readonly timeoutMs: number;
  /** KAFKA-7519's bug switch: a failed tombstone write leaves the id pending Dead. */
  readonly failureLeavesPending: boolean;
}

/** A tombstone written for an expired id: which entry, at which coordinator epoch. */
interface Tombstone {
  readonly partition: number;
  readonly coordinatorEpoch: number;
  readonly metadata: TransactionMetadata;
  readonly transit: TxnTransitMetadata;
}

/**
 * TransactionStateManager: which __transaction_state partitions this broker's coordinator owns (at
 * which coordinator epoch, loading or not), the metadata cache of their transactional.ids, and
 * durable writes of transitions (appendTransactionToLog, with updateCacheCallback's error mapping).
 */
export class TransactionStateManager {
  private readonly owned = new Map<number, { coordinatorEpoch: number; loading: boolean }>();
  private readonly cache = new Map<string, TransactionMetadata>();
  /** Ids removed by expiration (a tombstone written or loaded), until they are initialised again. */
  private readonly expired = new Set<string>();

  constructor(
    readonly partitionCount: number,
    private readonly log: TransactionLogAccess,
  ) {}

  partitionFor(transactionalId: string): number {
    return transactionStatePartitionFor(transactionalId, this.partitionCount);
  }

  coordinatorEpochOf(partition: number): number | null {
    return this.owned.get(partition)?.coordinatorEpoch ?? null;
  }

  isServing(partition: number, coordinatorEpoch: number): boolean {
    const o = this.owned.get(partition);
    return !!o && !o.loading && o.coordinatorEpoch === coordinatorEpoch;
  }

  /** Partitions loaded and served, with their coordinator epochs. */
  servedPartitions(): { partition: number; coordinatorEpoch: number }[] {
    const out: { partition: number; coordinatorEpoch: number }[] = [];
    for (const [partition, o] of this.owned)
      if (!o.loading) out.push({ partition, coordinatorEpoch: o.coordinatorEpoch });
    return out;
  }

  /** getTransactionState: NOT_COORDINATOR if the id's partition is not owned, COORDINATOR_LOAD_IN_PROGRESS while loading. */
  lookup(transactionalId: string): StateLookup {
    const partition = this.partitionFor(transactionalId);
    const o = this.owned.get(partition);
    if (!o) return { kind: "error", errorCode: Errors.NOT_COORDINATOR };
    if (o.loading) return { kind: "error", errorCode: Errors.COORDINATOR_LOAD_IN_PROGRESS };
    return {
      kind: "ok",
      partition,
      coordinatorEpoch: o.coordinatorEpoch,
      metadata: this.cache.get(transactionalId) ?? null,
    };
  }

  /** The id's partition is served here and the id was removed by expiration: it is served, with no state. */
  servesExpired(transactionalId: string): boolean {
    return this.expired.has(transactionalId) && this.lookup(transactionalId).kind === "ok";
  }

  putIfAbsent(metadata: TransactionMetadata): TransactionMetadata {
    const existing = this.cache.get(metadata.transactionalId);
    if (existing) return existing;
    this.expired.delete(metadata.transactionalId);
    this.cache.set(metadata.transactionalId, metadata);
    return metadata;
  }

  /** Every cached transaction, in insertion order (deterministic). */
  all(): IterableIterator<TransactionMetadata> {
    return this.cache.values();
  }

  /** onElection: own the partition at a new epoch, loading; its ids leave the cache until the load completes. */
  startLoading(partition: number, coordinatorEpoch: number): void {
    this.owned.set(partition, { coordinatorEpoch, loading: true });
    this.dropCachedIdsOf(partition);
  }

  /**
   * loadTransactionMetadata: replay the local log to its end (the last record per id wins) and
   * install the entries, if the partition is still loading at this epoch. Returns them.
   */
  completeLoading(
    partition: number,
    coordinatorEpoch: number,
    dropPidLinkFields = false,
  ): { metadata: TransactionMetadata; record: TxnTransitMetadata }[] {
    const o = this.owned.get(partition);
    if (!o || o.coordinatorEpoch !== coordinatorEpoch || !o.loading) return [];
    const latest = new Map<string, TxnTransitMetadata>();
    for (const batch of this.log.read(partition)) {
      if (!batch.txnRecord) continue;
      const { transactionalId } = batch.txnRecord;
      const value = readTxnRecordValue(batch.txnRecord);
      // A tombstone (an expired id, written as its Dead transit) removes the id: loadTransactionMetadata.
      if (value.txnState === "Dead") latest.delete(transactionalId);
      else latest.set(transactionalId, value);
      if (value.txnState === "Dead") this.expired.add(transactionalId);
      else this.expired.delete(transactionalId);
    }
    const loaded: { metadata: TransactionMetadata; record: TxnTransitMetadata }[] = [];
    for (const [transactionalId, record] of latest) {
      const metadata = TransactionMetadata.fromRecord(transactionalId, record, dropPidLinkFields);
      this.cache.set(transactionalId, metadata);
      loaded.push({ metadata, record });
    }
    o.loading = false;
    return loaded;
  }

  /**
   * onResignation (removeTransactionsForTxnTopicPartition): another broker leads the partition at
   * `leaderEpoch`; ownership at an older epoch ends and its ids leave the cache. True if it did.
   */
  resign(partition: number, leaderEpoch: number): boolean {
    const o = this.owned.get(partition);
    if (!o || o.coordinatorEpoch >= leaderEpoch) return false;
    this.owned.delete(partition);
    this.dropCachedIdsOf(partition);
    return true;
  }

  /** The broker stopped: nothing is owned any more. */
  resignAll(): void {
    this.owned.clear();
    this.cache.clear();
  }

  private dropCachedIdsOf(partition: number): void {
    for (const id of [...this.cache.keys()]) if (this.partitionFor(id) === partition) this.cache.delete(id);
  }

  /**
   * removeExpiredTransactionalIds: in every partition served, each id with nothing pending, in Empty,
   * CompleteCommit or CompleteAbort, not updated for `expirationMs`, moves to pending Dead and its
   * tombstone is written (acks=all, one write per id here, a batch per partition in Kafka). Returns
   * the ids it expires.
   */
  removeExpiredTransactionalIds(
    expiration: TransactionalIdExpiration,
    onDone: (transactionalId: string, errorCode: number) => void,
  ): string[] {
    const { nowMs, expirationMs, timeoutMs } = expiration;
    const expired: string[] = [];
    for (const { partition, coordinatorEpoch } of this.servedPartitions()) {
      for (const metadata of [...this.cache.values()]) {
        if (this.partitionFor(metadata.transactionalId) !== partition) continue;
        if (metadata.pendingState !== null || !shouldExpire(metadata, nowMs, expirationMs)) continue;
        const transit = metadata.prepareDead();
        expired.push(metadata.transactionalId);
        this.log.append(partition, metadata.transactionalId, transit, timeoutMs, (errorCode) => {
          this.removeFromCache({ partition, coordinatorEpoch, metadata, transit }, errorCode, expiration);
          onDone(metadata.transactionalId, errorCode);
        });
      }
    }
    return expired;
  }

  /**
   * writeTombstonesForExpiredTransactionalIds's removeFromCacheCallback: the id leaves the cache if the
   * tombstone was written at the same coordinator epoch and the id is still pending Dead at the
   * expired epoch; otherwise its pending state is cleared (KAFKA-7519: the bug switch leaves it set).
   */
  private removeFromCache(
    tombstone: Tombstone,
    errorCode: number,
    options: Pick<TransactionalIdExpiration, "failureLeavesPending">,
  ): void {
    const { partition, coordinatorEpoch, metadata, transit } = tombstone;
    const owned = this.owned.get(partition);
    // Simplified: an entry a reload replaced meanwhile is left alone (Kafka looks the id up again).
    if (!owned || this.cache.get(metadata.transactionalId) !== metadata) return;
    const removable =
      owned.coordinatorEpoch === coordinatorEpoch &&
      metadata.pendingState === "Dead" &&
      metadata.producerEpoch === transit.producerEpoch &&
      errorCode === Errors.NONE;
    if (removable) {
      this.cache.delete(metadata.transactionalId);
      this.expired.add(metadata.transactionalId);
    } else if (!options.failureLeavesPending) metadata.pendingState = null;
  }

  /**
   * appendTransactionToLog: write `transit` durably (acks=all, the transaction's own timeout), then
   * complete the transition if this coordinator still owns the id at the same epoch. Kafka's errors
   * are mapped as updateCacheCallback does. On failure the pending state is cleared unless
   * `keepPendingOn(error)` says the caller will retry.
   */
  appendTransactionToLog(
    metadata: TransactionMetadata,
    coordinatorEpoch: number,
    transit: TxnTransitMetadata,
    onDone: (errorCode: number) => void,
    keepPendingOn: (errorCode: number) => boolean = () => false,
  ): void {
    const partition = this.partitionFor(metadata.transactionalId);
    // The cached coordinator epoch must still be the caller's: else NOT_COORDINATOR, with no write.
    if (this.coordinatorEpochOf(partition) !== coordinatorEpoch) return onDone(Errors.NOT_COORDINATOR);
    this.log.append(partition, metadata.transactionalId, transit, metadata.txnTimeoutMs, (appendError) => {
      let result = coordinatorErrorFor(appendError);
      const stillOwner =
        this.owned.get(partition)?.coordinatorEpoch === coordinatorEpoch &&
        this.cache.get(metadata.transactionalId) === metadata;
      if (result === Errors.NONE && !stillOwner) result = Errors.NOT_COORDINATOR;
      if (result === Errors.NONE) {
        metadata.completeTransitionTo(transit);
      } else if (!stillOwner) {
        // The epoch moved on: nothing of the old owner's entry is touched.
      } else if (!keepPendingOn(result)) {
        if (metadata.pendingState !== transit.txnState) {
          throw new IllegalStateException(
            `${metadata.transactionalId}: failed write of ${transit.txnState} but pending is ${metadata.pendingState}`,
          );
        }
        metadata.abortPendingTransition();
      }
      onDone(result);
    });
  }
}

/** shouldExpire: a state that allows expiration (Empty, CompleteCommit, CompleteAbort), idle for `expirationMs`. */
function shouldExpire(metadata: TransactionMetadata, nowMs: number, expirationMs: number): boolean {
  const allowed =
    metadata.state === "Empty" || metadata.state === "CompleteCommit" || metadata.state === "CompleteAbort";
  return allowed && metadata.txnLastUpdateTimestamp <= nowMs - expirationMs;
}

/** TransactionStateManager.appendTransactionToLog's updateCacheCallback: a log append error as the coordinator reports it. */
export function coordinatorErrorFor(appendError: number): number {
  switch (appendError) {
    case Errors.NONE:
      return Errors.NONE;
    case Errors.UNKNOWN_TOPIC_OR_PARTITION:
    case Errors.NOT_ENOUGH_REPLICAS:
    case Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case Errors.REQUEST_TIMED_OUT:
      return Errors.COORDINATOR_NOT_AVAILABLE;
    case Errors.NOT_LEADER_OR_FOLLOWER:
    case Errors.KAFKA_STORAGE_ERROR:
      return Errors.NOT_COORDINATOR;
    default:
      return Errors.UNKNOWN_SERVER_ERROR;
  }
}

/**
 * TransactionLog.readTxnRecordValue: the transit a __transaction_state record holds. The log keeps
 * what was written, and only transits are (server/transaction-state-log.ts, the cluster's seeding).
 */
function readTxnRecordValue(record: TxnLogRecord): TxnTransitMetadata {
  const value = record.value as TxnTransitMetadata | null;
  if (typeof value !== "object" || value === null || typeof value.txnState !== "string")
    throw new IllegalStateException(`__transaction_state record of ${record.transactionalId} holds no transit`);
  return value;
}
