import { Errors } from "../common/errors.js";
import {
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  type PartitionKey,
  type TransactionResult,
  type TransactionVersion,
} from "../common/types.js";
import type { ApiVersions } from "./api-versions.js";
import type { ProducerBehaviour } from "./producer-behaviour.js";
import type { ProducerBatch } from "./record-accumulator.js";
import { TxnPartitionMap } from "./txn-partition-map.js";
import { type TransactionState, VALID_PREVIOUS } from "./txn-manager-state.js";
import {
  addOffsetsError,
  FATAL_SEND_ERRORS,
  RETRIABLE,
  UNKNOWN_PRODUCER_ID,
  addPartitionsError,
  endTxnError,
  findCoordinatorError,
  initProducerIdError,
  type TxnErrorVerdict,
  txnOffsetCommitError,
} from "./txn-response-errors.js";
import {
  type ConsumerGroupMetadata,
  EPOCH_BUMP_PRIORITY,
  PRIORITY,
  type TxnOffsets,
  type TxnRequest,
  type TxnResponseAction,
} from "./txn-request.js";

/** What the application hears from the transaction manager. */
export interface TransactionManagerListener {
  /** A fatal error: the producer can only be closed. `api` is the request that brought it. */
  fatal(api: string, errorCode: number, reason: string): void;
  /** The transaction can only be aborted now. */
  abortable(reason: string): void;
  /** The client moved to another transaction version (finalized features changed). */
  transactionVersion?(version: TransactionVersion): void;
}

/**
 * TransactionManager, reduced to what the transaction protocol needs: the producer id and epoch,
 * the state machine with Kafka's valid transitions, sequence numbers per partition, which errors
 * are retried, abortable or fatal, and the queue of coordinator requests. It sends nothing itself:
 * the Sender asks it for the next request and hands it every answer.
 */
export class TransactionManager {
  state: TransactionState = "UNINITIALIZED";
  producerId = NO_PRODUCER_ID;
  producerEpoch = NO_PRODUCER_EPOCH;
  lastError: string | null = null;
  /** KIP-360 (TV0/1): after this abortable error the client bumps its epoch with InitProducerId once the abort is done. */
  epochBumpRequired = false;
  /** Something was added to the transaction: only then does ending it need an EndTxn. */
  transactionStarted = false;
  protected readonly partitions = new TxnPartitionMap();
  readonly partitionsInTransaction = new Set<PartitionKey>();
  private readonly newPartitionsInTransaction: PartitionKey[] = [];
  private readonly pendingPartitionsInTransaction = new Set<PartitionKey>();
  private readonly pending: { request: TxnRequest; priority: number; retryAtMs: number }[] = [];
  /** The waiting call of the application (TransactionalRequestResult): initTransactions, commit or abort. */
  private result: (() => void) | null = null;
  /**
   * The coordinator's answer that failed the abort under way (TxnRequestHandler.abortableError:
   * `result.fail(e)`, while the state stays ABORTING_TRANSACTION): Kafka's abortTransaction throws
   * it; this model's application waits max.block.ms and closes the producer. Null: none.
   */
  abortFailure: { api: string; errorCode: number; reason: string } | null = null;

  /** isTransactionV2Enabled: a 4.0+ client (TV2 capable) follows the finalized transaction.version. */
  private tv2Enabled: boolean;
  /** latestFinalizedFeaturesEpoch: the ApiVersions answer this manager last read. */
  private latestFinalizedFeaturesEpoch = -1;
  /** The EndTxn under way was built as v5 (TV2): only then does its answer carry an id and epoch. */
  private endTxnSentAsTv2 = false;

  constructor(
    readonly transactionalId: string,
    /** The client's release: 2 for a 4.0+ client, which uses TV2 whenever the cluster finalizes it. */
    private readonly clientVersion: TransactionVersion,
    protected readonly behaviour: ProducerBehaviour,
    protected readonly listener: TransactionManagerListener,
    private readonly apiVersions: ApiVersions | null = null,
  ) {
    // Off until initTransactions completes and KafkaProducer reads the finalized features
    // (maybeUpdateTransactionV2Enabled(true)): FindCoordinator and InitProducerId go out without TV2.
    this.tv2Enabled = false;
  }

  get isTransactionV2Enabled(): boolean {
    return this.tv2Enabled;
  }

  /** The transaction version requests are built for now (Produce v12 and EndTxn v5 for TV2). */
  get transactionVersion(): TransactionVersion {
    if (this.tv2Enabled) return 2;
    return this.clientVersion >= 2 ? 1 : this.clientVersion;
  }

  /**
   * maybeUpdateTransactionV2Enabled: read the newest finalized features ApiVersions has. Called when
   * initTransactions completes (`onInitialization`) and when a transaction starts completing, after
   * its EndTxn is built: a client moving up to TV2 there bumps its epoch before its first TV2
   * transaction (clientSideEpochBumpRequired), so no partition of the TV1 transaction counts as
   * added to the TV2 one; moving down needs no bump.
   */
  maybeUpdateTransactionV2Enabled(when: { onInitialization: boolean }): void {
    const onInitialization = when.onInitialization;
    const known = this.apiVersions;
    if (known === null || this.clientVersion < 2) return;
    if (this.latestFinalizedFeaturesEpoch >= known.maxFinalizedFeaturesEpoch) return;
    this.latestFinalizedFeaturesEpoch = known.maxFinalizedFeaturesEpoch;
    const was = this.tv2Enabled;
    this.tv2Enabled = (known.finalizedTransactionVersion ?? 0) >= 2;
    // At initialization the client learns its first version (isTransactionV2Enabled starts off): no move.
    if (!onInitialization && was !== this.tv2Enabled) this.listener.transactionVersion?.(this.transactionVersion);
    if (!onInitialization && !was && this.tv2Enabled) this.epochBumpRequired = true;
  }

  /** needToTriggerEpochBumpFromClient: TV2 bumps the epoch at every EndTxn, so only TV0/1 clients ask for it. */
  private get needToTriggerEpochBumpFromClient(): boolean {
    return !this.isTransactionV2Enabled;
  }

  /** isTransactional: a transactional.id was configured (the idempotent producer's manager says no). */
  get isTransactional(): boolean {
    return true;
  }

  get isCompleting(): boolean {
    return this.state === "COMMITTING_TRANSACTION" || this.state === "ABORTING_TRANSACTION";
  }

  get hasAbortableError(): boolean {
    return this.state === "ABORTABLE_ERROR";
  }

  get hasFatalError(): boolean {
    return this.state === "FATAL_ERROR";
  }

  protected transitionTo(target: TransactionState, error: string | null = null): void {
    const valid = VALID_PREVIOUS[target];
    if (valid !== "any" && !valid.includes(this.state))
      throw new Error(`${this.transactionalId}: invalid transition ${this.state} -> ${target}`);
    if (error !== null) this.lastError = error;
    this.state = target;
  }

  // ------------------------------------------------------------------ the application's calls

  /** initTransactions (and the re-initialisation of a producer the application re-creates after a fatal error). */
  initializeTransactions(then: () => void): void {
    this.state = "UNINITIALIZED";
    this.lastError = null;
    this.producerId = NO_PRODUCER_ID;
    this.producerEpoch = NO_PRODUCER_EPOCH;
    this.resetSequenceNumbers();
    this.pending.length = 0;
    this.transitionTo("INITIALIZING");
    this.result = then;
    this.enqueue({ api: "InitProducerId", bump: false }, PRIORITY.InitProducerId);
  }

  beginTransaction(): void {
    this.transitionTo("IN_TRANSACTION");
  }

  /**
   * maybeAddPartition, from send(): TV0/1 adds the partition with AddPartitionsToTxn before its
   * first batch; TV2 adds it implicitly with the first produce, so it counts as added at once.
   */
  maybeAddPartition(partition: PartitionKey): void {
    if (this.partitionsInTransaction.has(partition) || this.pendingPartitionsInTransaction.has(partition)) return;
    if (this.newPartitionsInTransaction.includes(partition)) return;
    if (this.isTransactionV2Enabled) {
      this.partitionsInTransaction.add(partition);
      this.transactionStarted = true;
      return;
    }
    this.newPartitionsInTransaction.push(partition);
  }

  /**
   * sendOffsetsToTransaction: TV0/1 adds the group's offsets partition with AddOffsetsToTxn, whose
   * answer queues the TxnOffsetCommit; TV2 (KIP-890) skips AddOffsetsToTxn (the group coordinator's
   * verification adds the partition) and the transaction counts as started. False outside a transaction.
   */
  sendOffsetsToTransaction(offsets: TxnOffsets, group: ConsumerGroupMetadata): boolean {
    if (this.state !== "IN_TRANSACTION") return false;
    if (this.isTransactionV2Enabled) {
      this.transactionStarted = true;
      this.enqueue({ api: "TxnOffsetCommit", offsets, group }, PRIORITY.TxnOffsetCommit);
    } else {
      this.enqueue({ api: "AddOffsetsToTxn", offsets, group }, PRIORITY.AddOffsetsToTxn);
    }
    return true;
  }

  /** beginCommit: from ABORTABLE_ERROR this throws in Kafka; here it returns false and the application aborts. */
  beginCommit(then: () => void): boolean {
    if (this.state !== "IN_TRANSACTION") return false;
    this.transitionTo("COMMITTING_TRANSACTION");
    this.beginCompletingTransaction("COMMIT", then);
    return true;
  }

  beginAbort(then: () => void): void {
    this.transitionTo("ABORTING_TRANSACTION");
    this.abortFailure = null;
    // Nothing new is added to a transaction being aborted; a queued commit or add was failed by the
    // error that led here (maybeTerminateRequestWithError), so only the abort's requests remain.
    this.newPartitionsInTransaction.length = 0;
    this.dropQueued((r) => r.api !== "InitProducerId");
    this.beginCompletingTransaction("ABORT", then);
  }

  /**
   * EndTxn, and for a TV0/1 client that must bump its epoch, InitProducerId with the current id and
   * epoch after it (the application's abortTransaction completes when the bump is done).
   */
  private beginCompletingTransaction(result: TransactionResult, then: () => void): void {
    const commit = result === "COMMIT";
    if (this.newPartitionsInTransaction.length > 0) this.enqueueAddPartitions();
    this.result = then;
    // The EndTxn ends the transaction in the version it began with; the next one may differ.
    this.endTxnSentAsTv2 = this.tv2Enabled;
    this.enqueue({ api: "EndTxn", commit, transactionVersion: this.transactionVersion }, PRIORITY.EndTxn);
    this.maybeUpdateTransactionV2Enabled({ onInitialization: false });
    if (this.epochBumpRequired && !this.pending.some((p) => p.request.api === "InitProducerId"))
      this.enqueue({ api: "InitProducerId", bump: true }, EPOCH_BUMP_PRIORITY);
  }

  private completeTransaction(): void {
    // An error during the abort itself can ask for the bump after it was queued (or not): queue it once.
    if (this.epochBumpRequired && !this.pending.some((p) => p.request.api === "InitProducerId"))
      this.enqueue({ api: "InitProducerId", bump: true }, EPOCH_BUMP_PRIORITY);
    this.transitionTo(this.epochBumpRequired ? "INITIALIZING" : "READY");
    this.lastError = null;
    this.abortFailure = null;
    this.epochBumpRequired = false;
    this.transactionStarted = false;
    this.newPartitionsInTransaction.length = 0;
    this.pendingPartitionsInTransaction.clear();
    this.partitionsInTransaction.clear();
    if (this.state === "READY") this.finishResult();
  }

  private finishResult(): void {
    const then = this.result;
    this.result = null;
    then?.();
  }

  // ------------------------------------------------------------------ errors

  /** transitionToAbortableError: the transaction can only be aborted now (nothing changes while an abort is under way). */
  transitionToAbortableError(reason: string): void {
    if (this.state === "ABORTING_TRANSACTION" || this.hasFatalError) return;
    this.transitionTo("ABORTABLE_ERROR", reason);
    this.listener.abortable(reason);
  }

  transitionToFatalError(api: string, errorCode: number, reason: string): void {
    if (this.hasFatalError) return;
    this.transitionTo("FATAL_ERROR", reason);
    this.pending.length = 0;
    this.result = null;
    this.listener.fatal(api, errorCode, reason);
  }

  /**
   * maybeTransitionToErrorState: an error of a produce, or of send() itself. A missing
   * authorization, a fenced producer, an unsupported version and, since KAFKA-18019 (4.0), an
   * unknown producer id mapping are fatal; any other error is abortable, and a TV0/1 client then
   * bumps its epoch after the abort, unless the error came while the transaction was completing.
   */
  maybeTransitionToErrorState(api: string, errorCode: number, reason: string): void {
    const fatal =
      FATAL_SEND_ERRORS.has(errorCode) ||
      (errorCode === Errors.INVALID_PRODUCER_ID_MAPPING && this.invalidProducerIdMappingFatal);
    if (fatal) return this.transitionToFatalError(api, errorCode, reason);
    if (this.needToTriggerEpochBumpFromClient && !this.isCompleting) this.epochBumpRequired = true;
    this.transitionToAbortableError(reason);
  }

  /**
   * TxnRequestHandler.abortableError: the request's result fails and the state moves to
   * ABORTABLE_ERROR. It asks for no epoch bump: only abortableErrorIfPossible and
   * maybeTransitionToErrorState do. An EndTxn's failure during an abort fails the abort itself,
   * while the state stays ABORTING_TRANSACTION (abortFailure).
   */
  private abortableError(api: string, errorCode: number, reason: string): void {
    if (api === "EndTxn" && this.state === "ABORTING_TRANSACTION") this.abortFailure = { api, errorCode, reason };
    this.transitionToAbortableError(reason);
  }

  /**
   * abortableErrorIfPossible: recovering needs an epoch bump, which every modelled coordinator
   * (Kafka 2.5+) can do: a TV0/1 client asks for it (clientSideEpochBumpRequired), TV2's EndTxn bumps.
   */
  private abortableErrorIfPossible(api: string, errorCode: number, reason: string): void {
    if (this.needToTriggerEpochBumpFromClient) this.epochBumpRequired = true;
    this.abortableError(api, errorCode, reason);
  }

  /** INVALID_PRODUCER_ID_MAPPING from the coordinator: fatal since KAFKA-18019 (4.0), abortable before. */
  private get invalidProducerIdMappingFatal(): boolean {
    return this.behaviour.invalidProducerIdMappingFatal === true;
  }

  // ------------------------------------------------------------------ coordinator requests

  protected enqueue(request: TxnRequest, priority: number, retryAtMs = 0): void {
    if (this.pending.length >= 16) throw new Error(`${this.transactionalId}: coordinator request queue overflow`);
    let at = this.pending.length;
    while (at > 0 && (this.pending[at - 1] as { priority: number }).priority > priority) at--;
    this.pending.splice(at, 0, { request, priority, retryAtMs });
  }

  private dropQueued(which: (r: TxnRequest) => boolean): void {
    for (let i = this.pending.length - 1; i >= 0; i--) {
      const r = (this.pending[i] as { request: TxnRequest }).request;
      if (!which(r)) continue;
      this.pending.splice(i, 1);
      if (r.api === "AddPartitionsToTxn") for (const p of r.partitions) this.pendingPartitionsInTransaction.delete(p);
    }
  }

  private enqueueAddPartitions(): void {
    const partitions = this.newPartitionsInTransaction.splice(0);
    for (const p of partitions) this.pendingPartitionsInTransaction.add(p);
    this.enqueue({ api: "AddPartitionsToTxn", partitions }, PRIORITY.AddPartitionsToTxn);
  }

  /**
   * nextRequest: new partitions first become an AddPartitionsToTxn; EndTxn waits until every batch
   * is done; in an error state queued requests fail (an abort's EndTxn is sent from ABORTING, not
   * from an error state); a transaction that added nothing ends without EndTxn.
   */
  nextRequest(hasIncompleteBatches: boolean, nowMs: number): { request: TxnRequest; retryAtMs: number } | null {
    if (this.newPartitionsInTransaction.length > 0 && this.state === "IN_TRANSACTION") this.enqueueAddPartitions();
    const next = this.pending[0];
    if (!next) return null;
    if (next.request.api === "EndTxn" && hasIncompleteBatches) return null;
    if (this.hasAbortableError || this.hasFatalError) {
      this.pending.shift();
      if (next.request.api === "AddPartitionsToTxn")
        for (const p of next.request.partitions) this.pendingPartitionsInTransaction.delete(p);
      return this.nextRequest(hasIncompleteBatches, nowMs);
    }
    const endsEmpty = !this.transactionStarted && !(this.isTransactionV2Enabled && this.behaviour.tv2EndTxnForEmptyTxn);
    if (next.request.api === "EndTxn" && endsEmpty) {
      this.pending.shift();
      this.completeTransaction();
      return this.nextRequest(hasIncompleteBatches, nowMs);
    }
    if (next.retryAtMs > nowMs) return { request: next.request, retryAtMs: next.retryAtMs };
    this.pending.shift();
    return { request: next.request, retryAtMs: 0 };
  }

  /** Put a request back (TxnRequestHandler.reenqueue), to go after retry.backoff.ms. */
  retry(request: TxnRequest, retryAtMs: number): void {
    const priority = request.api === "InitProducerId" && request.bump ? EPOCH_BUMP_PRIORITY : PRIORITY[request.api];
    this.enqueue(request, priority, retryAtMs);
  }

  /**
   * TxnRequestHandler.onComplete, `response.wasDisconnected()`: the connection closed (or the
   * request timed out, which closes it) before an answer. Every request of a transactional producer
   * needs a coordinator, so it is looked up again and the request sent again. An error code in an
   * answer, NETWORK_EXCEPTION included, goes to the request's handler instead.
   */
  handleDisconnect(): TxnResponseAction {
    return "lookup-and-retry";
  }

  /** What a handler decided on an error in its answer (txn-response-errors.ts, in Kafka's order), done. */
  private onError(api: string, verdict: TxnErrorVerdict): void {
    const { errorCode, reason } = verdict;
    if (verdict.kind === "fatal") this.transitionToFatalError(api, errorCode, reason);
    else if (verdict.kind === "abortable-if-possible") this.abortableErrorIfPossible(api, errorCode, reason);
    else this.abortableError(api, errorCode, reason);
  }

  /** The transaction coordinator moved or is not there: look it up again (every handler but TxnOffsetCommit's). */
  private static coordinatorRetry(errorCode: number): TxnResponseAction | null {
    if (errorCode === Errors.NOT_COORDINATOR || errorCode === Errors.COORDINATOR_NOT_AVAILABLE)
      return "lookup-and-retry";
    if (RETRIABLE.has(errorCode)) return "retry";
    return null;
  }

  /** FindCoordinatorHandler.handleResponse (a lookup of `keyType`): a retriable error asks again. */
  handleFindCoordinatorResponse(keyType: "TRANSACTION" | "GROUP", errorCode: number): TxnResponseAction {
    if (errorCode === Errors.NONE) return "done";
    if (RETRIABLE.has(errorCode)) return "retry";
    this.onError("FindCoordinator", findCoordinatorError(keyType, errorCode));
    return "done";
  }

  /** InitProducerIdHandler.handleResponse: the new id and epoch, or the error's verdict. */
  handleInitProducerIdResponse(errorCode: number, producerId: number, producerEpoch: number): TxnResponseAction {
    if (errorCode === Errors.NONE) {
      this.producerId = producerId;
      this.producerEpoch = producerEpoch;
      this.resetSequenceNumbers();
      this.transitionTo("READY");
      this.lastError = null;
      this.finishResult();
      return "done";
    }
    const again = TransactionManager.coordinatorRetry(errorCode);
    if (again) return again;
    this.onError("InitProducerId", initProducerIdError(errorCode));
    return "done";
  }

  /** AddPartitionsToTxnHandler.handleResponse (the first error of the response decides). */
  handleAddPartitionsResponse(partitions: readonly PartitionKey[], errorCode: number): TxnResponseAction {
    if (errorCode === Errors.NONE) {
      for (const p of partitions) {
        this.pendingPartitionsInTransaction.delete(p);
        this.partitionsInTransaction.add(p);
      }
      this.transactionStarted = true;
      return "done";
    }
    const again = TransactionManager.coordinatorRetry(errorCode);
    if (again) return again;
    for (const p of partitions) this.pendingPartitionsInTransaction.delete(p);
    this.onError("AddPartitionsToTxn", addPartitionsError(errorCode, this.behaviour));
    return "done";
  }

  /** AddOffsetsToTxnHandler.handleResponse: on success the TxnOffsetCommit follows. */
  handleAddOffsetsResponse(
    request: Extract<TxnRequest, { api: "AddOffsetsToTxn" }>,
    errorCode: number,
  ): TxnResponseAction {
    if (errorCode === Errors.NONE) {
      this.transactionStarted = true;
      this.enqueue(
        { api: "TxnOffsetCommit", offsets: request.offsets, group: request.group },
        PRIORITY.TxnOffsetCommit,
      );
      return "done";
    }
    const again = TransactionManager.coordinatorRetry(errorCode);
    if (again) return again;
    this.onError("AddOffsetsToTxn", addOffsetsError(errorCode, this.behaviour));
    return "done";
  }

  /**
   * TxnOffsetCommitHandler.handleResponse, in its order: the group coordinator moved, is not there
   * or timed out -> look it up again; any other retriable error -> send again to the same one.
   */
  handleTxnOffsetCommitResponse(errorCode: number): TxnResponseAction {
    if (errorCode === Errors.NONE) return "done";
    if (
      errorCode === Errors.COORDINATOR_NOT_AVAILABLE ||
      errorCode === Errors.NOT_COORDINATOR ||
      errorCode === Errors.REQUEST_TIMED_OUT
    )
      return "lookup-and-retry";
    if (RETRIABLE.has(errorCode)) return "retry";
    this.onError("TxnOffsetCommit", txnOffsetCommitError(errorCode, this.behaviour));
    return "done";
  }

  /**
   * EndTxnHandler.handleResponse. A TV2 coordinator answers with the epoch it bumped to (KIP-890):
   * the client takes it and starts its sequences again at 0 for the next transaction.
   */
  handleEndTxnResponse(errorCode: number, producerId: number, producerEpoch: number): TxnResponseAction {
    if (errorCode === Errors.NONE) {
      // EndTxn before v5 (TV0/1) carries no producer id and epoch: nothing to take.
      if (this.endTxnSentAsTv2 && producerId !== NO_PRODUCER_ID && this.behaviour.adoptEndTxnEpoch) {
        this.producerId = producerId;
        this.producerEpoch = producerEpoch;
        this.resetSequenceNumbers();
      }
      this.completeTransaction();
      return "done";
    }
    const again = TransactionManager.coordinatorRetry(errorCode);
    if (again) return again;
    const isAbort = this.state === "ABORTING_TRANSACTION";
    this.onError("EndTxn", endTxnError(errorCode, { isAbort, behaviour: this.behaviour }));
    return "done";
  }

  // ------------------------------------------------------------------ sequences (TxnPartitionMap)

  /** resetSequenceNumbers: a new producer id or epoch starts every partition at sequence 0. */
  private resetSequenceNumbers(): void {
    this.partitions.reset();
  }

  /** isSendToPartitionAllowed: TV0/1 only after AddPartitionsToTxn added the partition. */
  isSendToPartitionAllowed(partition: PartitionKey): boolean {
    if (this.hasFatalError) return false;
    return this.partitionsInTransaction.has(partition);
  }

  /**
   * RecordAccumulator.shouldStopDrainBatchesForPartition: a new batch waits while batches of an
   * older epoch are in flight; a retried batch goes only when it is the first in flight, so that
   * the leader sees sequences in order.
   */
  shouldStopDrain(batch: ProducerBatch): boolean {
    if (this.producerId === NO_PRODUCER_ID) return true;
    const e = this.partitions.getOrCreate(batch.partition);
    const first = e.inflight[0];
    if (!batch.hasSequence) {
      return !!first && (first.producerId !== this.producerId || first.producerEpoch !== this.producerEpoch);
    }
    return !!first && first !== batch;
  }

  /**
   * KAFKA-5364's bug switch: the Sender keeps draining in ABORTABLE_ERROR instead of failing unsent
   * batches, and the drain takes each batch's transactional flag from isInTransaction(), which was
   * false in that state before the fix (PR #3231 made the abortable-error state count).
   */
  get drainsInAbortableError(): boolean {
    return this.hasAbortableError && this.behaviour.drainDropsTxnFlagInAbortableError === true;
  }

  /** Drain: the batch takes the current id, epoch and the partition's next sequence (kept for its retries). */
  assignSequence(batch: ProducerBatch): void {
    if (batch.hasSequence) return;
    batch.isTransactional = !this.drainsInAbortableError;
    const e = this.partitions.getOrCreate(batch.partition);
    batch.producerId = this.producerId;
    batch.producerEpoch = this.producerEpoch;
    batch.baseSequence = e.nextSequence;
    e.nextSequence += batch.recordCount;
    e.inflight.push(batch);
  }

  /**
   * canRetry for a transactional producer: OUT_OF_ORDER_SEQUENCE_NUMBER is retried when the batch
   * is not the next one the leader expects (an earlier batch failed and is being retried);
   * UNKNOWN_PRODUCER_ID is not (the transaction aborts and the epoch is bumped); a batch of an older
   * epoch is never retried; other errors are retried when retriable.
   */
  canRetry(errorCode: number, batch: ProducerBatch): boolean {
    if (batch.producerId !== this.producerId || batch.producerEpoch !== this.producerEpoch) return false;
    if (errorCode === Errors.OUT_OF_ORDER_SEQUENCE_NUMBER) {
      const e = this.partitions.getOrCreate(batch.partition);
      return batch.baseSequence !== e.lastAckedSequence + 1;
    }
    return RETRIABLE.has(errorCode);
  }

  /** handleCompletedBatch: the leader has it; later batches of the partition are now the first in flight. */
  handleCompletedBatch(batch: ProducerBatch): void {
    if (batch.producerId !== this.producerId || batch.producerEpoch !== this.producerEpoch) return;
    const e = this.partitions.getOrCreate(batch.partition);
    e.lastAckedSequence = Math.max(e.lastAckedSequence, batch.lastSequence);
    this.removeInFlightBatch(batch);
  }

  /**
   * handleFailedBatch: the error decides the state (maybeTransitionToErrorState; INVALID_PRODUCER_EPOCH
   * abortable since KIP-588). A batch whose fate at the leader is unknown
   * (it expired after being sent) leaves a gap the leader may or may not have: a TV0/1 client must
   * bump its epoch before it writes again (maybeResolveSequences); a batch the leader refused frees
   * its sequences for the batches after it (adjustSequencesDueToFailedBatch); UNKNOWN_PRODUCER_ID
   * starts the partition again at sequence 0.
   */
  handleFailedBatch(batch: ProducerBatch, errorCode: number, reason: string, unknownFate: boolean): void {
    if (unknownFate && this.needToTriggerEpochBumpFromClient) this.epochBumpRequired = true;
    if (errorCode === Errors.INVALID_PRODUCER_EPOCH && !this.behaviour.invalidProducerEpochOnProduceAbortable)
      this.transitionToFatalError("Produce", errorCode, reason);
    else if (errorCode === Errors.OUT_OF_ORDER_SEQUENCE_NUMBER && this.behaviour.outOfOrderSequenceFatal)
      this.transitionToFatalError("Produce", errorCode, reason);
    else this.maybeTransitionToErrorState("Produce", errorCode, reason);
    this.removeInFlightBatch(batch);
    if (batch.producerId !== this.producerId || batch.producerEpoch !== this.producerEpoch) return;
    if (errorCode === UNKNOWN_PRODUCER_ID) this.partitions.remove(batch.partition);
    else if (!unknownFate) this.partitions.adjustSequencesDueToFailedBatch(batch);
  }

  protected removeInFlightBatch(batch: ProducerBatch): void {
    this.partitions.removeInFlightBatch(batch, this.behaviour.inflightSetKeyedBySequenceOnly === true);
  }
}
