import { createHash } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMap, isNode, isPair, isScalar, LineCounter, parseDocument, type Document } from "yaml";
import type { z } from "zod";
import { didYouMean } from "./did-you-mean.js";
import { describeFound, InputError, InputErrors } from "../common/input-error.js";
import { type KafkaRename, kafkaNamesAt, renameKafkaNames } from "./kafka-names.js";
import { keysAt } from "./schema-walk.js";
import { readInputFile } from "../common/read-input.js";
import { type Scenario, scenarioSchema } from "./schema.js";
import { type SemanticProblem, semanticProblems } from "./semantic-checks.js";

/** A validated scenario with where it came from and a hash of its content. */
export interface LoadedScenario {
  scenario: Scenario;
  source: string;
  contentHash: string;
  /** For a scenario a shrink made smaller: the content hash of the scenario it was reduced from. */
  reducedFrom?: string;
  /** `--set path=value` settings applied to the file's scenario, as typed (replay commands repeat them). */
  settings?: readonly string[];
}

/** The directory of built-in scenarios (scenarios/ at the package root). */
export const BUILTIN_SCENARIO_DIR = fileURLToPath(new URL("../../scenarios/", import.meta.url));

/** Max size of a scenario file: anything bigger is not a scenario. */
const MAX_SCENARIO_BYTES = 1_000_000;

type Path = (string | number)[];

function valueAt(data: unknown, path: Path): unknown {
  let v: unknown = data;
  for (const key of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string | number, unknown>)[key];
  }
  return v;
}

/** file:line:col of the node at `path` (or of the deepest existing parent, or of an unknown key). */
function positionOf(
  doc: Document,
  lines: LineCounter,
  path: Path,
  unknownKey?: string,
): { line: number; col: number } | null {
  let node: unknown = null;
  for (let depth = path.length; depth >= 0 && !node; depth--) node = doc.getIn(path.slice(0, depth), true);
  if (unknownKey !== undefined && isMap(node)) {
    const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === unknownKey);
    if (pair && isNode(pair.key)) node = pair.key;
  }
  const range = isNode(node) ? node.range : null;
  if (!range) return null;
  return lines.linePos(range[0]);
}

/** A path as a reader writes it: cluster.brokers[0].release. */
export function fieldName(path: Path): string {
  const part = (p: string | number, i: number) =>
    typeof p === "number"
      ? `[${p}]`
      : !/^[A-Za-z_][\w:.-]*$/.test(p)
        ? `[${JSON.stringify(p)}]`
        : i === 0
          ? p
          : `.${p}`;
  return path.map(part).join("") || "(top level)";
}

/** The field names a map at a path takes, for did-you-mean on an unknown one ([]: not known). */
export type KnownKeys = (path: Path) => string[];

/** A scenario map's fields, and the Kafka property names it accepts for them. */
export const scenarioKeys: KnownKeys = (path) => [...keysAt(scenarioSchema, path), ...Object.keys(kafkaNamesAt(path))];

/** Lists longer than this are not printed whole in a one-line message (they are named instead). */
const MAX_LISTED_CHARS = 240;

/** An unknown key: what was typed, the closest known ones, or the whole list when it is short. */
function unknownKeyText(key: string, path: Path, data: unknown, knownKeys: KnownKeys): string {
  const fields = knownKeys(path);
  const kafka = kafkaNamesAt(path);
  const map = valueAt(data, path) as Record<string, unknown> | undefined;
  const field = Object.hasOwn(kafka, key) ? kafka[key] : undefined;
  if (field !== undefined && map && Object.hasOwn(map, field))
    return `found both "${key}" (Kafka's name) and "${field}" for one setting: keep one`;
  const suggestion = didYouMean(key, fields, (name) => `"${name}"`);
  if (suggestion) return `unknown field "${key}"${suggestion}`;
  const own = fields.filter((f) => !f.includes("."));
  const list = own.join(", ");
  if (own.length === 0) return `unknown field "${key}" (expected one of the documented fields)`;
  return list.length <= MAX_LISTED_CHARS
    ? `unknown field "${key}" (expected one of ${list})`
    : `unknown field "${key}" (expected one of the ${own.length} fields of ${fieldName([...path])}, in docs/scenarios.md)`;
}

/** One schema problem in words: what was expected, what was found (what was typed, and what it may mean). */
export function describeIssue(issue: z.core.$ZodIssue, data: unknown, knownKeys: KnownKeys = () => []): string {
  const value = valueAt(data, issue.path as Path);
  const found = describeFound(value);
  switch (issue.code) {
    case "invalid_type":
      return `expected ${issue.expected}, found ${found}`;
    case "invalid_value": {
      const options = issue.values.map((v) => JSON.stringify(v));
      const close =
        typeof value === "string" ? didYouMean(value, issue.values.map(String), (v) => JSON.stringify(v)) : "";
      const list = options.join(" | ");
      return list.length <= MAX_LISTED_CHARS
        ? `expected one of ${list}, found ${found}${close}`
        : `expected one of ${options.length} values (the JSON Schema lists them), found ${found}${close}`;
    }
    case "too_small":
      return `expected ${issue.origin === "array" ? "at least " : ">= "}${String(issue.minimum)}${issue.origin === "array" ? " items" : ""}, found ${found}`;
    case "too_big":
      return `expected ${issue.origin === "array" ? "at most " : "<= "}${String(issue.maximum)}${issue.origin === "array" ? " items" : ""}, found ${found}`;
    case "unrecognized_keys":
      return unknownKeyText(issue.keys[0] as string, issue.path as Path, data, knownKeys);
    case "invalid_union": {
      const options = (issue as { options?: unknown[] }).options;
      if (Array.isArray(options) && options.length > 0)
        return `expected one of ${options.map((o) => JSON.stringify(o)).join(" | ")}, found ${found}`;
      return `expected one of the allowed values, found ${found}`;
    }
    case "invalid_key": {
      const key = issue.path[issue.path.length - 1];
      return `expected a key that ${issue.issues[0]?.message.replace(/^expected /i, "is ") ?? "is valid"}, found ${describeFound(key)}`;
    }
    default:
      return /\bexpected\b/i.test(issue.message)
        ? `${issue.message}, found ${found}`
        : `expected a valid value (${issue.message}), found ${found}`;
  }
}

/** Finds file:line:col of a path (with `unknownKey`: of that key inside it) in the text being validated. */
export type Locator = (path: Path, unknownKey?: string) => { line: number; col: number } | null;

/** The locator of a parsed YAML document. */
export function yamlLocator(doc: Document, lines: LineCounter): Locator {
  return (path, unknownKey) => positionOf(doc, lines, path, unknownKey);
}

/** Most problems one input reports; past that, a count. */
const MAX_PROBLEMS = 50;

/** One schema problem as an InputError line (`file:line:col field: expected ..., found ...`). */
function issueError(
  file: string,
  data: unknown,
  issue: z.core.$ZodIssue,
  locate: Locator,
  options: IssueOptions,
): InputError {
  const written = options.written ?? ((p: Path) => p);
  const path = issue.path as Path;
  const unknownKey = issue.code === "unrecognized_keys" ? issue.keys[0] : undefined;
  const shown = written(unknownKey ? [...path, unknownKey] : path);
  return new InputError(
    file,
    fieldName(shown),
    describeIssue(issue, data, options.knownKeys),
    unknownKey ? locate(written(path), unknownKey) : locate(shown),
  );
}

/** How problems are told: the fields each map takes (did-you-mean), the path as the user wrote it (Kafka names). */
export interface IssueOptions {
  knownKeys?: KnownKeys;
  written?: (path: Path) => Path;
}

/** Problems in the order of the file (those with no position last), at most MAX_PROBLEMS. */
function inFileOrder(errors: InputError[]): InputError[] {
  const at = (e: InputError) => (e.position ? e.position.line * 1e6 + e.position.col : Number.MAX_SAFE_INTEGER);
  return errors
    .map((e, i) => ({ e, i }))
    .sort((a, b) => at(a.e) - at(b.e) || a.i - b.i)
    .map(({ e }) => e)
    .slice(0, MAX_PROBLEMS);
}

/**
 * Every schema problem, each as one InputError line; thrown together as InputErrors, whose message
 * is the first with a count of the others.
 */
export function validationError(
  file: string,
  data: unknown,
  issues: readonly z.core.$ZodIssue[],
  locate: Locator,
  options: IssueOptions = {},
): InputError {
  // Each unknown key of a map is a problem of its own line (with its own did-you-mean).
  const one = issues.flatMap((issue): z.core.$ZodIssue[] =>
    issue.code === "unrecognized_keys" ? issue.keys.map((key) => ({ ...issue, keys: [key] })) : [issue],
  );
  return new InputErrors(inFileOrder(one.map((issue) => issueError(file, data, issue, locate, options))));
}

/** A path through a renamed field, as the user wrote it (with Kafka's property name). */
function writtenPath(renames: readonly KafkaRename[]): (path: Path) => Path {
  return (path) => {
    for (const r of renames) {
      const n = r.path.length;
      if (path.length > n && r.path.every((p, i) => p === path[i]) && path[n] === r.field)
        return [...path.slice(0, n), r.kafkaName, ...path.slice(n + 1)];
    }
    return path;
  };
}

/** Parse and validate scenario text; every problem becomes one InputError line. */
/**
 * A file eosfuzz wrote that is no scenario (a run report, a seed file, a results log) given where a
 * scenario goes: one line saying what it is and what reads it, not a problem per field of it.
 */
function otherEosfuzzFile(data: Record<string, unknown>): string | null {
  const expected = "expected a scenario file (YAML with name, cluster, workload, faults, expect)";
  if ("schemaVersion" in data && "violationsByKind" in data && "scenarioHash" in data)
    return `${expected}, found the run report (run.json) of a run${typeof data.scenario === "string" ? ` of scenario ${data.scenario}` : ""}: eosfuzz report reads it${typeof data.scenarioSource === "string" ? `, and its scenario is ${data.scenarioSource}` : ""}`;
  if (data.format === "eosfuzz-seed")
    return `${expected}, found a seed file: eosfuzz replay reads it, eosfuzz run --scenario takes the scenario it names`;
  if (data.format === "eosfuzz-results")
    return `${expected}, found a run's results log (results.jsonl): eosfuzz run --resume DIR reads it`;
  return null;
}

export function parseScenario(text: string, file: string): LoadedScenario {
  const lines = new LineCounter();
  const { doc, data } = parseYaml(text, file, lines);
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    const found = text.trim() === "" || data === undefined ? "an empty file" : describeFound(data);
    throw new InputError(file, "", `expected a YAML map with name, cluster, workload, faults, expect; found ${found}`, {
      line: 1,
      col: 1,
    });
  }
  const other = otherEosfuzzFile(data as Record<string, unknown>);
  if (other) throw new InputError(file, "", other, { line: 1, col: 1 });
  // Kafka's property names (min.insync.replicas) read as the fields that model them; problems name them as written.
  const { renames } = renameKafkaNames(data);
  const written = writtenPath(renames);
  const parsed = scenarioSchema.safeParse(data);
  if (!parsed.success)
    throw validationError(file, data, parsed.error.issues, yamlLocator(doc, lines), {
      knownKeys: scenarioKeys,
      written,
    });
  const problems = semanticProblems(parsed.data, data as Record<string, unknown>);
  if (problems.length > 0)
    throw new InputErrors(
      inFileOrder(
        problems.map(
          (p: SemanticProblem) =>
            new InputError(file, fieldName(written(p.path)), p.message, positionOf(doc, lines, written(p.path))),
        ),
      ),
    );
  return { scenario: parsed.data, source: file, contentHash: contentHash(parsed.data) };
}

/** Deeper than this, YAML nesting is not a scenario (and would exhaust the parser's stack). */
const MAX_YAML_DEPTH = 64;

/** The YAML document and its plain value; a syntax error, an alias bomb or absurd nesting is one InputError line. */
function parseYaml(text: string, file: string, lines: LineCounter): { doc: Document; data: unknown } {
  const depth = flowNestingDepth(text);
  if (depth.depth > MAX_YAML_DEPTH) {
    throw new InputError(
      file,
      "",
      `expected YAML nested at most ${MAX_YAML_DEPTH} levels deep, found ${depth.depth} levels`,
      lines.linePos(depth.at),
    );
  }
  try {
    const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
    const yamlError = doc.errors[0];
    if (yamlError) {
      throw new InputError(
        file,
        "",
        `expected valid YAML, found an error: ${yamlError.message.split("\n")[0]}`,
        lines.linePos(yamlError.pos[0]),
      );
    }
    return { doc, data: doc.toJS({ maxAliasCount: 100 }) };
  } catch (e) {
    if (e instanceof InputError) throw e;
    // Aliases that expand too much, an alias without its anchor, or nesting the depth check missed.
    const message = e instanceof RangeError ? "nesting too deep for the parser" : (e as Error).message.split("\n")[0];
    throw new InputError(file, "", `expected valid YAML, found an error: ${message}`);
  }
}

/** The deepest nesting of flow collections ([...] and {...}) outside quotes, and where it is reached. */
function flowNestingDepth(text: string): { depth: number; at: number } {
  let level = 0;
  let deepest = { depth: 0, at: 0 };
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"') i++;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#") while (i < text.length && text[i] !== "\n") i++;
    else if (c === "[" || c === "{") {
      level++;
      if (level > deepest.depth) deepest = { depth: level, at: i };
    } else if ((c === "]" || c === "}") && level > 0) level--;
  }
  return deepest;
}

/** Hash of the validated scenario (defaults filled, keys sorted): what a seed file pins. */
export function contentHash(scenario: Scenario): string {
  return hashOf(scenario);
}

/** 16 hex digits of the SHA-256 of a value's canonical JSON. */
export function hashOf(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex").slice(0, 16);
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value as object)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value);
}

export function loadScenarioFile(path: string): LoadedScenario {
  return parseScenario(readInputFile(path, MAX_SCENARIO_BYTES, "a scenario file"), path);
}

/** Names of the built-in scenarios (the YAML files in scenarios/), sorted. */
export function builtinScenarioNames(dir = BUILTIN_SCENARIO_DIR): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml") || f.endsWith(".yml"))
    .map((f) => basename(f).replace(/\.ya?ml$/, ""))
    .sort();
}

/** Names of the built-in scenarios with those of their folders (bugs/client-faults), for did-you-mean. */
function allScenarioNames(dir: string): string[] {
  const names = builtinScenarioNames(dir);
  if (!existsSync(dir)) return names;
  const folders = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory());
  const nested = folders.flatMap((f) => builtinScenarioNames(join(dir, f.name)).map((n) => `${f.name}/${n}`));
  return [...names, ...nested];
}

/** `--scenario` takes a built-in name or a file path. */
export function resolveScenario(nameOrPath: string, dir = BUILTIN_SCENARIO_DIR): LoadedScenario {
  if (existsSync(nameOrPath) && !builtinScenarioNames(dir).includes(nameOrPath)) return loadScenarioFile(nameOrPath);
  for (const ext of [".yaml", ".yml"]) {
    const candidate = join(dir, nameOrPath + ext);
    if (existsSync(candidate)) return loadScenarioFile(candidate);
  }
  const names = allScenarioNames(dir);
  const typed = describeFound(nameOrPath);
  if (/[/\\]|\.ya?ml$/.test(nameOrPath)) {
    const close = didYouMean(nameOrPath.replace(/\.ya?ml$/, ""), names);
    throw new InputError(nameOrPath, "", `expected a scenario file, found no such file${close}`);
  }
  const close = didYouMean(nameOrPath, names);
  throw new InputError(
    "--scenario",
    "",
    `expected a built-in scenario (eosfuzz scenarios lists the ${names.length}) or a scenario file, found ${typed}${close}`,
  );
}

/** A built-in scenario by name, a scenario file path, or scenario YAML text (the library's way in). */
export function loadScenario(nameOrPathOrYaml: string): LoadedScenario {
  if (nameOrPathOrYaml.includes("\n")) return parseScenario(nameOrPathOrYaml, "(inline scenario)");
  return resolveScenario(nameOrPathOrYaml);
}
