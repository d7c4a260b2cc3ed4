import type { FinalPartitionRead } from "../../kafka/cluster-final-state.js";
import type { Violation } from "../violation.js";
import type { RecordPlace } from "./client-view.js";
import { type ClientCheckContext, clientViolation, visiblePlaces } from "./check-context.js";
import { describePlaces } from "./client-view.js";
import { ClientExplainer, renderSteps, type Step, step } from "./explain-client.js";

/** In an aborted-read's summary when the replica read holds the ABORT marker but its index does not. */
export const UNINDEXED_ABORT_TEXT = "transaction index has no entry for the ABORT marker";

/**
 * aborted-read: a record of a transaction that was aborted is visible, in the final read or in a
 * poll during the run. "Aborted" is the producer's acknowledged abort, or, when the producer does
 * not know, the coordinator's own abort decision for it (timeout, fencing).
 */
export function checkAbortedReads(ctx: ClientCheckContext, finalReads: readonly FinalPartitionRead[]): Violation[] {
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
    const unindexed = unindexedAbortAfter(finalReads, visible);
    if (unindexed)
      steps.push(
        step(
          ctx.endMs,
          `${unindexed.broker}'s log holds the ABORT marker at ${unindexed.partition} offset ${unindexed.offset}, but its transaction index has no entry for it: its producer state held no open transaction of producer ${unindexed.producerId} when the marker was appended, so read_committed does not skip the records before it`,
        ),
      );
    const why = unindexed
      ? `; ${unindexed.broker}'s ${UNINDEXED_ABORT_TEXT} at offset ${unindexed.offset} that follows them`
      : "";
    out.push(
      clientViolation(ctx, "aborted-read", {
        summary: `${f.ghostTxn} was aborted, yet read_committed consumers read its records: ${seen}${why}`,
        explanation: renderSteps(steps),
        atMs: firstPoll ? firstPoll.observation.atMs : ctx.endMs,
        place,
        transaction: f.ghostTxn,
      }),
    );
  }
  return out;
}

/** The first unindexed ABORT marker of the visible records' producer after one of them, at the replica read. */
function unindexedAbortAfter(
  finalReads: readonly FinalPartitionRead[],
  visible: readonly RecordPlace[],
): { broker: string; partition: string; offset: number; producerId: number } | null {
  for (const place of visible) {
    const read = finalReads.find((r) => r.partition === place.partition);
    const record = read?.records.find((r) => r.offset === place.offset);
    if (!read || !record) continue;
    const marker = (read.unindexedAborts ?? []).find(
      (m) => m.producerId === record.producerId && m.firstOffset <= place.offset && place.offset < m.offset,
    );
    if (marker)
      return { broker: read.broker, partition: place.partition, offset: marker.offset, producerId: record.producerId };
  }
  return null;
}
