import type { Violation } from "../violation.js";
import { type ClientCheckContext, clientViolation } from "./check-context.js";
import { describePlaces } from "./client-view.js";
import { ClientExplainer, renderSteps, step } from "./explain-client.js";
import { describeDecision } from "./txn-facts.js";

/**
 * premature-read: a consumer polled a record before its transaction's commit was decided, i.e.
 * before PrepareCommit for it became durable on its own EndTxn (or with no such commit at all). A
 * record of a transaction known to be aborted is an aborted-read instead.
 */
export function checkPrematureReads(ctx: ClientCheckContext): Violation[] {
  const out: Violation[] = [];
  for (const f of ctx.facts.values()) {
    if (f.expected?.result === "ABORT") continue;
    const early = (ctx.polls.get(f.ghostTxn) ?? []).find(
      (p) => f.ownCommitAtMs === null || p.observation.atMs < f.ownCommitAtMs,
    );
    if (!early) continue;
    const o = early.observation;
    const own = f.ownDecisions.find((d) => d.result === "COMMIT");
    const decided = own
      ? step(
          own.atMs,
          `${describeDecision(own)}: its commit was decided only now, ${own.atMs - o.atMs}ms after the poll`,
        )
      : step(
          ctx.endMs,
          `${f.ghostTxn}'s own commit was never decided${f.outcome ? ` (${f.instance}: ${f.outcome.detail})` : ""}`,
        );
    const steps = [
      ...ctx.explain.writeSteps(f, (c) => c.partition === o.partition),
      ...ctx.explain.markerSteps(o, f),
      ClientExplainer.pollStep(early.consumer, o),
      decided,
    ];
    out.push(
      clientViolation(ctx, "premature-read", {
        summary: `${early.consumer} read ${o.value} at ${describePlaces([o])} at t=${o.atMs}ms, before ${f.ghostTxn}'s commit was decided${own ? ` (t=${own.atMs}ms)` : " (it never was)"}`,
        explanation: renderSteps(steps),
        atMs: o.atMs,
        place: o,
        transaction: f.ghostTxn,
      }),
    );
  }
  return out;
}
