import { observed, type Step, type StepKind } from "../step-kind.js";
import { checkHeldName } from "./hold-steps.js";

export const wait: StepKind<Step<"wait">> = {
  describe: (step) => `wait ${step.ms}ms`,
  *run(step, ctx) {
    const untilMs = ctx.sim.nowMs + step.ms;
    yield { until: () => false, forMs: step.ms };
    return observed(`waited until t=${untilMs}ms`);
  },
};

/** waitFor: until a hold caught its message, or until a transactional.id is in a state with nothing pending. */
export const waitFor: StepKind<Step<"waitFor">> = {
  describe: (step) =>
    step.held !== undefined ? `waitFor ${step.held} held` : `waitFor ${step.transactionalId} ${step.state}`,
  *run(step, ctx) {
    if (step.held !== undefined) {
      const rule = ctx.holds.rule(step.held);
      const caught = yield { until: () => rule.held !== null };
      const m = rule.held?.message;
      return caught && m
        ? observed(`${step.held} holds ${m.label} ${m.from} -> ${m.to} since t=${rule.held?.heldAtMs}ms`)
        : observed("nothing held", [
            `expected a ${rule.api} ${rule.from} -> ${rule.to} to be held as ${step.held}, found none sent in time`,
          ]);
    }
    const id = step.transactionalId as string;
    const state = step.state as string;
    const reached = yield { until: () => ctx.coordinatorState(id).shown === state };
    const found = ctx.coordinatorState(id).shown;
    return reached
      ? observed(`${id} is ${state}`)
      : observed(`${id} is ${found}`, [`expected ${id} to reach ${state} (nothing pending) in time, found ${found}`]);
  },
  check(step, names, check) {
    if (step.held !== undefined) {
      checkHeldName(step.held, names, check);
      check.need(
        step.transactionalId === undefined && step.state === undefined,
        ["held"],
        "expected either held or transactionalId with state, found both",
      );
    } else {
      check.need(
        step.transactionalId !== undefined && step.state !== undefined,
        step.transactionalId === undefined ? ["transactionalId"] : ["state"],
        "expected transactionalId and state (or held), found only one of them",
      );
    }
  },
};
