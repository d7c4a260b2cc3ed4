import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { didYouMean } from "./did-you-mean.js";
import { InputError } from "../common/input-error.js";
import { kafkaNamesAt } from "./kafka-names.js";
import { contentHash, describeIssue, fieldName, type LoadedScenario } from "./loader.js";
import { scenarioSchema } from "./schema.js";
import { keysAt, schemaAt, shapeAt } from "./schema-walk.js";
import { semanticProblems } from "./semantic-checks.js";

/**
 * `--set path=value`: one setting of a scenario changed from the command line, as Kafka's tools
 * take `-X key=value` or `--command-config`. The path is the scenario's (workload.transactions,
 * cluster.topics[0].minInsyncReplicas) or, where a field models a Kafka property, Kafka's name of it
 * (workload.transaction.timeout.ms, cluster.topics[0].min.insync.replicas). The value is read as
 * YAML (4, true, [100, 500], tcp) and checked by the same schema as a scenario file.
 */
export interface Setting {
  /** As typed: what replay commands repeat. */
  text: string;
  path: string;
  value: unknown;
}

type Path = (string | number)[];

const FLAG = "--set";

/** The settings of the command line; a malformed one is one InputError line. */
export function parseSettings(texts: readonly string[] | undefined): Setting[] {
  return (texts ?? []).map((text) => {
    const match = /^([^=]+)=(.*)$/s.exec(text);
    if (!match || (match[1] as string).trim() === "")
      throw new InputError(
        FLAG,
        "",
        `expected path=value (e.g. workload.transactions=4), found ${JSON.stringify(text)}`,
      );
    return { text, path: (match[1] as string).trim(), value: yamlValue(match[2] as string) };
  });
}

/** A value as YAML reads it; text YAML cannot read stays the text itself. */
function yamlValue(text: string): unknown {
  try {
    return parseYaml(text) ?? null;
  } catch {
    return text;
  }
}

/** The words of a path: names split at dots, [n] as a number. */
function tokensOf(path: string): (string | number)[] | null {
  const tokens: (string | number)[] = [];
  for (const part of path.split(".")) {
    const match = /^([^[\]]*)((?:\[\d+\])*)$/.exec(part);
    if (!match) return null;
    if (match[1]) tokens.push(match[1]);
    else if (!match[2]) return null;
    for (const index of (match[2] as string).matchAll(/\[(\d+)\]/g)) tokens.push(Number(index[1]));
  }
  return tokens;
}

/**
 * The scenario field a setting's path names, checked word by word against the schema: at a map,
 * the longest run of words that is one of its fields or Kafka names; at a list, an index it has.
 */
function resolvePath(setting: Setting, data: unknown): Path {
  const bad = (problem: string) => new InputError(FLAG, "", `${setting.text}: ${problem}`);
  const tokens = tokensOf(setting.path);
  if (!tokens || tokens.length === 0)
    throw bad("expected a path of field names and [indexes] such as cluster.topics[0].minInsyncReplicas");
  const path: Path = [];
  let value: unknown = data;
  for (let i = 0; i < tokens.length; ) {
    const shape = shapeAt(scenarioSchema, path);
    const token = tokens[i] as string | number;
    const here = path.length === 0 ? "the scenario" : fieldName(path);
    if (shape === "list") {
      const length = Array.isArray(value) ? value.length : 0;
      if (typeof token !== "number") throw bad(`expected an index [0..${length - 1}] of ${here}, found "${token}"`);
      if (token >= length)
        throw bad(`expected an index of ${here} (${length} item${length === 1 ? "" : "s"}), found [${token}]`);
      path.push(token);
      value = (value as unknown[])[token];
      i++;
      continue;
    }
    if (shape !== "map") throw bad(`expected nothing below ${here} (a value), found "${token}"`);
    if (typeof token === "number") throw bad(`expected a field name of ${here} (a map), found [${token}]`);
    const fields = keysAt(scenarioSchema, path);
    const kafka = kafkaNamesAt(path);
    let matched: { field: string; words: number } | null = null;
    for (let j = tokens.length; j > i && !matched; j--) {
      const words = tokens.slice(i, j);
      if (words.some((w) => typeof w === "number")) continue;
      const name = words.join(".");
      if (fields.includes(name)) matched = { field: name, words: j - i };
      else if (Object.hasOwn(kafka, name)) matched = { field: kafka[name] as string, words: j - i };
    }
    if (!matched) {
      const rest = tokens.slice(i).filter((t) => typeof t === "string");
      const typed = rest.join(".");
      const known = [...fields, ...Object.keys(kafka)];
      const close = didYouMean(typed, known, (n) => `"${n}"`) || didYouMean(token, known, (n) => `"${n}"`);
      throw bad(`expected a field of ${here}, found "${token}"${close}`);
    }
    path.push(matched.field);
    value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[matched.field] : undefined;
    i += matched.words;
  }
  return path;
}

/** Put `value` at `path` of `data`, making the maps on the way that are not there yet. */
function put(data: Record<string, unknown>, path: Path, value: unknown): void {
  let at: Record<string | number, unknown> = data;
  path.forEach((key, i) => {
    if (i === path.length - 1) {
      at[key] = value;
      return;
    }
    const next = at[key];
    if (next === null || typeof next !== "object") at[key] = {};
    at = at[key] as Record<string | number, unknown>;
  });
}

/**
 * The scenario with the settings applied, validated again as a whole (a value that breaks a rule
 * across fields is refused too); a bad path or value is one InputError line naming the setting.
 * The result remembers its settings, so that every replay command it prints repeats them.
 */
export function applySettings(loaded: LoadedScenario, settings: readonly Setting[]): LoadedScenario {
  if (settings.length === 0) return loaded;
  const data = structuredClone(loaded.scenario) as unknown as Record<string, unknown>;
  for (const setting of settings) {
    const path = resolvePath(setting, data);
    // The value alone first, so that the line names the setting rather than the whole scenario.
    const field = schemaAt(scenarioSchema, path) as z.ZodType | null;
    const issue = field?.safeParse(setting.value).error?.issues[0];
    if (issue) throw new InputError(FLAG, "", `${setting.text}: ${describeIssue(issue, setting.value)}`);
    put(data, path, setting.value);
  }
  const parsed = scenarioSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InputError(
      FLAG,
      "",
      issue ? `${fieldName(issue.path as Path)}: ${describeIssue(issue, data)}` : "expected a valid scenario",
    );
  }
  const problem = semanticProblems(parsed.data)[0];
  if (problem) throw new InputError(FLAG, "", `${fieldName(problem.path)}: ${problem.message}`);
  return {
    ...loaded,
    scenario: parsed.data,
    contentHash: contentHash(parsed.data),
    settings: [...(loaded.settings ?? []), ...settings.map((s) => s.text)],
  };
}
