import type { Range } from "../cluster-spec.js";
import type { ClusterContext } from "../cluster-context.js";
import type { PartitionLog } from "../broker/partition-log.js";
import { Errors } from "../common/errors.js";
import type { PartitionKey } from "../common/types.js";
import type { KafkaRequest, KafkaResponse, MarkerGhost } from "../protocol.js";
import {
  decodeWriteTxnMarkersResponse,
  encodeWriteTxnMarkersRequest,
  type WritableTxnMarker,
  WRITE_TXN_MARKERS_MAX_VERSION,
} from "../wire/write-txn-markers.js";
import { ConnectionPool } from "../../sim/network.js";
import type { RpcResult } from "../../sim/network.js";

/** The node name of the operator's admin client. */
export const ADMIN_CLIENT_NODE = "admin";

/** Ghost marker ids of admin markers start here (coordinators count from 1, script harnesses from 1e9). */
const ADMIN_MARKER_ID_BASE = 2_000_000_000;

/**
 * Attempts of one abortTransaction before the admin client gives up (Kafka's bound is
 * default.api.timeout.ms; a bound on attempts keeps the model finite).
 */
const MAX_ATTEMPTS = 10;

/** AbortTransactionSpec: the partition, and the producer id, epoch and coordinator epoch the operator gives. */
export interface AbortTransactionSpec {
  topicPartition: PartitionKey;
  producerId: number;
  producerEpoch: number;
  coordinatorEpoch: number;
}

/** One producer of DescribeProducers' answer (DescribeProducersResponse.ProducerState). */
export interface ProducerState {
  producerId: number;
  producerEpoch: number;
  /** -1 when the producer never had a marker at this partition (Kafka: OptionalInt.empty()). */
  coordinatorEpoch: number;
  /** The first offset of its open transaction, or null (currentTxnStartOffset -1). */
  currentTransactionStartOffset: number | null;
}

/** What the admin client needs of the cluster: partition leaders and their logs. */
export interface AdminLookups {
  /** PartitionLeaderStrategy: the leader of a partition (null while it has none). */
  leaderOf(partition: PartitionKey): string | null;
  /** The leader's log of a partition (DescribeProducers reads its producer state). */
  logOf(broker: string, partition: PartitionKey): PartitionLog | undefined;
}

/**
 * The parts of KafkaAdminClient that KIP-664's abort uses: describeProducers (the producer state a
 * partition leader holds) and abortTransaction (AbortTransactionHandler: one WriteTxnMarkers ABORT
 * sent straight to the partition leader, with the spec's producer id, epoch and coordinator epoch).
 * The request is built from WriteTxnMarkersRequestData without a TransactionVersion, so the field
 * keeps its default 0 (legacy): a KIP-1228 leader judges the marker by the legacy epoch rule, as a
 * TV0/TV1 coordinator's. The version is the newest both sides support (NetworkClient's ApiVersions
 * discovery is on for admin clients): v2 to a 4.2 broker, v1 to older ones.
 */
export class KafkaAdminClient {
  private readonly pool: ConnectionPool<KafkaRequest, KafkaResponse>;
  /** What ApiVersions told this client per broker (reset on a disconnect). */
  private readonly apiMaxVersion = new Map<string, number>();
  private nextMarkerId = ADMIN_MARKER_ID_BASE;
  private nextCorrelationId = 1;

  constructor(
    private readonly ctx: ClusterContext,
    private readonly lookups: AdminLookups,
    private readonly retryBackoffMs: number,
  ) {
    this.pool = new ConnectionPool(ctx.net, ADMIN_CLIENT_NODE);
  }

  /** Admin.describeProducers for one partition: its leader's producer state, in producer-id order. */
  describeProducers(partition: PartitionKey): { leader: string; producers: ProducerState[] } | null {
    const leader = this.lookups.leaderOf(partition);
    const log = leader === null ? undefined : this.lookups.logOf(leader, partition);
    if (leader === null || !log) return null;
    const producers = [...log.producers.values()]
      .map((e) => ({
        producerId: e.producerId,
        producerEpoch: e.producerEpoch,
        coordinatorEpoch: e.coordinatorEpoch,
        currentTransactionStartOffset: e.currentTxnFirstOffset,
      }))
      .sort((a, b) => a.producerId - b.producerId);
    return { leader, producers };
  }

  /**
   * Admin.abortTransaction: `ghostTxn` is the transaction the operator means to abort (the oracle's
   * feed, not Kafka's); `onDone` gets Kafka's final error code (NONE when the marker was written).
   */
  abortTransaction(spec: AbortTransactionSpec, ghostTxn: string | null, onDone: (errorCode: number) => void): void {
    const ghost: MarkerGhost = { ghostTxn, transactionalId: "(admin)", markerId: this.nextMarkerId++, resend: 0 };
    this.attempt(spec, ghost, 1, onDone);
  }

  private attempt(spec: AbortTransactionSpec, ghost: MarkerGhost, n: number, onDone: (errorCode: number) => void) {
    const retry = (why: string) => {
      if (n >= MAX_ATTEMPTS) {
        this.ctx.sim.emit(ADMIN_CLIENT_NODE, "admin.abort-failed", { partition: spec.topicPartition, reason: why });
        return onDone(Errors.REQUEST_TIMED_OUT);
      }
      this.ctx.sim.schedule(this.retryBackoffMs, () => this.attempt(spec, ghost, n + 1, onDone));
    };
    // PartitionLeaderStrategy: find the leader; none yet means look again after the backoff.
    const leader = this.lookups.leaderOf(spec.topicPartition);
    if (leader === null) return retry("no leader");
    const max = this.apiMaxVersion.get(leader);
    const connection = this.pool.to(leader);
    if (max === undefined) {
      this.ctx.net.request(connection, { api: "ApiVersions" }, this.ctx.config.requestTimeoutMs, (result) => {
        if (result.kind === "response" && result.body.api === "ApiVersions") {
          this.apiMaxVersion.set(leader, result.body.writeTxnMarkersMaxVersion);
          this.attempt(spec, ghost, n, onDone);
        } else retry("disconnected");
      });
      return;
    }
    const version = Math.min(WRITE_TXN_MARKERS_MAX_VERSION, max);
    const marker = abortMarker(spec);
    const bytes = encodeWriteTxnMarkersRequest(
      { apiVersion: version, correlationId: this.nextCorrelationId++, clientId: ADMIN_CLIENT_NODE },
      [marker],
    );
    this.ctx.sim.emit(ADMIN_CLIENT_NODE, "admin.abort-transaction", {
      broker: leader,
      partition: spec.topicPartition,
      v: version,
      pid: spec.producerId,
      epoch: spec.producerEpoch,
      ce: spec.coordinatorEpoch,
      txn: ghost.ghostTxn,
      attempt: n,
    });
    this.ctx.net.request(
      connection,
      { api: "WriteTxnMarkers", bytes, ghosts: [{ ...ghost, resend: n - 1 }] },
      this.ctx.config.requestTimeoutMs,
      (result: RpcResult<KafkaResponse>) => {
        if (result.kind === "disconnected") {
          this.apiMaxVersion.delete(leader);
          return retry("disconnected");
        }
        if (result.body.api !== "WriteTxnMarkers") return onDone(Errors.UNKNOWN_SERVER_ERROR);
        const response = decodeWriteTxnMarkersResponse(version, result.body.bytes);
        const errorCode = response.markers[0]?.topics[0]?.partitions[0]?.errorCode ?? Errors.UNKNOWN_SERVER_ERROR;
        this.ctx.sim.emit(ADMIN_CLIENT_NODE, "admin.abort-result", {
          partition: spec.topicPartition,
          error: errorCode,
        });
        // AbortTransactionHandler.handleError: these four mean "find the leader again and retry".
        if (
          errorCode === Errors.NOT_LEADER_OR_FOLLOWER ||
          errorCode === Errors.REPLICA_NOT_AVAILABLE ||
          errorCode === Errors.BROKER_NOT_AVAILABLE ||
          errorCode === Errors.UNKNOWN_TOPIC_OR_PARTITION
        )
          return retry("leader moved");
        onDone(errorCode);
      },
    );
  }
}

/** AbortTransactionHandler.buildRequest: one ABORT marker for the spec's partition, producer and epochs. */
function abortMarker(spec: AbortTransactionSpec): WritableTxnMarker {
  const dash = spec.topicPartition.lastIndexOf("-");
  return {
    producerId: spec.producerId,
    producerEpoch: spec.producerEpoch,
    transactionResult: false,
    topics: [
      { name: spec.topicPartition.slice(0, dash), partitionIndexes: [Number(spec.topicPartition.slice(dash + 1))] },
    ],
    coordinatorEpoch: spec.coordinatorEpoch,
    // Not set by AbortTransactionHandler.buildRequest: WriteTxnMarkersRequest.json's default, 0.
    transactionVersion: 0,
  };
}

/**
 * An operator who runs `kafka-transactions.sh abort --topic T --partition P --start-offset O`
 * (TransactionsCommand.AbortTransactionCommand) on every transaction left open at a partition
 * leader for `openForMs`: describeProducers finds the producer whose transaction starts at O, and
 * after `operatorDelayMs` (the operator's own latency) abortTransaction sends its producer id,
 * epoch and coordinator epoch (0 when DescribeProducers has none). The operator does not consult
 * the coordinator first (find-hanging would skip a transaction the coordinator still lists).
 */
export class TransactionAbortOperator {
  /** When each open transaction (partition, producer id, start offset) was first seen. */
  private readonly firstSeen = new Map<string, number>();
  private readonly aborted = new Set<string>();

  constructor(
    private readonly ctx: ClusterContext,
    private readonly admin: KafkaAdminClient,
    private readonly partitions: readonly PartitionKey[],
    private readonly lookups: AdminLookups,
    private readonly settings: { checkIntervalMs: number; openForMs: number; operatorDelayMs: Range },
  ) {}

  start(): void {
    this.ctx.sim.schedule(this.settings.checkIntervalMs, () => this.check());
  }

  private check(): void {
    const now = this.ctx.sim.nowMs;
    for (const partition of this.partitions) {
      const described = this.admin.describeProducers(partition);
      if (!described) continue;
      for (const p of described.producers) {
        if (p.currentTransactionStartOffset === null) continue;
        const key = `${partition}/${p.producerId}/${p.currentTransactionStartOffset}`;
        const since = this.firstSeen.get(key);
        if (since === undefined) {
          this.firstSeen.set(key, now);
          continue;
        }
        if (now - since < this.settings.openForMs || this.aborted.has(key)) continue;
        this.aborted.add(key);
        this.abort(partition, described.leader, p);
      }
    }
    this.ctx.sim.schedule(this.settings.checkIntervalMs, () => this.check());
  }

  private abort(partition: PartitionKey, leader: string, p: ProducerState): void {
    const spec: AbortTransactionSpec = {
      topicPartition: partition,
      producerId: p.producerId,
      producerEpoch: p.producerEpoch,
      // TransactionsCommand: producerState.coordinatorEpoch().orElse(0).
      coordinatorEpoch: Math.max(p.coordinatorEpoch, 0),
    };
    const ghostTxn = this.ghostOf(leader, partition, p);
    const { min, max } = this.settings.operatorDelayMs;
    const delay = this.ctx.choices.between("admin", min, max);
    this.ctx.sim.emit(ADMIN_CLIENT_NODE, "admin.describe-producers", {
      partition,
      pid: p.producerId,
      epoch: p.producerEpoch,
      ce: spec.coordinatorEpoch,
      startOffset: p.currentTransactionStartOffset ?? -1,
      txn: ghostTxn,
      delayMs: delay,
    });
    this.ctx.sim.schedule(delay, () => this.admin.abortTransaction(spec, ghostTxn, () => {}));
  }

  /** The ghost transaction of the batch at the open transaction's start offset (the one the operator means). */
  private ghostOf(leader: string, partition: PartitionKey, p: ProducerState): string | null {
    const log = this.lookups.logOf(leader, partition);
    const start = p.currentTransactionStartOffset;
    if (!log || start === null) return null;
    return log.dataBatchesOf(p.producerId, start, start)[0]?.ghostTxn ?? null;
  }
}
