import chalk from "chalk";
import type { Argv } from "yargs";
import { findMutant, MUTANTS } from "../../fuzz/mutants.js";
import { harnessRelease, harnessReleases, HarnessUnavailable } from "../../harness/kafka-releases.js";
import { InputError } from "../../scenario/input-error.js";
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
    .option("json", { type: "boolean", default: false, describe: "print one JSON object on stdout and nothing else" })
    .check((a) => {
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
