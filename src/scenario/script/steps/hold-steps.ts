import { Errors } from "../../../kafka/common/errors.js";
import type { KafkaRequest, KafkaResponse } from "../../../kafka/protocol.js";
import type { HeldKafkaMessage } from "../message-holds.js";
import type { NameCheck, ScriptNames } from "../name-checks.js";
import { noResponse, observeResponse, transactionalIdsOf, writeTxnMarkersVersionOf } from "../observation.js";
import { expectResponse } from "../response-expect.js";
import type { StepContext } from "../step-context.js";
import { immediately, observed, type Step, type StepKind, type StepRun } from "../step-kind.js";

const A_NODE = "a node, a producer or coordinator";
const AN_EARLIER_HOLD = "the name of an earlier hold step";

/** release, duplicate, drop and waitFor name a message an earlier hold step caught. */
export function checkHeldName(held: string, names: ScriptNames, check: NameCheck): void {
  check.oneOf(names.holds, held, ["held"], AN_EARLIER_HOLD);
}

export const hold: StepKind<Step<"hold">> = {
  describe: (step) => `hold ${step.api} ${step.from} -> ${step.to} as ${step.as}`,
  *run(step, ctx) {
    ctx.holds.add({
      name: step.as,
      api: step.api,
      from: step.from,
      to: step.to,
      direction: step.direction,
      transactionalId: step.transactionalId,
    });
    yield immediately;
    return observed(
      `holding the next ${step.api} ${step.direction} ${step.from} -> ${step.to}${step.transactionalId ? ` for ${step.transactionalId}` : ""}`,
    );
  },
  check(step, names, check) {
    check.oneOf(names.nodeRefs, step.from, ["from"], A_NODE);
    check.oneOf(names.nodeRefs, step.to, ["to"], A_NODE);
    check.need(
      !names.holds.has(step.as),
      ["as"],
      `expected a new name for the held message, found "${step.as}" used before`,
    );
    names.holds.add(step.as);
  },
};

/** release / duplicate: deliver the held message (a copy, for duplicate) and wait for its answer. */
function* deliver(ctx: StepContext, name: string, keepHeld: boolean): StepRun {
  const rule = ctx.holds.rule(name);
  if (rule.held === null) {
    const caught = yield { until: () => rule.held !== null };
    if (!caught)
      return observed("nothing was held", [
        `expected a ${rule.api} ${rule.from} -> ${rule.to} to have been held as ${name}, found none sent`,
      ]);
  }
  const held = rule.held as HeldKafkaMessage;
  if (held.state !== "held")
    return observed(`already ${held.state}`, [`expected ${name} to be still held, found it ${held.state}`]);
  const m = held.message;
  const transactionalId = transactionalIdsOf(m.body)[0];
  const releasedAtMs = ctx.sim.nowMs;
  const copy = keepHeld ? `a copy of ${name}` : name;
  if (m.direction === "response") {
    ctx.cluster.net.deliverHeld(held, { keepHeld });
    yield immediately;
    const seen = observeResponse(m.body as KafkaResponse, null, transactionalId);
    return { ...seen, outcome: `delivered ${copy} (held since t=${held.heldAtMs}ms) to ${m.to}: ${seen.outcome}` };
  }
  const watch = ctx.holds.watch(m.connectionId, m.correlationId);
  const refusedBefore = ctx.ledger.refused.length;
  ctx.cluster.net.deliverHeld(held, { keepHeld });
  const answered = yield { until: () => watch.response !== null || ctx.ledger.refused.length > refusedBefore };
  ctx.holds.unwatch(watch);
  const body = m.body as KafkaRequest;
  const markerDetail = body.api === "WriteTxnMarkers" ? ctx.markerOutcomesOf(m.correlationId, releasedAtMs) : "";
  const prefix = `delivered ${copy} (held since t=${held.heldAtMs}ms) to ${m.to}`;
  if (!answered)
    return {
      ...noResponse(`${prefix}; nothing came back`, transactionalId),
      outcome: `${prefix}; no response${markerDetail ? `: ${markerDetail}` : ""}`,
    };
  if (watch.response === null) {
    const refusal = ctx.ledger.refused[ctx.ledger.refused.length - 1];
    return {
      outcome: `${prefix}; ${m.to} closed the connection: ${refusal?.reason ?? "refused"}`,
      errors: [Errors.NETWORK_EXCEPTION],
      problems: [],
      ...(transactionalId ? { transactionalId } : {}),
    };
  }
  const version = body.api === "WriteTxnMarkers" ? writeTxnMarkersVersionOf(body.bytes) : null;
  const seen = observeResponse(watch.response, version, transactionalId);
  return { ...seen, outcome: `${prefix}: ${markerDetail || seen.outcome}` };
}

const byHeldName = (step: { do: string; held: string }) => `${step.do} ${step.held}`;

export const release: StepKind<Step<"release">> = {
  describe: byHeldName,
  run: (step, ctx) => deliver(ctx, step.held, false),
  expect: expectResponse,
  check: (step, names, check) => checkHeldName(step.held, names, check),
};

export const duplicate: StepKind<Step<"duplicate">> = {
  describe: byHeldName,
  run: (step, ctx) => deliver(ctx, step.held, true),
  expect: expectResponse,
  check: (step, names, check) => checkHeldName(step.held, names, check),
};

export const drop: StepKind<Step<"drop">> = {
  describe: byHeldName,
  *run(step, ctx) {
    const rule = ctx.holds.rule(step.held);
    yield immediately;
    if (rule.held === null || rule.held.state !== "held") {
      return observed("nothing to drop", [
        `expected ${step.held} to be held, found ${rule.held ? rule.held.state : "nothing held yet"}`,
      ]);
    }
    ctx.cluster.net.dropHeld(rule.held);
    return observed(
      `dropped ${step.held} (${rule.held.message.label} ${rule.held.message.from} -> ${rule.held.message.to})`,
    );
  },
  check: (step, names, check) => checkHeldName(step.held, names, check),
};
