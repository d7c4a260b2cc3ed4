import type { Timer } from "../../sim/simulation.js";
import type { PartitionKey } from "../common/types.js";
import type { ClusterContext } from "../cluster-context.js";
import type { KafkaEvents } from "../trace-events.js";
import type { ClientMetadata } from "./client-metadata.js";
import { IdempotentTransactionManager } from "./idempotent-transaction-manager.js";
import type { ProducerBehaviour } from "./producer-behaviour.js";
import type { ProducerConfig } from "./producer-config.js";
import { RecordAccumulator } from "./record-accumulator.js";
import { Sender } from "./sender.js";
import { workloadStreamName } from "./transactional-producer.js";

/** What an idempotent producer's application sends: rounds of records, each round to a few partitions. */
export interface IdempotentWorkload {
  rounds: number;
  recordsPerRound: { min: number; max: number };
  partitionsPerRound: { min: number; max: number };
  thinkMs: { min: number; max: number };
  partitions: readonly PartitionKey[];
}

/**
 * The application around an idempotent (enable.idempotence, no transactional.id) KafkaProducer:
 * rounds of send() to a few partitions, think time between them, never waiting for the
 * acknowledgements. Its internals are Kafka's: a RecordAccumulator, a Sender and the
 * TransactionManager's idempotent paths, which get a producer id with InitProducerId and bump the
 * epoch on the client alone. Its record values (`i0:3/1`) belong to no transaction: the oracle's
 * record checks pass them by, and its own check watches the producer's epoch bumps.
 */
export class IdempotentProducer {
  private round = 0;
  private stopped = false;
  private closed = false;
  private timer: Timer | null = null;
  private readonly accumulator: RecordAccumulator;
  private readonly tm: IdempotentTransactionManager;
  private readonly sender: Sender;

  constructor(
    private readonly ctx: ClusterContext,
    readonly config: ProducerConfig,
    private readonly workload: IdempotentWorkload,
    metadata: ClientMetadata,
    behaviour: ProducerBehaviour,
  ) {
    this.accumulator = new RecordAccumulator(config.recordsPerBatch, config.lingerMs);
    this.tm = new IdempotentTransactionManager(config.name, behaviour, {
      fatal: (_api, _errorCode, reason) => this.close(reason),
      epochBumped: (producerId, producerEpoch, causes) => {
        this.emit("producer.idempotent-bump", {
          pid: producerId,
          epoch: producerEpoch,
          partitions: causes.map((c) => `${c.partition} (${c.error})`).join(", "),
        });
        this.ctx.ghost.idempotentEpochBumped?.({
          producer: config.name,
          producerId,
          producerEpoch,
          trigger: causes,
          atMs: this.ctx.sim.nowMs,
        });
      },
    });
    this.sender = new Sender(ctx, config, {
      accumulator: this.accumulator,
      tm: this.tm,
      metadata,
      currentGhost: () => null,
      onBatchDone: () => {},
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private emit<K extends keyof KafkaEvents & string>(kind: K, fields: KafkaEvents[K]): void {
    this.ctx.sim.emit(this.config.name, kind, fields);
  }

  private get stream(): string {
    return workloadStreamName(this.config.name);
  }

  start(delayMs: number): void {
    this.timer = this.ctx.sim.schedule(delayMs, () => this.nextRound());
    // The Sender's first run asks for the producer id (bumpIdempotentEpochAndResetIdIfNeeded).
    this.sender.wakeup(this.ctx.sim.nowMs + delayMs);
  }

  /**
   * End of the workload phase: no new round. The Sender keeps retrying what was sent (a producer
   * is not closed by its application's pause), so a loop of refusals goes on into the quiet period.
   */
  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  private close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.stop();
    this.sender.close();
    this.emit("producer.fatal", { reason, txn: null });
  }

  /** One round: send() of its records, each to a partition drawn among the round's, then think time. */
  private nextRound(): void {
    if (this.stopped || this.closed || this.round >= this.workload.rounds) return;
    this.round++;
    const c = this.ctx.choices;
    const w = this.workload;
    const count = c.between(
      this.stream,
      w.partitionsPerRound.min,
      Math.min(w.partitionsPerRound.max, w.partitions.length),
    );
    const pool = [...w.partitions];
    const chosen: PartitionKey[] = [];
    for (let i = 0; i < count && pool.length > 0; i++)
      chosen.push(pool.splice(c.pick(this.stream, pool.length), 1)[0] as PartitionKey);
    const records = c.between(this.stream, w.recordsPerRound.min, w.recordsPerRound.max);
    for (let i = 0; i < records; i++) {
      const partition = chosen[i % chosen.length] as PartitionKey;
      this.accumulator.append(partition, `${this.config.name}:${this.round}/${i}`, null, this.ctx.sim.nowMs);
    }
    this.sender.wakeup();
    this.timer = this.ctx.sim.schedule(c.between(this.stream, w.thinkMs.min, w.thinkMs.max), () => this.nextRound());
  }
}
