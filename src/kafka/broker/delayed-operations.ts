import { SimEvent } from "../../sim/simulation.js";
import { Errors } from "../common/errors.js";
import type { PartitionKey } from "../common/types.js";
import type { Partition } from "./partition.js";

/**
 * DelayedProduce: an acks=all append waiting for the high watermark to cover it. It completes with
 * Partition.checkEnoughReplicasReachOffset's answer, with NOT_LEADER_OR_FOLLOWER when leadership is
 * lost meanwhile, or with REQUEST_TIMED_OUT when it expires (fired as a simulation event).
 */
export class DelayedProduce extends SimEvent {
  done = false;

  constructor(
    readonly partition: Partition,
    readonly requiredOffset: number,
    private readonly onComplete: (errorCode: number) => void,
  ) {
    super();
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
    this.cancel();
    this.onComplete(errorCode);
  }

  fire(): void {
    this.complete(Errors.REQUEST_TIMED_OUT);
  }
}

/**
 * DelayedFetch: a fetch with nothing to return yet, parked until one of its partitions has data or
 * an error (`ready`), or until maxWaitMs passes (fired as a simulation event); either way it then
 * answers with what it reads at that moment.
 */
export class DelayedFetch extends SimEvent {
  done = false;

  constructor(
    readonly partitions: readonly PartitionKey[],
    private readonly ready: () => boolean,
    private readonly answer: () => void,
  ) {
    super();
  }

  tryComplete(): boolean {
    if (this.done) return true;
    if (!this.ready()) return false;
    this.complete();
    return true;
  }

  complete(): void {
    if (this.done) return;
    this.done = true;
    this.cancel();
    this.answer();
  }

  fire(): void {
    this.complete();
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

  /** checkAndComplete: try every operation watching `partition`; completed ones leave the list. */
  checkAndComplete(partition: PartitionKey): void {
    const list = this.watchers.get(partition);
    if (!list || list.length === 0) return;
    const kept: Op[] = [];
    for (const op of list) if (!op.done && !op.tryComplete()) kept.push(op);
    // An operation completed elsewhere (timeout, another partition) may have added to the list meanwhile.
    const current = this.watchers.get(partition);
    if (current === list) this.watchers.set(partition, kept);
  }

  /** Operations still waiting on `partition` (for tests). */
  waiting(partition: PartitionKey): number {
    return (this.watchers.get(partition) ?? []).filter((op) => !op.done).length;
  }
}
