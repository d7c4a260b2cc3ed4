import type { TransactionResult } from "../kafka/common/types.js";

export function at(ms: number): string {
  return `t=${ms}ms`.padEnd(10);
}

export function pastTense(result: TransactionResult): string {
  return result === "COMMIT" ? "committed" : "aborted";
}

export function offsetRange(first: number, last: number): string {
  return first === last ? `offset ${first}` : `offsets ${first}..${last}`;
}
