import type { Violation } from "../oracle/violation.js";
import type { RealJudgement } from "./history/real-history.js";
import type { ConfirmPlan, ModelOutcome, PlanStep } from "./plan/plan.js";
import { describeStep, isClusterEvent } from "./plan/plan.js";
import type { RealRun } from "./run/real-run.js";

/**
 * confirmed: real Kafka did what the model says (its violations, or none when the model finds
 * none). not-reproduced: it did not, and the first step where it went another way says where.
 * inconclusive: a planned fault did not fire, or the plan could not replay what mattered, so the
 * run proves nothing either way.
 */
export type VerdictKind = "confirmed" | "not-reproduced" | "inconclusive";

export interface StepDivergence {
  step: number;
  what: string;
  model: ModelOutcome;
  real: ModelOutcome;
}

export interface Verdict {
  verdict: VerdictKind;
  /** One line: why. */
  reason: string;
  /** The first step whose real answer differs from the model's (null: none did). */
  divergence: StepDivergence | null;
  /** Planned faults that never fired (a non-empty list makes the run inconclusive). */
  unfired: string[];
  /** Cluster events that did not happen as planned (a non-empty list makes the run inconclusive). */
  eventsMissed?: string[];
}

/** Whether real Kafka answered a step as the model did (a step the model could not judge agrees). */
export function sameOutcome(model: ModelOutcome, real: ModelOutcome): boolean {
  if (model.kind === "unknown") return true;
  if (model.kind !== real.kind) return false;
  return model.kind !== "error" || real.kind !== "error" || model.error === real.error;
}

export function firstDivergence(run: RealRun, modelOutcomes: readonly ModelOutcome[]): StepDivergence | null {
  for (const s of run.steps) {
    const model = modelOutcomes[s.index] ?? s.step.model;
    if (!sameOutcome(model, s.real)) return { step: s.index + 1, what: describeStep(s.step), model, real: s.real };
  }
  return null;
}

function kinds(vs: readonly Pick<Violation, "kind">[]): string[] {
  return [...new Set(vs.map((v) => v.kind))];
}

/**
 * Judge a real run against the model: the model's first violation must be found on the real
 * cluster (or, when the model finds none, nothing may be); every planned fault must have fired.
 */
export function judge(
  plan: ConfirmPlan,
  run: RealRun,
  judgement: RealJudgement,
  model: { violations: readonly Pick<Violation, "kind">[]; outcomes: readonly ModelOutcome[] },
): Verdict {
  const unfired = run.faults
    .filter((f) => f.firings.length === 0)
    .map((f) => {
      const planned = plan.faults.find((p) => p.id === f.id);
      return `${f.id} never fired (${planned?.story ?? "?"})`;
    });
  // A hold that fired only after its release step had given up waiting kept its copy past the
  // point the model delivered it: the schedule was not the model's either.
  for (const s of run.steps)
    if (
      s.step.kind === "release" &&
      s.real.kind === "unknown" &&
      (run.faults.find((f) => f.id === (s.step as { fault: string }).fault)?.firings.length ?? 0) > 0
    )
      unfired.push(`${s.step.fault} had not fired when the model delivered its copy (step ${s.index + 1})`);
  const divergence = firstDivergence(run, model.outcomes);
  if (unfired.length > 0)
    return {
      verdict: "inconclusive",
      reason: `a planned fault did not fire: ${unfired.join("; ")}`,
      divergence,
      unfired,
    };
  // A leadership move, a stop or a restart that did not happen as the model had it leaves the run
  // on another schedule than the model's: whatever it shows proves nothing either way. The model's
  // answer to an event (a refused feature update) is compared as every step's is.
  const eventsMissed = eventMisses(run, model.outcomes);
  if (eventsMissed.length > 0)
    return {
      verdict: "inconclusive",
      reason: `a planned cluster event did not happen as planned: ${eventsMissed.join("; ")}`,
      divergence,
      unfired,
      eventsMissed,
    };
  const want = kinds(model.violations);
  const got = kinds(judgement.violations);
  const first = model.violations[0]?.kind;
  if (first === undefined) {
    if (got.length === 0 && run.stoppedEarly !== null)
      return {
        verdict: "inconclusive",
        reason: `real Kafka wrote no violation, but the plan stopped early (${run.stoppedEarly})`,
        divergence,
        unfired,
      };
    if (got.length === 0)
      return {
        verdict: "confirmed",
        reason: "the model finds no violation on this cluster, and real Kafka wrote none",
        divergence,
        unfired,
      };
    return {
      verdict: "not-reproduced",
      reason: `the model finds no violation on this cluster, but real Kafka's history has ${got.join(", ")}`,
      divergence,
      unfired,
    };
  }
  if (got.includes(first))
    return {
      verdict: "confirmed",
      reason: `real Kafka wrote the model's ${first}${got.length > 1 ? ` (and ${got.filter((k) => k !== first).join(", ")})` : ""}`,
      divergence,
      unfired,
    };
  const where = divergence ? ` real Kafka went another way at step ${divergence.step} (${divergence.what})` : "";
  if (plan.unsupported.length > 0 || run.stoppedEarly !== null)
    return {
      verdict: "inconclusive",
      reason: `the model's ${want.join(", ")} did not show, but the plan could not replay everything (${[...plan.unsupported, ...(run.stoppedEarly ? [run.stoppedEarly] : [])].join("; ")})`,
      divergence,
      unfired,
    };
  return {
    verdict: "not-reproduced",
    reason: `real Kafka's history has ${got.length > 0 ? got.join(", ") : "no violation"}, not the model's ${want.join(", ")};${where}`,
    divergence,
    unfired,
  };
}

/** The cluster event steps whose real outcome is not the model's (or that were never played: the plan stopped). */
function eventMisses(run: RealRun, modelOutcomes: readonly ModelOutcome[]): string[] {
  const out: string[] = [];
  for (const s of run.steps) {
    if (!isClusterEvent(s.step)) continue;
    const model = modelOutcomes[s.index] ?? s.step.model;
    const same = s.real.kind === "unknown" ? false : sameOutcome(model, s.real);
    if (!same)
      out.push(
        `step ${s.index + 1} (${describeStep(s.step)}): ${s.real.kind === "error" ? s.real.error : s.real.kind}${s.real.detail ? `, ${s.real.detail}` : ""}`,
      );
  }
  return out;
}

/** The model outcome of each step of `plan` as predicted by another model run's plan with the same shape (--all-brokers). */
export function outcomesFrom(plan: ConfirmPlan, predicted: ConfirmPlan): ModelOutcome[] {
  const key = (s: PlanStep): string => `${s.kind}|${describeStep(s)}`;
  const pool = new Map<string, ModelOutcome[]>();
  for (const s of predicted.steps) pool.set(key(s), [...(pool.get(key(s)) ?? []), s.model]);
  return plan.steps.map(
    (s) => pool.get(key(s))?.shift() ?? { kind: "unknown", detail: "the model's run on this cluster has no such step" },
  );
}
