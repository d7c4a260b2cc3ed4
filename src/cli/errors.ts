import { basename, dirname } from "node:path";
import { ENVIRONMENT_ERROR_CODES, describeWriteFailure } from "../common/output-error.js";
import { InputError, problemsOf } from "../common/input-error.js";

/** Exit codes of the public contract. */
export const EXIT = { ok: 0, unexpected: 1, usage: 2, internal: 3, interrupted: 130 } as const;

/**
 * A failure of eosfuzz itself (not of the model, which runs report as model-error, nor of the
 * user's input) while a campaign was at a known place: the seed to replay and the command that does.
 */
export class InternalError extends Error {
  override readonly name = "InternalError";
  constructor(
    readonly error: unknown,
    readonly seed: number,
    readonly replay: string,
    /** Where the results so far are, if they were streamed anywhere. */
    readonly kept: string | null = null,
  ) {
    super((error as Error)?.message ?? String(error));
  }
}

/** The first line of an error's message (a message never brings its stack with it). */
function firstLine(error: unknown): string {
  const text = (error as Error)?.message ?? String(error);
  return text.split("\n")[0] ?? "";
}

/** Outputs that could not be written while the rest of the command went on: one line each on stderr. */
export function reportOutputProblems(problems: readonly InputError[]): void {
  for (const p of problems) process.stderr.write(`eosfuzz: ${p.message}\n`);
}

/** Print one line for bad input (exit 2) or a short report for an internal error (exit 3), never a stack. */
export function reportFatal(error: unknown): number {
  if (error instanceof InputError) {
    // Every problem of a scenario at once, one line each.
    for (const problem of problemsOf(error)) process.stderr.write(`eosfuzz: ${problem.message}\n`);
    return EXIT.usage;
  }
  // The disk, permissions or a path of the user's (where no writer turned it into an OutputError): not a bug.
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code !== undefined && ENVIRONMENT_ERROR_CODES.has(code)) {
    const path = (error as NodeJS.ErrnoException).path;
    const shown = path && /^\..*\.tmp$/.test(basename(path)) ? dirname(path) : path;
    process.stderr.write(`eosfuzz: ${shown ? `${shown}: ` : ""}${describeWriteFailure(error)}\n`);
    return EXIT.usage;
  }
  const lines =
    error instanceof InternalError
      ? [
          `eosfuzz: internal error at seed ${error.seed}: ${firstLine(error)}`,
          `  replay: ${error.replay}`,
          ...(error.kept ? [`  results so far: ${error.kept}`] : []),
        ]
      : [`eosfuzz: internal error: ${firstLine(error)}`, `  command: eosfuzz ${process.argv.slice(2).join(" ")}`];
  lines.push(
    "  this is a bug in eosfuzz, not in Kafka: please report it to the eosfuzz maintainers with the command above",
  );
  process.stderr.write(`${lines.join("\n")}\n`);
  return EXIT.internal;
}
