import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Violation } from "../oracle/violation.js";
import { isReleaseName, type ReleaseName } from "../kafka/release.js";
import { kafkaReleaseFor, modelProfileOf } from "./cluster/kafka-jars.js";
import { jepsenHistory } from "./history/jepsen-history.js";
import { judgeRealRun, type RealMarker } from "./history/real-history.js";
import { derivePlan, type PlanOptions } from "./plan/derive-plan.js";
import { type ModelRun, simulatorCost, withCluster } from "./plan/model-run.js";
import type { ConfirmPlan, ModelOutcome } from "./plan/plan.js";
import type { RealRun } from "./run/real-run.js";
import { runPlan } from "./run/run-plan.js";
import { judge, outcomesFrom, type Verdict } from "./verdict.js";

export interface ConfirmOptions extends PlanOptions {
  /** Where each attempt's cluster keeps its data and logs. */
  outDir: string;
  /** Further attempts after an inconclusive one (at most 2). */
  retries?: number;
  log?: (line: string) => void;
  /** What plays the plan (a real cluster; tests give recorded runs). */
  runner?: (plan: ConfirmPlan, options: { dir: string; log: (line: string) => void }) => Promise<RealRun>;
}

export interface ConfirmAttempt {
  attempt: number;
  verdict: Verdict;
  run: RealRun;
  violations: Violation[];
  markers: RealMarker[];
  notes: string[];
  wallMs: number;
}

export interface ConfirmResult {
  plan: ConfirmPlan;
  /** The model's prediction for the cluster that ran (with --all-brokers: the same tape on that release). */
  model: { violations: Violation[]; outcomes: ModelOutcome[]; profile: string | null; note: string | null };
  attempts: ConfirmAttempt[];
  final: ConfirmAttempt;
  wallMs: number;
  /** The same schedule in the simulator: wall ms per run, and the virtual time it covers. */
  simulator: { msPerRun: number; virtualMs: number };
}

/**
 * eosfuzz confirm: play the model's counterexample on a real cluster and judge what it wrote with
 * the model's oracle. An inconclusive attempt (a fault that did not fire) is retried on a fresh
 * cluster, at most `retries` times; nothing else is.
 */
export async function confirm(run: ModelRun, options: ConfirmOptions): Promise<ConfirmResult> {
  const started = Date.now();
  const log = options.log ?? (() => {});
  const plan = derivePlan(run, options);
  const model = predict(run, plan, options);
  const attempts: ConfirmAttempt[] = [];
  const retries = Math.min(2, Math.max(0, options.retries ?? 2));
  for (let attempt = 1; attempt <= 1 + retries; attempt++) {
    const t0 = Date.now();
    const dir = join(options.outDir, `attempt-${attempt}`);
    mkdirSync(dir, { recursive: true });
    if (attempt > 1) log(`attempt ${attempt} of ${1 + retries}: attempt ${attempt - 1} was inconclusive`);
    const real = await (options.runner ?? runPlan)(plan, { dir, log });
    // Everything the verdict is built from, kept with the node logs: it can be judged again without a cluster.
    writeFileSync(join(dir, "real-run.json"), `${JSON.stringify({ plan, run: real }, null, 1)}\n`);
    // The client history again, for Jepsen's Kafka checker (jepsen.tests.kafka) to judge on its own.
    const jepsen = jepsenHistory(plan, real);
    writeFileSync(join(dir, "history.edn"), jepsen.edn);
    writeFileSync(
      join(dir, "history-keys.json"),
      `${JSON.stringify({ keys: jepsen.keys, values: jepsen.values }, null, 1)}\n`,
    );
    const judgement = judgeRealRun(plan, real);
    const verdict = judge(plan, real, judgement, model);
    attempts.push({
      attempt,
      verdict,
      run: real,
      violations: judgement.violations,
      markers: judgement.markers,
      notes: judgement.notes,
      wallMs: Date.now() - t0,
    });
    if (verdict.verdict !== "inconclusive") break;
  }
  const wallMs = Date.now() - started;
  return {
    plan,
    model,
    attempts,
    final: attempts[attempts.length - 1] as ConfirmAttempt,
    wallMs,
    simulator: simulatorCost(run),
  };
}

/**
 * What the model says this cluster does: the counterexample's own run, or the same tape on the
 * changed cluster (--all-brokers, --transaction-version), whose steps' outcomes are the prediction.
 */
function predict(run: ModelRun, plan: ConfirmPlan, options: PlanOptions): ConfirmResult["model"] {
  const allBrokers = options.allBrokers ?? null;
  const tv = options.transactionVersion ?? null;
  if (allBrokers === null && (tv === null || tv === run.scenario.scenario.cluster.transactionVersion))
    return { violations: run.violations, outcomes: plan.steps.map((s) => s.model), profile: null, note: null };
  const profile = allBrokers === null ? null : modelProfileOf(kafkaReleaseFor(allBrokers));
  const usable: ReleaseName | null =
    allBrokers === null ? null : profile !== null && isReleaseName(profile) ? profile : "4.2.1";
  const rerun = withCluster(run, { profile: usable, transactionVersion: tv === null ? null : (tv as 0 | 1 | 2) });
  const predicted = derivePlan(rerun);
  return {
    violations: rerun.violations,
    outcomes: outcomesFrom(plan, predicted),
    profile: usable,
    note:
      allBrokers === null || usable === profile
        ? null
        : `the model has no profile of Kafka ${allBrokers}: its prediction is the newest profile's (${usable})`,
  };
}
