/*
 * Assertions at the model's boundaries (TIGER_STYLE): where data enters a core class, its arguments
 * are checked against what Kafka's own types and invariants allow. A failed assertion is a bug in
 * eosfuzz, never a Kafka error: it throws ModelAssertionError, which no handler of the model catches
 * (Kafka's errors travel as error codes and KafkaThrownException), so a run stops on it and says so.
 */

/** A broken invariant of the model: a bug in eosfuzz, not behaviour of Kafka's. */
export class ModelAssertionError extends Error {
  override readonly name = "ModelAssertionError";
}

/** Throws ModelAssertionError with `message` (built only on failure when a function) unless `condition`. */
export function assert(condition: boolean, message: string | (() => string)): asserts condition {
  if (!condition) throw new ModelAssertionError(typeof message === "string" ? message : message());
}

/** Kafka's int16 (a producer epoch is a Java short). */
export function isInt16(value: number): boolean {
  return Number.isInteger(value) && value >= -32_768 && value <= 32_767;
}

/** Kafka's int32 (a timeout, a coordinator epoch). */
export function isInt32(value: number): boolean {
  return Number.isInteger(value) && value >= -2_147_483_648 && value <= 2_147_483_647;
}

/** Kafka's int64 as far as a JavaScript number holds it exactly (a producer id, an offset). */
export function isInt64(value: number): boolean {
  return Number.isSafeInteger(value);
}
