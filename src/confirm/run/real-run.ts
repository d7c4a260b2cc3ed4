import type { DumpedBatch } from "../history/dump-log.js";
import type { ModelOutcome, PlanStep } from "../plan/plan.js";
import type { FaultFiring } from "../proxy/fault-rules.js";
import type { ProxyEvent } from "../proxy/kafka-proxy.js";

/** What one plan step did on the real cluster. */
export interface StepRecord {
  index: number;
  step: PlanStep;
  /** Wall-clock ms since the run's start (the cluster up). */
  startMs: number;
  endMs: number;
  /** What real Kafka answered, in the model's terms. */
  real: ModelOutcome;
  /** The driver's reply (or the proxy's answer to a release). */
  reply: Record<string, unknown>;
}

export interface RealFault {
  id: string;
  firings: FaultFiring[];
  /** The broker's answer to the released copy: each partition's error name. */
  released: { atMs: number; errors: { partition: string; error: string }[] } | null;
}

/** Everything a real run produced: the history the oracle reads is built from it. */
export interface RealRun {
  /** Epoch ms when the cluster was up: every atMs below counts from it. */
  epochMs: number;
  /** How long the cluster took to start (format, JVMs, health, topics). */
  clusterStartMs: number;
  dir: string;
  brokers: { name: string; nodeId: number; release: string; kafkaVersion: string; logFile: string }[];
  clientVersion: string;
  producers: { name: string; transactionalId: string; producerId: number; coordinator: string }[];
  steps: StepRecord[];
  faults: RealFault[];
  proxyEvents: ProxyEvent[];
  /** The read_committed reading of every planned partition after the plan. */
  finalRead: {
    records: { partition: string; offset: number; value: string }[];
    endOffsets: Record<string, number>;
    offsets: Record<string, { highWatermark: number; lastStableOffset: number }>;
    complete: boolean;
  };
  /** The raw logs of every planned partition, at its leader (DumpLogSegments, control batches included). */
  logs: DumpedBatch[];
  /** __transaction_state, decoded. */
  transactionLog: DumpedBatch[];
  /** Which broker led each __transaction_state partition. */
  transactionStateLeaders: Record<number, string>;
  /** With cluster events: each partition's leader at the end ("orders-3" -> broker), whose log was read. */
  finalLeaders?: Record<string, string>;
  /** Set when the plan stopped early: why. */
  stoppedEarly: string | null;
  /** Requests every proxy saw, by API. */
  requestCounts: Record<string, number>;
}
