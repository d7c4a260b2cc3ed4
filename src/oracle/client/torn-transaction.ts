import type { Violation } from "../violation.js";
import { type ClientCheckContext, clientViolation, visiblePlaces } from "./check-context.js";
import { describePlaces } from "./client-view.js";
import { renderSteps, step } from "./explain-client.js";
import { missingRecords } from "./txn-facts.js";
import { uncleanElectionAt } from "../unclean-election.js";

/**
 * torn-transaction: in the final read, part of a transaction is visible and part is not (both parts
 * below their partitions' last stable offsets). Atomicity, whatever the outcome was.
 */
export function checkTornTransactions(ctx: ClientCheckContext): Violation[] {
  const out: Violation[] = [];
  for (const f of ctx.facts.values()) {
    if (f.visible.size === 0) continue; // nothing shown: not torn (the cheap test first, as most transactions are whole)
    const missing = missingRecords(f).flatMap((m) => m.copies);
    const hidden = missing[0];
    if (!hidden) continue;
    const visible = visiblePlaces(f);
    const shown = visible[0];
    if (!shown) continue;
    const outcome = f.expected
      ? step(f.expected.atMs, f.expected.why)
      : step(
          f.outcome?.atMs ?? ctx.endMs,
          `${f.instance} does not know the outcome${f.outcome ? ` (${f.outcome.detail})` : ""}: all of ${f.ghostTxn} or none of it may be visible`,
        );
    const steps = [
      ...ctx.explain.writeSteps(f),
      outcome,
      ...ctx.explain.markerSteps(shown, f),
      ...ctx.explain.markerSteps(hidden, f),
      step(
        ctx.endMs,
        `final read: ${describePlaces(visible)} visible; ${describePlaces(missing)} missing (below the last stable offset)`,
      ),
    ];
    // Placed where an unclean election rewrote a partition, if one did: that election tore it.
    const rewritten = [...visible, ...missing].find((p) => uncleanElectionAt(ctx.ledger, p.partition, ctx.endMs));
    out.push(
      clientViolation(ctx, "torn-transaction", {
        summary: `${f.ghostTxn} is partly visible: ${describePlaces(visible)} visible, ${describePlaces(missing)} not`,
        explanation: renderSteps(steps),
        atMs: ctx.endMs,
        place: rewritten ?? hidden,
        transaction: f.ghostTxn,
      }),
    );
  }
  return out;
}
