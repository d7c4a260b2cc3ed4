import type { Simulation, Timer } from "../../sim/simulation.js";
import { Errors } from "../common/errors.js";
import type { PartitionKey } from "../common/types.js";
import type { FetchRequest, FetchResponse } from "../fetch-protocol.js";
import type { Partition } from "./partition.js";

/**
 * DelayedProduce: an acks=all append waiting for the high watermark to cover it. It completes with
 * Partition.checkEnoughReplicasReachOffset's answer, with NOT_LEADER_OR_FOLLOWER when leadership is
 * lost meanwhile, or with REQUEST_TIMED_OUT when it expires. Its expiry is a plain scheduled action,
 * not a SimEvent subclass: more than four event classes would make the kernel's event field stores
 * megamorphic (V8 inline caches), which measurably slows every event.
 */
export class DelayedProduce {
  done = false;
  private timer: Timer | null = null;

  constructor(
    readonly partition: Partition,
    readonly requiredOffset: number,
    private readonly onComplete: (errorCode: number) => void,
  ) {}

  /** Arm the expiry: REQUEST_TIMED_OUT after `timeoutMs` unless completed first. */
  expireAfter(sim: Simulation<object>, timeoutMs: number): void {
    this.timer = sim.schedule(timeoutMs, () => this.complete(Errors.REQUEST_TIMED_OUT));
  }

  /** Complete if the partition can answer now; true when done. */
  tryComplete(): boolean {
    const errorCode = this.partition.checkEnoughReplicasReachOffset(this.requiredOffset);
    if (errorCode === null) return false;
    this.complete(errorCode);
    return true;
  }

  complete(errorCode: number): void {
    if (this.done) return;
    this.done = true;
    this.timer?.cancel();
    this.onComplete(errorCode);
  }
}

/** How a fetch is answered: at once, or completed from the purgatory after its long poll (`delayed`). */
export interface FetchCompletion {
  readonly delayed: boolean;
}

/** A fetch answered by DelayedFetch, after its wait. */
const FROM_PURGATORY: FetchCompletion = { delayed: true };

/** What a parked fetch asks of its replica manager when it is tried and when it completes. */
export interface FetchReader {
  /** Something to return for at least one partition of the fetch: data, an error, or a divergence. */
  canAnswer(request: FetchRequest): boolean;
  /** Read every partition of the fetch now and send the answer (`delayed`: from the purgatory). */
  answer(request: FetchRequest, respond: (response: FetchResponse) => void, completion?: FetchCompletion): void;
}

/**
 * DelayedFetch: a fetch with nothing to return yet, parked until one of its partitions has data or
 * an error, or until maxWaitMs passes; either way it then answers with what it reads at that moment.
 * As Kafka's, it holds the request and the response callback and asks its replica manager (no
 * closures per fetch: followers park one fetch per leader after every answer).
 */
export class DelayedFetch {
  done = false;
  private timer: Timer | null = null;

  constructor(
    readonly request: FetchRequest,
    private readonly reader: FetchReader,
    private readonly respond: (response: FetchResponse) => void,
  ) {}

  /** Arm the long poll's end: answer after `maxWaitMs` unless completed first. */
  expireAfter(sim: Simulation<object>, maxWaitMs: number): void {
    this.timer = sim.schedule(maxWaitMs, () => this.complete());
  }

  tryComplete(): boolean {
    if (this.done) return true;
    if (!this.reader.canAnswer(this.request)) return false;
    this.complete();
    return true;
  }

  complete(): void {
    if (this.done) return;
    this.done = true;
    this.timer?.cancel();
    this.reader.answer(this.request, this.respond, FROM_PURGATORY);
  }
}

/** Bound on operations parked on one partition: more means the model is looping. */
export const MAX_DELAYED_PER_PARTITION = 10_000;

/**
 * DelayedOperationPurgatory keyed by partition: operations watch the partitions they wait on, and
 * an event on a partition (an append, a high-watermark move, a leadership change) tries each.
 */
export class Purgatory<Op extends { done: boolean; tryComplete(): boolean }> {
  private readonly watchers = new Map<PartitionKey, Op[]>();

  constructor(private readonly name: string) {}

  watch(partition: PartitionKey, op: Op): void {
    let list = this.watchers.get(partition);
    if (!list) {
      list = [];
      this.watchers.set(partition, list);
    }
    if (list.length >= MAX_DELAYED_PER_PARTITION)
      throw new Error(`${this.name}: more than ${MAX_DELAYED_PER_PARTITION} operations on ${partition}`);
    list.push(op);
  }

  /** checkAndComplete: try every operation watching `partition`; completed ones leave the list (compacted in place). */
  checkAndComplete(partition: PartitionKey): void {
    const list = this.watchers.get(partition);
    if (!list || list.length === 0) return;
    let kept = 0;
    // A completion may watch new operations on this partition meanwhile: they are tried too.
    for (let i = 0; i < list.length; i++) {
      const op = list[i] as Op;
      if (!op.done && !op.tryComplete()) list[kept++] = op;
    }
    list.length = kept;
  }

  /** Operations still waiting on `partition` (for tests). */
  waiting(partition: PartitionKey): number {
    return (this.watchers.get(partition) ?? []).filter((op) => !op.done).length;
  }
}
