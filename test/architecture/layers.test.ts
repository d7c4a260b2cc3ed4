import { readdirSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The layers of src/ (.ci/layers.json): a file imports its own layer and the layers below it,
 * never one above. Like the determinism rule (.ci/no-nondeterminism.grit), the rule lives in .ci/
 * and a check fails the build, naming the file and the import, when a change breaks it.
 */

const ROOT = join(import.meta.dirname, "../..");
const SRC = join(ROOT, "src");
const RULES_FILE = ".ci/layers.json";

interface Layer {
  name: string;
  /** Relative to src/; one ending in / is a folder. */
  paths: string[];
  what: string;
}

/** An import allowed although it points up: `file` (relative to src/) imports `imports`, because `why`. */
interface Exception {
  file: string;
  imports: string;
  why: string;
}

/** Folders inside one layer, top to bottom: a folder may import the folders after it, never one before. */
interface FolderOrder {
  /** Relative to src/, each ending in /. */
  order: string[];
  /** When given (a folder relative to src/, ending in /): every file under it sits in one of `order`'s folders. */
  covers?: string;
  why: string;
}

interface Rules {
  layers: Layer[];
  exceptions: Exception[];
  folders: FolderOrder[];
}

interface SourceFile {
  /** Relative to src/, with / separators. */
  path: string;
  text: string;
}

const rules = JSON.parse(readFileSync(join(ROOT, RULES_FILE), "utf8")) as Rules;

function sourceFiles(): SourceFile[] {
  return (readdirSync(SRC, { recursive: true }) as string[])
    .map((p) => p.split("\\").join("/"))
    .filter((p) => p.endsWith(".ts") && !p.endsWith(".d.ts"))
    .sort()
    .map((path) => ({ path, text: readFileSync(join(SRC, path), "utf8") }));
}

/** The index of the layer holding `path` (0 is the top), or -1. */
function layerIndex(rules: Rules, path: string): number {
  return rules.layers.findIndex((l) => l.paths.some((p) => (p.endsWith("/") ? path.startsWith(p) : path === p)));
}

/** Every module a file names: imports, `import type`, `export ... from` and `import()`. */
function importsOf(file: SourceFile): string[] {
  return ts.preProcessFile(file.text, true, true).importedFiles.map((f) => f.fileName);
}

/** The file (relative to src/) a relative import names, or null for a package or a file outside src/. */
function resolve(from: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  const path = posix.normalize(posix.join(posix.dirname(from), spec)).replace(/\.js$/, ".ts");
  return path.startsWith("../") ? null : path;
}

function howToFix(rules: Rules): string {
  return [
    `Layers of src/, top to bottom (${RULES_FILE}): ${rules.layers.map((l) => l.name).join(" > ")}.`,
    "A file may import its own layer and the layers below it. To mend an import that points up:",
    "  - move what it needs down, to the lowest layer whose files use it (a pure helper belongs with its inputs);",
    "  - or let the caller above pass it in (a parameter or a callback);",
    "  - or call it from the layer above instead.",
    `Only if the import must stay, add it to "exceptions" in ${RULES_FILE} with the reason.`,
  ].join("\n");
}

/** Every breach of the rules in `files`, one line each, naming the file and what it imports. */
function layerViolations(files: readonly SourceFile[], rules: Rules): string[] {
  const out: string[] = [];
  const used = new Set<Exception>();
  for (const file of files) {
    const from = layerIndex(rules, file.path);
    if (from < 0) {
      out.push(`src/${file.path} is in no layer: put it in a layer's folder, or add its path to a layer`);
      continue;
    }
    const layer = rules.layers[from] as Layer;
    for (const spec of importsOf(file)) {
      const target = resolve(file.path, spec);
      if (target === null) continue;
      const to = layerIndex(rules, target);
      if (to >= from) continue;
      const exception = rules.exceptions.find((e) => e.file === file.path && e.imports === target);
      if (exception) {
        used.add(exception);
        continue;
      }
      const below = rules.layers.slice(from).map((l) => l.name);
      const where = to < 0 ? "a file in no layer" : `layer ${(rules.layers[to] as Layer).name}, above ${layer.name}`;
      out.push(`src/${file.path} imports "${spec}" (${where}): ${layer.name} may import only ${below.join(", ")}`);
    }
  }
  for (const e of rules.exceptions)
    if (!used.has(e)) out.push(`exception ${e.file} -> ${e.imports} is no longer needed: remove it from ${RULES_FILE}`);
  return out;
}

/** Every import of `files` from a folder of an order to a folder before it, one line each. */
function folderViolations(files: readonly SourceFile[], orders: readonly FolderOrder[]): string[] {
  const out: string[] = [];
  for (const { order, covers } of orders) {
    const indexOf = (path: string) => order.findIndex((folder) => path.startsWith(folder));
    for (const file of files) {
      const from = indexOf(file.path);
      if (from < 0) {
        if (covers !== undefined && file.path.startsWith(covers))
          out.push(`src/${file.path} is in none of ${covers}'s folders: move it into one of ${order.join(", ")}`);
        continue;
      }
      for (const spec of importsOf(file)) {
        const target = resolve(file.path, spec);
        const to = target === null ? -1 : indexOf(target);
        if (to < 0 || to >= from) continue;
        const above = order.slice(0, from).join(" or ");
        out.push(`src/${file.path} imports "${spec}" (${order[to]}): ${order[from]} may not import ${above}`);
      }
    }
  }
  return out;
}

/** Words of Kafka's protocol; the kernel in src/sim knows none (its comments may, to say why). */
const KAFKA_WORDS = /kafka|broker|coordinator|producer|consumer|topic|txn|transaction|marker/i;

/** The names and strings of a file's code (not its comments) that are Kafka words. */
function kafkaWordsIn(file: SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isIdentifier(node) || ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) &&
      KAFKA_WORDS.test(node.text)
    )
      found.push(`src/${file.path}: ${node.text}`);
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true));
  return found;
}

function report(lines: string[], rules: Rules): string {
  return lines.length === 0 ? "" : `${lines.join("\n")}\n\n${howToFix(rules)}`;
}

describe("the layers of src/", () => {
  it("are kept: no file imports a layer above its own", () => {
    expect(report(layerViolations(sourceFiles(), rules), rules)).toBe("");
  });

  it("order the folders inside a layer: kafka/server over kafka/coordinator over kafka/broker, fuzz/ by responsibility", () => {
    expect(folderViolations(sourceFiles(), rules.folders)).toEqual([]);
  });

  it("catch a planted breach of a folder order", () => {
    const planted: SourceFile[] = [
      { path: "kafka/broker/log.ts", text: `import type { X } from "../coordinator/transaction-metadata.js";` },
      { path: "kafka/coordinator/c.ts", text: `import { KafkaBroker } from "../server/kafka-broker.js";` },
      { path: "kafka/server/s.ts", text: `import { PartitionLog } from "../broker/partition-log.js";` },
    ];
    expect(folderViolations(planted, rules.folders)).toEqual([
      `src/kafka/broker/log.ts imports "../coordinator/transaction-metadata.js" (kafka/coordinator/): kafka/broker/ may not import kafka/server/ or kafka/coordinator/`,
      `src/kafka/coordinator/c.ts imports "../server/kafka-broker.js" (kafka/server/): kafka/coordinator/ may not import kafka/server/`,
    ]);
  });

  it("catch a planted breach of fuzz/'s folders: an import upwards and a file outside every folder", () => {
    const planted: SourceFile[] = [
      { path: "fuzz/run/run-seed.ts", text: `import type { CampaignResult } from "../campaign/campaign.js";` },
      { path: "fuzz/campaign/campaign.ts", text: `import { randomStrategyInfo } from "../search/strategies.js";` },
      { path: "fuzz/search/s.ts", text: `import { runSeed } from "../run/run-seed.js";` },
      { path: "fuzz/campaign-session.ts", text: "" },
    ];
    const fuzz = rules.folders.filter((f) => f.covers === "fuzz/");
    expect(folderViolations(planted, fuzz)).toEqual([
      `src/fuzz/run/run-seed.ts imports "../campaign/campaign.js" (fuzz/campaign/): fuzz/run/ may not import fuzz/session/ or fuzz/catalogue/ or fuzz/shrink/ or fuzz/seeds/ or fuzz/search/ or fuzz/campaign/ or fuzz/executor/`,
      `src/fuzz/campaign/campaign.ts imports "../search/strategies.js" (fuzz/search/): fuzz/campaign/ may not import fuzz/session/ or fuzz/catalogue/ or fuzz/shrink/ or fuzz/seeds/ or fuzz/search/`,
      `src/fuzz/campaign-session.ts is in none of fuzz/'s folders: move it into one of ${fuzz[0]?.order.join(", ")}`,
    ]);
  });

  it("keep src/sim free of Kafka: no Kafka word in its code", () => {
    const sim = sourceFiles().filter((f) => f.path.startsWith("sim/"));
    expect(sim.length).toBeGreaterThan(5);
    expect(sim.flatMap(kafkaWordsIn)).toEqual([]);
  });

  it("catch a planted breach and name the file, the import and the way out", () => {
    const planted: SourceFile[] = [
      {
        path: "sim/clock.ts",
        text: `import { Broker } from "../kafka/broker/broker.js";\nexport * from "../oracle/a.js";`,
      },
      { path: "fuzz/x.ts", text: `import type { RunReport } from "../report/run-report.js";` },
      { path: "report/y.ts", text: `export { run } from "../fuzz/campaign.js";\nconst m = import("../cli/main.js");` },
      // common/ is below scenario/: InputError lives in common, and common knows no scenario.
      { path: "common/z.ts", text: `import { loadScenario } from "../scenario/loader.js";` },
      { path: "oracle/w.ts", text: `import { TOOL_VERSION } from "../version.js";` },
      { path: "stray.ts", text: "" },
    ];
    const lines = layerViolations(planted, rules);
    expect(lines).toEqual([
      `src/sim/clock.ts imports "../kafka/broker/broker.js" (layer kafka, above sim): sim may import only sim`,
      `src/sim/clock.ts imports "../oracle/a.js" (layer oracle, above sim): sim may import only sim`,
      `src/fuzz/x.ts imports "../report/run-report.js" (layer report, above fuzz): fuzz may import only fuzz, scenario, common, oracle, kafka, sim`,
      `src/report/y.ts imports "../cli/main.js" (layer cli, above report): report may import only report, fuzz, scenario, common, oracle, kafka, sim`,
      `src/common/z.ts imports "../scenario/loader.js" (layer scenario, above common): common may import only common, oracle, kafka, sim`,
      `src/oracle/w.ts imports "../version.js" (layer common, above oracle): oracle may import only oracle, kafka, sim`,
      "src/stray.ts is in no layer: put it in a layer's folder, or add its path to a layer",
    ]);
    expect(report(lines, rules)).toMatch(/move what it needs down/);
    const excepted = { ...rules, exceptions: [{ file: "fuzz/x.ts", imports: "report/run-report.ts", why: "test" }] };
    expect(layerViolations(planted.slice(1, 2), excepted)).toEqual([]);
    expect(layerViolations([], excepted)).toEqual([
      `exception fuzz/x.ts -> report/run-report.ts is no longer needed: remove it from ${RULES_FILE}`,
    ]);
    expect(kafkaWordsIn({ path: "sim/a.ts", text: "// a broker's clock\nconst brokerId = 1;" })).toEqual([
      "src/sim/a.ts: brokerId",
    ]);
  });

  it("list every layer once, with what it holds, and every exception with its reason", () => {
    const names = rules.layers.map((l) => l.name);
    expect(new Set(names).size).toBe(names.length);
    for (const l of rules.layers) expect(l.what.length).toBeGreaterThan(10);
    for (const e of rules.exceptions) expect(e.why.length).toBeGreaterThan(10);
    for (const f of rules.folders) {
      expect(f.why.length).toBeGreaterThan(10);
      for (const folder of f.order) expect(folder.endsWith("/") && layerIndex(rules, folder) >= 0).toBe(true);
      if (f.covers !== undefined) for (const folder of f.order) expect(folder.startsWith(f.covers)).toBe(true);
    }
  });
});
