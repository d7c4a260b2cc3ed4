import { ConnectionPool, type RpcResult } from "../../sim/network.js";
import { Errors, errorName } from "../common/errors.js";
import { NO_PRODUCER_EPOCH, NO_PRODUCER_ID, type PartitionKey, type TransactionVersion } from "../common/types.js";
import type { ClusterContext } from "../cluster-context.js";
import type { ClientMetadata } from "./client-metadata.js";
import { endTxnVersionFor, type KafkaRequest, type KafkaResponse, produceVersionFor } from "../protocol.js";
import type { KafkaEvents } from "../trace-events.js";

export interface ProducerConfig {
  /** Node name in traces, e.g. "p0" (a restarted instance is "p0#2"). */
  name: string;
  transactionalId: string;
  /** Protocol the producer speaks: 0/1 = legacy (client AddPartitionsToTxn), 2 = KIP-890 part 2. */
  transactionVersion: TransactionVersion;
  transactionTimeoutMs: number;
  /** request.timeout.ms: a request without answer by then closes the connection. */
  requestTimeoutMs: number;
  retryBackoffMs: number;
  /** Attempts per request before the producer gives up on it (delivery.timeout.ms, in attempts). */
  maxAttempts: number;
}

export interface WorkloadConfig {
  transactions: number;
  recordsPerTxn: { min: number; max: number };
  partitionsPerTxn: { min: number; max: number };
  abortPpm: number;
  thinkMs: { min: number; max: number };
  partitions: readonly PartitionKey[];
}

interface CurrentTxn {
  ghost: string;
  records: { partition: PartitionKey; value: string }[];
  next: number;
  added: Set<PartitionKey>;
  commit: boolean;
  /** An error made the transaction abortable: it must end with an abort. */
  abortable: string | null;
}

/** Errors after which a coordinator request is simply retried. */
const RETRY_COORDINATOR = new Set<number>([
  Errors.NOT_COORDINATOR,
  Errors.COORDINATOR_NOT_AVAILABLE,
  Errors.COORDINATOR_LOAD_IN_PROGRESS,
  Errors.CONCURRENT_TRANSACTIONS,
]);
/** Errors after which a produce is re-sent with the same sequence. */
const RETRY_PRODUCE = new Set<number>([
  Errors.NOT_ENOUGH_REPLICAS,
  Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
  Errors.NOT_LEADER_OR_FOLLOWER,
  Errors.REQUEST_TIMED_OUT,
  Errors.NETWORK_EXCEPTION,
]);
/** Produce errors after which the producer's metadata is refreshed (the leader moved, or is gone). */
const STALE_LEADER = new Set<number>([
  Errors.NOT_LEADER_OR_FOLLOWER,
  Errors.UNKNOWN_TOPIC_OR_PARTITION,
  Errors.NETWORK_EXCEPTION,
]);

/** A coordinator answer that says the coordinator is elsewhere, or not there yet. */
function coordinatorMoved(body: KafkaResponse): boolean {
  const errorCode = "errorCode" in body ? body.errorCode : Errors.NONE;
  return errorCode === Errors.NOT_COORDINATOR || errorCode === Errors.COORDINATOR_NOT_AVAILABLE;
}

/** Errors that end this producer instance (ProducerFencedException and friends). */
const FATAL = new Set<number>([
  Errors.PRODUCER_FENCED,
  Errors.INVALID_PRODUCER_EPOCH,
  Errors.INVALID_PRODUCER_ID_MAPPING,
  Errors.TRANSACTION_COORDINATOR_FENCED,
]);

/** A choice that seeded runs always take (ppm 1e6) but a shrunk tape can turn off (option 0). */
const ALWAYS = 1_000_000;

/** Prefix of the choice streams that decide what clients do (a search may re-roll these alone). */
export const WORKLOAD_STREAM_PREFIX = "workload:";

/** The choice stream of one producer's workload (`start`: when each producer starts). */
export function workloadStreamName(name: string): string {
  return `${WORKLOAD_STREAM_PREFIX}${name}`;
}

export type ProducerPhase = "starting" | "idle" | "in-transaction" | "ending" | "closed" | "finished";

/**
 * A transactional producer (KafkaProducer + TransactionManager, reduced): initTransactions, then a
 * loop of begin / send records / commit or abort. Records are sent one batch at a time. On fatal
 * errors the application re-creates the producer (InitProducerId again), unless this instance was
 * superseded by a restart, in which case it is a zombie and closes.
 */
export class TransactionalProducer {
  private phase: ProducerPhase = "starting";
  private producerId = NO_PRODUCER_ID;
  private producerEpoch = NO_PRODUCER_EPOCH;
  private readonly nextSequence = new Map<PartitionKey, number>();
  private readonly connections: ConnectionPool<KafkaRequest, KafkaResponse>;
  private current: CurrentTxn | null = null;
  private started = 0;
  private pausedUntilMs = 0;
  /** A newer instance with the same transactional.id exists: this one must not re-initialise. */
  superseded = false;
  private stopping = false;

  constructor(
    private readonly ctx: ClusterContext,
    readonly config: ProducerConfig,
    private readonly workload: WorkloadConfig,
    /** This producer instance's metadata (leaders, its coordinator), refreshed after errors. */
    private readonly metadata: ClientMetadata,
  ) {
    this.connections = new ConnectionPool(ctx.net, config.name);
  }

  get state(): ProducerPhase {
    return this.phase;
  }

  get transactionsStarted(): number {
    return this.started;
  }

  get isDone(): boolean {
    return this.phase === "finished" || this.phase === "closed";
  }

  /** A restarted instance continues the workload count of the instance it replaces. */
  inheritProgress(previous: TransactionalProducer): void {
    this.started = previous.started;
  }

  /** Never started (a shrunk run without this producer). */
  skip(): void {
    this.phase = "finished";
  }

  start(delayMs: number): void {
    this.ctx.sim.schedule(delayMs, () => this.initTransactions(false));
  }

  /** Zombie fault: send nothing until `untilMs` (requests already sent still travel). */
  pause(untilMs: number): void {
    this.pausedUntilMs = Math.max(this.pausedUntilMs, untilMs);
    this.ctx.sim.emit(this.config.name, "producer.pause", { untilMs });
  }

  /** End of the workload phase: finish nothing new; an open transaction is left to time out. */
  stop(): void {
    this.stopping = true;
  }

  // ------------------------------------------------------------------ plumbing

  private emit<K extends keyof KafkaEvents & string>(kind: K, fields: KafkaEvents[K]): void {
    this.ctx.sim.emit(this.config.name, kind, fields);
  }

  /** Send after any pause; reuse (or reopen) the connection to `node`. */
  private send(node: string, body: KafkaRequest, onResult: (r: RpcResult<KafkaResponse>) => void, delayMs = 0): void {
    const wait = Math.max(delayMs, this.pausedUntilMs - this.ctx.sim.nowMs);
    if (wait > 0) {
      this.ctx.sim.schedule(wait, () => this.send(node, body, onResult));
      return;
    }
    if (this.phase === "closed") return;
    this.ctx.net.request(this.connections.to(node), body, this.config.requestTimeoutMs, onResult);
  }

  /**
   * To the transactional.id's coordinator (FindCoordinator when unknown). NOT_COORDINATOR,
   * COORDINATOR_NOT_AVAILABLE or a broken connection forget it, so the retry looks it up again.
   */
  private sendToCoordinator(body: KafkaRequest, onResult: (r: RpcResult<KafkaResponse>) => void, delayMs = 0): void {
    const id = this.config.transactionalId;
    this.ctx.sim.schedule(delayMs, () =>
      this.metadata.findCoordinator(id, (node) => {
        if (node === null || this.phase === "closed") return;
        this.send(node, body, (r) => {
          if (r.kind !== "response" || coordinatorMoved(r.body)) this.metadata.markCoordinatorUnknown(id);
          onResult(r);
        });
      }),
    );
  }

  private get tv2(): boolean {
    return this.config.transactionVersion >= 2;
  }

  private setIdentity(producerId: number, producerEpoch: number): void {
    if (producerId !== this.producerId || producerEpoch !== this.producerEpoch) this.nextSequence.clear();
    this.producerId = producerId;
    this.producerEpoch = producerEpoch;
  }

  // ------------------------------------------------------------------ InitProducerId

  /** initTransactions; `bump` re-initialises with the current id/epoch (KIP-360) after an abortable error. */
  private initTransactions(bump: boolean, attempt = 0): void {
    if (this.stopping) return this.finish("closed");
    this.phase = "starting";
    const body: KafkaRequest = {
      api: "InitProducerId",
      transactionalId: this.config.transactionalId,
      transactionTimeoutMs: this.config.transactionTimeoutMs,
      producerId: bump ? this.producerId : NO_PRODUCER_ID,
      producerEpoch: bump ? this.producerEpoch : NO_PRODUCER_EPOCH,
    };
    this.sendToCoordinator(
      body,
      (r) => {
        const errorCode =
          r.kind === "response" && r.body.api === "InitProducerId" ? r.body.errorCode : Errors.NETWORK_EXCEPTION;
        if (errorCode === Errors.NONE && r.kind === "response" && r.body.api === "InitProducerId") {
          this.setIdentity(r.body.producerId, r.body.producerEpoch);
          this.emit("producer.initialized", { pid: this.producerId, epoch: this.producerEpoch });
          this.phase = "idle";
          return this.beginNext(0);
        }
        if (FATAL.has(errorCode)) return this.fatal(`InitProducerId: ${errorName(errorCode)}`);
        if (attempt + 1 >= this.config.maxAttempts * 4)
          return this.giveUp(`InitProducerId: ${errorName(errorCode)} after ${attempt + 1} attempts`);
        this.ctx.sim.schedule(this.config.retryBackoffMs, () => this.initTransactions(bump, attempt + 1));
      },
      0,
    );
  }

  // ------------------------------------------------------------------ transactions

  private beginNext(thinkMs: number): void {
    this.ctx.sim.schedule(thinkMs, () => {
      if (this.stopping) return this.finish("closed");
      if (this.started >= this.workload.transactions) return this.finish("finished");
      // Always true in seeded runs; a shrinker that zeroes this choice ends the workload early.
      if (this.started > 0 && !this.ctx.choices.chance(workloadStreamName(this.config.name), ALWAYS))
        return this.finish("finished");
      this.started++;
      const ghost = `${this.config.name}.t${this.started}`;
      this.current = {
        ghost,
        records: this.drawRecords(ghost),
        next: 0,
        added: new Set(),
        commit: true,
        abortable: null,
      };
      this.phase = "in-transaction";
      this.emit("producer.begin", { txn: ghost, pid: this.producerId, epoch: this.producerEpoch });
      this.ctx.ghost.txnBegun({
        ghostTxn: ghost,
        producer: this.config.name,
        transactionalId: this.config.transactionalId,
        atMs: this.ctx.sim.nowMs,
      });
      this.sendNextRecord();
    });
  }

  private drawRecords(ghost: string): { partition: PartitionKey; value: string }[] {
    const { choices } = this.ctx;
    const stream = workloadStreamName(this.config.name);
    const all = this.workload.partitions;
    const partitionCount = Math.min(
      all.length,
      choices.between(stream, this.workload.partitionsPerTxn.min, this.workload.partitionsPerTxn.max),
    );
    const chosen: PartitionKey[] = [];
    const pool = [...all];
    for (let i = 0; i < partitionCount; i++)
      chosen.push(pool.splice(choices.pick(stream, pool.length), 1)[0] as PartitionKey);
    const count = Math.max(
      partitionCount,
      choices.between(stream, this.workload.recordsPerTxn.min, this.workload.recordsPerTxn.max),
    );
    const records: { partition: PartitionKey; value: string }[] = [];
    for (let i = 0; i < count; i++) {
      const partition =
        i < chosen.length ? (chosen[i] as PartitionKey) : (chosen[choices.pick(stream, chosen.length)] as PartitionKey);
      records.push({ partition, value: `${ghost}/${i}` });
    }
    return records;
  }

  private sendNextRecord(): void {
    const txn = this.current as CurrentTxn;
    if (this.stopping) return this.finish("closed");
    if (txn.abortable || txn.next >= txn.records.length) return this.endTransaction(0);
    const record = txn.records[txn.next] as { partition: PartitionKey; value: string };
    if (!this.tv2 && !txn.added.has(record.partition)) return this.addPartition(record.partition, 0);
    this.produce(record.partition, record.value, this.nextSequence.get(record.partition) ?? 0, 0);
  }

  /** TV0/1: AddPartitionsToTxn from the client before the first send to a partition. */
  private addPartition(partition: PartitionKey, attempt: number): void {
    const txn = this.current as CurrentTxn;
    this.sendToCoordinator(
      {
        api: "AddPartitionsToTxn",
        version: 3,
        transactionalId: this.config.transactionalId,
        producerId: this.producerId,
        producerEpoch: this.producerEpoch,
        partitions: [partition],
        verifyOnly: false,
        ghostTxn: txn.ghost,
      },
      (r) => {
        let errorCode: number = Errors.NETWORK_EXCEPTION;
        if (r.kind === "response" && r.body.api === "AddPartitionsToTxn")
          errorCode =
            r.body.errorCode !== Errors.NONE ? r.body.errorCode : (r.body.results[0]?.errorCode ?? Errors.NONE);
        if (errorCode === Errors.NONE) {
          txn.added.add(partition);
          return this.sendNextRecord();
        }
        if (FATAL.has(errorCode)) return this.fatal(`AddPartitionsToTxn: ${errorName(errorCode)}`);
        if (
          (RETRY_COORDINATOR.has(errorCode) || errorCode === Errors.NETWORK_EXCEPTION) &&
          attempt + 1 < this.config.maxAttempts
        ) {
          return this.ctx.sim.schedule(this.config.retryBackoffMs, () => this.addPartition(partition, attempt + 1));
        }
        txn.abortable = `AddPartitionsToTxn: ${errorName(errorCode)}`;
        this.sendNextRecord();
      },
    );
  }

  private produce(partition: PartitionKey, value: string, sequence: number, attempt: number): void {
    const txn = this.current as CurrentTxn;
    const leader = this.metadata.leaderOf(partition)?.leader ?? null;
    // No leader known: refresh the metadata (after retry.backoff.ms) and try again, as the Sender does.
    if (leader === null) return this.metadata.requestUpdate(() => this.produce(partition, value, sequence, attempt));
    this.send(
      leader,
      {
        api: "Produce",
        version: produceVersionFor(this.config.transactionVersion),
        transactionalId: this.config.transactionalId,
        producerId: this.producerId,
        producerEpoch: this.producerEpoch,
        partition,
        baseSequence: sequence,
        values: [value],
        timeoutMs: this.config.requestTimeoutMs,
        ghostTxn: txn.ghost,
      },
      (r) => {
        const errorCode =
          r.kind === "response" && r.body.api === "Produce" ? r.body.errorCode : Errors.NETWORK_EXCEPTION;
        if (STALE_LEADER.has(errorCode)) this.metadata.requestUpdate(() => {});
        if (errorCode === Errors.NONE) {
          this.nextSequence.set(partition, sequence + 1);
          txn.next++;
          return this.sendNextRecord();
        }
        if (FATAL.has(errorCode)) return this.fatal(`Produce to ${partition}: ${errorName(errorCode)}`);
        if (RETRY_PRODUCE.has(errorCode) && attempt + 1 < this.config.maxAttempts) {
          return this.ctx.sim.schedule(this.config.retryBackoffMs, () =>
            this.produce(partition, value, sequence, attempt + 1),
          );
        }
        txn.abortable = `Produce to ${partition}: ${errorName(errorCode)}`;
        this.sendNextRecord();
      },
    );
  }

  // ------------------------------------------------------------------ EndTxn

  private endTransaction(attempt: number): void {
    const txn = this.current as CurrentTxn;
    if (attempt === 0) {
      txn.commit =
        !txn.abortable && !this.ctx.choices.chance(workloadStreamName(this.config.name), this.workload.abortPpm);
      this.phase = "ending";
      this.emit("producer.end", {
        txn: txn.ghost,
        commit: txn.commit,
        pid: this.producerId,
        epoch: this.producerEpoch,
        reason: txn.abortable,
      });
    }
    const nothingSent = !this.tv2 && txn.added.size === 0;
    if (nothingSent) return this.completed(txn, "aborted", "nothing was added to the transaction");
    this.sendToCoordinator(
      {
        api: "EndTxn",
        version: endTxnVersionFor(this.config.transactionVersion),
        transactionalId: this.config.transactionalId,
        producerId: this.producerId,
        producerEpoch: this.producerEpoch,
        committed: txn.commit,
        ghostTxn: txn.ghost,
      },
      (r) => {
        const response = r.kind === "response" && r.body.api === "EndTxn" ? r.body : null;
        const errorCode = response ? response.errorCode : Errors.NETWORK_EXCEPTION;
        if (errorCode === Errors.NONE && response) {
          if (this.tv2) this.setIdentity(response.producerId, response.producerEpoch);
          return this.completed(
            txn,
            txn.commit ? "committed" : "aborted",
            `EndTxn(${txn.commit ? "COMMIT" : "ABORT"}) acknowledged`,
          );
        }
        if (FATAL.has(errorCode) || errorCode === Errors.INVALID_TXN_STATE)
          return this.fatal(`EndTxn: ${errorName(errorCode)}`);
        if (attempt + 1 >= this.config.maxAttempts * 4)
          return this.giveUp(`EndTxn: ${errorName(errorCode)} after ${attempt + 1} attempts`);
        this.ctx.sim.schedule(this.config.retryBackoffMs, () => this.endTransaction(attempt + 1));
      },
    );
  }

  private completed(txn: CurrentTxn, outcome: "committed" | "aborted", detail: string): void {
    this.emit("producer.outcome", { txn: txn.ghost, outcome, pid: this.producerId, epoch: this.producerEpoch });
    this.ctx.ghost.producerOutcome({
      ghostTxn: txn.ghost,
      producer: this.config.name,
      outcome,
      detail,
      atMs: this.ctx.sim.nowMs,
    });
    this.current = null;
    this.phase = "idle";
    // TV0/1 after an abortable error: bump the epoch (KIP-360) so sequences restart cleanly.
    if (!this.tv2 && txn.abortable) return this.initTransactions(true);
    const { min, max } = this.workload.thinkMs;
    this.beginNext(this.ctx.choices.between(workloadStreamName(this.config.name), min, max));
  }

  // ------------------------------------------------------------------ failure

  private fatal(reason: string): void {
    const txn = this.current;
    this.emit("producer.fatal", { reason, txn: txn?.ghost ?? null });
    if (txn)
      this.ctx.ghost.producerOutcome({
        ghostTxn: txn.ghost,
        producer: this.config.name,
        outcome: "unknown",
        detail: reason,
        atMs: this.ctx.sim.nowMs,
      });
    this.current = null;
    if (this.superseded) return this.finish("closed");
    // The application closes the fenced producer and creates a new one with the same transactional.id.
    this.nextSequence.clear();
    this.initTransactions(false);
  }

  private giveUp(reason: string): void {
    const txn = this.current;
    this.emit("producer.give-up", { reason, txn: txn?.ghost ?? null });
    if (txn)
      this.ctx.ghost.producerOutcome({
        ghostTxn: txn.ghost,
        producer: this.config.name,
        outcome: "unknown",
        detail: reason,
        atMs: this.ctx.sim.nowMs,
      });
    this.current = null;
    this.finish("closed");
  }

  private finish(phase: "finished" | "closed"): void {
    if (this.isDone) return;
    const txn = this.current;
    if (txn)
      this.ctx.ghost.producerOutcome({
        ghostTxn: txn.ghost,
        producer: this.config.name,
        outcome: "unknown",
        detail: "producer closed mid-transaction",
        atMs: this.ctx.sim.nowMs,
      });
    this.current = null;
    this.phase = phase;
    this.emit(`producer.${phase}`, { transactions: this.started });
  }
}
