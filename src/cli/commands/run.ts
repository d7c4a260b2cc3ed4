import { join } from "node:path";
import type { Argv } from "yargs";
import { runCampaign } from "../../fuzz/campaign.js";
import { buildRunReport } from "../../report/run-report.js";
import { renderRunReport } from "../../report/terminal.js";
import { writeJsonAtomic } from "../../report/write-files.js";
import { InputError } from "../../scenario/input-error.js";
import { resolveScenario } from "../../scenario/loader.js";
import { LIMITS } from "../../scenario/schema.js";
import { EXIT } from "../errors.js";

export interface RunArgs {
  scenario: string;
  seeds?: number;
  "seed-start": number;
  json: boolean;
  out?: string;
}

export function runBuilder(y: Argv): Argv<RunArgs> {
  return y
    .option("scenario", { type: "string", default: "kip-1228-gap", describe: "built-in scenario name or a scenario file" })
    .option("seeds", { type: "number", describe: "number of seeds (default: the scenario's seeds)" })
    .option("seed-start", { type: "number", default: 0, describe: "first seed" })
    .option("json", { type: "boolean", default: false, describe: "print one JSON object on stdout and nothing else" })
    .option("out", { type: "string", describe: "write the report (run.json) into this directory" }) as unknown as Argv<RunArgs>;
}

function checkCount(flag: string, value: number | undefined, min: number, max: number): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InputError(`--${flag}`, "", `expected an integer in [${min}, ${max}], found ${Number.isNaN(value) ? "not a number" : value}`);
  }
}

/** `eosfuzz run`: a campaign over seeds, judged against the scenario's expectation. */
export function runCommand(args: RunArgs): number {
  checkCount("seeds", args.seeds, 1, LIMITS.seeds);
  checkCount("seed-start", args["seed-start"], 0, Number.MAX_SAFE_INTEGER - LIMITS.seeds);
  const loaded = resolveScenario(args.scenario);
  const seeds = args.seeds ?? loaded.scenario.seeds;
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(EXIT.interrupted);
    interrupted = true;
    process.stderr.write("\ninterrupted: finishing the current seed and writing a partial report (Ctrl-C again to quit at once)\n");
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigint);
  const progress = !args.json && process.stderr.isTTY;
  const started = performance.now();
  let lastProgress = started;
  const result = runCampaign(loaded, {
    seeds,
    seedStart: args["seed-start"],
    shouldStop: () => interrupted,
    onSeed: (_r, done) => {
      if (!progress) return;
      const now = performance.now();
      if (now - lastProgress < 200 && done !== seeds) return;
      lastProgress = now;
      process.stderr.write(`\r  ${done}/${seeds} seeds`);
      if (done === seeds) process.stderr.write("\r\x1b[K");
    },
  });
  process.off("SIGINT", onSigint);
  process.off("SIGTERM", onSigint);
  const report = buildRunReport(result, performance.now() - started);
  if (args.out) writeJsonAtomic(join(args.out, "run.json"), report);
  if (args.json) process.stdout.write(`${JSON.stringify(report)}\n`);
  else process.stdout.write(`${renderRunReport(report)}\n`);
  if (result.interrupted) return EXIT.interrupted;
  return report.expectationMet ? EXIT.ok : EXIT.unexpected;
}
