import type { BrokerConfig, ClusterContext } from "../../kafka/cluster-context.js";
import { Errors, errorCode, errorName, IllegalStateException } from "../../kafka/common/errors.js";
import { ProducerIdManager } from "../../kafka/coordinator/producer-id-manager.js";
import { TransactionCoordinator } from "../../kafka/coordinator/transaction-coordinator.js";
import { KafkaThrownException, TransactionMetadata } from "../../kafka/coordinator/transaction-metadata.js";
import type { TransactionVersion } from "../../kafka/common/types.js";
import { NO_GHOST } from "../../kafka/ghost.js";
import { type KafkaRequest, type KafkaResponse, labelOf } from "../../kafka/protocol.js";
import type { ReleaseProfile } from "../../kafka/release.js";
import { ByteReader } from "../../kafka/wire/byte-buffer.js";
import {
  encodeWriteTxnMarkersResponse,
  readRequestHeader,
  readWriteTxnMarkersRequestBody,
  type WritableTxnMarker,
} from "../../kafka/wire/write-txn-markers.js";
import { ChoiceSource } from "../../sim/choice-tape.js";
import { type InboundRequest, type LinkFaults, Network } from "../../sim/network.js";
import { Simulation } from "../../sim/simulation.js";
import { Trace } from "../../sim/trace.js";
import { metadataView } from "./model-txn-metadata.js";
import type {
  MarkerSent,
  TxnCoordinatorConfig,
  TxnCoordinatorOp,
  TxnCoordinatorResult,
} from "./txn-coordinator-ops.js";
import { modelState, sortedPartitions } from "./txn-names.js";
import type { TxnMetadataInit } from "./txn-metadata-ops.js";

/** Instant, faultless links: Kafka's side answers within the op, so the model's must too. */
const INSTANT: LinkFaults = {
  delay: { minMs: 0, maxMs: 0, slowPpm: 0, slowMinMs: 0, slowMaxMs: 0 },
  dropPpm: 0,
  duplicatePpm: 0,
  reorderPpm: 0,
};

/** Longer than any sequence: the harness's marker requests never time out, nor are periodic tasks run unasked. */
const NEVER_MS = 1_000_000_000_000;

/** The one leader every data partition has (Kafka's side: the stub MetadataCache's Node 1). */
const LEADER = "leader-1";

/**
 * The model's TransactionCoordinator as the txnCoordinator surface drives it, in the same
 * surroundings as Kafka's in the harness: it owns __transaction_state-0 (one partition) at the
 * config's coordinator epoch, its log appends answer at once (NONE, or the error of failNextAppend),
 * no periodic task runs unless an op asks (abortTimedOutTransactions), and its WriteTxnMarkers go to
 * one leader that records them and answers only on completeMarkers.
 */
export class ModelTxnCoordinator {
  readonly sim = new Simulation(new Trace());
  readonly tc: TransactionCoordinator;
  private readonly appendErrors: number[] = [];
  private readonly sent: MarkerSent[] = [];
  private readonly held: {
    request: InboundRequest<KafkaRequest, KafkaResponse>;
    version: number;
    correlationId: number;
    markers: WritableTxnMarker[];
  }[] = [];

  constructor(profile: ReleaseProfile, config: TxnCoordinatorConfig) {
    const choices = ChoiceSource.seeded(1);
    const net = new Network<KafkaRequest, KafkaResponse>(this.sim, choices, () => INSTANT, labelOf);
    const brokerConfig: BrokerConfig = {
      requestTimeoutMs: NEVER_MS,
      reconnectBackoffMs: 50,
      transactionMaxTimeoutMs: config.transactionMaxTimeoutMs,
      abortTimedOutTransactionCleanupIntervalMs: NEVER_MS,
      transactionalIdExpirationMs: null,
      removeExpiredTransactionalIdsIntervalMs: NEVER_MS,
      finalizedTransactionVersion: config.finalizedTransactionVersion as TransactionVersion,
      txnLogLoadDelayMs: 0,
      // Kafka's harness retries a failed completion write when it next calls generateRequests
      // (retryLogAppends), once per op: the model's retry timer never fires, so it retries on the send
      // thread's next pass only, as Kafka's does.
      txnLogAppendRetryBackoffMs: NEVER_MS,
      addPartitionsToTxnRetryBackoffMs: 20,
      addPartitionsToTxnRetryBackoffMaxMs: 100,
      replicaFetchWaitMaxMs: 500,
      replicaFetchBackoffMs: 100,
      replicaLagTimeMaxMs: 1_000,
      metadataPropagationDelayMs: { min: 0, max: 0 },
      controllerRpcDelayMs: { min: 0, max: 0 },
      brokerSessionTimeoutMs: 300,
      leaderImbalanceCheckIntervalMs: 0,
    };
    const ctx: ClusterContext = { sim: this.sim, net, choices, ghost: NO_GHOST, config: brokerConfig };
    net.registerServer(LEADER, (request) => this.onLeaderRequest(request, profile.flags.maxWriteTxnMarkersVersion));
    this.tc = new TransactionCoordinator(ctx, "coordinator", {
      release: profile,
      host: {
        log: {
          append: (_partition, _transactionalId, _value, _timeoutMs, onDone) => onDone(this.appendErrors.shift() ?? 0),
          read: () => [],
        },
        leaderOf: () => LEADER,
        stopped: () => false,
        finalizedTransactionVersion: () => config.finalizedTransactionVersion as TransactionVersion,
      },
      partitionCount: 1,
      producerIds: new ProducerIdManager(config.firstProducerId),
    });
    this.tc.onElection(0, config.coordinatorEpoch);
    this.settle();
  }

  /** putTransactionStateIfNotExists: the transaction the sequence starts from. */
  put(init: TxnMetadataInit): void {
    const m = new TransactionMetadata(
      init.transactionalId,
      init.producerId,
      init.producerEpoch,
      init.txnTimeoutMs,
      init.txnLastUpdateTimestamp,
    );
    m.prevProducerId = init.prevProducerId;
    m.nextProducerId = init.nextProducerId;
    m.lastProducerEpoch = init.lastProducerEpoch;
    m.state = modelState(init.state);
    m.topicPartitions = new Set(init.topicPartitions);
    m.txnStartTimestamp = init.txnStartTimestamp;
    m.clientTransactionVersion = init.clientTransactionVersion as TransactionVersion;
    this.tc.adopt(m);
  }

  /** The leader answers ApiVersions at once (its own release's maximum) and holds WriteTxnMarkers. */
  private onLeaderRequest(request: InboundRequest<KafkaRequest, KafkaResponse>, maxVersion: number): void {
    const body = request.body;
    if (body.api === "ApiVersions") {
      request.respond({ api: "ApiVersions", errorCode: 0, writeTxnMarkersMaxVersion: maxVersion });
      return;
    }
    if (body.api !== "WriteTxnMarkers") throw new Error(`the stub leader got ${body.api}`);
    const reader = new ByteReader(body.bytes);
    const header = readRequestHeader(reader);
    const markers = readWriteTxnMarkersRequestBody(reader, header.apiVersion);
    for (const m of markers)
      this.sent.push({
        producerId: m.producerId,
        producerEpoch: m.producerEpoch,
        coordinatorEpoch: m.coordinatorEpoch,
        result: m.transactionResult ? "COMMIT" : "ABORT",
        partitions: sortedPartitions(m.topics.flatMap((t) => t.partitionIndexes.map((i) => `${t.name}-${i}`))),
        transactionVersion: m.transactionVersion,
        requestVersion: header.apiVersion,
      });
    this.held.push({ request, version: header.apiVersion, correlationId: header.correlationId, markers });
  }

  /** Run what is due now (0-delay sends, responses) without moving the clock. */
  private settle(): void {
    this.sim.run({ maxEvents: 100_000, maxTimeMs: this.sim.nowMs });
  }

  apply(op: TxnCoordinatorOp): TxnCoordinatorResult {
    const result: TxnCoordinatorResult = { error: "NONE", exception: null, message: null, markers: [] };
    try {
      this.step(op, result);
    } catch (e) {
      // Kafka's handler lets an exception out and KafkaApis answers UNKNOWN_SERVER_ERROR.
      if (!(e instanceof IllegalStateException || e instanceof KafkaThrownException)) throw e;
      result.error = errorName(Errors.UNKNOWN_SERVER_ERROR);
      result.exception = e instanceof KafkaThrownException ? e.kafkaClass : "IllegalStateException";
      result.message = e.message;
    }
    this.settle();
    result.markers = this.sent.splice(0);
    return result;
  }

  private step(op: TxnCoordinatorOp, result: TxnCoordinatorResult): void {
    const answer = (errorCode: number, producerId: number, producerEpoch: number) => {
      result.error = errorName(errorCode);
      result.producerId = producerId;
      result.producerEpoch = producerEpoch;
    };
    switch (op.op) {
      case "initProducerId":
        this.tc.handleInitProducerId(
          {
            api: "InitProducerId",
            transactionalId: op.transactionalId,
            transactionTimeoutMs: op.transactionTimeoutMs,
            producerId: op.producerId,
            producerEpoch: op.producerEpoch,
          },
          answer,
        );
        return;
      case "addPartitions":
        this.tc.handleAddPartitionsToTxn(
          {
            api: "AddPartitionsToTxn",
            // KafkaApis: a v5+ request is the broker's TV2 add (clientTransactionVersion 2), below it TV0/1.
            version: op.clientTransactionVersion >= 2 ? 5 : 4,
            transactionalId: op.transactionalId,
            producerId: op.producerId,
            producerEpoch: op.producerEpoch,
            partitions: op.partitions,
            verifyOnly: op.verifyOnly,
            ghostTxn: null,
          },
          (errorCode, results) => {
            if (op.verifyOnly) {
              const errors: Record<string, string> = {};
              for (const r of [...results].sort((a, b) => (a.partition < b.partition ? -1 : 1)))
                errors[r.partition] = errorName(r.errorCode);
              if (errorCode !== 0) for (const p of sortedPartitions(op.partitions)) errors[p] = errorName(errorCode);
              result.errors = errors;
              return;
            }
            // One error for every partition (Kafka's handleAddPartitionsToTransaction answers one Errors).
            result.error = errorName(errorCode !== 0 ? errorCode : (results[0]?.errorCode ?? 0));
          },
        );
        return;
      case "endTxn":
        this.tc.handleEndTxn(
          {
            api: "EndTxn",
            // EndTxn v5 is TV2 (KafkaApis: clientTransactionVersion 2 from v5), v4 below it.
            version: op.clientTransactionVersion >= 2 ? 5 : 4,
            transactionalId: op.transactionalId,
            producerId: op.producerId,
            producerEpoch: op.producerEpoch,
            committed: op.result === "COMMIT",
            ghostTxn: null,
          },
          answer,
        );
        return;
      case "completeMarkers": {
        const held = this.held.splice(0);
        for (const h of held)
          h.request.respond({
            api: "WriteTxnMarkers",
            bytes: encodeWriteTxnMarkersResponse(
              h.version,
              h.correlationId,
              h.markers.map((m) => ({
                producerId: m.producerId,
                topics: m.topics.map((t) => ({
                  name: t.name,
                  partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, errorCode: 0 })),
                })),
              })),
            ),
          });
        result.acknowledged = held.length;
        return;
      }
      case "failNextAppend": {
        const code = errorCode(op.error);
        if (code === undefined) throw new Error(`failNextAppend: no error ${op.error}`);
        this.appendErrors.push(code);
        return;
      }
      case "advanceTime": {
        const until = this.sim.nowMs + op.ms;
        this.sim.schedule(op.ms, () => {});
        this.sim.run({ maxEvents: 100_000, maxTimeMs: until });
        return;
      }
      case "abortTimedOutTransactions":
        this.tc.abortTimedOutTransactions();
        return;
      case "describe": {
        const m = this.tc.describe(op.transactionalId);
        result.metadata = m ? metadataView(m) : null;
        return;
      }
    }
  }
}
