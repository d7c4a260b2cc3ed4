import chalk from "chalk";
import { runCli } from "./cli.js";
import { reportFatal } from "./errors.js";

/**
 * A reader that goes away (`eosfuzz run --json | head -c 100`) is not an error, and it does not
 * change the outcome either: what is still to be printed is dropped, the command goes on (its
 * report directory, seed files) and exits with the code it would have had.
 */
function dropOutputOnBrokenPipe(stream: NodeJS.WriteStream): void {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE" && e.code !== "ERR_STREAM_DESTROYED") throw e;
    stream.write = (() => true) as typeof stream.write;
  });
}

/** The eosfuzz process: colour, broken pipes, the command, its exit code. */
export async function main(processArgv: readonly string[]): Promise<void> {
  dropOutputOnBrokenPipe(process.stdout);
  dropOutputOnBrokenPipe(process.stderr);
  // What yargs' hideBin does under Node: drop the node binary and the script (yargs loads on demand).
  const argv = processArgv.slice(2);
  if ((process.env.NO_COLOR && !process.env.FORCE_COLOR) || argv.includes("--json")) chalk.level = 0;
  try {
    process.exitCode = await runCli(argv);
  } catch (error) {
    process.exitCode = reportFatal(error);
  }
}
