import { RELEASES } from "../kafka/release.js";
import type { Scenario } from "./schema.js";
import type { Script, ScriptStep } from "./script-schema.js";
import type { SemanticProblem } from "./semantic-checks.js";

/** Node names the script driver itself uses (a producer may not take them). */
export const SCRIPT_NODE_NAMES = {
  coordinator: "coordinator",
  harness: "harness",
  reader: "reader",
  script: "script",
} as const;

/** Faults the nemesis would draw: a script drives failovers, stalls and upgrades itself, as steps. */
const NEMESIS_FAULTS = [
  "brokerStall",
  "linkPartition",
  "coordinatorFailover",
  "producerPause",
  "producerRestart",
] as const;

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

  const brokers = new Set(s.cluster.brokers.map((b) => b.id));
  const coordinators = new Set(s.cluster.coordinators.map((c) => c.id));
  const partitions = new Set(s.cluster.topics.flatMap((t) => t.leaders.map((_, i) => `${t.name}-${i}`)));
  const producers = new Map(script.producers.map((p) => [p.name, p]));
  const reserved = new Set<string>([...brokers, ...coordinators, ...Object.values(SCRIPT_NODE_NAMES)]);

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
      s.cluster.coordinators.forEach((c, ci) => {
        if (!(c.overrides.supportsTransactionVersion2 ?? RELEASES[c.release].supportsTransactionVersion2)) {
          add(
            ["cluster", "coordinators", ci, "release"],
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
    ...coordinators,
    ...producers.keys(),
    SCRIPT_NODE_NAMES.coordinator,
    SCRIPT_NODE_NAMES.harness,
    SCRIPT_NODE_NAMES.reader,
  ]);
  const holds = new Set<string>();
  script.steps.forEach((step, i) => {
    const at = (...field: (string | number)[]) => ["script", "steps", i, ...field];
    for (const p of stepProblems(step, {
      brokers,
      coordinators,
      partitions,
      producers: new Set(producers.keys()),
      nodeRefs,
      holds,
    }))
      add(at(...p.field), p.message);
    if (step.do === "hold") {
      if (holds.has(step.as)) add(at("as"), `expected a new name for the held message, found "${step.as}" used before`);
      holds.add(step.as);
    }
  });
  return problems;
}

interface Names {
  brokers: Set<string>;
  coordinators: Set<string>;
  partitions: Set<string>;
  producers: Set<string>;
  nodeRefs: Set<string>;
  holds: Set<string>;
}

function oneOf(kind: string, names: Iterable<string>, found: string): string {
  return `expected ${kind} (${[...names].join(", ")}), found "${found}"`;
}

/** Problems of one step, as (field, message) relative to the step. */
function stepProblems(step: ScriptStep, n: Names): { field: (string | number)[]; message: string }[] {
  const out: { field: (string | number)[]; message: string }[] = [];
  const need = (ok: boolean, field: (string | number)[], message: string) => {
    if (!ok) out.push({ field, message });
  };
  if ("producer" in step && step.producer !== undefined)
    need(n.producers.has(step.producer), ["producer"], oneOf("a script producer", n.producers, step.producer));
  if ("partition" in step)
    need(
      n.partitions.has(step.partition),
      ["partition"],
      oneOf("a partition of the cluster", n.partitions, step.partition),
    );
  switch (step.do) {
    case "hold":
      need(n.nodeRefs.has(step.from), ["from"], oneOf("a node, a producer or coordinator", n.nodeRefs, step.from));
      need(n.nodeRefs.has(step.to), ["to"], oneOf("a node, a producer or coordinator", n.nodeRefs, step.to));
      break;
    case "release":
    case "duplicate":
    case "drop":
      need(n.holds.has(step.held), ["held"], oneOf("the name of an earlier hold step", n.holds, step.held));
      break;
    case "waitFor":
      if (step.held !== undefined) {
        need(n.holds.has(step.held), ["held"], oneOf("the name of an earlier hold step", n.holds, step.held));
        need(
          step.transactionalId === undefined && step.state === undefined,
          ["held"],
          "expected either held or transactionalId with state, found both",
        );
      } else {
        need(
          step.transactionalId !== undefined && step.state !== undefined,
          step.transactionalId === undefined ? ["transactionalId"] : ["state"],
          "expected transactionalId and state (or held), found only one of them",
        );
      }
      break;
    case "upgrade":
    case "stall":
      need(
        n.brokers.has(step.node) || n.coordinators.has(step.node),
        ["node"],
        oneOf("a coordinator or broker id", [...n.coordinators, ...n.brokers], step.node),
      );
      break;
    case "request": {
      const toBroker = step.body.api === "WriteTxnMarkers" || step.body.api === "Produce";
      if (toBroker) need(n.brokers.has(step.to), ["to"], oneOf(`a broker for ${step.body.api}`, n.brokers, step.to));
      else
        need(
          n.coordinators.has(step.to) || step.to === SCRIPT_NODE_NAMES.coordinator,
          ["to"],
          oneOf(`a coordinator for ${step.body.api}`, [SCRIPT_NODE_NAMES.coordinator, ...n.coordinators], step.to),
        );
      const body = step.body;
      if (body.api === "WriteTxnMarkers") {
        for (const [mi, m] of body.markers.entries()) {
          for (const [pi, p] of m.partitions.entries())
            need(
              n.partitions.has(p),
              ["body", "markers", mi, "partitions", pi],
              oneOf("a partition of the cluster", n.partitions, p),
            );
        }
      } else if (body.api === "AddPartitionsToTxn") {
        for (const [pi, p] of body.partitions.entries())
          need(n.partitions.has(p), ["body", "partitions", pi], oneOf("a partition of the cluster", n.partitions, p));
      } else if (body.api === "Produce") {
        need(
          n.partitions.has(body.partition),
          ["body", "partition"],
          oneOf("a partition of the cluster", n.partitions, body.partition),
        );
      }
      break;
    }
    case "checkTransaction":
      for (const [pi, p] of (step.expect.partitions ?? []).entries())
        need(n.partitions.has(p), ["expect", "partitions", pi], oneOf("a partition of the cluster", n.partitions, p));
      break;
    case "checkPartition":
      need(
        step.producer !== undefined ||
          (step.expect.openTransaction === undefined && step.expect.producerEpoch === undefined),
        ["expect"],
        "expected a producer for openTransaction or producerEpoch (whose state at the partition?)",
      );
      break;
    default:
      break;
  }
  return out;
}
