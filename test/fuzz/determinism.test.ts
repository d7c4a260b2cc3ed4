import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { builtinScenarioNames, resolveScenario } from "../../src/scenario/loader.js";

const SCENARIOS = ["kip-1228-gap", "tv1-legacy", "kip-1228", "kip-1228-4.2.0"];

describe("determinism", () => {
  it.each(SCENARIOS)("%s: the same seed gives the same trace hash and result twice in one process", (name) => {
    const config = runConfigFor(resolveScenario(name));
    for (const seed of [0, 1, 27, 1234567]) {
      const a = runSeed(config, { seed });
      const b = runSeed(config, { seed });
      expect(b.traceHash).toBe(a.traceHash);
      expect(b.stats).toEqual(a.stats);
      expect(b.violations).toEqual(a.violations);
    }
  });

  it("different seeds give different traces", () => {
    const config = runConfigFor(resolveScenario("kip-1228-gap"));
    const hashes = new Set([0, 1, 2, 3, 4, 5].map((seed) => runSeed(config, { seed }).traceHash));
    expect(hashes.size).toBe(6);
  });

  it("a recorded tape replays to the same trace hash and violations", () => {
    const config = runConfigFor(resolveScenario("kip-1228-gap"));
    for (const seed of [3, 27]) {
      const recorded = runSeed(config, { seed }, { recordTape: true });
      const replayed = runSeed(config, { tape: recorded.tape! });
      expect(replayed.traceHash).toBe(recorded.traceHash);
      expect(replayed.violations).toEqual(recorded.violations);
    }
  });

  it("a fresh process (the built CLI's modules) computes the same hashes", () => {
    const config = runConfigFor(resolveScenario("kip-1228-gap"));
    const seeds = [0, 5, 27];
    const here = seeds.map((seed) => runSeed(config, { seed }).traceHash);
    const script = `
      import { runConfigFor } from "./dist/fuzz/campaign/campaign.js";
      import { runSeed } from "./dist/fuzz/run/run-seed.js";
      import { resolveScenario } from "./dist/scenario/loader.js";
      const config = runConfigFor(resolveScenario("kip-1228-gap"));
      console.log(JSON.stringify(${JSON.stringify(seeds)}.map((seed) => runSeed(config, { seed }).traceHash)));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: join(import.meta.dirname, "../.."),
      encoding: "utf8",
    });
    expect(JSON.parse(out)).toEqual(here);
  });

  // Unrecorded runs hash hot events without building them (Trace.beginEvent): both paths must agree.
  it.each(builtinScenarioNames())(
    "%s: recording the full trace does not change the hash, the counts or the violations",
    (name) => {
      const config = runConfigFor(resolveScenario(name));
      for (const seed of [4, 9]) {
        const recorded = runSeed(config, { seed }, { recordTrace: true });
        const plain = runSeed(config, { seed });
        expect(plain.traceHash).toBe(recorded.traceHash);
        expect(plain.stats).toEqual(recorded.stats);
        expect(plain.violations).toEqual(recorded.violations);
        expect(recorded.trace?.length).toBe(recorded.stats.traceEvents);
      }
    },
  );
});

describe("no wall clock or unseeded randomness in the simulation code", () => {
  const root = join(import.meta.dirname, "../../src");
  const banned =
    /\b(Math\.random|Date\.now|new Date\b|performance\.now|process\.hrtime|setTimeout|setInterval|setImmediate|randomUUID|randomBytes|getRandomValues)\b/;
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
    });
  // One list for both guards: the files biome's override runs the determinism lint rule on
  // (.ci/no-nondeterminism.grit), each a folder ("src/x/**") or a file.
  const biome = JSON.parse(readFileSync(join(root, "../biome.json"), "utf8")) as {
    overrides: { includes: string[]; plugins?: string[] }[];
  };
  const guarded = biome.overrides.find((o) => o.plugins?.includes("./.ci/no-nondeterminism.grit"))?.includes ?? [];
  const simulationFiles = guarded.flatMap((glob) =>
    glob.endsWith("/**") ? files(join(root, "..", glob.slice(0, -3))) : [join(root, "..", glob)],
  );

  it("guards the simulation's folders and the late-copy finder, which runs inside every coverage run", () => {
    const guardedPaths = simulationFiles.map((f) => f.slice(root.length + 1));
    for (const path of [
      "sim/simulation.ts",
      "kafka/cluster.ts",
      "fuzz/run/run-seed.ts",
      "fuzz/run/late-copy-finder.ts",
    ])
      expect(guardedPaths).toContain(path);
  });

  it.each(simulationFiles.map((f) => [f.slice(root.length + 1)]))(
    "%s uses only the seeded source and virtual time",
    (file) => {
      const code = readFileSync(join(root, file), "utf8")
        .split("\n")
        .filter((line) => !line.trim().startsWith("//") && !line.trim().startsWith("*"))
        .join("\n");
      expect(code).not.toMatch(banned);
    },
  );
});
