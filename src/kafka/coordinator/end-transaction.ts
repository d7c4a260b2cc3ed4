import { Errors, IllegalStateException } from "../common/errors.js";
import {
  isEpochExhausted,
  MAX_PRODUCER_EPOCH,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  type TransactionResult,
  type TransactionVersion,
} from "../common/types.js";
import type { ClusterContext } from "../cluster-context.js";
import type { ReleaseProfile } from "../release.js";
import type { ProducerIdManager } from "./producer-id-manager.js";
import type { TransactionMarkerChannelManager } from "./transaction-marker-channel-manager.js";
import type { TransactionMetadata, TxnTransitMetadata } from "./transaction-metadata.js";
import type { TransactionStateManager } from "./transaction-state-manager.js";

/** One EndTxn, from a client or from the coordinator itself (timeout, fencing). */
export interface EndTxnParams {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  result: TransactionResult;
  isFromClient: boolean;
  clientTransactionVersion: TransactionVersion;
  /** Ghost (not Kafka): the client transaction the EndTxn was sent for (null when coordinator-initiated). */
  requestGhostTxn: string | null;
}

export type EndTxnCallback = (errorCode: number, producerId: number, producerEpoch: number) => void;

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

/** What ending a transaction uses of its TransactionCoordinator. */
export interface EndTransactionOptions {
  readonly release: ReleaseProfile;
  readonly state: TransactionStateManager;
  readonly markers: TransactionMarkerChannelManager;
  readonly producerIds: ProducerIdManager;
}

/**
 * TransactionCoordinator.endTransaction (TV2) and endTransactionWithTV1, with the write of
 * PrepareCommit/PrepareAbort and what follows it: the one path of an EndTxn from a client, of the
 * abort after a fence and of a timeout's abort. Apart from the coordinator's other handlers because
 * it is the part of the coordinator the protocol's rules (KAFKA.md 1.7) are about.
 */
export class EndTransaction {
  private readonly release: ReleaseProfile;
  private readonly state: TransactionStateManager;
  private readonly markers: TransactionMarkerChannelManager;
  private readonly producerIds: ProducerIdManager;

  constructor(
    private readonly ctx: ClusterContext,
    private readonly id: string,
    options: EndTransactionOptions,
  ) {
    this.release = options.release;
    this.state = options.state;
    this.markers = options.markers;
    this.producerIds = options.producerIds;
  }

  private get flags() {
    return this.release.flags;
  }

  endTransaction(params: EndTxnParams, respond: EndTxnCallback): void {
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
}
