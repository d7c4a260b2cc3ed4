import { NODE_FAULT_LIST } from "../../kafka/faults/registry.js";
import { RELEASES } from "../../kafka/release.js";
import { resolveAssignment } from "../to-cluster-spec.js";
import type { Scenario } from "../schema.js";
import type { Script, ScriptStep } from "./script-schema.js";
import type { SemanticProblem } from "../semantic-checks.js";
import { NameCheck, type NameProblem, type ScriptNames } from "./name-checks.js";
import { SCRIPT_NODE_NAMES } from "./node-names.js";
import { stepKind } from "./step-table.js";

/** Faults the nemesis would draw: a script drives failovers, stalls and upgrades itself, as steps. */
const NEMESIS_FAULTS = NODE_FAULT_LIST.map((f) => f.field);

/** Cross-field checks of a scripted scenario: every name a step uses must exist when it runs. */
export function scriptProblems(s: Scenario, script: Script, given: Record<string, unknown>): SemanticProblem[] {
  const problems: SemanticProblem[] = [];
  const add = (path: (string | number)[], message: string) => problems.push({ path, message });
  if (given.workload !== undefined)
    add(
      ["workload"],
      "expected either a workload or a script, found both (a script names its producers under script.producers)",
    );
  for (const fault of NEMESIS_FAULTS) {
    if (s.faults[fault].probability > 0)
      add(
        ["faults", fault],
        "expected no nemesis faults in a scripted scenario (use failover, stall and hold steps), found a probability above 0",
      );
  }
  if (s.faults.upgrades.length > 0)
    add(["faults", "upgrades"], "expected no timed upgrades in a scripted scenario (use upgrade steps), found some");
  if (s.faults.rollingUpgrade !== undefined)
    add(
      ["faults", "rollingUpgrade"],
      "expected no rolling upgrade in a scripted scenario (use upgrade steps), found one",
    );
  if (s.faults.adminAbortTransaction !== undefined)
    add(
      ["faults", "adminAbortTransaction"],
      "expected no operator aborts in a scripted scenario (send WriteTxnMarkers with a request step), found one",
    );

  const brokers = new Set(s.cluster.brokers.map((b) => b.id));
  // Every broker may be a coordinator (of the __transaction_state partitions it leads).
  const coordinators = brokers;
  const partitions = new Set(
    s.cluster.topics.flatMap((t) => resolveAssignment(t, [...brokers], brokers.size).map((_, i) => `${t.name}-${i}`)),
  );
  const producers = new Map(script.producers.map((p) => [p.name, p]));
  const reserved = new Set<string>([...brokers, ...Object.values(SCRIPT_NODE_NAMES)]);

  const seenNames = new Set<string>();
  const seenIds = new Set<string>();
  script.producers.forEach((p, i) => {
    if (seenNames.has(p.name))
      add(["script", "producers", i, "name"], `expected a unique producer name, found "${p.name}" twice`);
    if (reserved.has(p.name))
      add(
        ["script", "producers", i, "name"],
        `expected a name that is not a node id or one of coordinator, harness, reader, script; found "${p.name}"`,
      );
    if (seenIds.has(p.transactionalId))
      add(
        ["script", "producers", i, "transactionalId"],
        `expected a unique transactional.id, found "${p.transactionalId}" twice`,
      );
    seenNames.add(p.name);
    seenIds.add(p.transactionalId);
    if (p.transactionVersion === 2) {
      if (s.cluster.transactionVersion < 2)
        add(
          ["script", "producers", i, "transactionVersion"],
          "expected <= cluster.transactionVersion: TV2 producers need transaction.version=2 finalized",
        );
      s.cluster.brokers.forEach((c, ci) => {
        if (!(c.overrides.supportsTransactionVersion2 ?? RELEASES[c.release].supportsTransactionVersion2)) {
          add(
            ["cluster", "brokers", ci, "release"],
            `expected a TV2-capable release (4.0 or later) for TV2 producer ${p.name}, found "${c.release}"`,
          );
        }
      });
    }
  });

  const cfg = s.cluster.config;
  const longest = Math.max(...script.producers.map((p) => p.transactionTimeoutMs));
  const needed = longest + 2 * cfg.abortTimedOutTransactionCleanupIntervalMs;
  if (s.bounds.quietPeriodMs < needed) {
    add(
      ["bounds", "quietPeriodMs"],
      `expected >= ${needed} (the longest script producer transactionTimeoutMs + 2 cleanup intervals) so abandoned transactions time out before the checks, found ${s.bounds.quietPeriodMs}`,
    );
  }

  const nodeRefs = new Set<string>([
    ...brokers,
    ...producers.keys(),
    SCRIPT_NODE_NAMES.coordinator,
    SCRIPT_NODE_NAMES.harness,
    SCRIPT_NODE_NAMES.reader,
  ]);
  const names: ScriptNames = {
    brokers,
    coordinators,
    partitions,
    producers: new Set(producers.keys()),
    nodeRefs,
    holds: new Set<string>(),
  };
  script.steps.forEach((step, i) => {
    if (step.do === "duplicate" && s.faults.network.model === "tcp")
      add(
        ["script", "steps", i, "do"],
        "expected no duplicate step under faults.network.model tcp (TCP never delivers a connection's message twice: hold the request past the sender's timeout and release it after the re-send), found one; set faults.network.model: adversarial to keep it",
      );
    for (const p of stepProblems(step, names)) add(["script", "steps", i, ...p.field], p.message);
  });
  return problems;
}

/** Problems of one step, as (field, message) relative to the step: its producer and partition, then its kind's own checks. */
function stepProblems(step: ScriptStep, names: ScriptNames): NameProblem[] {
  const check = new NameCheck();
  if ("producer" in step && step.producer !== undefined)
    check.oneOf(names.producers, step.producer, ["producer"], "a script producer");
  if ("partition" in step) check.oneOf(names.partitions, step.partition, ["partition"], "a partition of the cluster");
  stepKind(step).check?.(step, names, check);
  return check.problems;
}
