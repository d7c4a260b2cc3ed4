import chalk from "chalk";
import type { Argv } from "yargs";
import { findMutant, MUTANTS } from "../../fuzz/catalogue/mutants.js";
import { harnessRelease, harnessReleases, HarnessUnavailable } from "../../harness/kafka-releases.js";
import { InputError } from "../../common/input-error.js";
import { resolveScenario } from "../../scenario/loader.js";
import { EXIT } from "../errors.js";
import { writeJsonStdout } from "./run.js";

/** The comparison surfaces (src/conform/conform.ts SURFACES; repeated so the CLI loads no harness code before it runs). */
const SURFACE_NAMES = ["leader", "txnMetadata", "txnCoordinator", "client"] as const;

export interface ConformArgs {
  release?: string[];
  surface?: string[];
  sequences: number;
  seed: number;
  mutant?: string;
  json: boolean;
  "stop-on-first": boolean;
  table: boolean;
  scenario?: string;
  seeds?: number;
  "seed-start": number;
  boundaries: boolean;
}

export function conformBuilder(y: Argv): Argv<ConformArgs> {
  return y
    .option("release", {
      type: "string",
      array: true,
      describe: `Kafka release(s) to check (default: every one the harness runs: ${harnessReleases()
        .map((r) => r.release)
        .join(", ")})`,
    })
    .option("surface", {
      type: "string",
      array: true,
      describe: `comparison surface(s): ${SURFACE_NAMES.join(", ")} (default: all)`,
    })
    .option("sequences", { type: "number", default: 2_000, describe: "generated operation sequences per release" })
    .option("seed", { type: "number", default: 0, describe: "fast-check seed of the generated sequences" })
    .option("mutant", { type: "string", describe: "judge a deliberately broken model (see eosfuzz mutants)" })
    .option("stop-on-first", { type: "boolean", default: false, describe: "stop a release at its first divergence" })
    .option("table", {
      type: "boolean",
      default: false,
      describe: "client surface: print every cell of the table, Kafka's answer beside the model's",
    })
    .option("scenario", {
      type: "string",
      describe:
        "trace validation: run the scenario's seeds and replay every decision of every replica's log on Kafka's UnifiedLog of the broker's release",
    })
    .option("seeds", { type: "number", describe: "trace validation: how many seeds (default: the scenario's)" })
    .option("boundaries", {
      type: "boolean",
      default: false,
      describe:
        "for every flag that changes between neighbouring releases, switch it in each side's profile: Kafka's classes of that side must see it",
    })
    .option("seed-start", { type: "number", default: 0, describe: "trace validation: the first seed" })
    .option("json", { type: "boolean", default: false, describe: "print one JSON object on stdout and nothing else" })
    .check((a) => {
      if (a.seeds !== undefined && (!Number.isInteger(a.seeds) || a.seeds < 1 || a.seeds > 1_000_000))
        throw new InputError("--seeds", "", `expected an integer in [1, 1000000], found ${a.seeds}`);
      if (!Number.isInteger(a["seed-start"]) || (a["seed-start"] as number) < 0)
        throw new InputError("--seed-start", "", `expected an integer >= 0, found ${a["seed-start"]}`);
      if (a.seeds !== undefined && a.scenario === undefined)
        throw new InputError("--seeds", "", "needs --scenario (trace validation)");
      if (!Number.isInteger(a.sequences) || a.sequences < 1 || a.sequences > 10_000_000)
        throw new InputError("--sequences", "", `expected an integer in [1, 10000000], found ${a.sequences}`);
      if (!Number.isInteger(a.seed)) throw new InputError("--seed", "", `expected an integer, found ${a.seed}`);
      for (const s of (a.surface as string[] | undefined) ?? [])
        if (!(SURFACE_NAMES as readonly string[]).includes(s))
          throw new InputError("--surface", "", `found "${s}", expected one of ${SURFACE_NAMES.join(", ")}`);
      return true;
    }) as unknown as Argv<ConformArgs>;
}

/**
 * `eosfuzz conform`: Kafka's own classes of each release judge the model. Exit 0 when they agree
 * everywhere, 1 on a divergence, 2 for bad input or a harness that cannot start.
 */
export async function conformCommand(args: ConformArgs): Promise<number> {
  if (args.scenario !== undefined) return traceCommand(args, args.scenario);
  if (args.boundaries) return boundariesCommand(args);
  const releases = (args.release ?? harnessReleases().map((r) => r.release)).map((name) => {
    const r = harnessRelease(name);
    if (!r)
      throw new InputError(
        "--release",
        "",
        `found "${name}", expected one of ${harnessReleases()
          .map((x) => x.release)
          .join(", ")}`,
      );
    return r;
  });
  const mutant = args.mutant === undefined ? undefined : findMutant(args.mutant);
  if (args.mutant !== undefined && !mutant)
    throw new InputError(
      "--mutant",
      "",
      `found "${args.mutant}", expected one of ${MUTANTS.map((m) => m.name).join(", ")}`,
    );
  const { runConformance } = await import("../../conform/conform.js");
  const started = Date.now();
  let results: Awaited<ReturnType<typeof runConformance>>;
  try {
    results = await runConformance({
      releases,
      sequences: args.sequences,
      seed: args.seed,
      overrides: mutant?.overrides ?? {},
      stopOnFirst: args["stop-on-first"],
      surfaces: args.surface as (typeof SURFACE_NAMES)[number][] | undefined,
      now: () => Date.now(),
      onProgress: args.json
        ? undefined
        : (release, surface, done, total) => {
            if (process.stderr.isTTY) process.stderr.write(`\r  ${release} ${surface}: ${done}/${total}`);
          },
    });
  } catch (e) {
    if (e instanceof HarnessUnavailable) throw new InputError("eosfuzz conform", "", e.message);
    throw e;
  }
  if (process.stderr.isTTY && !args.json) process.stderr.write("\r\x1b[K");
  const divergent = results.some((r) => r.surfaces.some((s) => s.divergentSequences > 0));
  if (args.json) {
    writeJsonStdout({
      schemaVersion: 1,
      mutant: mutant?.name ?? null,
      seed: args.seed,
      agree: !divergent,
      wallMs: Date.now() - started,
      releases: results.map((r) => ({
        release: r.release,
        kafkaVersion: r.kafkaVersion,
        profile: r.profile,
        profileUsed: r.profileUsed,
        surfaces: r.surfaces.map((s) => ({
          surface: s.surface,
          skipped: s.skipped,
          sequences: s.sequences,
          operations: s.operations,
          divergences: s.divergentSequences,
          divergenceClasses: s.classes,
          elapsedMs: s.elapsedMs,
          ...(s.client
            ? {
                cells: s.client.cells.map((c) => ({
                  ...c.case,
                  kafka: c.kafka,
                  model: c.model,
                  differences: c.differences,
                })),
                differences: s.story,
              }
            : {}),
          firstDivergence: s.first
            ? {
                step: s.first.divergence?.step,
                difference: s.first.divergence?.difference,
                setup: s.first.setup ?? null,
                ops: s.first.ops,
                model: s.first.model,
                kafka: s.first.kafka,
                story: s.story,
              }
            : null,
        })),
      })),
    });
  } else {
    const { clientTableLines } = await import("../../conform/client/client-report.js");
    for (const r of results) {
      for (const s of r.surfaces) {
        if (s.skipped) {
          process.stdout.write(
            chalk.dim(`Kafka ${r.kafkaVersion.padEnd(6)} ${s.surface.padEnd(14)} skipped: ${s.skipped}\n`),
          );
          continue;
        }
        const verdict =
          s.divergentSequences === 0
            ? chalk.green("agree")
            : chalk.red(`${s.divergentSequences} divergent ${s.client ? "cells" : "sequences"}`);
        const size = s.client
          ? `${s.sequences.toLocaleString("en-US")} cells (error x api x transaction version)`
          : `${s.sequences.toLocaleString("en-US")} sequences, ${s.operations.toLocaleString("en-US")} operations`;
        process.stdout.write(
          `Kafka ${r.kafkaVersion.padEnd(6)} ${s.surface.padEnd(14)} model profile ${r.profileUsed.padEnd(6)} ${size}: ${verdict}  ${chalk.dim(`${(s.elapsedMs / 1000).toFixed(1)} s`)}\n`,
        );
        if (s.client && args.table) for (const line of clientTableLines(s.client)) process.stdout.write(`  ${line}\n`);
        for (const [kind, count] of Object.entries(s.classes))
          process.stdout.write(chalk.dim(`  ${String(count).padStart(6)} x ${kind}\n`));
        for (const line of s.story) process.stdout.write(`  ${line}\n`);
        if (s.first)
          process.stdout.write(
            chalk.dim(
              `  again: eosfuzz conform --release ${r.release} --surface ${s.surface} --sequences ${s.sequences} --seed ${args.seed}${mutant ? ` --mutant ${mutant.name}` : ""}\n`,
            ),
          );
      }
    }
    process.stdout.write(
      divergent
        ? chalk.red("Kafka's classes and the model disagree (exit 1)\n")
        : chalk.green(`Kafka's classes and the model agree on every release checked (${results.length})\n`),
    );
  }
  return divergent ? EXIT.unexpected : EXIT.ok;
}

/** `eosfuzz conform --scenario NAME`: trace validation of a scenario's seeds. */
async function traceCommand(args: ConformArgs, scenario: string): Promise<number> {
  const loaded = resolveScenario(scenario);
  const mutant = args.mutant === undefined ? undefined : findMutant(args.mutant);
  if (args.mutant !== undefined && !mutant)
    throw new InputError(
      "--mutant",
      "",
      `found "${args.mutant}", expected one of ${MUTANTS.map((m) => m.name).join(", ")}`,
    );
  const seeds = args.seeds ?? loaded.scenario.seeds;
  const { validateTraces } = await import("../../conform/trace/trace-validation.js");
  const { traceDivergenceStory } = await import("../../conform/trace/trace-story.js");
  const started = Date.now();
  let results: Awaited<ReturnType<typeof validateTraces>>;
  try {
    results = await validateTraces({
      loaded,
      seedStart: args["seed-start"],
      seeds,
      overrides: mutant?.overrides ?? {},
      stopOnFirst: args["stop-on-first"],
      onProgress: args.json
        ? undefined
        : (done, total) => {
            if (process.stderr.isTTY) process.stderr.write(`\r  ${loaded.scenario.name}: seed ${done}/${total}`);
          },
    });
  } catch (e) {
    if (e instanceof HarnessUnavailable) throw new InputError("eosfuzz conform", "", e.message);
    throw e;
  }
  if (process.stderr.isTTY && !args.json) process.stderr.write("\r\x1b[K");
  const divergent = results.some((r) => r.divergentSegments > 0);
  const replay = (seed: number) =>
    `eosfuzz conform --scenario ${scenario} --seed-start ${seed} --seeds 1${mutant ? ` --mutant ${mutant.name}` : ""}`;
  if (args.json) {
    writeJsonStdout({
      schemaVersion: 1,
      scenario: loaded.scenario.name,
      seedStart: args["seed-start"],
      seeds,
      mutant: mutant?.name ?? null,
      agree: !divergent,
      wallMs: Date.now() - started,
      releases: results.map((r) => ({
        release: r.release,
        kafkaVersion: r.kafkaVersion,
        profile: r.profile,
        replicaSegments: r.segments,
        skippedOverridden: r.skippedOverridden,
        operations: r.operations,
        divergences: r.divergentSegments,
        firstDivergence: r.first
          ? { ...r.first, replay: replay(r.first.seed), story: traceDivergenceStory(r.first) }
          : null,
      })),
    });
  } else {
    process.stdout.write(
      `trace validation of ${loaded.scenario.name}, seeds ${args["seed-start"]}..${args["seed-start"] + seeds - 1}\n`,
    );
    for (const r of results) {
      const verdict =
        r.segments === 0
          ? chalk.dim("nothing judged")
          : r.divergentSegments === 0
            ? chalk.green("agree")
            : chalk.red(`${r.divergentSegments} divergent replica traces`);
      process.stdout.write(
        `Kafka ${r.kafkaVersion.padEnd(6)} model profile ${r.profile.padEnd(6)} ${r.segments.toLocaleString("en-US")} replica traces, ${r.operations.toLocaleString("en-US")} operations: ${verdict}\n`,
      );
      if (r.skippedOverridden > 0)
        process.stdout.write(
          chalk.dim(
            `  ${r.skippedOverridden} replica traces of brokers with flag overrides not judged: they run no release\n`,
          ),
        );
      if (r.first) {
        for (const line of traceDivergenceStory(r.first)) process.stdout.write(`  ${line}\n`);
        process.stdout.write(chalk.dim(`  again: ${replay(r.first.seed)}\n`));
      }
    }
    process.stdout.write(
      divergent
        ? chalk.red("Kafka's classes and the model disagree (exit 1)\n")
        : chalk.green(
            `every decision of every replica's log agrees with Kafka's classes (${results.length} releases)\n`,
          ),
    );
  }
  return divergent ? EXIT.unexpected : EXIT.ok;
}

/** `eosfuzz conform --boundaries`: each release boundary's flags, switched on either side, judged by Kafka's classes. */
async function boundariesCommand(args: ConformArgs): Promise<number> {
  const { checkReleaseBoundaries } = await import("../../conform/release-boundaries.js");
  const started = Date.now();
  let outcome: Awaited<ReturnType<typeof checkReleaseBoundaries>>;
  try {
    outcome = await checkReleaseBoundaries({
      sequences: args.sequences,
      seed: args.seed,
      now: () => Date.now(),
      onProgress: args.json
        ? undefined
        : (line) => {
            if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K  ${line}`);
          },
    });
  } catch (e) {
    if (e instanceof HarnessUnavailable) throw new InputError("eosfuzz conform", "", e.message);
    throw e;
  }
  if (process.stderr.isTTY && !args.json) process.stderr.write("\r\x1b[K");
  const { checks, baselines } = outcome;
  const profilesDiverge = baselines.some((b) => b.unusable.length > 0);
  if (args.json) {
    writeJsonStdout({
      schemaVersion: 1,
      seed: args.seed,
      sequences: args.sequences,
      wallMs: Date.now() - started,
      baselines,
      checks,
    });
  } else {
    for (const b of baselines)
      process.stdout.write(
        `Kafka ${b.release.padEnd(6)} its own profile agrees on ${b.agreeing.join(", ") || "nothing"}${b.unusable.length > 0 ? chalk.red(`; not on ${b.unusable.join(", ")} (no switch judged there)`) : ""}\n`,
      );
    for (const c of checks) {
      const side = (x: (typeof c)["atBefore"]) =>
        x.divergedOn ? chalk.green(`seen by ${x.divergedOn}`) : chalk.yellow("not seen by any surface");
      process.stdout.write(
        `${c.boundary.padEnd(16)} ${c.flag.padEnd(38)} at ${c.atBefore.release} switched to ${String(c.atBefore.switchedTo)}: ${side(c.atBefore)}; at ${c.atAfter.release} switched to ${String(c.atAfter.switchedTo)}: ${side(c.atAfter)}\n`,
      );
    }
  }
  return profilesDiverge ? EXIT.unexpected : EXIT.ok;
}
