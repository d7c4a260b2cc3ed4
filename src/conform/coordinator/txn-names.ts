import type { TransactionStateName } from "../../kafka/coordinator/transaction-state.js";

/**
 * The protocol's transaction state names are the Java enum names of Kafka's TransactionState
 * (jvm/PROTOCOL.md); the model spells them as Kafka's Scala case objects did.
 */
export type KafkaTxnState =
  | "EMPTY"
  | "ONGOING"
  | "PREPARE_COMMIT"
  | "PREPARE_ABORT"
  | "COMPLETE_COMMIT"
  | "COMPLETE_ABORT"
  | "DEAD"
  | "PREPARE_EPOCH_FENCE";

const TO_KAFKA: Readonly<Record<TransactionStateName, KafkaTxnState>> = {
  Empty: "EMPTY",
  Ongoing: "ONGOING",
  PrepareCommit: "PREPARE_COMMIT",
  PrepareAbort: "PREPARE_ABORT",
  CompleteCommit: "COMPLETE_COMMIT",
  CompleteAbort: "COMPLETE_ABORT",
  Dead: "DEAD",
  PrepareEpochFence: "PREPARE_EPOCH_FENCE",
};

export function kafkaState(state: TransactionStateName): KafkaTxnState {
  return TO_KAFKA[state];
}

export function modelState(state: KafkaTxnState): TransactionStateName {
  const found = (Object.keys(TO_KAFKA) as TransactionStateName[]).find((s) => TO_KAFKA[s] === state);
  if (!found) throw new Error(`no transaction state ${state}`);
  return found;
}

/** Partitions as the protocol lists them: sorted, so a set's order is no difference. */
export function sortedPartitions(partitions: Iterable<string>): string[] {
  return [...partitions].sort();
}
