import type { Violation } from "../violation.js";
import { type ClientCheckContext, clientViolation, visiblePlaces } from "./check-context.js";
import { describePlaces } from "./client-view.js";
import { ClientExplainer, renderSteps, type Step, step } from "./explain-client.js";

/**
 * aborted-read: a record of a transaction that was aborted is visible, in the final read or in a
 * poll during the run. "Aborted" is the producer's acknowledged abort, or, when the producer does
 * not know, the coordinator's own abort decision for it (timeout, fencing).
 */
export function checkAbortedReads(ctx: ClientCheckContext): Violation[] {
  const out: Violation[] = [];
  for (const f of ctx.facts.values()) {
    if (f.expected?.result !== "ABORT") continue;
    const visible = visiblePlaces(f);
    const polls = ctx.polls.get(f.ghostTxn) ?? [];
    const firstPoll = polls[0];
    const place = firstPoll ? firstPoll.observation : visible[0];
    if (!place) continue;
    const steps: Step[] = [
      ...ctx.explain.writeSteps(f),
      step(f.expected.atMs, f.expected.why),
      ...ctx.explain.markerSteps(place, f),
    ];
    const firstPerConsumer = new Map<string, (typeof polls)[number]>();
    for (const p of polls) if (!firstPerConsumer.has(p.consumer)) firstPerConsumer.set(p.consumer, p);
    for (const p of firstPerConsumer.values()) steps.push(ClientExplainer.pollStep(p.consumer, p.observation));
    const final =
      visible.length > 0
        ? `final read: ${describePlaces(visible)} visible to read_committed consumers`
        : "final read: nothing of it is visible any more, but a consumer already returned it to the application";
    steps.push(step(ctx.endMs, final));
    const seen =
      visible.length > 0
        ? describePlaces(visible)
        : `${describePlaces([place])}, polled by ${firstPoll?.consumer} at t=${firstPoll?.observation.atMs}ms`;
    out.push(
      clientViolation(ctx, "aborted-read", {
        summary: `${f.ghostTxn} was aborted, yet read_committed consumers read its records: ${seen}`,
        explanation: renderSteps(steps),
        atMs: firstPoll ? firstPoll.observation.atMs : ctx.endMs,
        place,
        transaction: f.ghostTxn,
      }),
    );
  }
  return out;
}
