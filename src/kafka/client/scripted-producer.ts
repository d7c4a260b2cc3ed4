import { ConnectionPool, type RpcResult } from "../../sim/network.js";
import { Errors } from "../common/errors.js";
import { NO_PRODUCER_EPOCH, NO_PRODUCER_ID, type PartitionKey, type TransactionVersion } from "../common/types.js";
import type { ClusterContext } from "../cluster-context.js";
import { endTxnVersionFor, type KafkaRequest, type KafkaResponse, produceVersionFor } from "../protocol.js";

export interface ScriptedProducerConfig {
  /** Node name in traces, e.g. "p0". */
  name: string;
  transactionalId: string;
  transactionVersion: TransactionVersion;
  transactionTimeoutMs: number;
  requestTimeoutMs: number;
}

/** What one client operation came back with (NETWORK_EXCEPTION when the request timed out or its connection closed). */
export interface ClientResult {
  errorCode: number;
  /** The request that produced the error code, e.g. "AddPartitionsToTxn" or "Produce". */
  api: string;
  producerId: number;
  producerEpoch: number;
  /** Produce: the offset of the appended record. */
  baseOffset: number | null;
}

/** How a scripted producer finds the broker to send to. */
export interface ScriptedLookup {
  coordinatorOf(transactionalId: string): string | null;
  leaderOf(partition: PartitionKey): string | null;
}

/**
 * A transactional producer driven one operation at a time by a script: the requests a
 * KafkaProducer's TransactionManager would send (InitProducerId, AddPartitionsToTxn for TV0/1,
 * Produce v11/v12, EndTxn v4/v5), with its bookkeeping of producer id, epoch and sequences, but no
 * automatic retries: every request's answer is the step's outcome.
 */
export class ScriptedProducer {
  private producerIdValue = NO_PRODUCER_ID;
  private producerEpochValue = NO_PRODUCER_EPOCH;
  private readonly nextSequence = new Map<PartitionKey, number>();
  private readonly added = new Set<PartitionKey>();
  private readonly connections: ConnectionPool<KafkaRequest, KafkaResponse>;
  private transactionsBegun = 0;
  /** Ghost identity of the open transaction (e.g. p0.t2), null outside a transaction. */
  currentTxn: string | null = null;

  constructor(
    private readonly ctx: ClusterContext,
    readonly config: ScriptedProducerConfig,
    /** Where to send: the controller's current leaders and coordinators (a script's producer is never stale). */
    private readonly lookup: ScriptedLookup,
  ) {
    this.connections = new ConnectionPool(ctx.net, config.name);
  }

  get producerId(): number {
    return this.producerIdValue;
  }

  get producerEpoch(): number {
    return this.producerEpochValue;
  }

  private get tv2(): boolean {
    return this.config.transactionVersion >= 2;
  }

  private result(api: string, errorCode: number, baseOffset: number | null = null): ClientResult {
    return { api, errorCode, producerId: this.producerIdValue, producerEpoch: this.producerEpochValue, baseOffset };
  }

  private setIdentity(producerId: number, producerEpoch: number): void {
    if (producerId !== this.producerIdValue || producerEpoch !== this.producerEpochValue) this.nextSequence.clear();
    this.producerIdValue = producerId;
    this.producerEpochValue = producerEpoch;
  }

  private sendTo(node: string, body: KafkaRequest, onResult: (r: RpcResult<KafkaResponse>) => void): void {
    this.ctx.net.request(this.connections.to(node), body, this.config.requestTimeoutMs, onResult);
  }

  private sendToCoordinator(body: KafkaRequest, onResult: (r: RpcResult<KafkaResponse>) => void): void {
    const coordinator = this.lookup.coordinatorOf(this.config.transactionalId);
    if (coordinator === null) return onResult({ kind: "disconnected", reason: "no coordinator" });
    this.sendTo(coordinator, body, onResult);
  }

  /** initTransactions: InitProducerId, with the current id and epoch when re-initialising (KIP-360). */
  initTransactions(done: (r: ClientResult) => void): void {
    const known = this.producerIdValue !== NO_PRODUCER_ID;
    this.sendToCoordinator(
      {
        api: "InitProducerId",
        transactionalId: this.config.transactionalId,
        transactionTimeoutMs: this.config.transactionTimeoutMs,
        producerId: known ? this.producerIdValue : NO_PRODUCER_ID,
        producerEpoch: known ? this.producerEpochValue : NO_PRODUCER_EPOCH,
        ghostClient: this.config.name,
      },
      (r) => {
        const body = r.kind === "response" && r.body.api === "InitProducerId" ? r.body : null;
        const errorCode = body ? body.errorCode : Errors.NETWORK_EXCEPTION;
        if (errorCode === Errors.NONE && body) {
          this.setIdentity(body.producerId, body.producerEpoch);
          this.ctx.sim.emit(this.config.name, "producer.initialized", {
            pid: body.producerId,
            epoch: body.producerEpoch,
          });
        }
        done(this.result("InitProducerId", errorCode));
      },
    );
  }

  /** beginTransaction is local in Kafka's client: nothing is sent until the first record. */
  beginTransaction(): string {
    if (this.currentTxn !== null)
      throw new Error(`${this.config.name}: beginTransaction while ${this.currentTxn} is open`);
    this.transactionsBegun++;
    this.currentTxn = `${this.config.name}.t${this.transactionsBegun}`;
    this.added.clear();
    this.ctx.sim.emit(this.config.name, "producer.begin", {
      txn: this.currentTxn,
      pid: this.producerIdValue,
      epoch: this.producerEpochValue,
    });
    this.ctx.ghost.txnBegun({
      ghostTxn: this.currentTxn,
      producer: this.config.name,
      transactionalId: this.config.transactionalId,
      atMs: this.ctx.sim.nowMs,
    });
    return this.currentTxn;
  }

  /** send(record): TV0/1 adds the partition with AddPartitionsToTxn first; TV2 produces directly (implicit add). */
  send(partition: PartitionKey, value: string, done: (r: ClientResult) => void): void {
    if (!this.tv2 && !this.added.has(partition)) {
      this.sendToCoordinator(
        {
          api: "AddPartitionsToTxn",
          version: 3,
          transactionalId: this.config.transactionalId,
          producerId: this.producerIdValue,
          producerEpoch: this.producerEpochValue,
          partitions: [partition],
          verifyOnly: false,
          ghostTxn: this.currentTxn,
        },
        (r) => {
          let errorCode: number = Errors.NETWORK_EXCEPTION;
          if (r.kind === "response" && r.body.api === "AddPartitionsToTxn")
            errorCode =
              r.body.errorCode !== Errors.NONE ? r.body.errorCode : (r.body.results[0]?.errorCode ?? Errors.NONE);
          if (errorCode !== Errors.NONE) return done(this.result("AddPartitionsToTxn", errorCode));
          this.added.add(partition);
          this.produce(partition, value, done);
        },
      );
      return;
    }
    this.produce(partition, value, done);
  }

  private produce(partition: PartitionKey, value: string, done: (r: ClientResult) => void): void {
    const leader = this.lookup.leaderOf(partition);
    if (leader === null) return done(this.result("Produce", Errors.NOT_LEADER_OR_FOLLOWER));
    const sequence = this.nextSequence.get(partition) ?? 0;
    this.sendTo(
      leader,
      {
        api: "Produce",
        version: produceVersionFor(this.config.transactionVersion),
        transactionalId: this.config.transactionalId,
        producerId: this.producerIdValue,
        producerEpoch: this.producerEpochValue,
        partition,
        baseSequence: sequence,
        values: [value],
        timeoutMs: this.config.requestTimeoutMs,
        ghostTxn: this.currentTxn,
      },
      (r) => {
        const body = r.kind === "response" && r.body.api === "Produce" ? r.body : null;
        const errorCode = body ? body.errorCode : Errors.NETWORK_EXCEPTION;
        if (errorCode === Errors.NONE) {
          this.nextSequence.set(partition, sequence + 1);
          if (this.tv2) this.added.add(partition);
        }
        done(this.result("Produce", errorCode, body && errorCode === Errors.NONE ? body.baseOffset : null));
      },
    );
  }

  /**
   * commitTransaction / abortTransaction: EndTxn. A TV0/1 transaction that added no partition ends
   * locally (Kafka's client sends nothing). On success a TV2 client adopts the bumped epoch.
   */
  endTransaction(commit: boolean, done: (r: ClientResult) => void): void {
    const ghost = this.currentTxn;
    const outcome = commit ? "committed" : "aborted";
    if (!this.tv2 && this.added.size === 0) {
      this.closeTransaction(ghost, outcome, "nothing was added to the transaction");
      return done(this.result("EndTxn", Errors.NONE));
    }
    this.sendToCoordinator(
      {
        api: "EndTxn",
        version: endTxnVersionFor(this.config.transactionVersion),
        transactionalId: this.config.transactionalId,
        producerId: this.producerIdValue,
        producerEpoch: this.producerEpochValue,
        committed: commit,
        ghostTxn: ghost,
      },
      (r) => {
        const body = r.kind === "response" && r.body.api === "EndTxn" ? r.body : null;
        const errorCode = body ? body.errorCode : Errors.NETWORK_EXCEPTION;
        if (errorCode === Errors.NONE && body) {
          if (this.tv2) this.setIdentity(body.producerId, body.producerEpoch);
          this.closeTransaction(ghost, outcome, `EndTxn(${commit ? "COMMIT" : "ABORT"}) acknowledged`);
        }
        done(this.result("EndTxn", errorCode));
      },
    );
  }

  private closeTransaction(ghost: string | null, outcome: "committed" | "aborted", detail: string): void {
    if (ghost !== null) {
      this.ctx.sim.emit(this.config.name, "producer.outcome", {
        txn: ghost,
        outcome,
        pid: this.producerIdValue,
        epoch: this.producerEpochValue,
      });
      this.ctx.ghost.producerOutcome({
        ghostTxn: ghost,
        producer: this.config.name,
        outcome,
        detail,
        atMs: this.ctx.sim.nowMs,
      });
    }
    if (this.currentTxn === ghost) this.currentTxn = null;
    this.added.clear();
  }
}
