import { existsSync, readdirSync, statSync } from "node:fs";
import { describeWhere } from "../campaign/expectation.js";
import { basename, join, resolve } from "node:path";
import { InputError } from "../../common/input-error.js";
import { contentHash, type LoadedScenario, loadScenarioFile } from "../../scenario/loader.js";
import type { Expectation } from "../../scenario/schema.js";
import { runCampaign } from "../search/run-campaign.js";
import { findMutant, withMutant } from "./mutants.js";
import { replaySeed } from "../seeds/replay.js";
import { readSeedFile, type SeedFile, scenarioFileOf } from "../seeds/seed-file.js";
import type { Shard } from "../campaign/shard.js";

/** One line of the regression table: a scenario against its expectation, or a saved seed replayed. */
export interface RegressRow {
  kind: "scenario" | "seed";
  /** Scenario name, or the seed file's name. */
  name: string;
  file: string;
  /** What must hold. */
  expectation: string;
  result: "pass" | "fail" | "error";
  /** One line: what was found, or why it failed. */
  detail: string;
  /** An unreadable file: where in it the problem is, when known. */
  position?: { line: number; col: number } | null;
  seeds: number;
  wallMs: number;
}

export interface RegressResult {
  rows: RegressRow[];
  passed: number;
  failed: number;
  /** Unreadable or invalid files (bad input). */
  errors: number;
  /** The part of the rows this run took (null: all of them). */
  shard: Shard | null;
}

export interface RegressOptions {
  scenariosDir: string;
  /** null: no seed directory to replay. */
  seedsDir: string | null;
  acceptChangedTrace?: boolean;
  /**
   * Run only shard I of N (a CI matrix: one job per shard): the scenario files whose position in name
   * order is I modulo N, and likewise the seed files. Every shard still reads every scenario file, so a
   * seed file is judged against its scenario wherever the scenario's own row runs.
   */
  shard?: Shard | null;
  /**
   * Changes every scenario before it is judged (the command line's --set), in the scenario rows and
   * in the seeds' inline copies; a bad setting throws its InputError (one line, exit 2).
   */
  adjust?: (loaded: LoadedScenario) => LoadedScenario;
  /** Called as each row is done (progress). */
  onRow?: (row: RegressRow) => void;
}

/** Is the file at `position` (in name order) one of this shard's? */
function inShard(shard: Shard | null, position: number): boolean {
  return shard === null || position % shard.count === shard.index;
}

/** A scenario file read for a seed row only (another shard runs its campaign): null when unreadable. */
function readOnly(file: string): LoadedScenario | null {
  try {
    return loadScenarioFile(file);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return null;
  }
}

/** Files of a directory with one of the extensions, sorted by name. */
export function filesIn(dir: string, extensions: readonly string[]): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new InputError(dir, "", "expected a directory, found none");
  return readdirSync(dir)
    .filter((f) => extensions.some((ext) => f.endsWith(ext)))
    .sort()
    .map((f) => join(dir, f));
}

function expectationText(e: Expectation, seeds: number): string {
  if (e.find.length > 0)
    return `find ${e.find.join(", ")} within ${e.within ?? seeds}${e.where ? ` ${describeWhere(e.where)}` : ""}`;
  if (!e.clean && e.allow.length > 0) return `nothing but ${e.allow.join(", ")}`;
  return "clean";
}

function timed<T>(work: () => T): { value: T; wallMs: number } {
  const started = performance.now();
  const value = work();
  return { value, wallMs: Math.round(performance.now() - started) };
}

type Adjust = (loaded: LoadedScenario) => LoadedScenario;
const unchanged: Adjust = (loaded) => loaded;

function scenarioRow(file: string, adjust: Adjust): { row: RegressRow; loaded: LoadedScenario | null } {
  let read: LoadedScenario;
  try {
    read = loadScenarioFile(file);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { row: unreadableRow("scenario", file, file, e), loaded: null };
  }
  // A bad --set is the command line's problem, not this file's: it ends the command (exit 2).
  const loaded = adjust(read);
  const s = loaded.scenario;
  const { value: result, wallMs } = timed(() => runCampaign(loaded, { seeds: s.seeds, seedStart: 0 }));
  const found = Object.entries(result.verdict.found)
    .map(([kind, seed]) => `${kind} at seed ${seed}`)
    .join(", ");
  const detail = result.verdict.met
    ? found ||
      (result.scriptSteps
        ? `${result.scriptSteps.length} steps as expected`
        : `no violation in ${result.seedsRun} seeds`)
    : (result.verdict.reasons[0] ?? "not met");
  return {
    row: {
      kind: "scenario",
      name: s.name,
      file,
      expectation: expectationText(s.expect, s.seeds),
      result: result.verdict.met ? "pass" : "fail",
      detail,
      seeds: result.seedsRun,
      wallMs,
    },
    loaded,
  };
}

/** The hash a seed recorded from this scenario file would carry (a mutant's seed holds the mutant's expectation). */
function currentHashFor(current: LoadedScenario, mutantName: string | null): string {
  const mutant = mutantName === null ? undefined : findMutant(mutantName);
  return mutant ? contentHash(withMutant(current, mutant).scenario) : current.contentHash;
}

function seedRow(
  file: string,
  scenarios: Map<string, LoadedScenario>,
  options: { acceptChangedTrace: boolean; adjust: Adjust },
): RegressRow {
  const acceptChangedTrace = options.acceptChangedTrace;
  const name = file.split(/[/\\]/).pop() ?? file;
  let read: ReturnType<typeof readSeedFile>;
  try {
    read = readSeedFile(file);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return unreadableRow("seed", name, file, e);
  }
  const loaded = { ...read, scenario: options.adjust(read.scenario) };
  try {
    const kinds = [...new Set(loaded.seedFile.violations.map((v) => v.kind))].join(", ");
    const { value: r, wallMs } = timed(() => replaySeed(loaded));
    const pass = r.status === "reproduced" || (r.status === "trace-changed" && acceptChangedTrace);
    let detail: string;
    if (r.status === "reproduced") detail = `reproduced, trace ${r.traceHash}`;
    else {
      const d = r.divergence;
      const where = d
        ? d.eventIndex !== null
          ? ` at event #${d.eventIndex}`
          : ` between events #${d.fromEvent} and #${d.toEvent}`
        : "";
      detail = `${r.status === "trace-changed" ? "violation reproduced, trace changed" : "diverged"}${where}: trace ${r.traceHash}, recorded ${r.recordedTraceHash}`;
    }
    const current = scenarioOfSeed(loaded.seedFile, scenarios);
    // A shrunk tape may replay a smaller copy of the scenario: compare the scenario it was made from.
    const savedFrom = loaded.seedFile.scenario.reducedFrom ?? r.recordedScenarioHash;
    const changedHere = (current?.settings?.length ?? 0) > 0;
    if (current && !changedHere && currentHashFor(current, loaded.seedFile.mutant) !== savedFrom)
      detail += ` (note: ${current.source} changed since this seed was saved; the seed replays its inline copy)`;
    return {
      kind: "seed",
      name,
      file,
      expectation: `${kinds} as recorded`,
      result: pass ? "pass" : "fail",
      detail,
      seeds: 1,
      wallMs,
    };
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return unreadableRow("seed", name, file, e);
  }
}

/**
 * The scenario file a seed was recorded from: the file at the path it recorded (relative to where
 * it was recorded, as regress runs from there), else the only file of its scenario's name, else,
 * among several of that name, the one whose content it was recorded from.
 */
function scenarioOfSeed(seed: SeedFile, scenarios: ReadonlyMap<string, LoadedScenario>): LoadedScenario | undefined {
  const file = scenarioFileOf(seed.scenario.source);
  const atPath = file === null ? undefined : scenarios.get(resolve(file));
  if (atPath) return atPath;
  const named = [...scenarios.values()].filter((s) => s.scenario.name === seed.scenario.name);
  if (named.length <= 1) return named[0];
  const savedFrom = seed.scenario.reducedFrom ?? seed.scenario.contentHash;
  return named.find((s) => currentHashFor(s, seed.mutant) === savedFrom);
}

/** Scenario rows of one name (two files of one scenario) are told apart by their file. */
function withDistinctNames(rows: RegressRow[]): RegressRow[] {
  const count = new Map<string, number>();
  for (const r of rows) if (r.kind === "scenario") count.set(r.name, (count.get(r.name) ?? 0) + 1);
  return rows.map((r) =>
    r.kind === "scenario" && (count.get(r.name) ?? 0) > 1 ? { ...r, name: `${r.name} (${basename(r.file)})` } : r,
  );
}

/** The row of a file that could not be read: its one-line problem, and where in the file. */
function unreadableRow(kind: RegressRow["kind"], name: string, file: string, e: InputError): RegressRow {
  return {
    kind,
    name,
    file,
    expectation: "-",
    result: "error",
    detail: e.message,
    position: e.position,
    seeds: 0,
    wallMs: 0,
  };
}

/**
 * `eosfuzz regress`: every scenario in a directory against its declared expectation (over its
 * own seed budget, from seed 0), then every saved seed file replayed against what it recorded.
 */
export function regress(options: RegressOptions): RegressResult {
  const rows: RegressRow[] = [];
  const push = (row: RegressRow) => {
    rows.push(row);
    options.onRow?.(row);
  };
  const shard = options.shard ?? null;
  // By file: two files may give one scenario name (two edited copies of a starter).
  const scenarios = new Map<string, LoadedScenario>();
  filesIn(options.scenariosDir, [".yaml", ".yml"]).forEach((file, position) => {
    if (!inShard(shard, position)) {
      const loaded = readOnly(file);
      if (loaded) scenarios.set(resolve(file), (options.adjust ?? unchanged)(loaded));
      return;
    }
    const { row, loaded } = scenarioRow(file, options.adjust ?? unchanged);
    if (loaded) scenarios.set(resolve(file), loaded);
    push(row);
  });
  if (options.seedsDir !== null) {
    filesIn(options.seedsDir, [".json"]).forEach((file, position) => {
      if (inShard(shard, position))
        push(
          seedRow(file, scenarios, {
            acceptChangedTrace: options.acceptChangedTrace ?? false,
            adjust: options.adjust ?? unchanged,
          }),
        );
    });
  }
  return {
    rows: withDistinctNames(rows),
    passed: rows.filter((r) => r.result === "pass").length,
    failed: rows.filter((r) => r.result === "fail").length,
    errors: rows.filter((r) => r.result === "error").length,
    shard,
  };
}
