import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import chalk from "chalk";
import type { Argv } from "yargs";
import { harnessReleases, HarnessUnavailable } from "../../harness/kafka-releases.js";
import { InputError } from "../../common/input-error.js";
import { loadScenario } from "../../scenario/loader.js";
import { killAllNow } from "../../confirm/process/child-registry.js";
import { EXIT } from "../errors.js";
import { EXIT_INTERRUPTED, stopGracefully } from "../interrupt.js";
import { writeJsonStdout } from "./run.js";

export interface ConfirmArgs {
  file?: string;
  scenario?: string;
  seed?: number;
  "all-brokers"?: string;
  "client-release"?: string;
  "transaction-version"?: number;
  "request-timeout-ms": number;
  retries: number;
  "shrink-budget-ms": number;
  out?: string;
  json: boolean;
  random: boolean;
  runs?: number;
}

export function confirmBuilder(y: Argv): Argv<ConfirmArgs> {
  const releases = harnessReleases().map((r) => r.release);
  return y
    .positional("file", { type: "string", describe: "a seed file (a shrunk tape is the shortest plan)" })
    .option("scenario", {
      type: "string",
      describe: "a scenario (with --seed): its seed's first violation, shrunk, is played",
    })
    .option("seed", { type: "number", describe: "the seed of --scenario" })
    .option("all-brokers", {
      type: "string",
      describe: `run every broker on this Kafka release instead (${releases.join(", ")}); the model predicts that cluster from the same tape`,
    })
    .option("client-release", { type: "string", describe: "the clients' Kafka release (default: the newest broker's)" })
    .option("transaction-version", {
      type: "number",
      describe: "transaction.version to finalize (default: the scenario's)",
    })
    .option("request-timeout-ms", {
      type: "number",
      default: 2_000,
      describe: "brokers' request.timeout.ms: how long a coordinator waits for a marker answer before re-sending",
    })
    .option("retries", {
      type: "number",
      default: 2,
      describe: "attempts after an inconclusive one (0-2); nothing else is retried",
    })
    .option("shrink-budget-ms", { type: "number", default: 20_000, describe: "with --scenario: the shrink's budget" })
    .option("out", {
      type: "string",
      describe: "keep every node's data and logs here (default: a new temporary directory)",
    })
    .option("json", { type: "boolean", default: false, describe: "print one JSON object on stdout and nothing else" })
    .option("random", {
      type: "boolean",
      default: false,
      describe:
        "with --scenario and --runs N: N schedules of seeds drawn at random, each played as drawn (not deterministic)",
    })
    .option("runs", { type: "number", describe: "with --random: how many schedules (1-20)" })
    .check((a) => {
      if (a.random) {
        if (a.scenario === undefined || a.file !== undefined || a.seed !== undefined)
          throw new InputError("--random", "", "expected --scenario NAME --runs N, without --seed or a seed file");
        const runs = a.runs ?? 1;
        if (!Number.isInteger(runs) || runs < 1 || runs > 20)
          throw new InputError("--runs", "", `expected an integer in [1, 20], found ${runs}`);
        return true;
      }
      if (a.runs !== undefined) throw new InputError("--runs", "", "--runs goes with --random");
      if ((a.file === undefined) === (a.scenario === undefined))
        throw new InputError(
          "eosfuzz confirm",
          "",
          `expected a seed file or --scenario NAME --seed N, found ${a.file === undefined ? "neither" : "both"}`,
        );
      if (a.scenario !== undefined && (a.seed === undefined || !Number.isInteger(a.seed) || a.seed < 0))
        throw new InputError(
          "--seed",
          "",
          `expected --seed N (an integer >= 0) with --scenario, found ${a.seed ?? "none"}`,
        );
      for (const flag of ["all-brokers", "client-release"] as const) {
        const r = a[flag];
        if (r !== undefined && !releases.includes(String(r)))
          throw new InputError(`--${flag}`, "", `found "${r}", expected one of ${releases.join(", ")}`);
      }
      const tv = a["transaction-version"];
      if (tv !== undefined && ![0, 1, 2].includes(Number(tv)))
        throw new InputError("--transaction-version", "", `expected 0, 1 or 2, found ${tv}`);
      if (!Number.isInteger(a.retries) || a.retries < 0 || a.retries > 2)
        throw new InputError("--retries", "", `expected 0, 1 or 2, found ${a.retries}`);
      const timeout = a["request-timeout-ms"];
      if (!Number.isInteger(timeout) || timeout < 500 || timeout > 30_000)
        throw new InputError("--request-timeout-ms", "", `expected an integer in [500, 30000], found ${timeout}`);
      return true;
    }) as unknown as Argv<ConfirmArgs>;
}

const VERDICT_COLOUR = { confirmed: chalk.green, "not-reproduced": chalk.red, inconclusive: chalk.yellow } as const;

/**
 * `eosfuzz confirm`: a counterexample of the model played on a real mixed-release cluster with the
 * same faults, judged by the same oracle. Exit 0 when real Kafka agrees with the model, 1 when it
 * does not or the run is inconclusive (the JSON says which), 2 for bad input or no Java/jars.
 */
export async function confirmCommand(args: ConfirmArgs): Promise<number> {
  // A signal ends the command with 130 through process.exit, so the exit hook kills every JVM it
  // started (the signal's default action would skip it, leaving the watcher shells to do it).
  stopGracefully(() => process.exit(EXIT_INTERRUPTED));
  if (args.random) return confirmRandomCommand(args);
  const { modelRunOfSeed, modelRunOfSeedFile } = await import("../../confirm/plan/model-run.js");
  const { confirm } = await import("../../confirm/confirm.js");
  const { describeStep, isClusterEvent } = await import("../../confirm/plan/plan.js");
  const { staleMarkers } = await import("../../confirm/history/real-history.js");
  const model =
    args.file !== undefined
      ? modelRunOfSeedFile(args.file)
      : modelRunOfSeed(loadScenario(args.scenario as string), args.seed as number, args["shrink-budget-ms"]);
  const options = confirmOptions(args);
  const { outDir } = options;
  const result = await onRealCluster(() => confirm(model, options));
  const { plan, final } = result;
  const run = final.run;
  const verdict = final.verdict;
  // The page beside the node logs: the real run step by step beside the simulated one.
  const { confirmPage } = await import("../../confirm/confirm-page.js");
  const page = join(outDir, "confirm.html");
  writeFileSync(
    page,
    confirmPage(result, `eosfuzz confirm ${args.file ?? `--scenario ${args.scenario} --seed ${args.seed}`}`),
  );
  const faults = plan.faults.map((f) => {
    const real = run.faults.find((x) => x.id === f.id);
    return {
      id: f.id,
      planned: f.story,
      fired: real?.firings.length ?? 0,
      firedAtMs: real?.firings.map((x) => x.atMs - run.epochMs) ?? [],
      released: real?.released ?? null,
    };
  });
  if (args.json) {
    writeJsonStdout({
      schemaVersion: 1,
      verdict: verdict.verdict,
      agrees: verdict.verdict === "confirmed",
      reason: verdict.reason,
      scenario: plan.scenario,
      source: plan.source,
      brokers: run.brokers.map((b) => ({
        name: b.name,
        nodeId: b.nodeId,
        release: b.release,
        kafkaVersion: b.kafkaVersion,
      })),
      controllerRelease: plan.controllerRelease,
      clients: { release: plan.clientRelease, kafkaVersion: run.clientVersion },
      transactionVersion: plan.transactionVersion,
      model: {
        violations: result.model.violations.map((v) => ({ kind: v.kind, summary: v.summary })),
        profile: result.model.profile,
        note: result.model.note,
      },
      violations: final.violations,
      faults,
      divergence: verdict.divergence,
      evidence: staleMarkers(final.markers),
      markers: final.markers,
      steps: run.steps.map((s) => ({
        step: s.index + 1,
        what: describeStep(s.step),
        model: s.step.model,
        real: s.real,
        startMs: s.startMs,
        endMs: s.endMs,
      })),
      events: run.steps
        .filter((s) => isClusterEvent(s.step))
        .map((s) => ({
          step: s.index + 1,
          what: describeStep(s.step),
          real: s.real,
          startMs: s.startMs,
          endMs: s.endMs,
        })),
      eventsMissed: verdict.eventsMissed ?? [],
      notReplayed: plan.notReplayed,
      unsupported: plan.unsupported,
      notes: final.notes,
      attempts: result.attempts.map((a) => ({
        attempt: a.attempt,
        verdict: a.verdict.verdict,
        reason: a.verdict.reason,
        wallMs: a.wallMs,
      })),
      retried: result.attempts.length - 1,
      wallMs: result.wallMs,
      clusterStartMs: run.clusterStartMs,
      simulator: result.simulator,
      dir: outDir,
      page,
    });
  } else {
    const out = (line = "") => process.stdout.write(`${line}\n`);
    out(
      `eosfuzz confirm ${args.file ?? `--scenario ${args.scenario} --seed ${args.seed}`}${args["all-brokers"] ? ` --all-brokers ${args["all-brokers"]}` : ""}`,
    );
    out(`  scenario ${plan.scenario} (${plan.source})`);
    const predicted = result.model.violations;
    const changed = [
      ...(result.model.profile ? [`every broker on ${result.model.profile}`] : []),
      ...(args["transaction-version"] !== undefined ? [`transaction.version ${args["transaction-version"]}`] : []),
    ];
    out(
      `  the model${changed.length > 0 ? ` (the same tape, ${changed.join(", ")})` : ""}: ${predicted.length === 0 ? "no violation" : predicted.map((v) => `${v.kind}: ${v.summary}`).join("; ")}`,
    );
    if (result.model.note) out(chalk.dim(`    ${result.model.note}`));
    out(
      `  real cluster: ${run.brokers.map((b) => `${b.name} Kafka ${b.kafkaVersion}`).join(", ")}; controller ${plan.controllerRelease}; clients ${run.clientVersion}; transaction.version ${plan.transactionVersion}`,
    );
    for (const f of faults)
      out(
        `  fault ${f.id}: ${f.planned}\n    fired ${f.fired} time${f.fired === 1 ? "" : "s"}${f.released ? `; released at ${(f.released.atMs / 1000).toFixed(2)} s: ${f.released.errors.map((e) => `${e.partition} ${e.error}`).join(", ")}` : ""}`,
      );
    out("  steps:");
    for (const s of run.steps) {
      const mark =
        s.real.kind === "ok"
          ? chalk.green("ok")
          : s.real.kind === "error"
            ? chalk.red(s.real.error)
            : chalk.yellow("?");
      out(
        `    ${String(s.index + 1).padStart(2)}. ${(s.startMs / 1000).toFixed(2).padStart(6)} s  ${describeStep(s.step)}: ${mark}${s.real.detail ? chalk.dim(` (${s.real.detail})`) : ""}`,
      );
    }
    out(`  ${VERDICT_COLOUR[verdict.verdict](verdict.verdict.toUpperCase())}: ${verdict.reason}`);
    if (verdict.divergence)
      out(
        `    first step where real Kafka went another way: ${verdict.divergence.step}. ${verdict.divergence.what}: the model ${verdict.divergence.model.kind === "error" ? verdict.divergence.model.error : verdict.divergence.model.kind} (${verdict.divergence.model.detail}), real Kafka ${verdict.divergence.real.kind === "error" ? verdict.divergence.real.error : verdict.divergence.real.kind} (${verdict.divergence.real.detail})`,
      );
    for (const v of final.violations) {
      out(`    ${chalk.bold(v.kind)}  ${v.summary}`);
      for (const line of v.explanation) out(`      ${line}`);
    }
    const stale = staleMarkers(final.markers);
    for (const m of stale) {
      out(`    evidence: DumpLogSegments of ${m.partition} (marker from ${m.source}):`);
      for (const line of m.lines) out(chalk.dim(`      ${line}`));
    }
    for (const n of [
      ...plan.notReplayed.map((x) => `not replayed: ${x}`),
      ...plan.unsupported.map((x) => `not supported: ${x}`),
      ...final.notes,
    ])
      out(chalk.dim(`  ${n}`));
    if (result.attempts.length > 1)
      out(
        `  retried: ${result.attempts.length - 1} inconclusive attempt${result.attempts.length > 2 ? "s" : ""} before this one (${result.attempts
          .slice(0, -1)
          .map((a) => a.verdict.reason)
          .join("; ")})`,
      );
    out(
      chalk.dim(
        `  wall ${(result.wallMs / 1000).toFixed(1)} s (cluster start ${(run.clusterStartMs / 1000).toFixed(1)} s); node logs in ${outDir}; the model beside real Kafka: ${page}`,
      ),
    );
  }
  return verdict.verdict === "confirmed" ? EXIT.ok : EXIT.unexpected;
}

/**
 * `eosfuzz confirm --scenario NAME --random --runs N`: N seeds drawn at random (the set is not
 * reproducible; each seed's schedule is, and the output names it), each schedule played as drawn on
 * a fresh real cluster and judged by the same oracle; each run's history is also written for
 * Jepsen's Kafka checker (history.edn). Exit 0 when every run is confirmed.
 */
async function confirmRandomCommand(args: ConfirmArgs): Promise<number> {
  const { confirmRandom } = await import("../../confirm/random-runs.js");
  const { randomInt } = await import("node:crypto");
  const { isClusterEvent } = await import("../../confirm/plan/plan.js");
  const scenario = loadScenario(args.scenario as string);
  const seeds = Array.from({ length: args.runs ?? 1 }, () => randomInt(0, 2 ** 31 - 1));
  const options = confirmOptions(args);
  const { outDir } = options;
  const runs = await onRealCluster(() => confirmRandom(scenario, seeds, options));
  const note = "not deterministic: the seeds were drawn at random; each seed's schedule is reproducible with --seed";
  const rows = runs.map(({ seed, result, dir }) => {
    const v = result.final.verdict;
    return {
      seed,
      verdict: v.verdict,
      reason: v.reason,
      model: result.model.violations.map((x) => x.kind),
      violations: result.final.violations.map((x) => ({ kind: x.kind, summary: x.summary })),
      steps: result.plan.steps.length,
      events: result.final.run.steps.filter((s) => isClusterEvent(s.step)).length,
      eventsMissed: v.eventsMissed ?? [],
      holds: {
        planned: result.plan.faults.length,
        fired: result.final.run.faults.filter((f) => f.firings.length > 0).length,
      },
      unsupported: result.plan.unsupported,
      retried: result.attempts.length - 1,
      wallMs: result.wallMs,
      history: join(dir, `attempt-${result.final.attempt}`, "history.edn"),
    };
  });
  const counts = { confirmed: 0, "not-reproduced": 0, inconclusive: 0 };
  for (const r of rows) counts[r.verdict]++;
  if (args.json)
    writeJsonStdout({
      schemaVersion: 1,
      random: true,
      deterministic: false,
      note,
      scenario: scenario.scenario.name,
      counts,
      runs: rows,
      dir: outDir,
    });
  else {
    const out = (line = "") => process.stdout.write(`${line}\n`);
    out(`eosfuzz confirm --scenario ${scenario.scenario.name} --random --runs ${seeds.length}`);
    out(chalk.dim(`  ${note}`));
    for (const r of rows)
      out(
        `  seed ${r.seed}: ${VERDICT_COLOUR[r.verdict](r.verdict.toUpperCase())} (${r.reason}); ${r.steps} steps, ${r.events} cluster events, ${r.holds.fired}/${r.holds.planned} faults fired; ${(r.wallMs / 1000).toFixed(1)} s\n    Jepsen history: ${r.history}`,
      );
    out(
      `  ${counts.confirmed} confirmed, ${counts["not-reproduced"]} not reproduced, ${counts.inconclusive} inconclusive; node logs in ${outDir}`,
    );
  }
  return counts.confirmed === rows.length ? EXIT.ok : EXIT.unexpected;
}

/** The options both confirm commands pass on: the run's directory (made here) and the cluster's releases. */
function confirmOptions(args: ConfirmArgs) {
  const outDir = args.out !== undefined ? resolve(args.out) : mkdtempSync(join(tmpdir(), "eosfuzz-confirm-"));
  mkdirSync(outDir, { recursive: true });
  return {
    outDir,
    allBrokers: args["all-brokers"] ?? null,
    clientRelease: args["client-release"] ?? null,
    transactionVersion: args["transaction-version"] ?? null,
    brokerRequestTimeoutMs: args["request-timeout-ms"],
    retries: args.retries,
    log: args.json ? () => {} : (line: string) => process.stderr.write(`${chalk.dim(line)}\n`),
  };
}

/** Runs work that starts JVMs: a missing harness is the user's to fix (exit 2), and no JVM outlives it. */
async function onRealCluster<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof HarnessUnavailable) throw new InputError("eosfuzz confirm", "", e.message);
    throw e;
  } finally {
    // Whatever happened, no JVM of this run outlives the command (nor keeps eosfuzz waiting for it).
    killAllNow();
  }
}
