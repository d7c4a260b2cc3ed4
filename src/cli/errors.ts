import { InputError } from "../scenario/input-error.js";

/** Exit codes of the public contract. */
export const EXIT = { ok: 0, unexpected: 1, usage: 2, internal: 3, interrupted: 130 } as const;

/** Print one line for bad input (exit 2) or a short report for an internal error (exit 3). */
export function reportFatal(error: unknown, context: { seed?: number; scenario?: string } = {}): number {
  if (error instanceof InputError) {
    process.stderr.write(`eosfuzz: ${error.message}\n`);
    return EXIT.usage;
  }
  const e = error as Error;
  const where = context.seed !== undefined ? ` at seed ${context.seed}` : "";
  const replay = context.scenario && context.seed !== undefined ? `\n  replay: eosfuzz run --scenario ${context.scenario} --seed-start ${context.seed} --seeds 1` : "";
  process.stderr.write(`eosfuzz: internal error${where}: ${e?.message ?? String(error)}${replay}\n  this is a bug in eosfuzz; please report it with the command above\n`);
  return EXIT.internal;
}
