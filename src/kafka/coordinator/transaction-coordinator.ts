import type { InboundRequest } from "../../sim/network.js";
import { Errors, errorName, IllegalStateException } from "../common/errors.js";
import { IdSequence } from "../common/id-sequence.js";
import {
  isEpochExhausted,
  MAX_PRODUCER_EPOCH,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  type PartitionKey,
  type TransactionResult,
  type TransactionVersion,
} from "../common/types.js";
import type { ClusterContext } from "../cluster-context.js";
import type {
  AddPartitionsToTxnRequest,
  EndTxnRequest,
  InitProducerIdRequest,
  KafkaRequest,
  KafkaResponse,
} from "../protocol.js";
import type { ReleaseProfile } from "../release.js";
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

/** Hands out producer ids (ProducerIdManager); shared by every coordinator of the cluster. */
export class ProducerIdManager {
  constructor(private next: number) {}
  generateProducerId(): number {
    return this.next++;
  }
}

/** One EndTxn, from a client or from the coordinator itself (timeout, fencing). */
interface EndTxnParams {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  result: TransactionResult;
  isFromClient: boolean;
  clientTransactionVersion: TransactionVersion;
  /** Ghost (not Kafka): the client transaction the EndTxn was sent for (null when coordinator-initiated). */
  requestGhostTxn: string | null;
}

type EndTxnCallback = (errorCode: number, producerId: number, producerEpoch: number) => void;

/** TV2 EndTxn outcome per state (KAFKA.md 1.7): a transition, NONE without a write, or an error. */
type Tv2Action =
  | { kind: "prepare"; target: "PrepareCommit" | "PrepareAbort"; emptyAbort: boolean }
  | { kind: "none" }
  | { kind: "error"; errorCode: number };

/** One PrepareCommit/PrepareAbort to write: the transit, for which id at which coordinator epoch. */
interface PrepareWrite {
  readonly metadata: TransactionMetadata;
  readonly coordinatorEpoch: number;
  readonly transit: TxnTransitMetadata;
  /** The end clears a coordinator fence (a pending PrepareEpochFence). */
  readonly fence: boolean;
  readonly tv2: boolean;
}

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
      this.noteRequest(body.transactionalId);
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
      case "InitProducerId":
        return this.handleInitProducerId(body, (errorCode, producerId, producerEpoch) =>
          request.respond({ api: "InitProducerId", errorCode, producerId, producerEpoch }),
        );
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

  handleInitProducerId(req: InitProducerIdRequest, respond: EndTxnCallback): void {
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
    const now = this.ctx.sim.nowMs;
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
      case "CompleteAbort": {
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
        return this.state.appendTransactionToLog(metadata, lookup.coordinatorEpoch, transit, (errorCode) => {
          if (errorCode !== Errors.NONE) return respond(errorCode, -1, -1);
          this.ctx.sim.emit(this.id, "txn.init", {
            txnId: req.transactionalId,
            pid: transit.producerId,
            epoch: transit.producerEpoch,
          });
          respond(Errors.NONE, transit.producerId, transit.producerEpoch);
        });
      }
      default:
        throw new IllegalStateException(`InitProducerId found ${req.transactionalId} in ${metadata.state}`);
    }
  }

  private newMetadata(req: InitProducerIdRequest): TransactionMetadata {
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
    this.endTransaction(
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

  private endTransaction(params: EndTxnParams, respond: EndTxnCallback): void {
    const lookup = this.state.lookup(params.transactionalId);
    if (lookup.kind === "error") return respond(lookup.errorCode, -1, -1);
    const metadata = lookup.metadata;
    if (!metadata) return respond(Errors.INVALID_PRODUCER_ID_MAPPING, -1, -1);
    const tv2 = params.clientTransactionVersion >= 2 && this.flags.supportsTransactionVersion2;
    if (tv2) this.endTransactionTv2(params, metadata, lookup.coordinatorEpoch, respond);
    else this.endTransactionTv1(params, metadata, lookup.coordinatorEpoch, respond);
  }

  /** endTransactionWithTV1: the epoch stays; markers carry the data's epoch. */
  private endTransactionTv1(
    params: EndTxnParams,
    metadata: TransactionMetadata,
    coordinatorEpoch: number,
    respond: EndTxnCallback,
  ): void {
    if (metadata.producerId !== params.producerId) return respond(Errors.INVALID_PRODUCER_ID_MAPPING, -1, -1);
    const fence = metadata.pendingState === "PrepareEpochFence";
    const epochBad = params.isFromClient
      ? params.producerEpoch !== metadata.producerEpoch
      : params.producerEpoch < metadata.producerEpoch;
    if (epochBad) return respond(Errors.PRODUCER_FENCED, -1, -1);
    if (metadata.pendingState !== null && !fence) return respond(Errors.CONCURRENT_TRANSACTIONS, -1, -1);
    const commit = params.result === "COMMIT";
    switch (metadata.state) {
      case "Ongoing": {
        if (fence) this.clearFence(metadata, { fencedEpoch: params.producerEpoch, tv2: false });
        if (params.isFromClient) metadata.creditGhost(params.requestGhostTxn);
        const target = commit ? "PrepareCommit" : "PrepareAbort";
        const transit = metadata.prepareAbortOrCommit(target, {
          clientTransactionVersion: 0,
          bumpEpoch: false,
          nextProducerId: NO_PRODUCER_ID,
          updateTimestamp: this.ctx.sim.nowMs,
          noPartitionAdded: false,
        });
        return this.writePrepare(params, { metadata, coordinatorEpoch, transit, fence, tv2: false }, respond);
      }
      // endTransactionWithTV1 answers every TV0/1 EndTxn with no producer id and epoch (-1/-1).
      case "CompleteCommit":
        return respond(commit ? Errors.NONE : Errors.INVALID_TXN_STATE, -1, -1);
      case "CompleteAbort":
        return respond(commit ? Errors.INVALID_TXN_STATE : Errors.NONE, -1, -1);
      case "PrepareCommit":
        return respond(commit ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE, -1, -1);
      case "PrepareAbort":
        return respond(commit ? Errors.INVALID_TXN_STATE : Errors.CONCURRENT_TRANSACTIONS, -1, -1);
      default:
        return respond(Errors.INVALID_TXN_STATE, -1, -1);
    }
  }

  /** endTransaction for TV2: every EndTxn bumps the epoch; retries are recognised by epoch. */
  private endTransactionTv2(
    params: EndTxnParams,
    metadata: TransactionMetadata,
    coordinatorEpoch: number,
    respond: EndTxnCallback,
  ): void {
    const fence = metadata.pendingState === "PrepareEpochFence";
    const e = params.producerEpoch;
    const m = metadata.producerEpoch;
    const recognise = this.flags.recognizeTv2EndTxnRetry;
    const retryOnEpochBump = recognise && !fence && m === e + 1;
    const retryOnOverflow =
      recognise && !fence && metadata.prevProducerId === params.producerId && e === MAX_PRODUCER_EPOCH - 1 && m === 0;
    const isRetry = retryOnEpochBump || retryOnOverflow;
    // Kafka's order: a pending state first ("so that the pending transition can complete before the
    // next checks": a producer may already use the rotated id that is only pending), then the producer
    // id, then the epoch. KAFKA-18464's bug switch checks the id and the epoch before the pending state.
    const epochFirst = this.flags.tv2EndTxnEpochCheckBeforePending;
    const pending = metadata.pendingState !== null && !fence;
    if (!epochFirst && pending) return respond(Errors.CONCURRENT_TRANSACTIONS, -1, -1);
    if (metadata.producerId !== params.producerId && !retryOnOverflow)
      return respond(Errors.INVALID_PRODUCER_ID_MAPPING, -1, -1);
    if (!this.tv2EpochValid(metadata, params, fence, retryOnEpochBump, retryOnOverflow))
      return respond(Errors.PRODUCER_FENCED, -1, -1);
    if (epochFirst && pending) return respond(Errors.CONCURRENT_TRANSACTIONS, -1, -1);
    const action = this.tv2Action(metadata.state, params.result, isRetry);
    if (action.kind === "error") return respond(action.errorCode, -1, -1);
    if (action.kind === "none") return respond(Errors.NONE, metadata.producerId, metadata.producerEpoch);
    if (fence) this.clearFence(metadata, { fencedEpoch: params.producerEpoch, tv2: true });
    if (params.isFromClient) metadata.creditGhost(params.requestGhostTxn);
    const bump = this.flags.epochBumpOnEndTxn;
    // A TV2 end bumps the epoch, so an exhausted one rotates the producer id; before KAFKA-20090 not in
    // the fence's abort (TransactionCoordinator: `!isEpochFence && isProducerEpochExhausted`).
    const exhaustedBump = bump && isEpochExhausted(metadata.producerEpoch) && (!fence || this.flags.maxEpochRecovery);
    const nextProducerId = exhaustedBump ? this.producerIds.generateProducerId() : NO_PRODUCER_ID;
    // At Short.MAX_VALUE Kafka's int16 bump overflows (IllegalArgumentException out of the handler),
    // but for KAFKA-20090's abort there: TransactionMetadata.prepareAbortOrCommit decides (its rules).
    const transit = metadata.prepareAbortOrCommit(action.target, {
      clientTransactionVersion: 2,
      bumpEpoch: bump,
      nextProducerId,
      updateTimestamp: this.ctx.sim.nowMs,
      noPartitionAdded: action.emptyAbort,
      emptyAbortGhost: params.requestGhostTxn,
    });
    this.writePrepare(params, { metadata, coordinatorEpoch, transit, fence, tv2: true }, respond);
  }

  private tv2EpochValid(
    metadata: TransactionMetadata,
    params: EndTxnParams,
    fence: boolean,
    retryOnEpochBump: boolean,
    retryOnOverflow: boolean,
  ): boolean {
    const e = params.producerEpoch;
    const m = metadata.producerEpoch;
    if (fence) return (!params.isFromClient || e === m) && e >= m;
    switch (metadata.state) {
      case "Ongoing":
      case "Empty":
        return e === m || (!this.flags.endTxnEpochCheck && e === m - 1);
      case "PrepareCommit":
      case "PrepareAbort":
        return retryOnEpochBump;
      case "CompleteCommit":
      case "CompleteAbort":
        return retryOnEpochBump || retryOnOverflow || e === m;
      default:
        return false;
    }
  }

  private tv2Action(state: TransactionMetadata["state"], result: TransactionResult, isRetry: boolean): Tv2Action {
    const abort = result === "ABORT";
    const prepare = (target: "PrepareCommit" | "PrepareAbort"): Tv2Action => ({
      kind: "prepare",
      target,
      emptyAbort: false,
    });
    // A TV2 abort with no transaction open (from Empty or CompleteX) writes one, with no partition.
    const emptyAbort: Tv2Action = { kind: "prepare", target: "PrepareAbort", emptyAbort: true };
    const error = (errorCode: number): Tv2Action => ({ kind: "error", errorCode });
    switch (state) {
      case "Ongoing":
        return prepare(abort ? "PrepareAbort" : "PrepareCommit");
      case "Empty":
        return abort ? emptyAbort : error(Errors.INVALID_TXN_STATE);
      case "CompleteAbort":
        if (abort) return isRetry ? { kind: "none" } : emptyAbort;
        return error(
          isRetry && this.flags.commitRetryInCompleteAbortFenced ? Errors.PRODUCER_FENCED : Errors.INVALID_TXN_STATE,
        );
      case "CompleteCommit":
        if (abort) return isRetry ? error(Errors.INVALID_TXN_STATE) : emptyAbort;
        return isRetry ? { kind: "none" } : error(Errors.INVALID_TXN_STATE);
      case "PrepareCommit":
        return error(abort ? Errors.INVALID_TXN_STATE : Errors.CONCURRENT_TRANSACTIONS);
      case "PrepareAbort":
        return error(abort ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE);
      default:
        return error(Errors.INVALID_TXN_STATE);
    }
  }

  /**
   * The fence's pending PrepareEpochFence makes way for PrepareAbort. TV0/1 (and TV2 before
   * KAFKA-19367, which bumped twice) set the fenced epoch in memory now; TV2 leaves the epoch to
   * prepareAbortOrCommit's bump.
   */
  private clearFence(metadata: TransactionMetadata, fenced: { fencedEpoch: number; tv2: boolean }): void {
    const { fencedEpoch, tv2 } = fenced;
    metadata.pendingState = null;
    if (tv2 && this.flags.singleEpochBumpOnCoordinatorAbort) return;
    metadata.producerEpoch = fencedEpoch;
    metadata.lastProducerEpoch = NO_PRODUCER_EPOCH;
  }

  /** Write PrepareX; once durable, re-check, prepareComplete, answer the client, send markers. */
  private writePrepare(params: EndTxnParams, prepare: PrepareWrite, respond: EndTxnCallback): void {
    const { metadata, coordinatorEpoch, transit, fence, tv2 } = prepare;
    const fenceBumpedInMemory = fence && !(tv2 && this.flags.singleEpochBumpOnCoordinatorAbort);
    const decided: TxnTransitMetadata = {
      ...transit,
      ghostDecidedBy: {
        initiator: params.isFromClient ? "client" : "coordinator",
        requestedFor: params.requestGhostTxn,
      },
    };
    this.state.appendTransactionToLog(metadata, coordinatorEpoch, decided, (errorCode) => {
      if (errorCode !== Errors.NONE) {
        if (fenceBumpedInMemory) metadata.hasFailedEpochFence = true;
        return respond(errorCode, -1, -1);
      }
      const result = transit.txnState === "PrepareCommit" ? "COMMIT" : "ABORT";
      this.ctx.sim.emit(this.id, "txn.prepare", {
        txnId: params.transactionalId,
        state: transit.txnState,
        pid: transit.producerId,
        epoch: transit.producerEpoch,
        ce: coordinatorEpoch,
        tv: transit.clientTransactionVersion,
        txn: transit.ghostTxn,
        by: params.isFromClient ? "client" : "coordinator",
      });
      this.ctx.ghost.txnDecided({
        ghostTxn: transit.ghostTxn,
        transactionalId: params.transactionalId,
        producerId: transit.producerId,
        producerEpoch: transit.producerEpoch,
        result,
        coordinator: this.id,
        coordinatorEpoch,
        transactionVersion: transit.clientTransactionVersion,
        initiator: params.isFromClient ? "client" : "coordinator",
        requestedFor: params.requestGhostTxn,
        partitions: [...transit.topicPartitions],
        atMs: this.ctx.sim.nowMs,
      });
      const recheck = this.recheckAfterPrepare(params, metadata, coordinatorEpoch, transit, tv2);
      if (recheck !== Errors.NONE) return respond(recheck, -1, -1);
      const complete = metadata.prepareComplete(this.ctx.sim.nowMs);
      // KAFKA-18660's bug switch: at overflow the response names the old producer id and epoch.
      const oldIds = tv2 && this.flags.tv2OverflowResponseUsesOldPidEpoch && complete.producerId !== transit.producerId;
      if (!tv2)
        respond(Errors.NONE, NO_PRODUCER_ID, NO_PRODUCER_EPOCH); // endTransactionWithTV1: -1/-1
      else if (oldIds) respond(Errors.NONE, transit.producerId, transit.producerEpoch);
      else respond(Errors.NONE, complete.producerId, complete.producerEpoch);
      this.markers.addTxnMarkersToSend(coordinatorEpoch, result, metadata, complete);
    });
  }

  private recheckAfterPrepare(
    params: EndTxnParams,
    metadata: TransactionMetadata,
    coordinatorEpoch: number,
    transit: TxnTransitMetadata,
    tv2: boolean,
  ): number {
    const lookup = this.state.lookup(params.transactionalId);
    if (lookup.kind === "error") return lookup.errorCode;
    if (lookup.coordinatorEpoch !== coordinatorEpoch || lookup.metadata !== metadata) return Errors.NOT_COORDINATOR;
    if (metadata.producerId !== transit.producerId) return Errors.INVALID_PRODUCER_ID_MAPPING;
    // Mutant endTxnEpochCheck off: an EndTxn one epoch behind was taken as current, and bumped once more.
    const behind = !this.flags.endTxnEpochCheck && metadata.producerEpoch === params.producerEpoch + 2;
    const epochOk = tv2
      ? metadata.producerEpoch === params.producerEpoch || metadata.producerEpoch === params.producerEpoch + 1 || behind
      : metadata.producerEpoch === transit.producerEpoch;
    if (!epochOk) return Errors.PRODUCER_FENCED;
    if (metadata.pendingState !== null) return Errors.CONCURRENT_TRANSACTIONS;
    if (metadata.state !== transit.txnState)
      throw new IllegalStateException(`after ${transit.txnState}, ${metadata.transactionalId} is ${metadata.state}`);
    return Errors.NONE;
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
    this.endTransaction(
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
    this.endTransaction(
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
