import type { InboundRequest } from "../../sim/network.js";
import { Errors, errorName, IllegalStateException } from "../common/errors.js";
import { IdSequence } from "../common/id-sequence.js";
import {
  isEpochExhausted,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  type PartitionKey,
  type TransactionVersion,
} from "../common/types.js";
import type { ClusterContext } from "../cluster-context.js";
import type {
  AddPartitionsToTxnRequest,
  EndTxnRequest,
  TransactionalInitProducerIdRequest,
  KafkaRequest,
  KafkaResponse,
} from "../protocol.js";
import type { ReleaseProfile } from "../release.js";
import { type EndTxnCallback, EndTransaction } from "./end-transaction.js";
import type { ProducerIdManager } from "./producer-id-manager.js";
import { TransactionMarkerChannelManager } from "./transaction-marker-channel-manager.js";
import {
  EpochsExhaustedException,
  KafkaThrownException,
  ProducerFencedError,
  TransactionMetadata,
  txnMetadataRules,
  type TxnTransitMetadata,
} from "./transaction-metadata.js";
import { isPrepare } from "./transaction-state.js";
import { type TransactionLogAccess, TransactionStateManager } from "./transaction-state-manager.js";

type Inbound = InboundRequest<KafkaRequest, KafkaResponse>;

/** What a coordinator needs of the broker it runs on. */
export interface CoordinatorHost {
  readonly log: TransactionLogAccess;
  /** The broker's view of a partition's leader: null with no leader, undefined for an unknown partition. */
  leaderOf(partition: PartitionKey): string | null | undefined;
  /** The broker stopped: nothing scheduled by this coordinator acts any more. */
  readonly stopped: () => boolean;
  /**
   * transaction.version as this broker's metadata image finalizes it
   * (TransactionStateManager.transactionVersionLevel): what coordinator-initiated aborts use.
   */
  finalizedTransactionVersion(): TransactionVersion;
}

/** What a coordinator is made of besides the cluster's handles and its broker's id. */
export interface TransactionCoordinatorOptions {
  /** Its broker's release: what it does and sends. */
  readonly release: ReleaseProfile;
  readonly host: CoordinatorHost;
  /** transaction.state.log.num.partitions */
  readonly partitionCount: number;
  readonly producerIds: ProducerIdManager;
  /** Shared by every coordinator of the cluster, so marker ids stay unique across failovers (ghost only). */
  readonly markerIds?: IdSequence;
}

/**
 * TransactionCoordinator on one broker: InitProducerId, AddPartitionsToTxn, EndTxn (TV0/1 and TV2),
 * transaction timeouts, for the ids of the __transaction_state partitions this broker leads; their
 * leadership comes and goes (onElection: load, then re-send markers of PrepareCommit/PrepareAbort;
 * onResignation: forget). The broker's release governs what it does and sends.
 */
export class TransactionCoordinator {
  readonly state: TransactionStateManager;
  readonly markers: TransactionMarkerChannelManager;
  private readonly ends: EndTransaction;
  private timeoutTimerSet = false;
  private expirationTimerSet = false;

  private readonly release: ReleaseProfile;
  private readonly host: CoordinatorHost;
  private readonly producerIds: ProducerIdManager;

  constructor(
    private readonly ctx: ClusterContext,
    readonly id: string,
    options: TransactionCoordinatorOptions,
  ) {
    const { release, host, partitionCount, producerIds } = options;
    this.release = release;
    this.host = host;
    this.producerIds = producerIds;
    this.state = new TransactionStateManager(partitionCount, host.log);
    this.markers = new TransactionMarkerChannelManager(ctx, id, {
      release: () => this.release,
      state: this.state,
      markerIds: options.markerIds ?? new IdSequence(1),
      host,
    });
    this.ends = new EndTransaction(ctx, id, { release, state: this.state, markers: this.markers, producerIds });
  }

  get profile(): ReleaseProfile {
    return this.release;
  }

  private get flags() {
    return this.release.flags;
  }

  /**
   * The coordinator's requests, routed here by the broker (KafkaApis). An exception Kafka's handler
   * lets out (KafkaThrownException) is answered UNKNOWN_SERVER_ERROR, as KafkaApis' handleError does.
   */
  handle(request: Inbound): void {
    const body = request.body;
    if (body.api === "InitProducerId" || body.api === "AddPartitionsToTxn" || body.api === "EndTxn")
      if (body.transactionalId !== null) this.noteRequest(body.transactionalId);
    try {
      this.dispatch(request);
    } catch (e) {
      if (!(e instanceof KafkaThrownException)) throw e;
      this.ctx.sim.emit(this.id, "txn.handler-exception", {
        api: body.api,
        exception: e.kafkaClass,
        message: e.message,
      });
      const error = Errors.UNKNOWN_SERVER_ERROR;
      if (body.api === "InitProducerId" || body.api === "EndTxn")
        request.respond({ api: body.api, errorCode: error, producerId: -1, producerEpoch: -1 });
      else if (body.api === "AddPartitionsToTxn")
        request.respond({ api: "AddPartitionsToTxn", errorCode: error, results: [] });
    }
  }

  private dispatch(request: Inbound): void {
    const body = request.body;
    switch (body.api) {
      case "InitProducerId": {
        const respond: EndTxnCallback = (errorCode, producerId, producerEpoch) =>
          request.respond({ api: "InitProducerId", errorCode, producerId, producerEpoch });
        // TransactionCoordinator.handleInitProducerId: without a transactional.id (an idempotent
        // producer) any broker blindly hands out a new producer id at epoch 0.
        if (body.transactionalId === null) return respond(Errors.NONE, this.producerIds.generateProducerId(), 0);
        return this.handleInitProducerId({ ...body, transactionalId: body.transactionalId }, respond);
      }
      case "AddPartitionsToTxn":
        return this.handleAddPartitionsToTxn(body, (errorCode, results) =>
          request.respond({ api: "AddPartitionsToTxn", errorCode, results }),
        );
      case "EndTxn":
        return this.handleEndTxn(body, (errorCode, producerId, producerEpoch) =>
          request.respond({ api: "EndTxn", errorCode, producerId, producerEpoch }),
        );
      default:
        throw new Error(`coordinator ${this.id} cannot handle ${body.api}`);
    }
  }

  // ------------------------------------------------------------ ownership

  /**
   * onElection: this broker leads __transaction_state-`partition` at `coordinatorEpoch` (its leader
   * epoch). Queued markers of the partition are dropped; the load reads the local log to its end;
   * every PrepareCommit/PrepareAbort then gets its markers re-sent with the new coordinator epoch.
   */
  onElection(partition: number, coordinatorEpoch: number): void {
    this.markers.removeMarkersForTxnTopicPartition(partition);
    this.state.startLoading(partition, coordinatorEpoch);
    this.ctx.sim.emit(this.id, "coordinator.elected", { partition, ce: coordinatorEpoch });
    this.ctx.sim.schedule(this.ctx.config.txnLogLoadDelayMs, () => {
      if (this.host.stopped()) return;
      const loaded = this.state.completeLoading(partition, coordinatorEpoch, this.flags.tlogDropsPidLinkFields);
      if (!this.state.isServing(partition, coordinatorEpoch)) return;
      this.ctx.sim.emit(this.id, "coordinator.loaded", { partition, ce: coordinatorEpoch, txns: loaded.length });
      const rules = txnMetadataRules(this.flags);
      for (const { metadata } of loaded) metadata.rules = rules;
      for (const { metadata, record } of loaded) {
        if (!isPrepare(metadata.state)) continue;
        this.reportLoadedDecision(metadata, record, partition, coordinatorEpoch);
        const complete = metadata.prepareComplete(this.ctx.sim.nowMs);
        this.markers.addTxnMarkersToSend(
          coordinatorEpoch,
          metadata.state === "PrepareCommit" ? "COMMIT" : "ABORT",
          metadata,
          complete,
        );
      }
      this.scheduleTimeoutCheck();
      this.scheduleExpirationCheck();
    });
  }

  /**
   * A PrepareX found in the log is a decision that holds whoever wrote it (its writer may have been
   * told the write failed when leadership moved under it): the oracle learns of it now, if not before.
   */
  private reportLoadedDecision(
    metadata: TransactionMetadata,
    record: TxnTransitMetadata,
    partition: number,
    coordinatorEpoch: number,
  ): void {
    this.ctx.ghost.txnDecided({
      ghostTxn: record.ghostTxn,
      transactionalId: metadata.transactionalId,
      producerId: record.producerId,
      producerEpoch: record.producerEpoch,
      result: record.txnState === "PrepareCommit" ? "COMMIT" : "ABORT",
      coordinator: this.id,
      coordinatorEpoch,
      transactionVersion: record.clientTransactionVersion,
      initiator: record.ghostDecidedBy?.initiator ?? "coordinator",
      requestedFor: record.ghostDecidedBy?.requestedFor ?? null,
      partitions: [...record.topicPartitions],
      atMs: this.ctx.sim.nowMs,
      loadedFrom: `__transaction_state-${partition}`,
    });
  }

  /** onResignation: another broker leads the partition at `leaderEpoch`; the old owner finishes nothing. */
  onResignation(partition: number, leaderEpoch: number): void {
    const ce = this.state.coordinatorEpochOf(partition);
    if (this.state.resign(partition, leaderEpoch)) {
      this.markers.removeMarkersForTxnTopicPartition(partition);
      this.ctx.sim.emit(this.id, "coordinator.resigned", { partition, ce: ce ?? -1 });
    }
  }

  // ------------------------------------------------------------ InitProducerId

  handleInitProducerId(req: TransactionalInitProducerIdRequest, respond: EndTxnCallback): void {
    if (req.transactionTimeoutMs > this.ctx.config.transactionMaxTimeoutMs)
      return respond(Errors.INVALID_TRANSACTION_TIMEOUT, -1, -1);
    const lookup = this.state.lookup(req.transactionalId);
    if (lookup.kind === "error") return respond(lookup.errorCode, -1, -1);
    const metadata = lookup.metadata ?? this.state.putIfAbsent(this.newMetadata(req));
    if (metadata.pendingState !== null) return respond(Errors.CONCURRENT_TRANSACTIONS, -1, -1);
    const expectedEpoch = req.producerId !== NO_PRODUCER_ID ? req.producerEpoch : null;
    if (expectedEpoch !== null) {
      const valid =
        metadata.producerEpoch === NO_PRODUCER_EPOCH ||
        req.producerId === metadata.producerId ||
        (req.producerId === metadata.prevProducerId && isEpochExhausted(req.producerEpoch));
      if (!valid) return respond(Errors.PRODUCER_FENCED, -1, -1);
    }
    switch (metadata.state) {
      case "PrepareCommit":
      case "PrepareAbort":
        return respond(Errors.CONCURRENT_TRANSACTIONS, -1, -1);
      case "Ongoing":
        // Fence the ongoing transaction: abort it at a bumped epoch; the client must retry.
        return this.abortOngoing(metadata, req.ghostClient ?? null, (errorCode) =>
          respond(errorCode === Errors.NONE ? Errors.CONCURRENT_TRANSACTIONS : errorCode, -1, -1),
        );
      case "Empty":
      case "CompleteCommit":
      case "CompleteAbort":
        return this.bumpOrRotate(req, { metadata, coordinatorEpoch: lookup.coordinatorEpoch, expectedEpoch }, respond);
      default:
        throw new IllegalStateException(`InitProducerId found ${req.transactionalId} in ${metadata.state}`);
    }
  }

  /**
   * InitProducerId from Empty or CompleteX: the epoch is bumped, or the producer id rotated when the
   * epoch is exhausted, and the transit written.
   */
  private bumpOrRotate(
    req: TransactionalInitProducerIdRequest,
    found: { metadata: TransactionMetadata; coordinatorEpoch: number; expectedEpoch: number | null },
    respond: EndTxnCallback,
  ): void {
    const { metadata, coordinatorEpoch, expectedEpoch } = found;
    const now = this.ctx.sim.nowMs;
    let transit: TxnTransitMetadata;
    if (
      isEpochExhausted(metadata.producerEpoch) &&
      (expectedEpoch === null || expectedEpoch === metadata.producerEpoch)
    ) {
      transit = metadata.prepareProducerIdRotation(
        this.producerIds.generateProducerId(),
        req.transactionTimeoutMs,
        now,
        expectedEpoch !== null,
      );
    } else {
      try {
        transit = metadata.prepareIncrementProducerEpoch(req.transactionTimeoutMs, expectedEpoch, now);
      } catch (e) {
        if (e instanceof ProducerFencedError) return respond(Errors.PRODUCER_FENCED, -1, -1);
        if (e instanceof EpochsExhaustedException) {
          // The expected epoch is not the current, exhausted one (a retry after the bump to
          // 32766, or a stale epoch): Kafka's handler throws and the client reads UNKNOWN_SERVER_ERROR.
          this.ctx.sim.emit(this.id, "txn.init-epochs-exhausted", {
            txnId: req.transactionalId,
            epoch: metadata.producerEpoch,
            expected: expectedEpoch ?? -1,
          });
          // Before 4.2 the exception is not caught there: it leaves the handler (KafkaApis answers the same).
          if (!this.flags.tcInitCatchesEpochExhaustion)
            throw new KafkaThrownException("IllegalStateException", e.message);
          return respond(Errors.UNKNOWN_SERVER_ERROR, -1, -1);
        }
        throw e;
      }
    }
    // The oracle hears of the new epoch as it is written: a write reported failed may still be loaded later.
    this.ctx.ghost.producerEpochAssigned({
      transactionalId: req.transactionalId,
      producerId: transit.producerId,
      producerEpoch: transit.producerEpoch,
      requestedBy: req.ghostClient ?? null,
      coordinator: this.id,
      atMs: now,
    });
    return this.state.appendTransactionToLog(metadata, coordinatorEpoch, transit, (errorCode) => {
      if (errorCode !== Errors.NONE) return respond(errorCode, -1, -1);
      this.ctx.sim.emit(this.id, "txn.init", {
        txnId: req.transactionalId,
        pid: transit.producerId,
        epoch: transit.producerEpoch,
      });
      respond(Errors.NONE, transit.producerId, transit.producerEpoch);
    });
  }

  private newMetadata(req: TransactionalInitProducerIdRequest): TransactionMetadata {
    const m = new TransactionMetadata(
      req.transactionalId,
      this.producerIds.generateProducerId(),
      NO_PRODUCER_EPOCH,
      req.transactionTimeoutMs,
      this.ctx.sim.nowMs,
    );
    m.rules = txnMetadataRules(this.flags);
    return m;
  }

  /** A TransactionMetadata put in the cache from outside (a test's starting state) follows this release. */
  adopt(metadata: TransactionMetadata): TransactionMetadata {
    metadata.rules = txnMetadataRules(this.flags);
    return this.state.putIfAbsent(metadata);
  }

  // ------------------------------------------------------------ AddPartitionsToTxn

  handleAddPartitionsToTxn(
    req: AddPartitionsToTxnRequest,
    respond: (errorCode: number, results: { partition: string; errorCode: number }[]) => void,
  ): void {
    const all = (errorCode: number) =>
      respond(
        Errors.NONE,
        req.partitions.map((partition) => ({ partition, errorCode })),
      );
    const lookup = this.state.lookup(req.transactionalId);
    if (lookup.kind === "error") return respond(lookup.errorCode, []);
    const metadata = lookup.metadata;
    if (!metadata) return all(Errors.INVALID_PRODUCER_ID_MAPPING);
    if (req.verifyOnly) {
      if (metadata.producerId !== req.producerId) return all(Errors.INVALID_PRODUCER_ID_MAPPING);
      if (metadata.producerEpoch !== req.producerEpoch) return all(Errors.PRODUCER_FENCED);
      // KAFKA-14904's bug switch: before 3.5.0 the verify path shared the add path's pending check,
      // so a produce verified while another partition's add was being written was refused.
      if (this.flags.verifyRejectsDuringPendingState && metadata.pendingState !== null)
        return all(Errors.CONCURRENT_TRANSACTIONS);
      if (isPrepare(metadata.state)) return all(Errors.CONCURRENT_TRANSACTIONS);
      return respond(
        Errors.NONE,
        req.partitions.map((partition) => ({
          partition,
          errorCode: metadata.topicPartitions.has(partition) ? Errors.NONE : Errors.TRANSACTION_ABORTABLE,
        })),
      );
    }
    const pendingFirst = this.flags.tcAddPartitionsPendingFirst;
    if (pendingFirst && metadata.pendingState !== null) return all(Errors.CONCURRENT_TRANSACTIONS);
    if (metadata.producerId !== req.producerId) return all(Errors.INVALID_PRODUCER_ID_MAPPING);
    if (metadata.producerEpoch !== req.producerEpoch) return all(Errors.PRODUCER_FENCED);
    if (metadata.pendingState !== null || isPrepare(metadata.state)) return all(Errors.CONCURRENT_TRANSACTIONS);
    if (metadata.state === "Ongoing" && req.partitions.every((p) => metadata.topicPartitions.has(p))) {
      metadata.creditGhost(req.ghostTxn);
      return all(Errors.NONE);
    }
    const clientTv: TransactionVersion = req.version > 4 ? 2 : 0;
    const transit = metadata.prepareAddPartitions(req.partitions, this.ctx.sim.nowMs, clientTv, req.ghostTxn);
    this.state.appendTransactionToLog(metadata, lookup.coordinatorEpoch, transit, (errorCode) => {
      if (errorCode === Errors.NONE) {
        this.ctx.sim.emit(this.id, "txn.add-partitions", {
          txnId: req.transactionalId,
          partitions: req.partitions.join(","),
          epoch: metadata.producerEpoch,
          txn: metadata.ghostTxn,
        });
      }
      all(errorCode);
    });
  }

  // ------------------------------------------------------------ EndTxn

  handleEndTxn(req: EndTxnRequest, respond: EndTxnCallback): void {
    const tv: TransactionVersion = req.version >= 5 ? 2 : 0;
    const mapped: EndTxnCallback = (errorCode, pid, epoch) =>
      respond(
        req.version < 2 && errorCode === Errors.PRODUCER_FENCED ? Errors.INVALID_PRODUCER_EPOCH : errorCode,
        pid,
        epoch,
      );
    this.ends.endTransaction(
      {
        transactionalId: req.transactionalId,
        producerId: req.producerId,
        producerEpoch: req.producerEpoch,
        result: req.committed ? "COMMIT" : "ABORT",
        isFromClient: true,
        clientTransactionVersion: tv,
        requestGhostTxn: req.ghostTxn,
      },
      mapped,
    );
  }

  // ------------------------------------------------------------ coordinator-initiated aborts

  /**
   * Fence an Ongoing transaction and abort it (InitProducerId during Ongoing, or a timeout): the
   * PrepareEpochFence transit's epoch is the one the abort carries. Kafka's exceptions (a fence at
   * Short.MAX_VALUE before KAFKA-20090) leave here as they leave Kafka's coordinator.
   */
  private abortOngoing(
    metadata: TransactionMetadata,
    requestedBy: string | null,
    onDone: (errorCode: number) => void,
  ): void {
    // TransactionCoordinator: "Since this is not from client, use server TV" (the broker's image now).
    const serverTv = this.host.finalizedTransactionVersion();
    const tv2 = serverTv >= 2 && this.flags.supportsTransactionVersion2;
    const fence = metadata.prepareFenceProducerEpoch({
      ignoreFailedFence: this.flags.tcFenceBumpsEpochOnEveryFailedWrite,
    });
    // The epoch moves now (in memory, before the abort is written): the oracle hears of it here.
    this.ctx.ghost.producerEpochAssigned({
      transactionalId: metadata.transactionalId,
      producerId: metadata.producerId,
      producerEpoch: fence.producerEpoch,
      requestedBy,
      coordinator: this.id,
      atMs: this.ctx.sim.nowMs,
    });
    this.ends.endTransaction(
      {
        transactionalId: metadata.transactionalId,
        producerId: fence.producerId,
        producerEpoch: fence.producerEpoch,
        result: "ABORT",
        isFromClient: false,
        clientTransactionVersion: tv2 ? 2 : 0,
        requestGhostTxn: null,
      },
      (errorCode) => {
        if (metadata.pendingState === "PrepareEpochFence") metadata.pendingState = null; // rejected before the write
        onDone(errorCode);
      },
    );
  }

  /** One periodic check per broker process, while it serves some partition. */
  private scheduleTimeoutCheck(): void {
    if (this.timeoutTimerSet) return;
    this.timeoutTimerSet = true;
    const tick = () => {
      if (this.host.stopped() || this.state.servedPartitions().length === 0) {
        this.timeoutTimerSet = false;
        return;
      }
      try {
        this.abortTimedOutTransactions();
      } catch (e) {
        // Kafka's scheduler logs the task's exception and runs it again next interval.
        if (!(e instanceof KafkaThrownException)) throw e;
        this.ctx.sim.emit(this.id, "txn.handler-exception", {
          api: "abortTimedOutTransactions",
          exception: e.kafkaClass,
          message: e.message,
        });
      }
      this.ctx.sim.schedule(this.ctx.config.abortTimedOutTransactionCleanupIntervalMs, tick);
    };
    this.ctx.sim.schedule(this.ctx.config.abortTimedOutTransactionCleanupIntervalMs, tick);
  }

  /**
   * The transactionalId-expiration task, every transaction.remove.expired.transaction.cleanup.interval.ms
   * while this broker serves some partition; only when transactional.id.expiration.ms is set.
   */
  private scheduleExpirationCheck(): void {
    const expirationMs = this.ctx.config.transactionalIdExpirationMs;
    if (this.expirationTimerSet || expirationMs === null) return;
    this.expirationTimerSet = true;
    const interval = this.ctx.config.removeExpiredTransactionalIdsIntervalMs;
    const tick = () => {
      if (this.host.stopped() || this.state.servedPartitions().length === 0) {
        this.expirationTimerSet = false;
        return;
      }
      this.removeExpiredTransactionalIds(expirationMs);
      this.ctx.sim.schedule(interval, tick);
    };
    this.ctx.sim.schedule(interval, tick);
  }

  private removeExpiredTransactionalIds(expirationMs: number): void {
    const expiration = {
      nowMs: this.ctx.sim.nowMs,
      expirationMs,
      timeoutMs: this.ctx.config.requestTimeoutMs,
      failureLeavesPending: this.flags.tcExpireWriteFailureLeavesPending,
    };
    const expired = this.state.removeExpiredTransactionalIds(expiration, (txnId, errorCode) =>
      this.ctx.sim.emit(this.id, "txn.expired", { txnId, removed: errorCode === Errors.NONE, error: errorCode }),
    );
    for (const txnId of expired) this.ctx.sim.emit(this.id, "txn.expire", { txnId });
  }

  /** abortTimedOutTransactions: Ongoing, nothing pending, started longer ago than its timeout. */
  abortTimedOutTransactions(): void {
    const now = this.ctx.sim.nowMs;
    const expired = [...this.state.all()].filter(
      (m) => m.state === "Ongoing" && m.pendingState === null && m.txnStartTimestamp + m.txnTimeoutMs < now,
    );
    for (const metadata of expired) {
      this.ctx.sim.emit(this.id, "txn.timeout", {
        txnId: metadata.transactionalId,
        pid: metadata.producerId,
        epoch: metadata.producerEpoch,
        txn: metadata.ghostTxn,
      });
      if (this.timeoutAbortKeepsEpoch()) {
        this.abortAtSameEpoch(metadata);
        continue;
      }
      // The fence moves the epoch now, in memory: a request of the producer can be refused for it
      // before the abort is written, so the oracle hears of it (asked by no producer) in abortOngoing.
      this.abortOngoing(metadata, null, (errorCode) => {
        if (errorCode !== Errors.NONE)
          this.ctx.sim.emit(this.id, "txn.timeout-abort-cancelled", {
            txnId: metadata.transactionalId,
            error: errorName(errorCode),
          });
      });
    }
  }

  /** A request for the id takes its metadata lock now (KAFKA-9777's bug switch reads when). */
  private noteRequest(transactionalId: string): void {
    const lookup = this.state.lookup(transactionalId);
    if (lookup.kind === "ok" && lookup.metadata) lookup.metadata.lastRequestAtMs = this.ctx.sim.nowMs;
  }

  /** KAFKA-6119's bug switch, TV0/TV1 only (a TV2 abort always bumps the epoch). */
  private timeoutAbortKeepsEpoch(): boolean {
    const tv2 = this.host.finalizedTransactionVersion() >= 2 && this.flags.supportsTransactionVersion2;
    return !tv2 && this.flags.tcTimeoutAbortKeepsEpoch;
  }

  /**
   * Before KAFKA-6119 (0.11.0.0-0.11.0.1) the timeout task aborted at the producer's own epoch: the
   * producer is not fenced, and its next AddPartitionsToTxn opens a new transaction from CompleteAbort.
   */
  private abortAtSameEpoch(metadata: TransactionMetadata): void {
    this.ends.endTransaction(
      {
        transactionalId: metadata.transactionalId,
        producerId: metadata.producerId,
        producerEpoch: metadata.producerEpoch,
        result: "ABORT",
        isFromClient: false,
        clientTransactionVersion: 0,
        requestGhostTxn: null,
      },
      (errorCode) => {
        if (errorCode !== Errors.NONE)
          this.ctx.sim.emit(this.id, "txn.timeout-abort-cancelled", {
            txnId: metadata.transactionalId,
            error: errorName(errorCode),
          });
      },
    );
  }

  /** The transaction state of an id, for final liveness checks (null if not owned/loaded). */
  describe(transactionalId: string): TransactionMetadata | null {
    const lookup = this.state.lookup(transactionalId);
    return lookup.kind === "ok" ? lookup.metadata : null;
  }
}
