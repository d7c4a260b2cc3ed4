import type { LeaderOp } from "../../src/conform/leader/leader-ops.js";

/**
 * A transactional client's steps at a leader, for one producer id: its verification (the
 * AddPartitionsToTxn verify-only round trip) and its one-record batches. Shared by the harness
 * cases that replay a seed's story on Kafka's UnifiedLog (stuck-sequence, forgotten-duplicate).
 */
export function clientOps(producerId: number) {
  const verify = (sequence: number, producerEpoch: number, supportsEpochBump: boolean): LeaderOp => ({
    op: "verify",
    producerId,
    producerEpoch,
    sequence,
    supportsEpochBump,
  });
  const data = (baseSequence: number, producerEpoch: number, guard: "none" | `op:${number}`): LeaderOp => ({
    op: "data",
    producerId,
    producerEpoch,
    baseSequence,
    count: 1,
    transactional: true,
    origin: "CLIENT",
    guard,
  });
  return { verify, data };
}
