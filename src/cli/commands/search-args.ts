import { availableParallelism } from "node:os";
import type { Argv } from "yargs";
import { PCT_SCOPES, type PctScope } from "../../fuzz/run-shaping/pct.js";
import type { Shard } from "../../fuzz/campaign/shard.js";
import { STRATEGY_NAMES, type StrategyName } from "../../fuzz/campaign/strategy-names.js";
import { notOneOf } from "../../scenario/did-you-mean.js";
import { InputError } from "../../common/input-error.js";

/** The search, scale and statistics options of `eosfuzz run`. */
export interface SearchArgs {
  strategy: string;
  workers?: number;
  shard?: string;
  "time-budget"?: string;
  "stop-on-first": boolean;
  "seed-timeout": string;
  "pct-depth": number;
  "pct-scope": string;
  depth: number;
  "bug-probability"?: number[];
}

/** `--set path=value`, any number of times: the scenario's settings changed for this command. */
export function setOption<T>(y: Argv<T>): Argv<T & { set?: string[] }> {
  return y.option("set", {
    type: "string",
    array: true,
    nargs: 1,
    describe:
      "change one setting of the scenario, as PATH=VALUE (workload.transactions=4, cluster.topics[0].min.insync.replicas=2); repeatable",
  }) as unknown as Argv<T & { set?: string[] }>;
}

export function searchOptionsBuilder<T>(y: Argv<T>): Argv<T & SearchArgs> {
  return y
    .option("strategy", {
      type: "string",
      default: "random",
      describe: `search strategy: ${STRATEGY_NAMES.join(", ")}`,
    })
    .option("workers", {
      type: "number",
      describe: "worker threads (default: the number of cores; 0 = run in this thread)",
    })
    .option("shard", { type: "string", describe: "run the I-th of N disjoint slices of the seeds, as I/N (0-based)" })
    .option("time-budget", {
      type: "string",
      describe: "stop starting runs after this long, e.g. 90s, 5m, 1h (report covers what finished)",
    })
    .option("stop-on-first", {
      type: "boolean",
      default: false,
      describe: "stop at the first unexpected violation, or once every expected kind was found",
    })
    .option("seed-timeout", {
      type: "string",
      default: "60s",
      describe: "wall-clock bound per run; a run past it is killed and reported as model-timeout",
    })
    .option("pct-depth", { type: "number", default: 3, describe: "pct: bug depth d (d - 1 change points per run)" })
    .option("pct-scope", {
      type: "string",
      default: "markers",
      describe: `pct: messages it schedules (${PCT_SCOPES.join(", ")})`,
    })
    .option("depth", { type: "number", default: 4, describe: "exhaustive: most deviations from the simplest schedule" })
    .option("bug-probability", {
      type: "number",
      array: true,
      describe: "per-seed probabilities to state the 95% seed counts for (default 0.01 0.001 0.0001)",
    }) as unknown as Argv<T & SearchArgs>;
}

const UNITS_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** "90s", "5m", "1h", "250ms", or a bare number of seconds. */
export function parseDuration(flag: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match)
    throw new InputError(`--${flag}`, "", `expected a duration such as 90s, 5m, 1h or 250ms, found "${text}"`);
  const ms = Math.round(Number(match[1]) * (UNITS_MS[match[2] ?? "s"] as number));
  if (!(ms >= 1 && ms <= 366 * 86_400_000))
    throw new InputError(`--${flag}`, "", `expected a duration between 1ms and 366 days, found "${text}"`);
  return ms;
}

export function parseShard(text: string | undefined): Shard | null {
  if (text === undefined) return null;
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = match ? Number(match[1]) : Number.NaN;
  const count = match ? Number(match[2]) : Number.NaN;
  if (!match || !(count >= 1 && count <= 100_000) || !(index >= 0 && index < count)) {
    throw new InputError("--shard", "", `expected I/N with 0 <= I < N <= 100000, e.g. 0/4, found "${text}"`);
  }
  return { index, count };
}

export function parseStrategy(text: string): StrategyName {
  if (!(STRATEGY_NAMES as readonly string[]).includes(text))
    throw new InputError("--strategy", "", notOneOf(text, STRATEGY_NAMES, "eosfuzz run --help"));
  return text as StrategyName;
}

export function parsePctScope(text: string): PctScope {
  if (!(PCT_SCOPES as readonly string[]).includes(text))
    throw new InputError("--pct-scope", "", notOneOf(text, PCT_SCOPES, "eosfuzz run --help"));
  return text as PctScope;
}

export function checkInteger(flag: string, value: number | undefined, min: number, max: number): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InputError(
      `--${flag}`,
      "",
      `expected an integer in [${min}, ${max}], found ${Number.isNaN(value) ? "not a number" : value}`,
    );
  }
}

export function workerCount(requested: number | undefined): number {
  checkInteger("workers", requested, 0, 256);
  return requested ?? availableParallelism();
}

export function bugProbabilities(values: number[] | undefined): number[] | undefined {
  if (values === undefined) return undefined;
  for (const p of values) {
    if (!(p > 0 && p < 1))
      throw new InputError("--bug-probability", "", `expected a probability in (0, 1), found ${p}`);
  }
  return values;
}
