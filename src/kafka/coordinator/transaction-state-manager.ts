import { Errors, IllegalStateException } from "../common/errors.js";
import type { TransactionLog } from "./transaction-log.js";
import { TransactionMetadata, type TxnTransitMetadata } from "./transaction-metadata.js";

export type StateLookup =
  | { kind: "error"; errorCode: number }
  | { kind: "ok"; coordinatorEpoch: number; metadata: TransactionMetadata | null };

/**
 * TransactionStateManager: ownership of __transaction_state (coordinator epoch, loading), the
 * metadata cache, and durable writes of transitions.
 */
export class TransactionStateManager {
  private owned: { coordinatorEpoch: number; loading: boolean } | null = null;
  private readonly cache = new Map<string, TransactionMetadata>();

  constructor(
    private readonly self: string,
    private readonly log: TransactionLog,
  ) {}

  get coordinatorEpoch(): number | null {
    return this.owned?.coordinatorEpoch ?? null;
  }

  isServing(coordinatorEpoch: number): boolean {
    return !!this.owned && !this.owned.loading && this.owned.coordinatorEpoch === coordinatorEpoch;
  }

  /** getTransactionState: NOT_COORDINATOR if not owned, COORDINATOR_LOAD_IN_PROGRESS while loading. */
  lookup(transactionalId: string): StateLookup {
    if (!this.owned) return { kind: "error", errorCode: Errors.NOT_COORDINATOR };
    if (this.owned.loading) return { kind: "error", errorCode: Errors.COORDINATOR_LOAD_IN_PROGRESS };
    return {
      kind: "ok",
      coordinatorEpoch: this.owned.coordinatorEpoch,
      metadata: this.cache.get(transactionalId) ?? null,
    };
  }

  putIfAbsent(metadata: TransactionMetadata): TransactionMetadata {
    const existing = this.cache.get(metadata.transactionalId);
    if (existing) return existing;
    this.cache.set(metadata.transactionalId, metadata);
    return metadata;
  }

  /** Every cached transaction, in insertion order (deterministic). */
  all(): IterableIterator<TransactionMetadata> {
    return this.cache.values();
  }

  /** Begin owning the partition at a new epoch: the cache is rebuilt by `completeLoading`. */
  startLoading(coordinatorEpoch: number): void {
    this.owned = { coordinatorEpoch, loading: true };
    this.cache.clear();
  }

  /** Replay the log: the last record per key wins; lastProducerEpoch is not persisted. */
  completeLoading(coordinatorEpoch: number): TransactionMetadata[] {
    if (!this.owned || this.owned.coordinatorEpoch !== coordinatorEpoch) return [];
    for (const [transactionalId, record] of this.log.load()) {
      this.cache.set(transactionalId, TransactionMetadata.fromRecord(transactionalId, record));
    }
    this.owned.loading = false;
    return [...this.cache.values()];
  }

  resign(coordinatorEpoch: number): boolean {
    if (!this.owned || this.owned.coordinatorEpoch !== coordinatorEpoch) return false;
    this.owned = null;
    this.cache.clear();
    return true;
  }

  /**
   * appendTransactionToLog: write `transit` durably, then complete the transition if this node is
   * still the coordinator at the same epoch. On failure the pending state is cleared unless
   * `keepPendingOn(error)` says the caller will retry.
   */
  appendTransactionToLog(
    metadata: TransactionMetadata,
    coordinatorEpoch: number,
    transit: TxnTransitMetadata,
    onDone: (errorCode: number) => void,
    keepPendingOn: (errorCode: number) => boolean = () => false,
  ): void {
    this.log.append(this.self, coordinatorEpoch, metadata.transactionalId, transit, (errorCode) => {
      let result = errorCode;
      const stillOwner =
        this.owned?.coordinatorEpoch === coordinatorEpoch && this.cache.get(metadata.transactionalId) === metadata;
      if (result === Errors.NONE && !stillOwner) result = Errors.NOT_COORDINATOR;
      if (result === Errors.NONE) {
        metadata.completeTransitionTo(transit);
      } else if (!keepPendingOn(result)) {
        if (metadata.pendingState !== transit.txnState && stillOwner) {
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
