import type { PartitionKey } from "../common/types.js";
import type { PartitionLog } from "./partition-log.js";
import type { DataAppendResult, DataBatchInput, MarkerAppendResult, MarkerInput } from "./log-append.js";
import type { LogBatch } from "./log-batch.js";

/**
 * Every call that judges or changes one replica's log, with the model's answer: what a trace
 * validation replays on Kafka's UnifiedLog of the broker's release (src/conform/). The model never
 * reads it back; a run without an observer is the same run.
 */
export type LogOperation =
  | {
      kind: "verify";
      producerId: number;
      producerEpoch: number;
      sequence: number;
      supportsEpochBump: boolean;
      /** The stale-epoch refusal (KAFKA-18042) that answered instead of a guard, or null. */
      refused: string | null;
      /** The guard handed out (0: the sentinel; unset when refused). */
      guard: number;
    }
  | { kind: "data"; input: DataBatchInput; result: DataAppendResult }
  | { kind: "marker"; input: MarkerInput; result: MarkerAppendResult }
  | { kind: "follower"; batch: LogBatch }
  /** A coordinator's own record (no producer): a __transaction_state or __consumer_offsets record. */
  | { kind: "coordinatorRecord"; batch: LogBatch }
  | { kind: "truncate"; offset: number }
  | { kind: "highWatermark"; highWatermark: number }
  | { kind: "expire"; expirationMs: number; removed: readonly number[] }
  | { kind: "becomeLeader"; leaderEpoch: number }
  | { kind: "becomeFollower" }
  /** The broker's process stopped (clean: a controlled shutdown); Kafka recovers the log when it restarts. */
  | { kind: "restart"; clean: boolean };

export interface PartitionLogObserver {
  /** Called after the operation, with the log as it left it; `nowMs` is the log's clock (null: none). */
  onOperation(op: LogOperation, log: PartitionLog, nowMs: number | null): void;
}

/** Hands each replica of a run its observer (the broker that holds it, the partition, its release now). */
export interface LogObserverFactory {
  forReplica(broker: string, partition: PartitionKey, release: () => string): PartitionLogObserver | null;
}
