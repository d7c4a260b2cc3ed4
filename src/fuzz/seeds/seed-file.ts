import { basename, isAbsolute, relative } from "node:path";
import { z } from "zod";
import { flagOverridesSchema, scenarioSchema } from "../../scenario/schema.js";
import {
  contentHash,
  fieldName,
  hashOf,
  type LoadedScenario,
  type Locator,
  validationError,
} from "../../scenario/loader.js";
import { parseJsonInput, jsonOffsetOf, lineColOf } from "../../scenario/json-positions.js";
import { describeFound, InputError } from "../../common/input-error.js";
import { readInputFile } from "../../common/read-input.js";
import { semanticProblems } from "../../scenario/semantic-checks.js";
import { MAX_TAPE_LENGTH, tapeLength } from "../../sim/choice-tape.js";
import type { TraceEvent } from "../../sim/trace.js";
import { copyPlaceFields, VIOLATION_KINDS } from "../../oracle/violation.js";
import { TOOL_NAME, TOOL_VERSION } from "../../version.js";
import type { ReleaseFlags } from "../../kafka/release.js";
import type { RunResult, RunShaping } from "../run/run-seed.js";

/**
 * A seed file: one failing run that stands alone. It holds the scenario inline (with the name and
 * content hash it was run under), the seed and the choice tape (the tape is what replays; a shrunk
 * seed has a tape and no seed), the violations with where they happened, the trace hash and
 * fingerprints of the trace (to name the first event where a replay parts from it), the tool
 * version, and the command that replays it.
 */
export const SEED_FILE_FORMAT = "eosfuzz-seed";
export const SEED_FILE_VERSION = 1;

/** At most this many trace fingerprints per file (longer traces get one per N events). */
export const MAX_FINGERPRINTS = 16_384;

const MAX_SEED_FILE_BYTES = 50_000_000;

const hex16 = z.string().regex(/^[0-9a-f]{16}$/, { message: "expected 16 hex digits" });

const recordedViolation = z.strictObject({
  kind: z.enum(VIOLATION_KINDS),
  summary: z.string().max(10_000),
  atMs: z.int().min(0),
  partition: z.string().max(200).optional(),
  broker: z.string().max(200).optional(),
  brokerRelease: z.string().max(50).optional(),
  transaction: z.string().max(200).optional(),
  markerIssuedFor: z.string().max(200).optional(),
  coordinatorBroker: z.string().max(200).optional(),
  coordinatorRelease: z.string().max(50).optional(),
  markerVersion: z.int().min(0).max(100).optional(),
  leaderEpoch: z.int().min(-1).optional(),
  expectedBy: z.string().max(1_000).optional(),
});

export const seedFileSchema = z.strictObject({
  format: z.literal(SEED_FILE_FORMAT),
  formatVersion: z.literal(SEED_FILE_VERSION),
  tool: z.strictObject({ name: z.string().max(100), version: z.string().max(100) }),
  scenario: z.strictObject({
    name: z.string().max(100),
    contentHash: hex16,
    /** A shrunk tape's scenario made smaller: the content hash of the scenario it was reduced from. */
    reducedFrom: hex16.optional(),
    source: z.string().max(4_096),
    definition: z.record(z.string(), z.unknown()),
  }),
  mutant: z.string().max(100).nullable(),
  overrides: flagOverridesSchema,
  seed: z.int().min(0).max(Number.MAX_SAFE_INTEGER).nullable(),
  /** The choice tape: for every stream, the options chosen in order (what replays). */
  tape: z
    .record(z.string().min(1).max(300), z.array(z.int().min(0).max(2_147_483_647)).max(MAX_TAPE_LENGTH))
    .refine((t) => tapeLength(t) <= MAX_TAPE_LENGTH, { message: `expected at most ${MAX_TAPE_LENGTH} choices in all` }),
  traceHash: hex16,
  traceEvents: z.int().min(0),
  fingerprints: z.strictObject({
    every: z.int().min(1),
    data: z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, { message: "expected base64" }),
  }),
  violations: z.array(recordedViolation).min(1).max(1_000),
  replay: z.string().max(4_096),
  /** A PCT run's delivery policy (search strategies that a scenario cannot express); absent otherwise. */
  shaping: z
    .strictObject({
      pct: z.strictObject({
        depth: z.int().min(1).max(10),
        scope: z.enum(["markers", "all"]),
        messagesPerRun: z.int().min(1).max(MAX_TAPE_LENGTH),
        chains: z.int().min(1).max(100_000),
      }),
    })
    .optional(),
});

export type SeedFile = z.output<typeof seedFileSchema>;
export type RecordedViolation = z.output<typeof recordedViolation>;

/** A seed file read back, with its inline scenario validated. */
export interface LoadedSeedFile {
  file: string;
  seedFile: SeedFile;
  scenario: LoadedScenario;
}

/** The hash fingerprint kept per checkpoint: the low 16 bits of the rolling hash there. */
function fingerprintOf(event: TraceEvent): number {
  return Number.parseInt(event.hash.slice(12), 16);
}

/** Fingerprints of a recorded trace: one per `every` events, at the last event of each group. */
export function traceFingerprints(
  events: readonly TraceEvent[],
  traceEvents: number,
): { every: number; values: number[] } {
  const every = Math.max(1, Math.ceil(traceEvents / MAX_FINGERPRINTS));
  const values: number[] = [];
  for (let i = every - 1; i < events.length; i += every) values.push(fingerprintOf(events[i] as TraceEvent));
  return { every, values };
}

export function encodeFingerprints(values: readonly number[]): string {
  const bytes = Buffer.alloc(values.length * 2);
  for (const [i, v] of values.entries()) bytes.writeUInt16BE(v, i * 2);
  return bytes.toString("base64");
}

export function decodeFingerprints(data: string): number[] {
  const bytes = Buffer.from(data, "base64");
  const out: number[] = [];
  for (let i = 0; i + 1 < bytes.length; i += 2) out.push(bytes.readUInt16BE(i));
  return out;
}

/** The scenario file a scenario was loaded from (its source without notes such as " (reduced)"), or null. */
export function scenarioFileOf(source: string): string | null {
  const file = source.replace(/( \([^()]*\))+$/, "");
  return /\.ya?ml$/i.test(file) ? file : null;
}

/**
 * What a seed file's name starts with: the scenario file's own name, so that two files of one
 * scenario name (two edited copies of a starter) keep their seeds apart; else the scenario's name.
 * A built-in scenario's file is named after it: its seeds keep their names.
 */
export function seedFileStem(loaded: Pick<LoadedScenario, "scenario" | "source">): string {
  const file = scenarioFileOf(loaded.source);
  return file ? basename(file).replace(/\.ya?ml$/i, "") : loaded.scenario.name;
}

export function seedFileName(scenario: string, seed: number | null, mutant: string | null, traceHash: string): string {
  const who = seed !== null ? `seed-${seed}` : `tape-${traceHash}`;
  return `${scenario}${mutant ? `.${mutant}` : ""}.${who}.json`;
}

export interface SeedFileInput {
  loaded: LoadedScenario;
  overrides: Partial<ReleaseFlags>;
  mutant: string | null;
  seed: number | null;
  /** A run recorded with recordTape and recordTrace. */
  run: RunResult;
  /** Where the file will be written (for the replay command). */
  path: string;
  /** The strategy's shaping, when the run needs it to replay (PCT). */
  shaping?: RunShaping | undefined;
}

export function buildSeedFile(input: SeedFileInput): SeedFile {
  const { run } = input;
  if (!run.tape || !run.trace) throw new Error("a seed file needs a run recorded with its tape and trace");
  const { every, values } = traceFingerprints(run.trace, run.stats.traceEvents);
  return {
    format: SEED_FILE_FORMAT,
    formatVersion: SEED_FILE_VERSION,
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    scenario: {
      name: input.loaded.scenario.name,
      // The hash of the definition as stored (with a mutant's expectation, not the file's), so that
      // reading the file back can tell an edited definition from an intact one.
      contentHash: contentHash(input.loaded.scenario),
      ...(input.loaded.reducedFrom ? { reducedFrom: input.loaded.reducedFrom } : {}),
      source: portablePath(input.loaded.source),
      definition: input.loaded.scenario as unknown as Record<string, unknown>,
    },
    mutant: input.mutant,
    overrides: input.overrides as SeedFile["overrides"],
    seed: input.seed,
    tape: run.tape,
    traceHash: run.traceHash,
    traceEvents: run.stats.traceEvents,
    fingerprints: { every, data: encodeFingerprints(values) },
    violations: run.violations.map((v) => {
      const out: RecordedViolation = { kind: v.kind, summary: v.summary, atMs: v.atMs };
      copyPlaceFields(v, out);
      return out;
    }),
    replay: `eosfuzz replay ${input.path}`,
    ...(input.shaping?.pct ? { shaping: { pct: input.shaping.pct } } : {}),
  };
}

/** JSON with two-space indent, but each tape stream's choices on one line. */
export function renderSeedFile(seedFile: SeedFile): string {
  const placeholder = "\u0000tape\u0000";
  const text = JSON.stringify({ ...seedFile, tape: placeholder }, null, 2);
  const streams = Object.entries(seedFile.tape).map(
    ([name, choices]) => `    ${JSON.stringify(name)}: [${choices.join(",")}]`,
  );
  const tape = streams.length > 0 ? `{\n${streams.join(",\n")}\n  }` : "{}";
  return `${text.replace(JSON.stringify(placeholder), tape)}\n`;
}

/** Parse and validate a seed file's text; any problem is one InputError line (exit 2). */
export function parseSeedFile(text: string, file: string): LoadedSeedFile {
  const data = parseJsonInput(text, file, "a complete JSON seed file");
  if (
    data === null ||
    typeof data !== "object" ||
    Array.isArray(data) ||
    (data as { format?: unknown }).format !== SEED_FILE_FORMAT
  ) {
    throw new InputError(
      file,
      "format",
      `expected "${SEED_FILE_FORMAT}" (an eosfuzz seed file), found ${JSON.stringify((data as { format?: unknown } | null)?.format ?? null)}`,
      { line: 1, col: 1 },
    );
  }
  const version = (data as { formatVersion?: unknown }).formatVersion;
  if (version !== SEED_FILE_VERSION) {
    throw new InputError(
      file,
      "formatVersion",
      `expected ${SEED_FILE_VERSION} (the seed file format this eosfuzz ${TOOL_VERSION} reads), found ${describeFound(version)}`,
      { line: 1, col: 1 },
    );
  }
  const parsed = seedFileSchema.safeParse(data);
  const locate: Locator = (path, unknownKey) => lineColOf(text, jsonOffsetOf(text, path, unknownKey));
  if (!parsed.success) throw validationError(file, data, parsed.error.issues, locate);
  const seedFile = parsed.data;
  const definition = scenarioSchema.safeParse(withRecordedNetworkModel(seedFile.scenario.definition));
  if (!definition.success) {
    const issues = definition.error.issues.map((i) => ({ ...i, path: ["scenario", "definition", ...i.path] }));
    throw validationError(file, data, issues as typeof definition.error.issues, locate);
  }
  const stored = hashOf(seedFile.scenario.definition);
  if (stored !== seedFile.scenario.contentHash) {
    throw new InputError(
      file,
      "scenario.contentHash",
      `expected ${stored} (the hash of scenario.definition), found ${seedFile.scenario.contentHash}: the inline scenario was edited after the seed was recorded (re-record it, or set contentHash to replay the edit)`,
      locate(["scenario", "contentHash"]),
    );
  }
  const problems = semanticProblems(definition.data);
  const problem = problems[0];
  if (problem) {
    const path = ["scenario", "definition", ...problem.path];
    throw new InputError(file, fieldName(path), problem.message, locate(path));
  }
  // A tape-only file may hold an empty tape: the shrinker found a failure that needs every choice at
  // its default, and replaying the empty tape runs exactly that schedule.
  const scenario: LoadedScenario = {
    scenario: definition.data,
    source: `${file} (inline)`,
    contentHash: contentHash(definition.data),
    ...(seedFile.scenario.reducedFrom ? { reducedFrom: seedFile.scenario.reducedFrom } : {}),
  };
  return { file, seedFile, scenario };
}

/**
 * A stored definition is the whole validated scenario, so one without `faults.network.model` was
 * recorded before the network had models, under what is now the adversarial one: it replays under
 * that model (the TCP default would draw other choices from its tape). The stored hash is of the
 * definition as written, so this changes no hash check.
 */
function withRecordedNetworkModel(definition: Record<string, unknown>): Record<string, unknown> {
  const faults = definition.faults as { network?: Record<string, unknown> } | undefined;
  if (typeof faults?.network !== "object" || faults.network === null || "model" in faults.network) return definition;
  return { ...definition, faults: { ...faults, network: { ...faults.network, model: "adversarial" } } };
}

export function readSeedFile(file: string): LoadedSeedFile {
  return parseSeedFile(readInputFile(file, MAX_SEED_FILE_BYTES, "a seed file"), file);
}

/** A path relative to the working directory when it lies below it (committed seed files name no home directories). */
function portablePath(path: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(process.cwd(), path);
  return rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}
