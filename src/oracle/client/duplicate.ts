import type { Violation } from "../violation.js";
import { type ClientCheckContext, clientViolation } from "./check-context.js";
import { describePlaces } from "./client-view.js";
import { renderSteps, type Step, step } from "./explain-client.js";

/** duplicate: one record (a unique value) is visible more than once in the final read. */
export function checkDuplicates(ctx: ClientCheckContext): Violation[] {
  const out: Violation[] = [];
  for (const f of ctx.facts.values()) {
    const dup = [...f.visible].find(([, places]) => places.length > 1);
    if (!dup) continue;
    const [value, places] = dup;
    const copies = f.appended.get(value) ?? [];
    const steps: Step[] = copies.map((c) =>
      step(
        c.atMs,
        `${c.broker} appended ${value} at ${c.partition} offset ${c.offset} (producerId ${c.producerId}, epoch ${c.producerEpoch}, sequence ${c.sequence})`,
      ),
    );
    const [first, second] = copies;
    const retried =
      !!first &&
      !!second &&
      first.producerId === second.producerId &&
      first.producerEpoch === second.producerEpoch &&
      first.sequence === second.sequence;
    const note = retried
      ? [
          "the later copy is a retried Produce of the same batch (same producerId, epoch and sequence), appended as new data",
        ]
      : [];
    steps.push(
      step(ctx.endMs, `final read: ${value} visible ${places.length} times, at ${describePlaces(places)}`, ...note),
    );
    out.push(
      clientViolation(ctx, "duplicate", {
        summary: `${value} of ${f.ghostTxn} is visible ${places.length} times: ${describePlaces(places)}`,
        explanation: renderSteps(steps),
        atMs: ctx.endMs,
        place: places[1] as (typeof places)[number],
        transaction: f.ghostTxn,
      }),
    );
  }
  return out;
}
