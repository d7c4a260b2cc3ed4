import type { Violation } from "../violation.js";
import { type ClientCheckContext, clientViolation, visiblePlaces } from "./check-context.js";
import { describePlaces } from "./client-view.js";
import { renderSteps, step } from "./explain-client.js";
import { missingRecords } from "./txn-facts.js";

/**
 * lost-write: a record of a committed transaction (the producer saw its commit acknowledged, or the
 * coordinator committed it on its own EndTxn) is not visible, though it lies below the partition's
 * last stable offset. Records behind a stuck LSO are a liveness matter (hanging-transaction).
 */
export function checkLostWrites(ctx: ClientCheckContext): Violation[] {
  const out: Violation[] = [];
  for (const f of ctx.facts.values()) {
    if (f.expected?.result !== "COMMIT") continue;
    const missing = missingRecords(f);
    const places = missing.flatMap((m) => m.copies);
    const place = places[0];
    if (!place) continue;
    const visible = visiblePlaces(f);
    const steps = [
      ...ctx.explain.writeSteps(f),
      step(f.expected.atMs, f.expected.why),
      ...ctx.explain.markerSteps(place, f),
      step(
        ctx.endMs,
        `final read: ${describePlaces(places)} missing (below the last stable offset)${visible.length > 0 ? `; ${describePlaces(visible)} visible` : ""}`,
      ),
    ];
    const of = `${missing.length} of its ${f.appended.size} records ${missing.length === 1 ? "is" : "are"}`;
    out.push(
      clientViolation(ctx, "lost-write", {
        summary: `${f.ghostTxn} was committed, yet ${of} not visible: ${describePlaces(places)}`,
        explanation: renderSteps(steps),
        atMs: ctx.endMs,
        place,
        transaction: f.ghostTxn,
      }),
    );
  }
  return out;
}
