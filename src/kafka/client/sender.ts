import { ConnectionPool, type RpcResult } from "../../sim/network.js";
import type { Timer } from "../../sim/simulation.js";
import { Errors, errorName } from "../common/errors.js";
import { NO_PRODUCER_EPOCH, NO_PRODUCER_ID, type PartitionKey } from "../common/types.js";
import type { ApiVersions } from "./api-versions.js";
import type { ClusterContext } from "../cluster-context.js";
import { hasCurrentLeader, type LeaderIdAndEpoch, NO_CURRENT_LEADER } from "../current-leader.js";
import { endTxnVersionFor, type KafkaRequest, type KafkaResponse, produceVersionFor } from "../protocol.js";
import type { ClientMetadata } from "./client-metadata.js";
import type { ProducerConfig } from "./producer-config.js";
import type { ProducerBatch, RecordAccumulator } from "./record-accumulator.js";
import { IdempotentTransactionManager } from "./idempotent-transaction-manager.js";
import type { TransactionManager } from "./transaction-manager.js";
import type { TxnRequest, TxnResponseAction } from "./txn-request.js";

/** The producer's parts the Sender works with. */
export interface SenderParts {
  readonly accumulator: RecordAccumulator;
  readonly tm: TransactionManager;
  readonly metadata: ClientMetadata;
  /** The transaction attempt the next coordinator request belongs to (the oracle's name for it). */
  readonly currentGhost: () => string | null;
  /** Called when batches finish, so a flush waiting for them can go on. */
  readonly onBatchDone: () => void;
  /** This KafkaProducer's ApiVersions, told of every new connection of the Sender's NetworkClient. */
  readonly apiVersions?: ApiVersions | null;
}

/** Produce errors after which the producer's metadata is refreshed (the leader moved, or is gone). */
const STALE_LEADER = new Set<number>([
  Errors.NOT_LEADER_OR_FOLLOWER,
  Errors.UNKNOWN_TOPIC_OR_PARTITION,
  Errors.FENCED_LEADER_EPOCH,
  Errors.NETWORK_EXCEPTION,
]);

/**
 * Sender: the producer's I/O thread. Each run sends at most one coordinator request at a time
 * (produce waits while one is in flight, as maybeSendAndPollTransactionalRequest makes it), fails
 * batches past delivery.timeout.ms, then drains ready batches to their leaders with at most
 * max.in.flight.requests.per.connection requests in flight per broker. Every answer wakes it up.
 */
export class Sender {
  private readonly connections: ConnectionPool<KafkaRequest, KafkaResponse>;
  private readonly inFlightPerBroker = new Map<string, number>();
  private txnRequestInFlight = false;
  private scheduled: Timer | null = null;
  private scheduledAtMs = -1;
  private closed = false;
  /** Zombie fault: send nothing before this time (requests already sent still travel). */
  pausedUntilMs = 0;

  private readonly accumulator: RecordAccumulator;
  private readonly tm: TransactionManager;
  private readonly metadata: ClientMetadata;
  private readonly currentGhost: () => string | null;
  private readonly onBatchDone: () => void;
  /** The idempotent producer's manager (null for a transactional producer): its paths of Kafka's Sender. */
  private readonly idempotent: IdempotentTransactionManager | null;
  /** The idempotent producer's batches sent and not yet answered (Sender.inFlightBatches), for their expiry. */
  private readonly inFlightBatches: ProducerBatch[] = [];

  constructor(
    private readonly ctx: ClusterContext,
    private readonly config: ProducerConfig,
    parts: SenderParts,
  ) {
    this.accumulator = parts.accumulator;
    this.tm = parts.tm;
    this.metadata = parts.metadata;
    this.currentGhost = parts.currentGhost;
    this.onBatchDone = parts.onBatchDone;
    this.idempotent = parts.tm instanceof IdempotentTransactionManager ? parts.tm : null;
    const apiVersions = parts.apiVersions ?? null;
    this.connections = new ConnectionPool(ctx.net, config.name, (server) =>
      apiVersions?.learn(ctx.featuresOf?.(server)),
    );
  }

  /** Stop for good (the producer closed or was re-created): answers still travelling are ignored. */
  close(): void {
    this.closed = true;
    this.scheduled?.cancel();
  }

  /** Run again at `atMs` (now by default), unless a run is already due by then. */
  wakeup(atMs = this.ctx.sim.nowMs): void {
    if (this.closed) return;
    if (this.scheduled !== null && this.scheduledAtMs <= atMs) return;
    this.scheduled?.cancel();
    this.scheduledAtMs = atMs;
    this.scheduled = this.ctx.sim.schedule(Math.max(0, atMs - this.ctx.sim.nowMs), () => {
      this.scheduled = null;
      this.runOnce();
    });
  }

  private get nowMs(): number {
    return this.ctx.sim.nowMs;
  }

  private runOnce(): void {
    if (this.closed || this.tm.hasFatalError) return;
    if (this.pausedUntilMs > this.nowMs) return this.wakeup(this.pausedUntilMs);
    if (this.idempotent) {
      this.idempotent.maybeResolveSequences();
      this.idempotent.bumpIdempotentEpochAndResetIdIfNeeded();
    }
    const aborting = this.tm.hasAbortableError || this.tm.state === "ABORTING_TRANSACTION";
    if (aborting && !this.tm.drainsInAbortableError) this.abortUndrainedBatches();
    if (this.maybeSendTransactionalRequest()) return;
    this.failExpiredBatches();
    this.sendProducerData();
  }

  // ------------------------------------------------------------------ coordinator requests

  /** True while a coordinator request is in flight or backing off: produce waits meanwhile. */
  private maybeSendTransactionalRequest(): boolean {
    if (this.txnRequestInFlight) return true;
    const next = this.tm.nextRequest(this.accumulator.hasIncomplete(), this.nowMs);
    if (next === null) return false;
    if (next.retryAtMs > this.nowMs) {
      this.wakeup(next.retryAtMs);
      return true;
    }
    this.sendTxnRequest(next.request);
    return true;
  }

  private txnRequestBody(request: TxnRequest): KafkaRequest {
    const { transactionalId } = this.config;
    const { producerId, producerEpoch } = this.tm;
    switch (request.api) {
      case "InitProducerId":
        return {
          api: "InitProducerId",
          // The idempotent producer's: no transactional.id (any broker gives it a new producer id).
          transactionalId: this.idempotent ? null : transactionalId,
          transactionTimeoutMs: this.config.transactionTimeoutMs,
          producerId: request.bump ? producerId : NO_PRODUCER_ID,
          producerEpoch: request.bump ? producerEpoch : NO_PRODUCER_EPOCH,
          ghostClient: this.config.name,
        };
      case "AddPartitionsToTxn":
        return {
          api: "AddPartitionsToTxn",
          version: 3,
          transactionalId,
          producerId,
          producerEpoch,
          partitions: request.partitions,
          verifyOnly: false,
          ghostTxn: this.currentGhost(),
        };
      case "AddOffsetsToTxn":
        return {
          api: "AddOffsetsToTxn",
          transactionalId,
          producerId,
          producerEpoch,
          groupId: request.group.groupId,
          ghostTxn: this.currentGhost(),
        };
      case "TxnOffsetCommit":
        return {
          api: "TxnOffsetCommit",
          version: this.tm.transactionVersion >= 2 ? 5 : 3,
          transactionalId,
          producerId,
          producerEpoch,
          groupId: request.group.groupId,
          memberId: request.group.memberId,
          groupInstanceId: request.group.groupInstanceId,
          generationId: request.group.generationId,
          offsets: [...request.offsets],
          ghostTxn: this.currentGhost(),
        };
      case "EndTxn":
        return {
          api: "EndTxn",
          version: endTxnVersionFor(request.transactionVersion),
          transactionalId,
          producerId,
          producerEpoch,
          committed: request.commit,
          ghostTxn: this.currentGhost(),
        };
    }
  }

  /**
   * To the transactional.id's coordinator, or the group's for TxnOffsetCommit (FindCoordinator first
   * when it is not known). The lookup's answers go to the transaction manager
   * (FindCoordinatorHandler): an error it does not retry ends the lookup, and the request waits for
   * the next run (dropped there if the manager is now in an error state, as
   * maybeTerminateRequestWithError drops it).
   */
  private sendTxnRequest(request: TxnRequest): void {
    this.txnRequestInFlight = true;
    const body = this.txnRequestBody(request);
    const judge = (keyType: "TRANSACTION" | "GROUP") => (errorCode: number) =>
      this.tm.handleFindCoordinatorResponse(keyType, errorCode) !== "done";
    const find = (then: (node: string | null) => void) =>
      this.idempotent
        ? then(this.metadata.leastLoadedNode())
        : request.api === "TxnOffsetCommit"
          ? this.metadata.findGroupCoordinator(request.group.groupId, then, judge("GROUP"))
          : this.metadata.findCoordinator(this.config.transactionalId, then, judge("TRANSACTION"));
    find((node) => {
      if (this.closed) return;
      if (node === null) {
        this.txnRequestInFlight = false;
        if (!this.tm.hasAbortableError && !this.tm.hasFatalError)
          this.tm.retry(request, this.nowMs + this.config.retryBackoffMs);
        return this.wakeup();
      }
      this.ctx.net.request(this.connections.to(node), body, this.config.requestTimeoutMs, (r) =>
        this.onTxnResponse(request, r),
      );
    });
  }

  private onTxnResponse(request: TxnRequest, r: RpcResult<KafkaResponse>): void {
    if (this.closed) return;
    this.txnRequestInFlight = false;
    const action = this.handleTxnResponse(request, r);
    if (action !== "done") {
      if (action === "lookup-and-retry" && request.api === "TxnOffsetCommit")
        this.metadata.markGroupCoordinatorUnknown(request.group.groupId);
      else if (action === "lookup-and-retry") this.metadata.markCoordinatorUnknown(this.config.transactionalId);
      this.tm.retry(request, this.nowMs + this.config.retryBackoffMs);
    }
    this.wakeup();
  }

  /** TxnRequestHandler.onComplete: a disconnect (or timeout) is handled alike for every request; an answer by its handler. */
  private handleTxnResponse(request: TxnRequest, r: RpcResult<KafkaResponse>): TxnResponseAction {
    if (r.kind !== "response" || r.body.api !== request.api) return this.tm.handleDisconnect();
    const body = r.body;
    switch (body.api) {
      case "InitProducerId":
        return this.tm.handleInitProducerIdResponse(body.errorCode, body.producerId, body.producerEpoch);
      case "AddPartitionsToTxn": {
        const partitionError = body.results.find((x) => x.errorCode !== Errors.NONE)?.errorCode ?? Errors.NONE;
        const errorCode = body.errorCode !== Errors.NONE ? body.errorCode : partitionError;
        return this.tm.handleAddPartitionsResponse(
          (request as Extract<TxnRequest, { api: "AddPartitionsToTxn" }>).partitions,
          errorCode,
        );
      }
      case "AddOffsetsToTxn":
        return this.tm.handleAddOffsetsResponse(
          request as Extract<TxnRequest, { api: "AddOffsetsToTxn" }>,
          body.errorCode,
        );
      case "TxnOffsetCommit":
        return this.tm.handleTxnOffsetCommitResponse(body.errorCode);
      case "EndTxn":
        return this.tm.handleEndTxnResponse(body.errorCode, body.producerId, body.producerEpoch);
      default:
        return this.tm.handleDisconnect();
    }
  }

  // ------------------------------------------------------------------ produce

  private abortUndrainedBatches(): void {
    for (const batch of this.accumulator.abortUndrainedBatches()) this.finishBatch(batch);
  }

  /** Batches queued past delivery.timeout.ms fail; one that was sent before has an unknown fate at the leader. */
  private failExpiredBatches(): void {
    if (this.idempotent) return this.failExpiredIdempotentBatches(this.idempotent);
    for (const batch of this.accumulator.expiredBatches(this.config.deliveryTimeoutMs, this.nowMs)) {
      this.tm.handleFailedBatch(batch, Errors.REQUEST_TIMED_OUT, this.expiryReason(batch), batch.attempts > 0);
      this.finishBatch(batch);
    }
  }

  /**
   * The idempotent producer's expiry (Sender.sendProducerData): queued batches and batches in flight
   * past delivery.timeout.ms fail without adjusting sequences; one that had been retried leaves its
   * partition's sequence unresolved (markSequenceUnresolved). A batch in flight keeps its request
   * on the wire: its answer comes later, to a batch already failed.
   */
  private failExpiredIdempotentBatches(tm: IdempotentTransactionManager): void {
    const expired = this.accumulator.expiredBatches(this.config.deliveryTimeoutMs, this.nowMs);
    for (const batch of this.inFlightBatches)
      if (!batch.done && batch.hasReachedDeliveryTimeout(this.config.deliveryTimeoutMs, this.nowMs))
        expired.push(batch);
    for (const batch of expired) {
      tm.handleFailedBatch(batch, Errors.REQUEST_TIMED_OUT, this.expiryReason(batch), true);
      if (batch.inRetry) tm.markSequenceUnresolved(batch);
      this.finishBatch(batch);
    }
  }

  private expiryReason(batch: ProducerBatch): string {
    return `Produce to ${batch.partition}: delivery.timeout.ms expired after ${batch.attempts} attempts`;
  }

  /** Drain every partition whose batch is ready and whose leader has room for another request. */
  private sendProducerData(): void {
    let nextReadyAtMs: number | null = null;
    for (const partition of this.accumulator.partitionsWithQueuedBatches()) {
      if (!this.tm.isSendToPartitionAllowed(partition)) continue;
      for (let batch = this.accumulator.first(partition); batch !== null; batch = this.accumulator.first(partition)) {
        batch.maybeUpdateLeaderEpoch(this.metadata.leaderOf(partition)?.leaderEpoch ?? null);
        const readyAt = this.accumulator.readyAtMs(batch);
        if (readyAt > this.nowMs) {
          nextReadyAtMs = nextReadyAtMs === null ? readyAt : Math.min(nextReadyAtMs, readyAt);
          break;
        }
        const leader = this.metadata.leaderOf(partition)?.leader ?? null;
        if (leader === null) {
          this.metadata.requestUpdate(() => this.wakeup());
          break;
        }
        if ((this.inFlightPerBroker.get(leader) ?? 0) >= this.config.maxInFlightRequestsPerConnection) break;
        if (this.tm.shouldStopDrain(batch)) break;
        this.tm.assignSequence(batch);
        this.accumulator.drain(batch);
        this.sendProduce(leader, batch);
      }
    }
    if (nextReadyAtMs !== null) this.wakeup(nextReadyAtMs);
  }

  private sendProduce(leader: string, batch: ProducerBatch): void {
    this.inFlightPerBroker.set(leader, (this.inFlightPerBroker.get(leader) ?? 0) + 1);
    if (this.idempotent) this.inFlightBatches.push(batch);
    const request: KafkaRequest = {
      api: "Produce",
      // Sender.sendProduceRequest: the version the transaction manager uses now.
      version: produceVersionFor(this.tm.transactionVersion),
      // The model's leader reads the batch's transactional flag from the request's transactionalId.
      transactionalId: batch.isTransactional ? this.config.transactionalId : null,
      producerId: batch.producerId,
      producerEpoch: batch.producerEpoch,
      partition: batch.partition,
      baseSequence: batch.baseSequence,
      values: batch.values,
      timeoutMs: this.config.requestTimeoutMs,
      ghostTxn: batch.ghostTxn,
    };
    this.ctx.net.request(this.connections.to(leader), request, this.config.requestTimeoutMs, (r) => {
      this.inFlightPerBroker.set(leader, (this.inFlightPerBroker.get(leader) ?? 1) - 1);
      if (this.closed) return;
      if (this.idempotent) this.inFlightBatches.splice(this.inFlightBatches.indexOf(batch), 1);
      const body = r.kind === "response" && r.body.api === "Produce" ? r.body : null;
      // Sender.handleProduceResponse: a dropped connection is NETWORK_EXCEPTION, with no leader named.
      const errorCode = body?.errorCode ?? Errors.NETWORK_EXCEPTION;
      const partitionsWithUpdatedLeaderInfo = new Map<PartitionKey, LeaderIdAndEpoch>();
      this.completeBatch(batch, errorCode, body?.currentLeader ?? NO_CURRENT_LEADER, partitionsWithUpdatedLeaderInfo);
      // After completeBatch (KIP-951): the leader the response named, if newer, is the one the
      // retry goes to, at once (the batch skips its backoff); the refresh asked for still runs.
      if (partitionsWithUpdatedLeaderInfo.size > 0)
        this.metadata.updatePartitionLeadership(partitionsWithUpdatedLeaderInfo);
      this.wakeup();
    });
  }

  /**
   * Sender.completeBatch: success; a retry (retriable, within delivery.timeout.ms, and allowed by
   * the transaction manager) after retry.backoff.ms; or a failure the transaction manager judges.
   */
  private completeBatch(
    batch: ProducerBatch,
    errorCode: number,
    currentLeader: LeaderIdAndEpoch,
    partitionsWithUpdatedLeaderInfo: Map<PartitionKey, LeaderIdAndEpoch>,
  ): void {
    // The answer to a batch that expired while in flight (idempotent producer): Kafka's canRetry
    // refuses a batch that is done, so it fails again (failBatch: its bookkeeping only).
    if (this.idempotent && batch.done) {
      if (errorCode === Errors.NONE || errorCode === Errors.DUPLICATE_SEQUENCE_NUMBER)
        return this.idempotent.handleCompletedBatch(batch);
      return this.tm.handleFailedBatch(
        batch,
        errorCode,
        `Produce to ${batch.partition}: ${errorName(errorCode)}`,
        false,
      );
    }
    if (errorCode === Errors.NONE) {
      this.tm.handleCompletedBatch(batch);
      return this.finishBatch(batch);
    }
    // Not retriable: the leader has the batch's sequences already, but no longer the batch's offset.
    // Kafka's Sender completes the batch as a success, without an offset.
    if (errorCode === Errors.DUPLICATE_SEQUENCE_NUMBER) {
      this.tm.handleCompletedBatch(batch);
      return this.finishBatch(batch);
    }
    if (STALE_LEADER.has(errorCode)) {
      // KIP-951: NOT_LEADER_OR_FOLLOWER and FENCED_LEADER_EPOCH may name the new leader.
      const named = errorCode === Errors.NOT_LEADER_OR_FOLLOWER || errorCode === Errors.FENCED_LEADER_EPOCH;
      if (named && hasCurrentLeader(currentLeader)) partitionsWithUpdatedLeaderInfo.set(batch.partition, currentLeader);
      this.metadata.requestUpdate(() => this.wakeup());
    }
    const timedOut = batch.hasReachedDeliveryTimeout(this.config.deliveryTimeoutMs, this.nowMs);
    if (!timedOut && this.tm.canRetry(errorCode, batch)) {
      const retryAtMs = this.nowMs + this.config.retryBackoffMs;
      this.idempotent?.checkReenqueue(batch);
      this.accumulator.reenqueue(batch, retryAtMs, this.nowMs);
      return this.wakeup(retryAtMs);
    }
    const reason = timedOut
      ? this.expiryReason(batch)
      : `Produce to ${batch.partition} (seq ${batch.baseSequence}): ${errorName(errorCode)}`;
    // A retriable error we may not retry any more leaves the batch's fate at the leader unknown.
    // The idempotent producer's failBatch adjusts sequences (asks for a bump) even past the delivery timeout.
    this.tm.handleFailedBatch(batch, errorCode, reason, this.idempotent ? false : timedOut);
    this.finishBatch(batch);
  }

  private finishBatch(batch: ProducerBatch): void {
    this.accumulator.complete(batch);
    this.onBatchDone();
  }
}
