import type { ReleaseFlags } from "../../kafka/release.js";
import type { Violation } from "../../oracle/violation.js";
import type { LoadedScenario } from "../../scenario/loader.js";
import type { TraceEvent } from "../../sim/trace.js";
import type { Tape } from "../../sim/choice-tape.js";
import { recipeFor } from "./failure-recipe.js";
import { type RunConfig, type RunInput, type RunShaping, runSeed } from "../run/run-seed.js";

/** A server node of the cluster and the release it starts on (lanes of a diagram). */
export interface ServerNode {
  id: string;
  role: "coordinator" | "broker";
  release: string;
  /** What it leads when the run starts: its coordinator's __transaction_state partitions, its data partitions. */
  roles: string;
}

/** One seed run again with its full trace: what diagrams and ShiViz logs are drawn from. */
export interface SeedTrace {
  scenario: string;
  /** null for a tape without a seed (a shrunk failure). */
  seed: number | null;
  traceHash: string;
  /** The hash the run being rendered recorded for this seed (null: none was recorded). */
  recordedTraceHash: string | null;
  events: TraceEvent[];
  /** Events the run emitted; more than events.length when the trace hit its recording bound. */
  eventCount: number;
  violations: Violation[];
  servers: ServerNode[];
}

/** "seed 7", or "shrunk tape" for a run replayed from a tape alone. */
export function seedLabel(seed: number | null): string {
  return seed === null ? "shrunk tape" : `seed ${seed}`;
}

/** Every broker (each hosts every role), with the leadership it starts with (replicas[0] of each partition). */
export function serversOf(config: RunConfig): ServerNode[] {
  const { spec } = config;
  return spec.brokers.map((n) => {
    const txn = spec.transactionState.partitions.flatMap((p, i) => (p.replicas[0] === n.id ? [i] : []));
    const data = spec.topics.flatMap((t) =>
      t.partitions.flatMap((p, i) => (p.replicas[0] === n.id ? [`${t.name}-${i}`] : [])),
    );
    const roles = [
      txn.length > 0 ? `coordinator of __transaction_state-${txn.join(", -")}` : "",
      data.length > 0 ? `leader of ${data.join(", ")}` : "",
    ].filter((r) => r !== "");
    return { id: n.id, role: "broker" as const, release: n.release, roles: roles.join("; ") || "follower only" };
  });
}

/** Run one seed (or a campaign run's tape) again, recording every event. Pure: the same input gives the same trace. */
export function traceSeed(
  config: RunConfig,
  seed: number,
  recordedTraceHash: string | null = null,
  input: RunInput = { seed },
): SeedTrace {
  const result = runSeed(config, input, { recordTrace: true });
  return {
    scenario: config.scenario,
    seed,
    traceHash: result.traceHash,
    recordedTraceHash,
    events: result.trace ?? [],
    eventCount: result.stats.traceEvents,
    violations: result.violations,
    servers: serversOf(config),
  };
}

/**
 * Trace the given failing runs of a scenario (each with the hash its run recorded), under the
 * campaign's strategy shaping; a run of a tape strategy comes with its tape.
 */
export function traceFailures(
  loaded: LoadedScenario,
  failures: readonly { seed: number; traceHash: string; tape?: Tape | undefined }[],
  overrides: Partial<ReleaseFlags> = {},
  shaping: RunShaping | null = null,
): SeedTrace[] {
  return failures.map((f) => {
    const recipe = recipeFor(loaded, overrides, shaping, f);
    return traceSeed(recipe.config, f.seed, f.traceHash, recipe.input);
  });
}
