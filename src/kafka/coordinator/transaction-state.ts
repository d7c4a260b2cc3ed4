/** TransactionState, with Kafka's ids (the id is what the transaction log persists). */
export const TransactionState = {
  Empty: 0,
  Ongoing: 1,
  PrepareCommit: 2,
  PrepareAbort: 3,
  CompleteCommit: 4,
  CompleteAbort: 5,
  Dead: 6,
  PrepareEpochFence: 7,
} as const;

export type TransactionStateName = keyof typeof TransactionState;

const S = (...names: TransactionStateName[]): ReadonlySet<TransactionStateName> => new Set(names);

/**
 * Valid previous states per target state (the newest set: PrepareAbort may also follow Empty and
 * CompleteX for TV2 "empty aborts").
 */
export const VALID_PREVIOUS_STATES: Readonly<Record<TransactionStateName, ReadonlySet<TransactionStateName>>> = {
  Empty: S("Empty", "CompleteCommit", "CompleteAbort"),
  Ongoing: S("Ongoing", "Empty", "CompleteCommit", "CompleteAbort"),
  PrepareCommit: S("Ongoing"),
  PrepareAbort: S("Ongoing", "PrepareEpochFence", "Empty", "CompleteCommit", "CompleteAbort"),
  CompleteCommit: S("PrepareCommit"),
  CompleteAbort: S("PrepareAbort"),
  Dead: S("Empty", "CompleteAbort", "CompleteCommit"),
  PrepareEpochFence: S("Ongoing"),
};

/** 3.9's PrepareAbort, before KIP-890 part 2's empty aborts: only from Ongoing or a fence. */
export const PREPARE_ABORT_BEFORE_KIP_890: ReadonlySet<TransactionStateName> = S("Ongoing", "PrepareEpochFence");

export function isPrepare(state: TransactionStateName): state is "PrepareCommit" | "PrepareAbort" {
  return state === "PrepareCommit" || state === "PrepareAbort";
}

export function isComplete(state: TransactionStateName): state is "CompleteCommit" | "CompleteAbort" {
  return state === "CompleteCommit" || state === "CompleteAbort";
}

export const TRANSACTION_STATE_NAMES = Object.keys(TransactionState) as TransactionStateName[];
