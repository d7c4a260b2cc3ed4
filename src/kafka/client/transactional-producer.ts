import type { Timer } from "../../sim/simulation.js";
import { Errors, errorName } from "../common/errors.js";
import type { PartitionKey } from "../common/types.js";
import type { ClusterContext } from "../cluster-context.js";
import type { KafkaEvents } from "../trace-events.js";
import { ApiVersions } from "./api-versions.js";
import type { ClientMetadata } from "./client-metadata.js";
import type { ProducerConfig } from "./producer-config.js";
import { RecordAccumulator } from "./record-accumulator.js";
import { Sender } from "./sender.js";
import { TransactionManager } from "./transaction-manager.js";
import type { ProducerBehaviour } from "./producer-behaviour.js";
import type { ConsumerGroupMetadata, TxnOffsets } from "./txn-request.js";

export type { ProducerConfig } from "./producer-config.js";

export interface WorkloadConfig {
  transactions: number;
  recordsPerTxn: { min: number; max: number };
  partitionsPerTxn: { min: number; max: number };
  abortPpm: number;
  /** A send() fails at once (RecordTooLargeException); 0: never. */
  sendErrorPpm?: number;
  /** A transaction has no records; 0: never. */
  emptyTxnPpm?: number;
  thinkMs: { min: number; max: number };
  /** The application's time between two send() calls of one transaction (0: all at once). */
  sendGapMs: { min: number; max: number };
  partitions: readonly PartitionKey[];
  /**
   * Consume-transform-produce (issue 17): the input offsets a transaction commits with its output,
   * and the consumer's group metadata, handed to sendOffsetsToTransaction. Absent: none.
   */
  offsetsFor?: (ghostTxn: string) => { offsets: TxnOffsets; group: ConsumerGroupMetadata } | null;
  /** A processor's loop (issue 17): its records come from its input instead of the draws. Absent: drawn. */
  processing?: ProcessingHooks;
}

/** One record the application hands to send(): its partition and value. */
export interface AppRecord {
  partition: PartitionKey;
  value: string;
}

/** What a consume-transform-produce application gives the producer loop. */
export interface ProcessingHooks {
  /** The next transaction's output records and input offsets, or null when there is nothing to process yet. */
  next(ghostTxn: string): ProcessedWork | null;
  /** How the transaction ended, as the application learned it. */
  ended(ghostTxn: string, outcome: "committed" | "aborted" | "unknown"): void;
  /** How long the loop waits before asking `next` again after a null. */
  pollMs: number;
}

export interface ProcessedWork {
  records: AppRecord[];
  offsets: TxnOffsets;
  group: ConsumerGroupMetadata;
}

/** A choice that seeded runs always take (ppm 1e6) but a shrunk tape can turn off (option 0). */
const ALWAYS = 1_000_000;

/** Prefix of the choice streams that decide what clients do (a search may re-roll these alone). */
export const WORKLOAD_STREAM_PREFIX = "workload:";

/** The choice stream of one producer's workload (`start`: when each producer starts). */
export function workloadStreamName(name: string): string {
  return `${WORKLOAD_STREAM_PREFIX}${name}`;
}

export type ProducerPhase = "starting" | "idle" | "in-transaction" | "ending" | "closed" | "finished";

interface CurrentTxn {
  ghost: string;
  commit: boolean;
}

/** One incarnation of the KafkaProducer: re-created (new state, new connections) after a fatal error. */
interface Incarnation {
  accumulator: RecordAccumulator;
  tm: TransactionManager;
  sender: Sender;
  apiVersions: ApiVersions;
}

/**
 * The application around a transactional KafkaProducer: initTransactions, then a loop of
 * beginTransaction, send of every record of the transaction, and commitTransaction (or, for a
 * transaction it chose to abort, flush and abortTransaction). The producer's internals are
 * Kafka's: a RecordAccumulator, a Sender and a TransactionManager. After a fatal error the
 * application re-creates the producer with the same transactional.id, unless it was replaced by a
 * restart (a zombie): that one closes. A call that does not complete within max.block.ms makes
 * the application give up and close the producer.
 */
export class TransactionalProducer {
  private phase: ProducerPhase = "starting";
  private current: CurrentTxn | null = null;
  private started = 0;
  private pausedUntilMs = 0;
  private incarnation: Incarnation | null = null;
  private blockTimer: Timer | null = null;
  private flushWaiter: (() => void) | null = null;
  /** A newer instance with the same transactional.id exists: this one must not re-initialise. */
  superseded = false;
  private stopping = false;
  /** A graceful close: set, the producer closes once the transaction under way has completed. */
  private onGracefulClose: (() => void) | null = null;

  constructor(
    private readonly ctx: ClusterContext,
    readonly config: ProducerConfig,
    private readonly workload: WorkloadConfig,
    /** This producer instance's metadata (leaders, its coordinator), refreshed after errors. */
    private readonly metadata: ClientMetadata,
    private readonly behaviour: ProducerBehaviour,
  ) {}

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
    this.ctx.sim.schedule(delayMs, () => this.initTransactions());
  }

  /** Zombie fault: send nothing until `untilMs` (requests already sent still travel). */
  pause(untilMs: number): void {
    this.pausedUntilMs = Math.max(this.pausedUntilMs, untilMs);
    if (this.incarnation) this.incarnation.sender.pausedUntilMs = this.pausedUntilMs;
    this.emit("producer.pause", { untilMs });
  }

  /**
   * End of the workload phase: start nothing new. A commit or abort under way may finish; otherwise
   * the producer closes now, and an open transaction is left to time out.
   */
  stop(): void {
    this.stopping = true;
    if (this.phase !== "ending") this.finish("closed");
  }

  /**
   * The application's graceful shutdown: its loop starts nothing new and lets the transaction under
   * way complete (commitTransaction returns), then closes the producer and calls `then`. Kafka's
   * Sender.run would abort a transaction left incomplete on close; the loop leaves none.
   */
  closeGracefully(then: () => void): void {
    if (this.isDone) return then();
    this.stopping = true;
    this.onGracefulClose = then;
    if (this.phase !== "ending") this.finish("closed");
  }

  /** A new connection of this producer's metadata client: the current KafkaProducer's ApiVersions learns from it. */
  onConnection(server: string): void {
    this.incarnation?.apiVersions.learn(this.ctx.featuresOf?.(server));
  }

  private emit<K extends keyof KafkaEvents & string>(kind: K, fields: KafkaEvents[K]): void {
    this.ctx.sim.emit(this.config.name, kind, fields);
  }

  private get tm(): TransactionManager {
    return (this.incarnation as Incarnation).tm;
  }

  // ------------------------------------------------------------------ the producer's internals

  /** A new KafkaProducer: fresh accumulator, transaction manager and sender (the old one's answers are ignored). */
  private createProducer(): Incarnation {
    this.incarnation?.sender.close();
    const accumulator = new RecordAccumulator(this.config.recordsPerBatch, this.config.lingerMs);
    const apiVersions = new ApiVersions();
    const tm = new TransactionManager(
      this.config.transactionalId,
      this.config.transactionVersion,
      this.behaviour,
      {
        fatal: (api, errorCode, reason) => this.onFatal(api, errorCode, reason),
        abortable: (reason) => this.onAbortable(reason),
        transactionVersion: (version) => this.emit("producer.transaction-version", { version }),
      },
      apiVersions,
    );
    const sender = new Sender(this.ctx, this.config, {
      accumulator,
      tm,
      metadata: this.metadata,
      currentGhost: () => this.current?.ghost ?? null,
      onBatchDone: () => this.maybeFlushed(),
      apiVersions,
    });
    sender.pausedUntilMs = this.pausedUntilMs;
    this.incarnation = { accumulator, tm, sender, apiVersions };
    return this.incarnation;
  }

  /** An application call that waits for its result at most max.block.ms (then TimeoutException: the application closes). */
  private block(call: string): void {
    this.blockTimer?.cancel();
    this.blockTimer = this.ctx.sim.schedule(this.config.maxBlockMs, () =>
      this.giveUp(call, `${call}: no result within max.block.ms (${this.config.maxBlockMs} ms)`),
    );
  }

  private unblock(): void {
    this.blockTimer?.cancel();
    this.blockTimer = null;
  }

  // ------------------------------------------------------------------ the application

  private initTransactions(): void {
    if (this.stopping) return this.finish("closed");
    this.phase = "starting";
    const { tm, sender } = this.createProducer();
    this.block("initTransactions");
    tm.initializeTransactions(() => {
      this.unblock();
      tm.maybeUpdateTransactionV2Enabled({ onInitialization: true });
      this.emit("producer.initialized", { pid: tm.producerId, epoch: tm.producerEpoch });
      this.phase = "idle";
      this.beginNext(0);
    });
    sender.wakeup();
  }

  private beginNext(thinkMs: number): void {
    this.ctx.sim.schedule(thinkMs, () => {
      if (this.isDone) return;
      if (this.stopping) return this.finish("closed");
      if (this.started >= this.workload.transactions) return this.finish("finished");
      const processing = this.workload.processing;
      const work = processing ? processing.next(`${this.config.name}.t${this.started + 1}`) : null;
      if (processing && work === null) return this.beginNext(processing.pollMs);
      // Always true in seeded runs; a shrinker that zeroes this choice ends the workload early.
      if (this.started > 0 && !this.ctx.choices.chance(workloadStreamName(this.config.name), ALWAYS))
        return this.finish("finished");
      this.started++;
      const ghost = `${this.config.name}.t${this.started}`;
      this.current = { ghost, commit: true };
      this.phase = "in-transaction";
      const { tm, accumulator, sender } = this.incarnation as Incarnation;
      tm.beginTransaction();
      this.emit("producer.begin", { txn: ghost, pid: tm.producerId, epoch: tm.producerEpoch });
      this.ctx.ghost.txnBegun({
        ghostTxn: ghost,
        producer: this.config.name,
        transactionalId: this.config.transactionalId,
        atMs: this.ctx.sim.nowMs,
      });
      const records = work ? work.records : this.drawRecords(ghost);
      if (!work && this.workload.sendGapMs.max > 0 && records.length > 0) return this.sendApart(records, 0);
      // send() of every record: appended to its partition's batch; the Sender does the rest. Once
      // the transaction manager is in an error state, send() throws it: the application stops.
      for (const r of records) {
        this.send(tm, accumulator, ghost, r);
        if (tm.hasAbortableError) break;
      }
      const offsets = work ?? this.workload.offsetsFor?.(ghost) ?? null;
      if (offsets) tm.sendOffsetsToTransaction(offsets.offsets, offsets.group);
      sender.wakeup();
      this.endTransaction();
    });
  }

  /**
   * KafkaProducer.send of one record: it fails at once (the client-fault knob), or joins its
   * partition's batch. True when the record reached the accumulator.
   */
  private send(tm: TransactionManager, accumulator: RecordAccumulator, ghost: string, r: AppRecord): boolean {
    if (this.sendFailsAtOnce()) {
      this.sendFailed(tm, ghost, r);
      return false;
    }
    tm.maybeAddPartition(r.partition);
    accumulator.append(r.partition, r.value, ghost, this.ctx.sim.nowMs);
    return true;
  }

  /** The client-fault knob: this send() fails before the record reaches the accumulator. */
  private sendFailsAtOnce(): boolean {
    const ppm = this.workload.sendErrorPpm ?? 0;
    return ppm > 0 && this.ctx.choices.chance(workloadStreamName(this.config.name), ppm);
  }

  /**
   * KafkaProducer.doSend's ApiException branch (ensureValidRecordSize threw RecordTooLargeException):
   * the returned future fails, and since KAFKA-9279 the transaction manager moves to ABORTABLE_ERROR
   * (maybeTransitionToErrorState), so that the commit fails. Before, only the future knew.
   */
  private sendFailed(tm: TransactionManager, ghost: string, r: AppRecord): void {
    const error = "RecordTooLargeException";
    this.emit("producer.send-failed", { txn: ghost, partition: r.partition, value: r.value, error });
    this.ctx.ghost.sendFailed({
      ghostTxn: ghost,
      producer: this.config.name,
      value: r.value,
      partition: r.partition,
      error,
      atMs: this.ctx.sim.nowMs,
    });
    if (!this.behaviour.commitIgnoresSyncSendErrors)
      tm.maybeTransitionToErrorState("Produce", Errors.MESSAGE_TOO_LARGE, `send of ${r.value}: ${error}`);
  }

  /**
   * send() of record `i`, then the next after a drawn gap (the application between two sends). A
   * paused producer sends nothing until it resumes; an abortable error makes send() throw, and the
   * application goes on to end the transaction (an abort).
   */
  private sendApart(records: AppRecord[], i: number): void {
    const inc = this.incarnation as Incarnation;
    const ghost = (this.current as CurrentTxn).ghost;
    const next = (delayMs: number, j: number) =>
      this.ctx.sim.schedule(delayMs, () => {
        if (this.isDone || this.incarnation !== inc || this.current?.ghost !== ghost) return;
        if (this.pausedUntilMs > this.ctx.sim.nowMs) return next(this.pausedUntilMs - this.ctx.sim.nowMs, j);
        this.sendApart(records, j);
      });
    if (inc.tm.hasAbortableError) return this.endTransaction();
    const r = records[i] as AppRecord;
    if (this.send(inc.tm, inc.accumulator, ghost, r)) inc.sender.wakeup();
    if (i + 1 >= records.length) return this.endTransaction();
    const { min, max } = this.workload.sendGapMs;
    next(this.ctx.choices.between(workloadStreamName(this.config.name), min, max), i + 1);
  }

  private drawRecords(ghost: string): AppRecord[] {
    const { choices } = this.ctx;
    const stream = workloadStreamName(this.config.name);
    const emptyPpm = this.workload.emptyTxnPpm ?? 0;
    if (emptyPpm > 0 && choices.chance(stream, emptyPpm)) return [];
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
    const records: AppRecord[] = [];
    for (let i = 0; i < count; i++) {
      const partition =
        i < chosen.length ? (chosen[i] as PartitionKey) : (chosen[choices.pick(stream, chosen.length)] as PartitionKey);
      records.push({ partition, value: `${ghost}/${i}` });
    }
    return records;
  }

  /**
   * The application commits, or (with probability abortRatio) flushes and aborts, so that the
   * aborted records reach the logs before their ABORT marker. An abortable error turns a commit
   * into an abort.
   */
  private endTransaction(): void {
    const txn = this.current as CurrentTxn;
    const abort = this.ctx.choices.chance(workloadStreamName(this.config.name), this.workload.abortPpm);
    txn.commit = !abort;
    this.phase = "ending";
    if (abort) {
      if (this.behaviour.abortWithoutFlush) return this.abortTransaction(null);
      return this.flush(() => this.abortTransaction(null));
    }
    const { tm, accumulator, sender } = this.incarnation as Incarnation;
    // From ABORTABLE_ERROR commitTransaction throws the error: the application aborts instead.
    if (tm.hasAbortableError) return this.flush(() => this.abortTransaction(tm.lastError));
    this.emitEnd(txn, null);
    this.block("commitTransaction");
    accumulator.beginFlush();
    tm.beginCommit(() => this.completed(txn, "committed", "EndTxn(COMMIT) acknowledged"));
    sender.wakeup();
  }

  private emitEnd(txn: CurrentTxn, reason: string | null): void {
    this.emit("producer.end", {
      txn: txn.ghost,
      commit: txn.commit,
      pid: this.tm.producerId,
      epoch: this.tm.producerEpoch,
      reason,
    });
  }

  /** KafkaProducer.flush: wait until every batch appended so far is acknowledged or failed. */
  private flush(then: () => void): void {
    const { accumulator, sender } = this.incarnation as Incarnation;
    accumulator.beginFlush();
    this.flushWaiter = then;
    sender.wakeup();
    this.maybeFlushed();
  }

  private maybeFlushed(): void {
    const inc = this.incarnation;
    if (!inc || this.flushWaiter === null || inc.accumulator.hasIncomplete()) return;
    const then = this.flushWaiter;
    this.flushWaiter = null;
    then();
  }

  private abortTransaction(reason: string | null): void {
    const txn = this.current as CurrentTxn;
    txn.commit = false;
    this.emitEnd(txn, reason);
    this.block("abortTransaction");
    const { tm, sender } = this.incarnation as Incarnation;
    tm.beginAbort(() => this.completed(txn, "aborted", "EndTxn(ABORT) acknowledged"));
    sender.wakeup();
  }

  /** The transaction manager moved to ABORTABLE_ERROR: a commit under way becomes an abort. */
  private onAbortable(reason: string): void {
    this.emit("producer.abortable", { reason, txn: this.current?.ghost ?? null });
    const txn = this.current;
    if (!txn?.commit || this.phase !== "ending") return;
    // commitTransaction fails with the error once the batches are done; the application aborts then.
    this.flush(() => this.abortTransaction(reason));
  }

  private completed(txn: CurrentTxn, outcome: "committed" | "aborted", detail: string): void {
    this.unblock();
    const { producerId: pid, producerEpoch: epoch } = this.tm;
    this.emit("producer.outcome", { txn: txn.ghost, outcome, pid, epoch });
    this.ctx.ghost.producerOutcome({
      ghostTxn: txn.ghost,
      producer: this.config.name,
      outcome,
      detail,
      atMs: this.ctx.sim.nowMs,
    });
    this.current = null;
    this.workload.processing?.ended(txn.ghost, outcome);
    this.phase = "idle";
    if (this.onGracefulClose) return this.finish("closed");
    const { min, max } = this.workload.thinkMs;
    this.beginNext(this.ctx.choices.between(workloadStreamName(this.config.name), min, max));
  }

  // ------------------------------------------------------------------ failure

  private onFatal(api: string, errorCode: number, reason: string): void {
    this.unblock();
    this.flushWaiter = null;
    this.emit("producer.fatal", { reason, txn: this.current?.ghost ?? null });
    this.reportFatal(api, errorCode, reason);
    this.reportUnknown(reason);
    if (this.superseded) return this.finish("closed");
    // The application closes the fenced producer and creates a new one with the same transactional.id.
    this.ctx.sim.schedule(0, () => this.initTransactions());
  }

  /** To the oracle: this producer instance can only be closed now. */
  private reportFatal(api: string, errorCode: number, reason: string, failedCall?: string): void {
    const { producerId, producerEpoch } = this.tm;
    this.ctx.ghost.producerFatal({
      producer: this.config.name,
      transactionalId: this.config.transactionalId,
      api,
      errorCode,
      reason: reason || errorName(errorCode),
      producerId,
      producerEpoch,
      ghostTxn: this.current?.ghost ?? null,
      ...(failedCall ? { failedCall } : {}),
      ...(api === "EndTxn" && !this.tm.transactionStarted ? { emptyTransaction: true as const } : {}),
      atMs: this.ctx.sim.nowMs,
    });
  }

  private giveUp(call: string, reason: string): void {
    this.emit("producer.give-up", { reason, txn: this.current?.ghost ?? null });
    const failure = call === "abortTransaction" ? this.tm.abortFailure : null;
    // Kafka's abortTransaction throws the error that failed the abort (an InvalidPidMappingException,
    // say); the producer cannot end its transaction and must be closed, as after a fatal error.
    if (failure) this.reportFatal(failure.api, failure.errorCode, failure.reason, call);
    this.reportUnknown(reason);
    this.finish("closed");
  }

  /** The producer does not know how the open transaction ended. */
  private reportUnknown(detail: string): void {
    const txn = this.current;
    if (txn)
      this.ctx.ghost.producerOutcome({
        ghostTxn: txn.ghost,
        producer: this.config.name,
        outcome: "unknown",
        detail,
        atMs: this.ctx.sim.nowMs,
      });
    if (txn) this.workload.processing?.ended(txn.ghost, "unknown");
    this.current = null;
  }

  private finish(phase: "finished" | "closed"): void {
    if (this.isDone) return;
    this.unblock();
    this.reportUnknown("producer closed mid-transaction");
    this.incarnation?.sender.close();
    this.phase = phase;
    this.emit(`producer.${phase}`, { transactions: this.started });
    const then = this.onGracefulClose;
    this.onGracefulClose = null;
    then?.();
  }
}
