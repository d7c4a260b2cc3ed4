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
  // At most one lost-write per transaction: records missing from the log explain it first.
  const reported = new Set(out.map((v) => v.transaction));
  return [...out, ...checkCommittedWithoutFailedSends(ctx).filter((v) => !reported.has(v.transaction))];
}

/**
 * lost-write, the sending side (KAFKA-9279): the producer saw its commit acknowledged, yet one of
 * the transaction's send() calls had failed at once, so the record was never written. An error
 * send() meets must fail the transaction (the commit throws, the application aborts): a commit
 * acknowledged without one of its records loses that record as surely as a truncation does.
 */
export function checkCommittedWithoutFailedSends(ctx: ClientCheckContext): Violation[] {
  const out: Violation[] = [];
  for (const [ghostTxn, failures] of ctx.ledger.sendFailures) {
    const outcome = ctx.ledger.producerOutcomes.get(ghostTxn);
    const first = failures[0];
    if (outcome?.outcome !== "committed" || !first) continue;
    const values = failures.map((f) => f.value).join(", ");
    const steps = [
      ...failures.map((f) =>
        step(
          f.atMs,
          `${f.producer}'s send() of ${f.value} to ${f.partition} failed at once (${f.error}): the record never reached the accumulator`,
        ),
      ),
      step(
        outcome.atMs,
        `${first.producer} saw ${outcome.detail}: the transaction committed without ${values}`,
        "an error send() meets must move the transaction manager to ABORTABLE_ERROR, so that commitTransaction fails and the application aborts (KAFKA-9279); the future alone is not enough",
      ),
    ];
    out.push({
      kind: "lost-write",
      summary: `${ghostTxn} was committed, yet its send() of ${values} had failed: the commit went on without ${failures.length === 1 ? "that record" : "those records"}`,
      explanation: renderSteps(steps),
      atMs: outcome.atMs,
      partition: first.partition,
      transaction: ghostTxn,
    });
  }
  return out;
}
