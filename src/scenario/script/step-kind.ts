import type { NameCheck, ScriptNames } from "./name-checks.js";
import type { Observation } from "./observation.js";
import type { ScriptStep } from "./script-schema.js";
import type { StepContext } from "./step-context.js";

/** The step of one kind (`Step<"send">` is a send step). */
export type Step<D extends ScriptStep["do"]> = Extract<ScriptStep, { do: D }>;

/** A step waits in phases: each yields a condition (and maybe its own time bound) and learns whether it held. */
export type Wait = { until: () => boolean; forMs?: number };
export type StepRun = Generator<Wait, Observation, boolean>;

/** A wait that is over at once: the step lets the simulation take no time. */
export const immediately: Wait = { until: () => true };

/**
 * One kind of script step, as a command object in the fast-check sense: what it does to the model,
 * how its outcome is compared with the step's `expect`, and how it reads in the step log. Every kind
 * is one entry of the step table (step-table.ts); adding a kind is adding one of these.
 */
export interface StepKind<S extends ScriptStep> {
  /** The step as one short line ("commitTransaction p0", "release stale-copy"). */
  describe(step: S): string;
  /** Act on the model, wait in virtual time for the outcome, and say what was seen. */
  run(step: S, ctx: StepContext): StepRun;
  /**
   * Problems of what was seen against the step's `expect` (after the problems the run found by
   * itself). Absent: the kind has no expectation, or compares inside `run` (waitFor).
   */
  expect?(step: S, seen: Observation, ctx: StepContext): string[];
  /** Load-time checks of the names the step uses (beyond its producer and partition). */
  check?(step: S, names: ScriptNames, check: NameCheck): void;
}

/** The outcome of a step that completes at once and has nothing to compare. */
export function observed(outcome: string, problems: string[] = []): Observation {
  return { outcome, errors: [], problems };
}
