import { existsSync } from "node:fs";
import type { Argv } from "yargs";
import { regress } from "../../fuzz/catalogue/regress.js";
import { renderRegressJunit } from "../../report/regress-junit.js";
import { renderRegressTable } from "../../report/regress-table.js";
import { writeFileAtomic } from "../../common/write-files.js";
import { BUILTIN_SCENARIO_DIR } from "../../scenario/loader.js";
import type { OutputError } from "../../common/output-error.js";
import { emitRegressGithubActions } from "../../report/github-actions.js";
import { attemptWrite } from "../../report/report-dir.js";
import { EXIT, reportOutputProblems } from "../errors.js";
import { DEFAULT_SEED_DIR } from "./run.js";
import { applySettings, parseSettings } from "../../scenario/settings.js";
import { parseShard, setOption } from "./search-args.js";

export interface RegressArgs {
  set?: string[];
  scenarios?: string;
  seeds?: string;
  junit?: string;
  json: boolean;
  "accept-changed-trace": boolean;
  shard?: string;
}

export function regressBuilder(y: Argv): Argv<RegressArgs> {
  return setOption(y)
    .option("scenarios", { type: "string", describe: "directory of scenario files (default: the built-in scenarios)" })
    .option("seeds", {
      type: "string",
      describe: `directory of saved seed files (default: ${DEFAULT_SEED_DIR}/ if it exists)`,
    })
    .option("junit", { type: "string", describe: "also write the results as JUnit XML to FILE" })
    .option("json", { type: "boolean", default: false, describe: "print one JSON object on stdout and nothing else" })
    .option("accept-changed-trace", {
      type: "boolean",
      default: false,
      describe: "count a seed whose violation reproduces with a changed trace as passing",
    })
    .option("shard", {
      type: "string",
      describe: "I/N: only the I-th of N parts of the scenarios and of the seeds (a CI job each)",
    }) as unknown as Argv<RegressArgs>;
}

/** `eosfuzz regress`: exit 0 when every scenario meets its expectation and every seed reproduces. */
export function regressCommand(args: RegressArgs): number {
  const seedsDir = args.seeds ?? (existsSync(DEFAULT_SEED_DIR) ? DEFAULT_SEED_DIR : null);
  const progress = !args.json && process.stderr.isTTY;
  const shard = parseShard(args.shard);
  const settings = parseSettings(args.set);
  const result = regress({
    adjust: (loaded) => applySettings(loaded, settings),
    shard,
    scenariosDir: args.scenarios ?? BUILTIN_SCENARIO_DIR,
    seedsDir,
    acceptChangedTrace: args["accept-changed-trace"],
    onRow: (row) => {
      if (progress) process.stderr.write(`\r\x1b[K  ${row.result} ${row.name}`);
    },
  });
  if (progress) process.stderr.write("\r\x1b[K");
  const problems: OutputError[] = [];
  if (args.junit)
    attemptWrite(problems, () => writeFileAtomic(args.junit as string, renderRegressJunit(result), "the JUnit report"));
  if (args.json) process.stdout.write(`${JSON.stringify({ ...result, seedsDir, exitCode: exitCodeOf(result) })}\n`);
  else {
    process.stdout.write(`${renderRegressTable(result)}\n`);
    if (seedsDir === null)
      process.stdout.write(`  (no ${DEFAULT_SEED_DIR}/ directory here: no saved seeds replayed)\n`);
  }
  emitRegressGithubActions(
    result,
    (line) => (args.json ? process.stderr : process.stdout).write(line),
    process.env,
    problems,
  );
  reportOutputProblems(problems);
  return problems.length > 0 ? EXIT.usage : exitCodeOf(result);
}

function exitCodeOf(result: { failed: number; errors: number }): number {
  if (result.errors > 0) return EXIT.usage;
  return result.failed > 0 ? EXIT.unexpected : EXIT.ok;
}
