/**
 * Every queue and list the model keeps has a bound. Reaching one is not a hang and not silent
 * truncation: the component throws BoundExceeded, and the run reports it (as a model-error that
 * names the bound) and ends. A run that reaches a bound either asks for more than one run can
 * hold, or loops inside the model (a bug of eosfuzz). Every bounded queue checks its size with
 * `if (size >= LIMIT) throw new BoundExceeded(...)`, so the description (often a template naming the
 * partition or connection) is built only when the bound is reached, never on the hot path.
 */
export class BoundExceeded extends Error {
  override readonly name = "BoundExceeded";
  constructor(
    /** What grew past its bound, e.g. "pending events of the simulation". */
    readonly what: string,
    readonly limit: number,
  ) {
    super(`${what} exceeded ${limit.toLocaleString("en-US")}`);
  }
}

/** Bounds of the kernel (Kafka-side bounds live beside the queues they bound). Tests may lower them. */
export const SIM_BOUNDS = {
  /** Events scheduled and not yet fired (timers, messages in the network). */
  pendingEvents: 1_000_000,
};
