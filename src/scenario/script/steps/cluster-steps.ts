import type { NameCheck, ScriptNames } from "../name-checks.js";
import { oneOf } from "../name-checks.js";
import { observed, type Step, type StepKind, type StepRun } from "../step-kind.js";

// biome-ignore lint/correctness/useYield: a step that completes at once still runs as a generator
function* completed(act: () => string): StepRun {
  return observed(act());
}

/** upgrade and stall act on a broker. */
function checkNode(node: string, names: ScriptNames, check: NameCheck): void {
  check.need(names.brokers.has(node), ["node"], oneOf("a broker id", [...names.brokers], node));
}

/**
 * failover: the leadership of the __transaction_state partition of the script's first producer's
 * transactional.id moves to the next in-sync replica (the controller's election), whose coordinator
 * loads it at the new leader epoch (its coordinator epoch).
 */
export const failover: StepKind<Step<"failover">> = {
  describe: () => "failover",
  *run(_step, ctx) {
    const id = ctx.coordinatedId();
    const before = ctx.cluster.coordinatorOf(id);
    const moved = ctx.cluster.failover(id);
    const after = ctx.cluster.coordinatorOf(id);
    const loaded = moved ? yield { until: () => ctx.cluster.servingCoordinatorFor(id)?.id === after.broker } : false;
    const where = `the __transaction_state partition of ${id}`;
    return {
      outcome: moved
        ? `${where} moved from ${before.broker} to ${after.broker} (coordinatorEpoch ${after.coordinatorEpoch})${loaded ? ", loaded" : ""}`
        : `${where} stays on ${before.broker}: no other in-sync replica`,
      errors: [],
      problems: !moved
        ? [`expected another in-sync replica of ${where} to take over, found none`]
        : loaded
          ? []
          : [`expected ${after.broker} to load ${where} in time, found it still loading`],
      fields: { coordinator: after.broker ?? "none", coordinatorEpoch: after.coordinatorEpoch },
    };
  },
  expect(step, seen) {
    const problems: string[] = [];
    const { coordinator, coordinatorEpoch } = seen.fields ?? {};
    if (step.expect?.coordinator !== undefined && step.expect.coordinator !== coordinator)
      problems.push(`expected coordinator ${step.expect.coordinator}, found ${coordinator}`);
    if (step.expect?.coordinatorEpoch !== undefined && step.expect.coordinatorEpoch !== coordinatorEpoch)
      problems.push(`expected coordinatorEpoch ${step.expect.coordinatorEpoch}, found ${coordinatorEpoch}`);
    return problems;
  },
};

/**
 * upgrade: an operator's restart of one broker on another release: controlled shutdown (its
 * leadership moves away where another in-sync replica exists), restart, registration; the step
 * waits until the broker runs again and every partition it is a replica of has a leader.
 */
export const upgrade: StepKind<Step<"upgrade">> = {
  describe: (step) => `upgrade ${step.node} to ${step.release}`,
  *run(step, ctx) {
    let restarted = false;
    ctx.cluster.upgradeBroker(step.node, step.release, 0, () => {
      restarted = true;
    });
    const back = yield { until: () => restarted && ctx.cluster.allPartitionsLed(step.node) };
    return {
      ...observed(`${step.node} restarted on ${step.release}; connections to it were closed`),
      problems: back ? [] : [`expected ${step.node} to be back with every partition led in time, found it not`],
    };
  },
  check: (step, names, check) => checkNode(step.node, names, check),
};

export const stall: StepKind<Step<"stall">> = {
  describe: (step) => `stall ${step.node} ${step.ms}ms`,
  run: (step, ctx) =>
    completed(() => {
      ctx.cluster.net.stall(step.node, ctx.sim.nowMs + step.ms);
      return `${step.node} takes no message until t=${ctx.sim.nowMs + step.ms}ms`;
    }),
  check: (step, names, check) => checkNode(step.node, names, check),
};
