import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, ROOT } from "./cli-helpers.js";

// Issue 20 (cold start): a run loads only the modules its options need. A module hook lists every
// ES module the process loads, and require's cache at exit the CommonJS ones.
const dir = mkdtempSync(join(tmpdir(), "eosfuzz-modules-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hook = join(dir, "hook.mjs");
writeFileSync(
  hook,
  'export async function load(url, context, next) { process.stderr.write("LOADED " + url + "\\n"); return next(url, context); }\n',
);
const register = join(dir, "register.mjs");
writeFileSync(
  register,
  [
    'import { createRequire, register } from "node:module";',
    `register(${JSON.stringify(pathToFileURL(hook).href)});`,
    "const cache = createRequire(import.meta.url).cache;",
    'process.on("exit", () => { for (const file of Object.keys(cache)) process.stderr.write("LOADED " + file + "\\n"); });',
    "",
  ].join("\n"),
);

function loadedBy(args: string[], env: Record<string, string> = {}): string[] {
  const r = spawnSync(process.execPath, ["--import", register, CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, GITHUB_ACTIONS: "", FORCE_COLOR: "0", ...env },
    encoding: "utf8",
    timeout: 120_000,
  });
  expect(r.status, r.stderr).toBe(0); // kip-1228-gap finds the stale marker it expects
  return r.stderr
    .split("\n")
    .filter((l) => l.startsWith("LOADED "))
    .map((l) => l.slice(7));
}

const RUN = ["run", "--scenario", "kip-1228-gap", "--stop-on-first", "--workers", "0", "--json"];
const uses = (modules: string[], name: string) => modules.some((m) => m.includes(`/node_modules/${name}/`));

describe("eosfuzz run: modules loaded", () => {
  it("without --shrink and outside GitHub Actions: no fast-check (the shrinker's) and no terminal tables", () => {
    const modules = loadedBy([...RUN, "--no-shrink"]);
    expect(modules.some((m) => m.endsWith("/dist/kafka/cluster.js"))).toBe(true);
    expect(uses(modules, "fast-check")).toBe(false);
    expect(uses(modules, "cli-table3")).toBe(false);
  });

  it("loads them when it shrinks, and under GitHub Actions", () => {
    expect(uses(loadedBy([...RUN, "--shrink-budget-ms", "2000"]), "fast-check")).toBe(true);
    expect(uses(loadedBy([...RUN, "--no-shrink"], { GITHUB_ACTIONS: "true" }), "cli-table3")).toBe(true);
  });
});
