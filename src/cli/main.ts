#!/usr/bin/env node
import chalk from "chalk";
import { hideBin } from "yargs/helpers";
import { runCli } from "./cli.js";
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

runCli(argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = reportFatal(error);
  },
);
