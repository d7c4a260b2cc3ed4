/*
 * TransactionManager.State and State.isTransitionValid, apart from the manager so the producer and
 * the oracle read the client's states without it.
 */

/** TransactionManager.State. */
export type TransactionState =
  | "UNINITIALIZED"
  | "INITIALIZING"
  | "READY"
  | "IN_TRANSACTION"
  | "COMMITTING_TRANSACTION"
  | "ABORTING_TRANSACTION"
  | "ABORTABLE_ERROR"
  | "FATAL_ERROR";

/** State.isTransitionValid: the states each state may be entered from (FATAL_ERROR: from any). */
export const VALID_PREVIOUS: Record<TransactionState, readonly TransactionState[] | "any"> = {
  UNINITIALIZED: ["READY", "ABORTABLE_ERROR"],
  // From COMMITTING_TRANSACTION: the epoch bump of a client moving up to TV2 after its commit.
  INITIALIZING: ["UNINITIALIZED", "COMMITTING_TRANSACTION", "ABORTING_TRANSACTION"],
  READY: ["INITIALIZING", "COMMITTING_TRANSACTION", "ABORTING_TRANSACTION"],
  IN_TRANSACTION: ["READY"],
  COMMITTING_TRANSACTION: ["IN_TRANSACTION"],
  ABORTING_TRANSACTION: ["IN_TRANSACTION", "ABORTABLE_ERROR"],
  ABORTABLE_ERROR: ["IN_TRANSACTION", "COMMITTING_TRANSACTION", "ABORTABLE_ERROR", "INITIALIZING"],
  FATAL_ERROR: "any",
};
