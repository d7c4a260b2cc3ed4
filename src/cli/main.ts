#!/usr/bin/env node
import chalk from "chalk";
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { TOOL_VERSION } from "../version.js";
import { mergeBuilder, mergeCommand } from "./commands/merge.js";
import { mutantsBuilder, mutantsCommand } from "./commands/mutants.js";
import { regressBuilder, regressCommand } from "./commands/regress.js";
import { replayBuilder, replayCommand } from "./commands/replay.js";
import { reportBuilder, reportCommand } from "./commands/report.js";
import { runBuilder, runCommand } from "./commands/run.js";
import { shrinkBuilder, shrinkCommand } from "./commands/shrink.js";
import { EXIT, reportFatal } from "./errors.js";

// A reader that goes away (`eosfuzz run --json | head -c 100`) is not an error: stop quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(EXIT.ok);
    throw e;
  });
}

const argv = hideBin(process.argv);
if ((process.env.NO_COLOR && !process.env.FORCE_COLOR) || argv.includes("--json")) chalk.level = 0;

function exitWith(code: number): void {
  process.exitCode = code;
}

async function main(): Promise<void> {
  await yargs(argv)
    .scriptName("eosfuzz")
    .version(TOOL_VERSION)
    .strict()
    .option("color", { type: "boolean", describe: "force colour on or off (--no-color)" })
    .command(
      "run",
      "fuzz a scenario over many seeds and check its expectation",
      (y) => runBuilder(y),
      async (args) => exitWith(await runCommand(args)),
    )
    .command(
      "merge <reports..>",
      "merge the run.json of every shard of a campaign (run --shard I/N) into one report",
      (y) => mergeBuilder(y),
      (args) => exitWith(mergeCommand(args)),
    )
    .command(
      "report <file>",
      "render a saved run report (run.json, e.g. merged from shards) as HTML, JUnit and ShiViz logs",
      (y) => reportBuilder(y),
      (args) => exitWith(reportCommand(args)),
    )
    .command(
      "replay <file>",
      "re-run a saved seed file, check its trace hash and explain it",
      (y) => replayBuilder(y),
      (args) => exitWith(replayCommand(args)),
    )
    .command(
      "shrink <file>",
      "shrink a saved failure to its minimal schedule and save it as a seed file",
      (y) => shrinkBuilder(y),
      (args) => exitWith(shrinkCommand(args)),
    )
    .command(
      "regress",
      "check every scenario against its expectation and replay every saved seed (for CI)",
      (y) => regressBuilder(y),
      (args) => exitWith(regressCommand(args)),
    )
    .command(
      "mutants",
      "list the deliberately broken variants of the model the oracle must catch",
      (y) => mutantsBuilder(y),
      (args) => exitWith(mutantsCommand(args)),
    )
    .demandCommand(1, "expected a command: run, merge, replay, shrink, regress, report or mutants")
    .recommendCommands()
    .fail((message, error) => {
      if (error) throw error;
      process.stderr.write(`eosfuzz: ${message.split("\n")[0]} (see eosfuzz --help)\n`);
      process.exit(EXIT.usage);
    })
    .help()
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .parseAsync();
}

main().catch((error: unknown) => {
  process.exitCode = reportFatal(error);
});
