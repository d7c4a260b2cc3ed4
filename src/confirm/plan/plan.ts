import type { Violation } from "../../oracle/violation.js";

/**
 * A counterexample turned into what a real cluster can be made to do: the cluster (releases,
 * topics and their placement), the producers, and one ordered list of steps: client calls, faults
 * armed and released, admin calls. The order is the model's: each step sits where its effect
 * happened in the model's trace (a send where its batch was appended, a commit where the producer
 * learnt its outcome, a held marker's release where the late copy reached its leader).
 */
export interface ConfirmPlan {
  scenario: string;
  /** Where the counterexample came from. */
  source: string;
  brokers: PlanBroker[];
  /** The controller runs the oldest broker release (it then supports every member's metadata version). */
  controllerRelease: string;
  /** The release of every client (producers, admin, the reader). */
  clientRelease: string;
  /** transaction.version finalized at format time. */
  transactionVersion: number;
  transactionState: {
    partitions: number;
    replicationFactor: number;
    minInsyncReplicas: number;
    /**
     * The model's replicas of each partition (node ids, preferred first). A plan with cluster
     * events places the real partitions so, for the controller's elections to pick as the model's.
     */
    assignment?: number[][];
  };
  /** Broker request.timeout.ms: the marker channel re-sends a request unanswered this long. */
  brokerRequestTimeoutMs: number;
  topics: PlanTopic[];
  producers: PlanProducer[];
  steps: PlanStep[];
  faults: PlannedFault[];
  /** What the model did that the plan does not replay (faults that changed no outcome, or not supported). */
  notReplayed: string[];
  /** Events the plan cannot replay although they may matter: a clean real run then proves nothing. */
  unsupported: string[];
  /** The model's violations on this counterexample: what real Kafka is asked to confirm. */
  modelViolations: Violation[];
}

export interface PlanBroker {
  /** The model's name, "broker-0"; Kafka's node.id is its position. */
  name: string;
  nodeId: number;
  /** The model's release profile ("4.1") and the Kafka release that runs it ("4.1.2"). */
  profile: string;
  release: string;
}

export interface PlanTopic {
  name: string;
  /** Per partition, its replicas' node ids, preferred leader first. */
  assignment: number[][];
  minInsyncReplicas: number;
}

export interface PlanProducer {
  name: string;
  /** The model's transactional.id; the real one maps to a __transaction_state partition led by `coordinator`. */
  transactionalId: string;
  coordinator: string;
}

/** What the model saw a step do: the real run's first step that differs is where Kafka went another way. */
export type ModelOutcome =
  | { kind: "ok"; detail: string }
  | { kind: "error"; error: string; detail: string }
  | { kind: "unknown"; detail: string };

export type PlanStep = { key: number; model: ModelOutcome } & (
  | { kind: "init"; producer: string }
  | { kind: "begin"; producer: string; txn: string }
  | { kind: "send"; producer: string; txn: string; partition: string; value: string }
  | { kind: "commit"; producer: string; txn: string }
  | { kind: "abort"; producer: string; txn: string }
  /**
   * Wait until the coordinator wrote CompleteCommit or CompleteAbort for `txn`: every marker of it
   * landed. A marker is no client's step, so without this a later step could overtake it on the
   * real cluster where the model had it land first (an admin abort, a next transaction's write).
   */
  | { kind: "await-complete"; producer: string; txn: string; result: "COMMIT" | "ABORT" }
  /**
   * Wait until the coordinator's marker for `txn` landed at `partition`: the leader shows no
   * transaction of the producer open there, at `epoch` or later (the marker's epoch).
   */
  | {
      kind: "await-marker";
      producer: string;
      txn: string;
      partition: string;
      epoch: number;
      result: "COMMIT" | "ABORT";
    }
  | { kind: "arm"; fault: string }
  | { kind: "release"; fault: string }
  | {
      kind: "admin-abort";
      partition: string;
      producer: string;
      producerEpoch: number;
      coordinatorEpoch: number;
      /** The transaction the operator meant to abort (the one it saw open). */
      txn: string | null;
    }
  /**
   * A cluster event the model had at this point. The leadership of `partition` (the model's name;
   * __transaction_state-N is the model's partition N) moves to `broker`: an operator's move or the
   * controller's preferred-leader election (Admin.electLeaders, after a reordering of the replicas
   * when `broker` is not the preferred one).
   */
  | { kind: "elect-leader"; partition: string; broker: string; leaderEpoch: number; cause: string }
  /** The controller moved `partition`'s leadership by itself (a broker shut down, fenced, back): wait until it shows. */
  | { kind: "await-leader"; partition: string; broker: string | null; leaderEpoch: number; cause: string }
  /** Kafka's controlled shutdown of `broker` (SIGTERM): it hands its leadership over, then stops. */
  | { kind: "shutdown-broker"; broker: string }
  /** kill -9 of `broker`: the controller fences it once its session times out. */
  | { kind: "kill-broker"; broker: string }
  /** `broker` starts again on its storage and registers (unfenced). */
  | { kind: "restart-broker"; broker: string }
  /** Admin.updateFeatures: finalize transaction.version `level` (an operator's kafka-features.sh). */
  | { kind: "update-feature"; feature: "transaction.version"; level: number }
);

/** The step kinds that are cluster events: a run where one did not happen as planned proves nothing. */
export const CLUSTER_EVENT_KINDS: ReadonlySet<PlanStep["kind"]> = new Set([
  "elect-leader",
  "await-leader",
  "shutdown-broker",
  "kill-broker",
  "restart-broker",
  "update-feature",
]);

export function isClusterEvent(s: PlanStep): boolean {
  return CLUSTER_EVENT_KINDS.has(s.kind);
}

/**
 * A marker copy the model delivered after its coordinator had re-sent it: held by the proxy in
 * front of the leader's INTERNAL listener from its sending until its release step. Or a copy the
 * model's network lost before its coordinator re-sent it: dropped there.
 */
export interface PlannedFault {
  id: string;
  /** hold: kept until its release step; drop: lost (the connection closes), as the model's network lost it. */
  kind: "hold" | "drop";
  /** The leader the copy goes to (whose proxy holds it). */
  broker: string;
  /** The coordinator that sends it (its marker channel's client id names its node). */
  coordinator: string;
  producer: string;
  result: "COMMIT" | "ABORT";
  /** The n-th matching request after the rule is armed. */
  nth: number;
  /** The transaction the marker was issued for. */
  txn: string;
  /** The model's account of this copy. */
  story: string;
}

export function describeStep(s: PlanStep): string {
  switch (s.kind) {
    case "init":
      return `${s.producer} initTransactions`;
    case "begin":
      return `${s.producer} begins ${s.txn}`;
    case "send":
      return `${s.producer} sends ${s.value} to ${s.partition} and waits for the ack`;
    case "commit":
      return `${s.producer} commits ${s.txn}`;
    case "abort":
      return `${s.producer} aborts ${s.txn}`;
    case "await-complete":
      return `${s.txn}'s markers have all landed (${s.result === "COMMIT" ? "CompleteCommit" : "CompleteAbort"})`;
    case "await-marker":
      return `${s.txn}'s ${s.result} marker has landed at ${s.partition}`;
    case "arm":
      return `the proxy arms ${s.fault}`;
    case "release":
      return `the proxy releases the copy ${s.fault} holds`;
    case "admin-abort":
      return `Admin.abortTransaction at ${s.partition} for ${s.producer} (epoch ${s.producerEpoch}, coordinator epoch ${s.coordinatorEpoch})`;
    case "elect-leader":
      return `${s.broker} is elected leader of ${s.partition} (${s.cause})`;
    case "await-leader":
      return `the controller moves ${s.partition}'s leadership to ${s.broker ?? "no one"} (${s.cause})`;
    case "shutdown-broker":
      return `${s.broker} shuts down (controlled)`;
    case "kill-broker":
      return `${s.broker} is killed (kill -9)`;
    case "restart-broker":
      return `${s.broker} starts again`;
    case "update-feature":
      return `Admin.updateFeatures finalizes ${s.feature} ${s.level}`;
  }
}
