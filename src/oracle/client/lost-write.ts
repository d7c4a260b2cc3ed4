import type { Violation } from "../violation.js";
import { type ClientCheckContext, clientViolation, visiblePlaces } from "./check-context.js";
import { describePlaces } from "./client-view.js";
import { renderSteps, step } from "./explain-client.js";
import { missingRecords } from "./txn-facts.js";

/**
 * Where the records went: the partition's leader changes after they were written, and the
 * truncations that removed them (a replica truncates to its new leader's log; without an unclean
 * election an acknowledged record should never be among what it drops).
 */
function leadershipSteps(ctx: ClientCheckContext, partition: string, values: readonly string[]) {
  const lost = new Set(values);
  const steps = ctx.ledger.leaderChanges
    .filter((c) => c.partition === partition)
    .map((c) =>
      step(
        c.atMs,
        `${partition}'s leadership moved from ${c.previousLeader ?? "no leader"} to ${c.leader ?? "no leader"} (leader epoch ${c.leaderEpoch}, ${c.cause}; ISR ${c.isr.join(", ")})`,
      ),
    );
  for (const t of ctx.ledger.truncations) {
    if (t.partition !== partition) continue;
    const dropped = t.removed.flatMap((b) => b.values.filter((v) => lost.has(v)));
    if (dropped.length > 0)
      steps.push(
        step(t.atMs, `${t.broker} truncated ${partition} to offset ${t.toOffset}, dropping ${dropped.join(", ")}`),
      );
  }
  return steps.sort((a, b) => a.atMs - b.atMs);
}

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
      ...leadershipSteps(
        ctx,
        place.partition,
        missing.map((m) => m.value),
      ),
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
