import type { Connection, RpcResult } from "../../sim/network.js";
import { BoundExceeded } from "../../sim/bounds.js";
import { assert, isInt32 } from "../common/assert.js";
import { Errors, errorName, IllegalStateException } from "../common/errors.js";
import type { IdSequence } from "../common/id-sequence.js";
import { type PartitionKey, parsePartitionKey, type TransactionResult } from "../common/types.js";
import type { ClusterContext } from "../cluster-context.js";
import type { KafkaResponse, MarkerGhost } from "../protocol.js";
import type { ReleaseProfile } from "../release.js";
import {
  decodeWriteTxnMarkersResponse,
  encodeWriteTxnMarkersRequest,
  type WritableTxnMarker,
} from "../wire/write-txn-markers.js";
import type { CoordinatorHost } from "./transaction-coordinator.js";
import type { TransactionMetadata, TxnTransitMetadata } from "./transaction-metadata.js";
import type { TransactionStateManager } from "./transaction-state-manager.js";
import type { PendingCompleteTxn, TxnMarkerEntry } from "./txn-marker-entry.js";

interface QueuedMarker {
  pending: PendingCompleteTxn;
  entry: TxnMarkerEntry;
}

/** Per destination broker: its queue, its connection and what ApiVersions told us. */
interface BrokerChannel {
  readonly broker: string;
  readonly queue: QueuedMarker[];
  connection: Connection | null;
  inFlight: boolean;
  apiMaxVersion: number | null;
  reconnectAtMs: number;
  reconnectTimerSet: boolean;
}

/** The marker sender's connections (TxnMarkerSenderThread has a NetworkClient of its own): scenarios fault them apart. */
export const MARKER_CHANNEL = "markers";

/** Bound on queued markers per broker: more means the model is looping. */
const MAX_QUEUED_PER_BROKER = 10_000;

/** Errors on which the coordinator re-resolves the leader and re-sends the partition. */
const RETRIABLE = new Set<number>([
  Errors.UNKNOWN_TOPIC_OR_PARTITION,
  Errors.NOT_LEADER_OR_FOLLOWER,
  Errors.NOT_ENOUGH_REPLICAS,
  Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
  Errors.REQUEST_TIMED_OUT,
  Errors.KAFKA_STORAGE_ERROR,
]);

/**
 * TransactionMarkerChannelManager + TransactionMarkerRequestCompletionHandler: per-broker queues,
 * one WriteTxnMarkers request in flight per connection, request timeouts that disconnect and
 * re-enqueue, the version choice (ApiVersions discovery or not), Kafka's retry/give-up rules, and
 * CompleteCommit/CompleteAbort once every partition acknowledged.
 */
export class TransactionMarkerChannelManager {
  private readonly pendingTxns = new Map<string, PendingCompleteTxn>();
  private readonly channels = new Map<string, BrokerChannel>();
  private readonly completionRetries: PendingCompleteTxn[] = [];
  /** markersQueueForUnknownBroker: markers whose partition has no leader now; resolved again on every pass. */
  private readonly unknownBrokerQueue: {
    pending: PendingCompleteTxn;
    entry: TxnMarkerEntry;
    partition: PartitionKey;
  }[] = [];
  private unknownBrokerTimerSet = false;
  private wakeupScheduled = false;
  private completionRetryTimerSet = false;
  private nextCorrelationId = 1;

  private readonly release: () => ReleaseProfile;
  private readonly state: TransactionStateManager;
  /** Shared by every coordinator of the cluster, so ids stay unique across failovers (ghost only). */
  private readonly markerIds: IdSequence;
  private readonly host: CoordinatorHost;

  constructor(
    private readonly ctx: ClusterContext,
    private readonly self: string,
    parts: {
      release: () => ReleaseProfile;
      state: TransactionStateManager;
      markerIds: IdSequence;
      host: CoordinatorHost;
    },
  ) {
    this.release = parts.release;
    this.state = parts.state;
    this.markerIds = parts.markerIds;
    this.host = parts.host;
  }

  get pendingCount(): number {
    return this.pendingTxns.size;
  }

  /** After PrepareX is durable and prepareComplete was called: send markers to every partition. */
  addTxnMarkersToSend(
    coordinatorEpoch: number,
    result: TransactionResult,
    metadata: TransactionMetadata,
    completeTransit: TxnTransitMetadata,
  ): void {
    assert(
      isInt32(coordinatorEpoch) && coordinatorEpoch >= 0,
      () => `markers at coordinator epoch ${coordinatorEpoch}`,
    );
    // The markers carry the decision the CompleteX transit will record (prepareComplete's target).
    assert(
      completeTransit.txnState === (result === "COMMIT" ? "CompleteCommit" : "CompleteAbort"),
      () => `${metadata.transactionalId}: ${result} markers for a transit to ${completeTransit.txnState}`,
    );
    const pending: PendingCompleteTxn = {
      transactionalId: metadata.transactionalId,
      coordinatorEpoch,
      metadata,
      completeTransit,
      result,
      acked: 0,
      completing: false,
    };
    this.pendingTxns.set(metadata.transactionalId, pending);
    const markerFields = {
      transactionalId: metadata.transactionalId,
      producerId: metadata.producerId,
      producerEpoch: metadata.producerEpoch,
      result,
      coordinatorEpoch,
      transactionVersion: metadata.clientTransactionVersion,
      ghostTxn: metadata.ghostTxn,
    };
    this.enqueueByLeader(pending, markerFields, [...metadata.topicPartitions], null);
    this.maybeWriteTxnCompletion(metadata.transactionalId);
  }

  /** removeMarkersForTxnTopicPartition: drop what is pending or queued for the partition's ids (resignation, or a new election). */
  removeMarkersForTxnTopicPartition(partition: number): void {
    for (const pending of [...this.pendingTxns.values()])
      if (this.state.partitionFor(pending.transactionalId) === partition) this.removeMarkersForTxn(pending);
  }

  private enqueueByLeader(
    pending: PendingCompleteTxn,
    fields: Omit<TxnMarkerEntry, "markerId" | "partitions" | "resend">,
    partitions: readonly PartitionKey[],
    resendOf: TxnMarkerEntry | null,
  ): void {
    const byBroker = new Map<string, PartitionKey[]>();
    for (const p of partitions) {
      // MetadataCache.getPartitionLeaderEndpoint through this broker's metadata image.
      const leader = this.host.leaderOf(p);
      if (leader === undefined) {
        // Topic gone from metadata: Kafka removes the partition from the txn without a marker.
        pending.metadata.topicPartitions.delete(p);
        continue;
      }
      if (leader === null) {
        this.queueForUnknownBroker(pending, fields, p, resendOf);
        continue;
      }
      const list = byBroker.get(leader) ?? [];
      list.push(p);
      byBroker.set(leader, list);
    }
    for (const [broker, list] of byBroker) {
      const entry: TxnMarkerEntry =
        resendOf && sameSet(resendOf.partitions, list)
          ? resendOf
          : {
              transactionalId: fields.transactionalId,
              producerId: fields.producerId,
              producerEpoch: fields.producerEpoch,
              result: fields.result,
              coordinatorEpoch: fields.coordinatorEpoch,
              transactionVersion: fields.transactionVersion,
              ghostTxn: fields.ghostTxn,
              markerId: resendOf?.markerId ?? this.markerIds.next(),
              partitions: list,
              resend: resendOf?.resend ?? 0,
            };
      const channel = this.channel(broker);
      if (channel.queue.length >= MAX_QUEUED_PER_BROKER)
        throw new BoundExceeded(`markers queued at ${this.self} for ${broker}`, MAX_QUEUED_PER_BROKER);
      channel.queue.push({ pending, entry });
    }
    this.wakeup();
  }

  /** No leader now (Node.noNode): kept aside and resolved again on the sender's next passes. */
  private queueForUnknownBroker(
    pending: PendingCompleteTxn,
    fields: Omit<TxnMarkerEntry, "markerId" | "partitions" | "resend">,
    partition: PartitionKey,
    resendOf: TxnMarkerEntry | null,
  ): void {
    if (this.unknownBrokerQueue.length >= MAX_QUEUED_PER_BROKER)
      throw new BoundExceeded(`markers queued at ${this.self} for an unknown broker`, MAX_QUEUED_PER_BROKER);
    const entry: TxnMarkerEntry = resendOf ?? {
      transactionalId: fields.transactionalId,
      producerId: fields.producerId,
      producerEpoch: fields.producerEpoch,
      result: fields.result,
      coordinatorEpoch: fields.coordinatorEpoch,
      transactionVersion: fields.transactionVersion,
      ghostTxn: fields.ghostTxn,
      markerId: this.markerIds.next(),
      partitions: [partition],
      resend: 0,
    };
    this.unknownBrokerQueue.push({ pending, entry, partition });
    if (this.unknownBrokerTimerSet) return;
    this.unknownBrokerTimerSet = true;
    // The send loop wakes at least every reconnect backoff while something waits for a leader.
    this.ctx.sim.schedule(this.ctx.config.reconnectBackoffMs, () => {
      this.unknownBrokerTimerSet = false;
      if (this.host.stopped()) return;
      const waiting = this.unknownBrokerQueue.splice(0);
      for (const { pending: p, entry: e, partition: part } of waiting)
        if (this.isCurrent(p)) this.enqueueByLeader(p, e, [part], e);
    });
  }

  private channel(broker: string): BrokerChannel {
    let c = this.channels.get(broker);
    if (!c) {
      c = {
        broker,
        queue: [],
        connection: null,
        inFlight: false,
        apiMaxVersion: null,
        reconnectAtMs: 0,
        reconnectTimerSet: false,
      };
      this.channels.set(broker, c);
    }
    return c;
  }

  /** InterBrokerSendThread wakes up on enqueue: one pass per tick, batching what was queued. */
  private wakeup(): void {
    if (this.wakeupScheduled) return;
    this.wakeupScheduled = true;
    this.ctx.sim.schedule(0, () => {
      this.wakeupScheduled = false;
      if (!this.host.stopped()) this.sendLoop();
    });
  }

  private retryCompletionLater(pending: PendingCompleteTxn): void {
    if (this.completionRetries.length >= MAX_QUEUED_PER_BROKER) {
      throw new BoundExceeded(`completions waiting for a retry at ${this.self}`, MAX_QUEUED_PER_BROKER);
    }
    this.completionRetries.push(pending);
    if (this.completionRetryTimerSet) return;
    this.completionRetryTimerSet = true;
    this.ctx.sim.schedule(this.ctx.config.txnLogAppendRetryBackoffMs, () => {
      this.completionRetryTimerSet = false;
      this.wakeup();
    });
  }

  private sendLoop(): void {
    const retries = this.completionRetries.splice(0);
    for (const pending of retries)
      if (this.pendingTxns.get(pending.transactionalId) === pending) this.writeTxnCompletion(pending);
    for (const channel of this.channels.values()) this.trySend(channel);
  }

  private trySend(channel: BrokerChannel): void {
    if (channel.inFlight || channel.queue.length === 0) return;
    const now = this.ctx.sim.nowMs;
    if (!channel.connection?.open) {
      if (now < channel.reconnectAtMs) {
        if (!channel.reconnectTimerSet) {
          channel.reconnectTimerSet = true;
          this.ctx.sim.schedule(channel.reconnectAtMs - now, () => {
            channel.reconnectTimerSet = false;
            this.trySend(channel);
          });
        }
        return;
      }
      channel.connection = this.ctx.net.connect(this.self, channel.broker, MARKER_CHANNEL);
      channel.apiMaxVersion = null;
    }
    const flags = this.release().flags;
    if (flags.markerVersionDiscovery && channel.apiMaxVersion === null)
      return this.discoverVersions(channel, channel.connection);
    const version = flags.markerVersionDiscovery
      ? Math.min(flags.maxWriteTxnMarkersVersion, channel.apiMaxVersion as number)
      : flags.maxWriteTxnMarkersVersion;
    const batch = channel.queue.splice(0);
    this.sendMarkers(channel, channel.connection, version, batch);
  }

  /** NetworkClient with discoverBrokerVersions: ApiVersions first on every new connection. */
  private discoverVersions(channel: BrokerChannel, connection: Connection): void {
    channel.inFlight = true;
    this.ctx.net.request(connection, { api: "ApiVersions" }, this.ctx.config.requestTimeoutMs, (result) => {
      channel.inFlight = false;
      if (this.host.stopped()) return;
      if (result.kind === "response" && result.body.api === "ApiVersions") {
        channel.apiMaxVersion = result.body.writeTxnMarkersMaxVersion;
        this.ctx.sim.emit(this.self, "markers.api-versions", { broker: channel.broker, max: channel.apiMaxVersion });
      } else {
        this.disconnected(channel);
      }
      this.wakeup();
    });
  }

  private sendMarkers(channel: BrokerChannel, connection: Connection, version: number, batch: QueuedMarker[]): void {
    const fill = this.release().flags.fillMarkerTransactionVersion;
    const markers: WritableTxnMarker[] = batch.map(({ entry }) => ({
      producerId: entry.producerId,
      producerEpoch: entry.producerEpoch,
      transactionResult: entry.result === "COMMIT",
      topics: groupByTopic(entry.partitions),
      coordinatorEpoch: entry.coordinatorEpoch,
      transactionVersion: fill ? entry.transactionVersion : 0,
    }));
    const ghosts: MarkerGhost[] = batch.map(({ entry }) => ({
      ghostTxn: entry.ghostTxn,
      transactionalId: entry.transactionalId,
      markerId: entry.markerId,
      resend: entry.resend,
    }));
    const bytes = encodeWriteTxnMarkersRequest(
      { apiVersion: version, correlationId: this.nextCorrelationId++, clientId: `${this.self}-txn-marker-sender` },
      markers,
    );
    // corr ties each marker to its request's arrow; tv is the transaction's version, which only a v2 request carries.
    const corr = this.ctx.net.nextCorrelationId;
    for (const { entry } of batch) {
      this.ctx.sim.emit(this.self, "markers.send", {
        broker: channel.broker,
        marker: entry.markerId,
        resend: entry.resend,
        v: version,
        pid: entry.producerId,
        epoch: entry.producerEpoch,
        result: entry.result,
        ce: entry.coordinatorEpoch,
        tv: entry.transactionVersion,
        partitions: entry.partitions.join(","),
        txn: entry.ghostTxn,
        corr,
      });
    }
    channel.inFlight = true;
    const correlationId = this.ctx.net.request(
      connection,
      { api: "WriteTxnMarkers", bytes, ghosts },
      this.ctx.config.requestTimeoutMs,
      (result) => this.onMarkersResult(channel, version, batch, result),
    );
    const release = this.release().name;
    batch.forEach(({ entry }, i) => {
      this.ctx.ghost.markerSent({
        markerId: entry.markerId,
        resend: entry.resend,
        ghostTxn: entry.ghostTxn,
        transactionalId: entry.transactionalId,
        coordinator: this.self,
        coordinatorRelease: release,
        coordinatorEpoch: entry.coordinatorEpoch,
        broker: channel.broker,
        version,
        transactionVersionField: (markers[i] as WritableTxnMarker).transactionVersion,
        producerId: entry.producerId,
        producerEpoch: entry.producerEpoch,
        result: entry.result,
        partitions: [...entry.partitions],
        correlationId,
        atMs: this.ctx.sim.nowMs,
      });
      entry.resend++;
    });
  }

  private disconnected(channel: BrokerChannel): void {
    channel.connection = null;
    channel.apiMaxVersion = null;
    channel.reconnectAtMs = this.ctx.sim.nowMs + this.ctx.config.reconnectBackoffMs;
  }

  /** Still the coordinator of this transaction at the same coordinator epoch, with the same pending entry? */
  private isCurrent(pending: PendingCompleteTxn): boolean {
    return this.isServing(pending) && this.pendingTxns.get(pending.transactionalId) === pending;
  }

  private isServing(pending: PendingCompleteTxn): boolean {
    return this.state.isServing(this.state.partitionFor(pending.transactionalId), pending.coordinatorEpoch);
  }

  private onMarkersResult(
    channel: BrokerChannel,
    version: number,
    batch: QueuedMarker[],
    result: RpcResult<KafkaResponse>,
  ): void {
    channel.inFlight = false;
    // A stopped broker's responses are never processed (its process is gone).
    if (this.host.stopped()) return;
    if (result.kind === "disconnected") {
      this.disconnected(channel);
      for (const { pending, entry } of batch) {
        if (this.isCurrent(pending)) {
          this.ctx.sim.emit(this.self, "markers.requeue", {
            broker: channel.broker,
            marker: entry.markerId,
            reason: result.reason,
          });
          this.enqueueByLeader(pending, entry, entry.partitions, entry);
        } else {
          this.removeMarkersForTxn(pending);
        }
      }
      return this.wakeup();
    }
    if (result.body.api !== "WriteTxnMarkers")
      throw new IllegalStateException(`marker response was ${result.body.api}`);
    const response = decodeWriteTxnMarkersResponse(version, result.body.bytes);
    batch.forEach(({ pending, entry }, i) => {
      const markerResult = response.markers[i];
      if (!markerResult || markerResult.producerId !== entry.producerId) {
        throw new IllegalStateException(`WriteTxnMarkers response lacks producer ${entry.producerId}`);
      }
      const errors = new Map<PartitionKey, number>();
      for (const t of markerResult.topics)
        for (const p of t.partitions) errors.set(`${t.name}-${p.partitionIndex}`, p.errorCode);
      this.handleMarkerResult(channel, pending, entry, errors);
    });
    this.wakeup();
  }

  private handleMarkerResult(
    channel: BrokerChannel,
    pending: PendingCompleteTxn,
    entry: TxnMarkerEntry,
    errors: Map<PartitionKey, number>,
  ): void {
    if (!this.isCurrent(pending)) return this.removeMarkersForTxn(pending);
    const metadata = pending.metadata;
    const retry: PartitionKey[] = [];
    let abandonWith: number | null = null;
    for (const [partition, errorCode] of errors) {
      if (
        errorCode === Errors.NONE ||
        errorCode === Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT ||
        errorCode === Errors.UNSUPPORTED_VERSION
      ) {
        if (metadata.state !== "PrepareCommit" && metadata.state !== "PrepareAbort") {
          throw new IllegalStateException(
            `removePartition ${partition} while ${metadata.transactionalId} is ${metadata.state}`,
          );
        }
        metadata.topicPartitions.delete(partition);
        pending.acked++;
      } else if (RETRIABLE.has(errorCode)) {
        retry.push(partition);
      } else if (errorCode === Errors.INVALID_PRODUCER_EPOCH || errorCode === Errors.TRANSACTION_COORDINATOR_FENCED) {
        abandonWith = errorCode;
      } else {
        throw new IllegalStateException(`unexpected marker error ${errorName(errorCode)} for ${partition}`);
      }
    }
    if (abandonWith !== null) {
      // Kafka stops sending markers for the whole transaction; CompleteX is never written and the
      // transaction stays in PrepareX (pending CompleteX) until a coordinator reload re-sends.
      this.ctx.sim.emit(this.self, "markers.abandon", {
        txnId: pending.transactionalId,
        broker: channel.broker,
        error: abandonWith,
      });
      this.ctx.ghost.markerSendingAbandoned({
        transactionalId: pending.transactionalId,
        ghostTxn: metadata.ghostTxn,
        coordinator: this.self,
        broker: channel.broker,
        errorCode: abandonWith,
        atMs: this.ctx.sim.nowMs,
      });
      return this.removeMarkersForTxn(pending);
    }
    if (retry.length > 0) return this.enqueueByLeader(pending, entry, retry, entry);
    if (this.completionWakeupLost(pending)) return;
    // KAFKA-10080's bug switch: in Kafka each response handler thread removed its partitions, then
    // (not atomically with it) checked for completion; the check is a step of its own here, so a
    // second acknowledgement handled at the same instant sees the same empty set and writes too.
    if (this.release().flags.tcCompletionWriteNotExclusive)
      this.ctx.sim.schedule(0, () => this.maybeWriteTxnCompletion(pending.transactionalId));
    else this.maybeWriteTxnCompletion(pending.transactionalId);
  }

  /**
   * KAFKA-9777's bug switch: before 2.6 the last acknowledgement woke a DelayedTxnMarker in a
   * purgatory whose completion only tries the transaction's lock (tryLock); when a request for the
   * same transactional.id holds it at that moment, the wake-up is skipped and nothing retries it.
   * "At that moment" is the same virtual millisecond here (the simulation has no threads).
   */
  private completionWakeupLost(pending: PendingCompleteTxn): boolean {
    const metadata = pending.metadata;
    if (!this.release().flags.tcMarkerCompletionWakeupMayBeLost || metadata.topicPartitions.size > 0) return false;
    if (metadata.lastRequestAtMs !== this.ctx.sim.nowMs) return false;
    this.ctx.sim.emit(this.self, "markers.completion-wakeup-lost", { txnId: pending.transactionalId });
    this.ctx.ghost.markerCompletionWakeupLost({
      transactionalId: pending.transactionalId,
      ghostTxn: metadata.ghostTxn,
      coordinator: this.self,
      requestAtMs: metadata.lastRequestAtMs,
      atMs: this.ctx.sim.nowMs,
    });
    return true;
  }

  private removeMarkersForTxn(pending: PendingCompleteTxn): void {
    // KAFKA-16352: compare-and-remove. The bug switch removes by transactional.id, so an operation of
    // an old coordinator epoch deletes the pending completion a reload created since.
    const byId = this.release().flags.tcStaleMarkerOpRemovesNewPending;
    if (byId || this.pendingTxns.get(pending.transactionalId) === pending)
      this.pendingTxns.delete(pending.transactionalId);
    for (const channel of this.channels.values()) {
      for (let i = channel.queue.length - 1; i >= 0; i--)
        if ((channel.queue[i] as QueuedMarker).pending === pending) channel.queue.splice(i, 1);
    }
    for (let i = this.unknownBrokerQueue.length - 1; i >= 0; i--)
      if ((this.unknownBrokerQueue[i] as (typeof this.unknownBrokerQueue)[number]).pending === pending)
        this.unknownBrokerQueue.splice(i, 1);
    for (let i = this.completionRetries.length - 1; i >= 0; i--)
      if (this.completionRetries[i] === pending) this.completionRetries.splice(i, 1);
  }

  private maybeWriteTxnCompletion(transactionalId: string): void {
    const pending = this.pendingTxns.get(transactionalId);
    if (!pending) return;
    const allAcked = pending.metadata.topicPartitions.size === 0;
    const done = allAcked || (!this.release().flags.completeAfterAllMarkersAcked && pending.acked > 0);
    // KAFKA-10080: only one caller writes the completion (`completing`); the bug switch lets a
    // second acknowledgement write it again while the first write is in flight.
    if (!done || (pending.completing && !this.release().flags.tcCompletionWriteNotExclusive)) return;
    if (!this.isServing(pending)) return this.removeMarkersForTxn(pending);
    this.writeTxnCompletion(pending);
  }

  private writeTxnCompletion(pending: PendingCompleteTxn): void {
    const metadata = pending.metadata;
    pending.completing = true;
    this.state.appendTransactionToLog(
      metadata,
      pending.coordinatorEpoch,
      pending.completeTransit,
      (errorCode) => {
        if (errorCode === Errors.NONE) {
          this.removeMarkersForTxn(pending);
          this.ctx.sim.emit(this.self, "txn.complete", {
            txnId: metadata.transactionalId,
            state: metadata.state,
            pid: metadata.producerId,
            epoch: metadata.producerEpoch,
            txn: metadata.ghostTxn,
          });
          this.ctx.ghost.txnCompleted({
            ghostTxn: metadata.ghostTxn,
            transactionalId: metadata.transactionalId,
            result: pending.result,
            coordinator: this.self,
            atMs: this.ctx.sim.nowMs,
          });
        } else if (errorCode === Errors.COORDINATOR_NOT_AVAILABLE) {
          pending.completing = false;
          this.retryCompletionLater(pending);
        } else if (errorCode === Errors.NOT_COORDINATOR || errorCode === Errors.COORDINATOR_LOAD_IN_PROGRESS) {
          this.removeMarkersForTxn(pending); // the new coordinator will finish it
        } else {
          throw new IllegalStateException(`CompleteX append failed with ${errorName(errorCode)}`);
        }
      },
      (errorCode) => errorCode === Errors.COORDINATOR_NOT_AVAILABLE,
    );
  }
}

function sameSet(a: readonly PartitionKey[], b: readonly PartitionKey[]): boolean {
  return a.length === b.length && a.every((p) => b.includes(p));
}

function groupByTopic(partitions: readonly PartitionKey[]): { name: string; partitionIndexes: number[] }[] {
  const topics = new Map<string, number[]>();
  for (const p of partitions) {
    const { topic, partition } = parsePartitionKey(p);
    const list = topics.get(topic) ?? [];
    list.push(partition);
    topics.set(topic, list);
  }
  return [...topics].map(([name, partitionIndexes]) => ({ name, partitionIndexes }));
}
