import type { Stream } from "../../sim/choice-tape.js";
import type { InboundRequest } from "../../sim/network.js";
import { Errors } from "../common/errors.js";
import type { PartitionKey, TransactionResult } from "../common/types.js";
import type { MarkerOutcome } from "../ghost.js";
import type { ClusterContext } from "../cluster-context.js";
import type { FetchRequest, KafkaRequest, KafkaResponse, ProduceRequest, WriteTxnMarkersRequest } from "../protocol.js";
import type { ReleaseName, ReleaseProfile } from "../release.js";
import { ByteReader, WireFormatError } from "../wire/byte-buffer.js";
import {
  encodeWriteTxnMarkersResponse,
  readRequestHeader,
  readWriteTxnMarkersRequestBody,
  WRITE_TXN_MARKERS_API_KEY,
  type WritableTxnMarker,
  type WritableTxnMarkerResult,
} from "../wire/write-txn-markers.js";
import { AddPartitionsToTxnManager, produceErrorForVerification } from "./add-partitions-to-txn-manager.js";
import { PartitionLog } from "./partition-log.js";

type Inbound = InboundRequest<KafkaRequest, KafkaResponse>;

/**
 * A broker leading some partitions: KafkaApis + ReplicaManager + the partitions' logs. Replication
 * is abstracted into a drawn delay after which the high watermark covers the append (acks=-1).
 */
export class KafkaBroker {
  readonly logs = new Map<PartitionKey, PartitionLog>();
  private release: ReleaseProfile;
  private readonly verifier: AddPartitionsToTxnManager;
  /** Replication is in order: an append is replicated no earlier than the one before it. */
  private lastReplicationMs = new Map<PartitionKey, number>();
  private replicationStream: Stream | null = null;

  constructor(
    private readonly ctx: ClusterContext,
    readonly id: string,
    release: ReleaseProfile,
    partitions: readonly PartitionKey[],
  ) {
    this.release = release;
    for (const p of partitions) this.logs.set(p, new PartitionLog(p, () => this.release.flags));
    this.verifier = new AddPartitionsToTxnManager(ctx, id, ctx.config.requestTimeoutMs);
    ctx.net.registerServer(id, (request) => this.handle(request));
  }

  get releaseName(): ReleaseName {
    return this.release.name;
  }

  get nowMs(): number {
    return this.ctx.sim.nowMs;
  }

  get profile(): ReleaseProfile {
    return this.release;
  }

  /** Rolling upgrade: the broker restarts on a new release (clients reconnect and renegotiate). */
  upgrade(release: ReleaseProfile): void {
    this.ctx.sim.emit(this.id, "broker.upgrade", { from: this.release.name, to: release.name });
    this.release = release;
  }

  private handle(request: Inbound): void {
    const body = request.body;
    switch (body.api) {
      case "Produce":
        return this.handleProduce(request, body);
      case "WriteTxnMarkers":
        return this.handleWriteTxnMarkers(request, body);
      case "ApiVersions":
        return request.respond({
          api: "ApiVersions",
          errorCode: Errors.NONE,
          writeTxnMarkersMaxVersion: this.release.flags.maxWriteTxnMarkersVersion,
        });
      case "Fetch":
        return this.handleFetch(request, body);
      default:
        throw new Error(`broker ${this.id} cannot handle ${body.api}`);
    }
  }

  // ---------------------------------------------------------------- produce

  private handleProduce(request: Inbound, body: ProduceRequest): void {
    const log = this.logs.get(body.partition);
    if (!log) return request.respond(produceError(Errors.NOT_LEADER_OR_FOLLOWER, "not the leader"));
    const transactional = body.transactionalId !== null;
    if (transactional && this.release.flags.transactionPartitionVerification) {
      const supportsEpochBump = body.version >= 12;
      const guard = log.maybeStartTransactionVerification(
        body.producerId,
        body.baseSequence,
        body.producerEpoch,
        supportsEpochBump,
      );
      if (guard !== 0) {
        const addPartition = supportsEpochBump && this.release.flags.supportsTransactionVersion2;
        this.verifier.verify(
          {
            api: "AddPartitionsToTxn",
            version: addPartition ? 5 : 4,
            transactionalId: body.transactionalId as string,
            producerId: body.producerId,
            producerEpoch: body.producerEpoch,
            partitions: [body.partition],
            verifyOnly: !addPartition,
            ghostTxn: body.ghostTxn,
          },
          (errorCode) => {
            const mapped = produceErrorForVerification(errorCode, body.version);
            if (mapped !== Errors.NONE) {
              this.ctx.sim.emit(this.id, "produce.verify-failed", {
                partition: body.partition,
                pid: body.producerId,
                epoch: body.producerEpoch,
                error: mapped,
              });
              return request.respond(produceError(mapped, `verification: coordinator answered ${errorCode}`));
            }
            this.appendProduce(request, body, guard);
          },
        );
        return;
      }
    }
    this.appendProduce(request, body, 0);
  }

  private appendProduce(request: Inbound, body: ProduceRequest, guard: number): void {
    const log = this.logs.get(body.partition) as PartitionLog;
    const result = log.appendData({
      producerId: body.producerId,
      producerEpoch: body.producerEpoch,
      baseSequence: body.baseSequence,
      isTransactional: body.transactionalId !== null,
      values: body.values,
      ghostTxn: body.ghostTxn,
      verificationGuard: guard,
    });
    const now = this.ctx.sim.nowMs;
    if (result.kind === "error") {
      this.ctx.sim.emit(this.id, "produce.rejected", {
        partition: body.partition,
        pid: body.producerId,
        epoch: body.producerEpoch,
        seq: body.baseSequence,
        error: result.errorCode,
      });
      return request.respond(produceError(result.errorCode, result.reason));
    }
    if (result.kind === "duplicate") {
      this.ctx.sim.emit(this.id, "produce.duplicate", {
        partition: body.partition,
        pid: body.producerId,
        seq: body.baseSequence,
        offset: result.firstOffset,
      });
      return this.afterReplication(body.partition, result.lastOffset + 1, () =>
        request.respond({ api: "Produce", errorCode: Errors.NONE, baseOffset: result.firstOffset, errorMessage: null }),
      );
    }
    const batch = result.batch;
    this.ctx.sim.emit(this.id, "produce.append", {
      partition: body.partition,
      pid: body.producerId,
      epoch: body.producerEpoch,
      seq: body.baseSequence,
      offset: batch.baseOffset,
      txn: body.ghostTxn,
      corr: request.correlationId,
    });
    this.ctx.ghost.batchAppended({ broker: this.id, partition: body.partition, batch, atMs: now });
    this.replicate(body.partition, batch.lastOffset + 1, () =>
      request.respond({ api: "Produce", errorCode: Errors.NONE, baseOffset: batch.baseOffset, errorMessage: null }),
    );
  }

  // ---------------------------------------------------------------- replication

  /** Schedule the high watermark to reach `endOffset` (in append order), then run `then`. */
  private replicate(partition: PartitionKey, endOffset: number, then: () => void): void {
    const { min, max } = this.ctx.config.replicationDelayMs;
    // The stream is resolved at its first use, as a by-name draw would create it (tape order unchanged).
    this.replicationStream ??= this.ctx.choices.stream(`replication:${this.id}`);
    const delay = this.replicationStream.between(min, max);
    const at = Math.max(this.ctx.sim.nowMs + delay, this.lastReplicationMs.get(partition) ?? 0);
    this.lastReplicationMs.set(partition, at);
    this.ctx.sim.scheduleAt(at, () => {
      const log = this.logs.get(partition) as PartitionLog;
      log.onHighWatermarkUpdated(endOffset);
      this.ctx.sim.emit(this.id, "log.hw", { partition, hw: log.highWatermark, lso: log.lastStableOffset() });
      then();
    });
  }

  /** For a duplicate: answer once the high watermark covers the original. */
  private afterReplication(partition: PartitionKey, endOffset: number, then: () => void): void {
    const log = this.logs.get(partition) as PartitionLog;
    if (log.highWatermark >= endOffset) return then();
    this.ctx.sim.scheduleAt(Math.max(this.lastReplicationMs.get(partition) ?? 0, this.ctx.sim.nowMs), then);
  }

  // ---------------------------------------------------------------- WriteTxnMarkers

  private handleWriteTxnMarkers(request: Inbound, body: WriteTxnMarkersRequest): void {
    const flags = this.release.flags;
    let markers: WritableTxnMarker[];
    let version: number;
    let correlationId: number; // the header's id, echoed in the response
    try {
      const reader = new ByteReader(body.bytes);
      const header = readRequestHeader(reader);
      version = header.apiVersion;
      correlationId = header.correlationId;
      if (header.apiKey !== WRITE_TXN_MARKERS_API_KEY || version < 1 || version > flags.maxWriteTxnMarkersVersion) {
        // SocketServer.parseRequestHeader: InvalidRequestException for a version that is not enabled;
        // processChannelException closes the connection without a response.
        return this.refuseMarkers(
          request,
          body,
          version,
          `WriteTxnMarkers v${version} is not supported (max v${flags.maxWriteTxnMarkersVersion})`,
        );
      }
      markers = readWriteTxnMarkersRequestBody(reader, version);
      reader.expectEnd("WriteTxnMarkersRequest");
    } catch (e) {
      if (e instanceof WireFormatError)
        return this.refuseMarkers(request, body, -1, `unparseable request: ${e.message}`);
      throw e;
    }
    if (markers.length !== body.ghosts.length) throw new Error("ghost side-car does not match the markers");

    const results: WritableTxnMarkerResult[] = [];
    const waits: { partition: PartitionKey; endOffset: number }[] = [];
    markers.forEach((marker, i) => {
      const ghost = body.ghosts[i] as WriteTxnMarkersRequest["ghosts"][number];
      const topics = marker.topics.map((topic) => ({
        name: topic.name,
        partitions: topic.partitionIndexes.map((index) => {
          const partition = `${topic.name}-${index}`;
          const errorCode = this.applyMarker(partition, marker, ghost, version, request.correlationId, waits);
          return { partitionIndex: index, errorCode };
        }),
      }));
      results.push({ producerId: marker.producerId, topics });
    });
    const respond = () =>
      request.respond({
        api: "WriteTxnMarkers",
        bytes: encodeWriteTxnMarkersResponse(version, correlationId, results),
      });
    this.waitAll(waits, respond);
  }

  private refuseMarkers(request: Inbound, body: WriteTxnMarkersRequest, version: number, reason: string): void {
    this.ctx.sim.emit(this.id, "markers.refused", { version, reason });
    this.ctx.ghost.markerRequestRefused({
      broker: this.id,
      brokerRelease: this.release.name,
      version,
      reason,
      markerIds: body.ghosts.map((g) => g.markerId),
      atMs: this.ctx.sim.nowMs,
    });
    request.closeConnection(reason);
  }

  /** One marker at one partition: Kafka's checks, the append, and the ghost report. Returns the error code. */
  private applyMarker(
    partition: PartitionKey,
    marker: WritableTxnMarker,
    ghost: WriteTxnMarkersRequest["ghosts"][number],
    version: number,
    correlationId: number,
    waits: { partition: PartitionKey; endOffset: number }[],
  ): number {
    const log = this.logs.get(partition);
    const result = marker.transactionResult ? "COMMIT" : "ABORT";
    const report = (judged: MarkerJudgement) =>
      this.ctx.ghost.markerApplied(
        markerOutcome(this, partition, marker, ghost, version, correlationId, result, judged),
      );
    if (!log) {
      const errorCode =
        this.ctx.metadata.leaderOf(partition) === null
          ? Errors.UNKNOWN_TOPIC_OR_PARTITION
          : Errors.NOT_LEADER_OR_FOLLOWER;
      report({
        storedEpochBefore: -1,
        storedCoordinatorEpochBefore: -1,
        openTxnBefore: false,
        rule: "unchecked",
        errorCode,
        markerOffset: null,
        completed: null,
        closedBatches: [],
      });
      return errorCode;
    }
    const outcome = log.appendMarker({
      producerId: marker.producerId,
      producerEpoch: marker.producerEpoch,
      result,
      coordinatorEpoch: marker.coordinatorEpoch,
      transactionVersion: marker.transactionVersion,
      ghostTxn: ghost.ghostTxn,
    });
    if (outcome.kind === "error") {
      this.ctx.sim.emit(this.id, "marker.rejected", {
        partition,
        pid: marker.producerId,
        epoch: marker.producerEpoch,
        stored: outcome.storedEpochBefore,
        ce: marker.coordinatorEpoch,
        tv: marker.transactionVersion,
        rule: outcome.rule,
        error: outcome.errorCode,
        txn: ghost.ghostTxn,
        marker: ghost.markerId,
        resend: ghost.resend,
        v: version,
        corr: correlationId,
      });
      report({
        storedEpochBefore: outcome.storedEpochBefore,
        storedCoordinatorEpochBefore: outcome.storedCoordinatorEpochBefore,
        openTxnBefore: outcome.openTxnBefore,
        rule: outcome.rule,
        errorCode: outcome.errorCode,
        markerOffset: null,
        completed: null,
        closedBatches: [],
      });
      return outcome.errorCode;
    }
    const completed = outcome.completed;
    this.ctx.sim.emit(this.id, "marker.append", {
      partition,
      pid: marker.producerId,
      epoch: marker.producerEpoch,
      stored: outcome.storedEpochBefore,
      ce: marker.coordinatorEpoch,
      tv: marker.transactionVersion,
      rule: outcome.rule,
      result,
      offset: outcome.batch.baseOffset,
      closedFrom: completed ? completed.firstOffset : -1,
      txn: ghost.ghostTxn,
      marker: ghost.markerId,
      resend: ghost.resend,
      v: version,
      corr: correlationId,
    });
    report({
      storedEpochBefore: outcome.storedEpochBefore,
      storedCoordinatorEpochBefore: outcome.storedCoordinatorEpochBefore,
      openTxnBefore: outcome.openTxnBefore,
      rule: outcome.rule,
      errorCode: Errors.NONE,
      markerOffset: outcome.batch.baseOffset,
      completed,
      closedBatches: completed ? log.dataBatchesOf(marker.producerId, completed.firstOffset, completed.lastOffset) : [],
    });
    waits.push({ partition, endOffset: outcome.batch.lastOffset + 1 });
    return Errors.NONE;
  }

  private waitAll(waits: { partition: PartitionKey; endOffset: number }[], then: () => void): void {
    let remaining = waits.length;
    if (remaining === 0) return then();
    for (const w of waits) {
      this.replicate(w.partition, w.endOffset, () => {
        remaining--;
        if (remaining === 0) then();
      });
    }
  }

  // ---------------------------------------------------------------- fetch

  private handleFetch(request: Inbound, body: FetchRequest): void {
    const log = this.logs.get(body.partition);
    if (!log) {
      return request.respond({
        api: "Fetch",
        errorCode: Errors.NOT_LEADER_OR_FOLLOWER,
        highWatermark: -1,
        lastStableOffset: -1,
        batches: [],
        abortedTransactions: [],
      });
    }
    const lastStableOffset = log.lastStableOffset();
    const read = log.read(body.fetchOffset, body.isolation, body.maxBatches, false, lastStableOffset);
    request.respond({
      api: "Fetch",
      errorCode: Errors.NONE,
      highWatermark: log.highWatermark,
      lastStableOffset,
      batches: read.batches,
      abortedTransactions: read.abortedTransactions,
    });
  }
}

/** What the leader's checks made of one marker at one partition. */
type MarkerJudgement = Pick<
  MarkerOutcome,
  | "storedEpochBefore"
  | "storedCoordinatorEpochBefore"
  | "openTxnBefore"
  | "rule"
  | "errorCode"
  | "markerOffset"
  | "completed"
  | "closedBatches"
>;

/** The ghost's record of one marker at one partition, every field written out in one literal (spreading a shared part made V8 build it slowly). */
function markerOutcome(
  broker: KafkaBroker,
  partition: PartitionKey,
  marker: WritableTxnMarker,
  ghost: WriteTxnMarkersRequest["ghosts"][number],
  version: number,
  correlationId: number,
  result: TransactionResult,
  judged: MarkerJudgement,
): MarkerOutcome {
  return {
    markerId: ghost.markerId,
    resend: ghost.resend,
    ghostTxn: ghost.ghostTxn,
    transactionalId: ghost.transactionalId,
    broker: broker.id,
    brokerRelease: broker.releaseName,
    partition,
    requestVersion: version,
    correlationId,
    transactionVersionSeen: marker.transactionVersion,
    producerId: marker.producerId,
    markerEpoch: marker.producerEpoch,
    coordinatorEpoch: marker.coordinatorEpoch,
    result,
    atMs: broker.nowMs,
    storedEpochBefore: judged.storedEpochBefore,
    storedCoordinatorEpochBefore: judged.storedCoordinatorEpochBefore,
    openTxnBefore: judged.openTxnBefore,
    rule: judged.rule,
    errorCode: judged.errorCode,
    markerOffset: judged.markerOffset,
    completed: judged.completed,
    closedBatches: judged.closedBatches,
  };
}

function produceError(errorCode: number, message: string): KafkaResponse {
  return { api: "Produce", errorCode, baseOffset: -1, errorMessage: message };
}
