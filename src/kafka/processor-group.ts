import { ConsumerCoordinator } from "./client/consumer-coordinator.js";
import { type ProcessedTxn, Processor } from "./client/processor.js";
import type { TransactionalProducer } from "./client/transactional-producer.js";
import type { Cluster } from "./cluster.js";
import type { ProcessorRestartSpec, ProcessorsSpec } from "./cluster-spec.js";
import { partitionKey } from "./common/types.js";

/** One running instance of a processor application: its consumer's membership, its loop, its producer. */
interface Instance {
  processor: Processor;
  coordinator: ConsumerCoordinator;
  producer: TransactionalProducer;
}

/** Restarts per processor slot at most (a run with more is no more interesting). */
const MAX_RESTARTS = 3;

/**
 * The processors of one consumer group (issue 17's workload) and their faults: a processor paused
 * past the session timeout (a zombie whose consumer and producer both stall, then resume), and a
 * crash, after which the application starts again with the same transactional.id as a new member.
 * They stop once the upstream producers are done and nothing was processed for idleStopMs.
 */
export class ProcessorGroup {
  readonly slots: Instance[] = [];
  /** Every transaction a processor started, in order (for the oracle's explanations). */
  readonly journal: ProcessedTxn[] = [];
  private readonly restarts: number[] = [];
  /** A slot whose instance is closing gracefully: no other fault until its successor is scheduled. */
  private readonly closing: boolean[] = [];
  private lastWorkMs = 0;
  private stopped = false;

  constructor(
    private readonly cluster: Cluster,
    private readonly spec: ProcessorsSpec,
  ) {
    for (let i = 0; i < spec.count; i++) {
      this.slots.push(this.newInstance(`q${i}`, baseTransactionalId(i)));
      this.restarts.push(0);
      this.closing.push(false);
    }
  }

  /** Every producer instance processors ever used (for stats and the final checks). */
  readonly producersEver: TransactionalProducer[] = [];

  private newInstance(name: string, transactionalId: string): Instance {
    const c = this.cluster;
    const output = c.spec.topics.find((t) => t.name === this.spec.outputTopic);
    if (!output) throw new Error(`processors write ${this.spec.outputTopic}, which is not a topic of the cluster`);
    const p = c.spec.producers;
    const processor = new Processor(c.ctx, name, {
      transactionalId,
      metadata: c.clientMetadataFor(`${name}-consumer`),
      settings: {
        groupId: this.spec.groupId,
        outputPartitions: output.partitions.map((_, i) => partitionKey(output.name, i)),
        maxRecordsPerTxn: this.spec.maxRecordsPerTxn,
        pollMs: this.spec.pollMs,
        retryBackoffMs: p.retryBackoffMs,
        requestTimeoutMs: p.requestTimeoutMs,
        fetchMaxWaitMs: c.spec.consumers.fetchMaxWaitMs,
        requireStable: c.spec.globalOverrides.offsetFetchRequireStable ?? true,
        seekToCommittedOnAbort: c.spec.globalOverrides.processorSeeksToCommittedOnAbort ?? true,
      },
      journal: this.journal,
    });
    const coordinator = new ConsumerCoordinator(
      c.ctx,
      {
        name: `${name}-consumer`,
        groupId: this.spec.groupId,
        groupInstanceId: null,
        heartbeatIntervalMs: Math.max(1, Math.floor((c.spec.consumerOffsets?.sessionTimeoutMs ?? 3000) / 3)),
        retryBackoffMs: p.retryBackoffMs,
        requestTimeoutMs: p.requestTimeoutMs,
      },
      c.clientMetadataFor(`${name}-consumer`),
      processor,
    );
    processor.coordinator = coordinator;
    const producer = c.newProducer(name, transactionalId, undefined, {
      transactions: this.spec.transactions,
      processing: {
        next: (ghostTxn) => {
          const work = processor.next(ghostTxn);
          if (work) this.lastWorkMs = c.sim.nowMs;
          return work;
        },
        ended: (ghostTxn, outcome) => processor.ended(ghostTxn, outcome),
        pollMs: this.spec.pollMs,
      },
    });
    this.producersEver.push(producer);
    return { processor, coordinator, producer };
  }

  start(): void {
    for (const s of this.slots) this.startInstance(s, 0);
  }

  private startInstance(s: Instance, delayMs: number): void {
    this.cluster.sim.schedule(delayMs, () => {
      // An instance that crashed while it was down (replaced in its slot) never starts: started, its
      // consumer would join as a member whose loop processes nothing, holding partitions to the end.
      if (this.stopped || !this.slots.includes(s)) return;
      s.coordinator.start();
      s.producer.start(0);
    });
  }

  get isDone(): boolean {
    return this.stopped;
  }

  /** Asked periodically once the upstream producers are done: stop after idleStopMs without work. */
  maybeStopIdle(): void {
    const now = this.cluster.sim.nowMs;
    if (now - this.lastWorkMs >= this.spec.idleStopMs) this.stop();
  }

  markBusy(): void {
    this.lastWorkMs = this.cluster.sim.nowMs;
  }

  /** End of the workload: every processor closes (an open transaction is left to time out) and leaves. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const s of this.slots) {
      s.processor.stop();
      s.producer.stop();
      s.coordinator.leave();
    }
  }

  /** One nemesis tick: each processor may be paused into a zombie, crash, or leave cleanly; then it restarts. */
  tick(): void {
    if (this.stopped) return;
    const { choices, sim } = this.cluster;
    this.slots.forEach((s, i) => {
      if (this.closing[i]) return;
      if (choices.chance("nemesis:processor-pause", this.spec.pause.ppm)) {
        const { min, max } = this.spec.pause.durationMs;
        const until = sim.nowMs + choices.between("nemesis:processor-pause", min, max);
        sim.emit("nemesis", "fault.processor-pause", { processor: s.processor.name, untilMs: until });
        s.coordinator.pause(until);
        s.producer.pause(until);
      }
      if ((this.restarts[i] as number) >= MAX_RESTARTS) return;
      if (choices.chance("nemesis:processor-crash", this.spec.crash.ppm)) this.crash(i);
      // Without graceful restarts the stream is never named, so the choice tape is the one before them.
      else if (this.spec.leave.ppm > 0 && choices.chance("nemesis:processor-leave", this.spec.leave.ppm)) this.leave(i);
    });
  }

  /**
   * The process dies: its consumer goes silent (no LeaveGroup: the session timeout expels the
   * member) and its loop starts nothing new, but a commit under way goes on (its requests are
   * modelled as sent; paused, the instance is a zombie that resumes). It comes back after downMs.
   */
  private crash(index: number): void {
    const old = this.slots[index] as Instance;
    old.processor.stop();
    old.producer.superseded = true;
    old.producer.stop();
    old.coordinator.kill();
    const { fresh, downMs } = this.restartSlot(index, "crash");
    this.startInstance(fresh, downMs);
  }

  /**
   * A graceful restart, in the order of Kafka's ExactlyOnceMessageProcessor.close: the loop lets
   * its transaction complete, producer.close(), then consumer.close(), whose
   * AbstractCoordinator.close sends LeaveGroup (maybeLeaveGroup): the group rebalances at once.
   * The new instance starts downMs after that.
   */
  private leave(index: number): void {
    const old = this.slots[index] as Instance;
    const { fresh, downMs } = this.restartSlot(index, "leave");
    this.closing[index] = true;
    old.processor.stop();
    old.producer.superseded = true;
    old.producer.closeGracefully(() => {
      old.coordinator.leave();
      this.closing[index] = false;
      this.startInstance(fresh, downMs);
    });
  }

  /**
   * The instance that takes slot `index` after a restart, and when it starts: the same
   * transactional.id, or (drawn at the fault's newTransactionalIdPpm) a new one named for the slot
   * and restart, `proc-txn-0-r2`. The trace names the new id only when it changed (so a run
   * without new ids keeps its trace byte for byte).
   */
  private restartSlot(index: number, kind: "crash" | "leave"): { fresh: Instance; downMs: number } {
    const { choices, sim } = this.cluster;
    const fault: ProcessorRestartSpec = this.spec[kind];
    const stream = `nemesis:processor-${kind}`;
    const old = this.slots[index] as Instance;
    const restarts = (this.restarts[index] as number) + 1;
    this.restarts[index] = restarts;
    const newId = choices.chance(stream, fault.newTransactionalIdPpm);
    const transactionalId = newId ? `${baseTransactionalId(index)}-r${restarts + 1}` : old.processor.transactionalId;
    const fresh = this.newInstance(`q${index}#${restarts + 1}`, transactionalId);
    fresh.producer.inheritProgress(old.producer);
    this.slots[index] = fresh;
    const downMs = choices.between(stream, fault.downMs.min, fault.downMs.max);
    sim.emit("nemesis", `fault.processor-${kind}`, {
      processor: old.processor.name,
      restartInMs: downMs,
      ...(newId ? { newTransactionalId: transactionalId } : {}),
    });
    return { fresh, downMs };
  }
}

/** Slot i's first transactional.id. */
function baseTransactionalId(index: number): string {
  return `proc-txn-${index}`;
}
