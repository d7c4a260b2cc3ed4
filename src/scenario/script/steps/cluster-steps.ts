import type { NameCheck, ScriptNames } from "../name-checks.js";
import { oneOf } from "../name-checks.js";
import { observed, type Step, type StepKind, type StepRun } from "../step-kind.js";

// biome-ignore lint/correctness/useYield: a step that completes at once still runs as a generator
function* completed(act: () => string): StepRun {
  return observed(act());
}

/** upgrade and stall act on a coordinator or a broker. */
function checkNode(node: string, names: ScriptNames, check: NameCheck): void {
  check.need(
    names.brokers.has(node) || names.coordinators.has(node),
    ["node"],
    oneOf("a coordinator or broker id", [...names.coordinators, ...names.brokers], node),
  );
}

export const failover: StepKind<Step<"failover">> = {
  describe: () => "failover",
  *run(_step, ctx) {
    const before = ctx.cluster.log.leader;
    ctx.cluster.failover();
    const loaded = yield { until: () => ctx.cluster.servingCoordinator !== null };
    const { leader, epoch } = ctx.cluster.log;
    return {
      outcome: `__transaction_state moved from ${before} to ${leader} (coordinatorEpoch ${epoch})${loaded ? ", loaded" : ""}`,
      errors: [],
      problems: loaded ? [] : [`expected ${leader} to load __transaction_state in time, found it still loading`],
      fields: { coordinator: leader, coordinatorEpoch: epoch },
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

export const upgrade: StepKind<Step<"upgrade">> = {
  describe: (step) => `upgrade ${step.node} to ${step.release}`,
  run: (step, ctx) =>
    completed(() => {
      ctx.cluster.upgrade(step.node, step.release);
      return `${step.node} restarted on ${step.release}; connections to it are closed`;
    }),
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
