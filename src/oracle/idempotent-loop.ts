import type { IdempotentEpochBump } from "../kafka/ghost.js";
import { at } from "./format.js";
import type { Violation } from "./violation.js";

/**
 * Consecutive client-side epoch bumps, each asked for by OUT_OF_ORDER_SEQUENCE_NUMBER alone, that
 * make an idempotent producer's loop endless. A genuine gap in a partition's sequences costs one
 * bump, after which every partition starts again at 0 (KAFKA-12152's fix): a second refusal comes
 * only from another gap, and a gap needs a batch lost or expired in between. Six in a row without
 * any other cause is a producer that refutes its own bump.
 */
export const OUT_OF_ORDER_LOOP_BUMPS = 6;

/** Per idempotent producer: the bumps of the current run of out-of-order-only bumps. */
export class IdempotentLoopWatch {
  private readonly streaks = new Map<string, IdempotentEpochBump[]>();
  private readonly reported = new Set<string>();

  /**
   * An epoch bump: extends the producer's streak when every partition that asked for it was
   * refused OUT_OF_ORDER_SEQUENCE_NUMBER, ends it otherwise. A liveness violation (the producer's
   * records keep being refused for ever) the first time the streak reaches the bound.
   */
  bumped(e: IdempotentEpochBump): Violation | null {
    const outOfOrderOnly = e.trigger.length > 0 && e.trigger.every((t) => t.error === "OUT_OF_ORDER_SEQUENCE_NUMBER");
    if (!outOfOrderOnly) {
      this.streaks.delete(e.producer);
      return null;
    }
    const streak = [...(this.streaks.get(e.producer) ?? []), e];
    this.streaks.set(e.producer, streak);
    if (streak.length < OUT_OF_ORDER_LOOP_BUMPS || this.reported.has(e.producer)) return null;
    this.reported.add(e.producer);
    return outOfOrderLoop(streak);
  }
}

function outOfOrderLoop(streak: readonly IdempotentEpochBump[]): Violation {
  const first = streak[0] as IdempotentEpochBump;
  const last = streak[streak.length - 1] as IdempotentEpochBump;
  const partitions = [...new Set(streak.flatMap((b) => b.trigger.map((t) => t.partition)))].sort();
  return {
    kind: "hanging-transaction",
    summary: `${last.producer} is stuck in an endless OUT_OF_ORDER_SEQUENCE_NUMBER loop: ${streak.length} epoch bumps in a row (epochs ${first.producerEpoch - 1} to ${last.producerEpoch}), each asked for by a batch the leader refused, at ${partitions.join(", ")}`,
    explanation: [
      ...streak.map((b) => {
        const why = b.trigger
          .map(
            (t) =>
              `${t.partition} refused its batch at epoch ${t.batchEpoch}, sequence ${t.baseSequence} (OUT_OF_ORDER_SEQUENCE_NUMBER)`,
          )
          .join("; ");
        return `${at(b.atMs)} ${b.producer} (producerId ${b.producerId}) bumped its epoch to ${b.producerEpoch}: ${why}`;
      }),
      "a partition written under an earlier epoch keeps its sequence after a bump asked for by another one: its next batch carries the new epoch with a sequence above 0, which the leader refuses (a new epoch must start at sequence 0), and that refusal asks for the next bump (KAFKA-12152)",
    ],
    atMs: last.atMs,
    partition: partitions[0] as string,
  };
}
