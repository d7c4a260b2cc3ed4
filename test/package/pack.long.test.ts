import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FAILING_SEEDS_RUN, ROOT } from "../cli/cli-helpers.js";

// Item 15 of "Trustworthy in CI and on long campaigns": the package as a user gets it. `npm pack`,
// the tarball installed in a scratch project (with typescript and vitest, and nothing else: no
// devDependency of eosfuzz, no @types/node), the README's library snippet and the vitest snippet of
// docs/architecture.md type-checked and run there, and the command line it installs.
// npm installs from its cache first (--prefer-offline): `npm ci` of this repository filled it.

const dir = mkdtempSync(join(tmpdir(), "eosfuzz-pack-"));
const project = join(dir, "project");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

/** A command installed in the scratch project (npx would add seconds each time). */
const bin = (name: string) => join(project, "node_modules", ".bin", name);

function run(command: string, args: string[], cwd: string, timeout = 300_000) {
  const started = Date.now();
  const r = spawnSync(command, args, { cwd, encoding: "utf8", timeout, env: { ...process.env, FORCE_COLOR: "0" } });
  if (process.env.EOSFUZZ_PACK_TIMINGS)
    process.stderr.write(`${command} ${args.slice(0, 2).join(" ")}: ${Date.now() - started} ms\n`);
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** The ```ts code blocks of a Markdown file. */
function tsBlocks(file: string): string[] {
  return [...readFileSync(join(ROOT, file), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

describe("the package", () => {
  let tarball = "";
  let files: string[] = [];

  it("npm pack holds what users need and nothing else", () => {
    // --ignore-scripts: prepare would rebuild dist/ while other test files run it (npm test built it).
    const r = spawnSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(r.status).toBe(0);
    const [packed] = JSON.parse(r.stdout);
    tarball = join(dir, packed.filename);
    files = packed.files.map((f: { path: string }) => f.path);
    for (const needed of [
      "LICENSE",
      "README.md",
      "package.json",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/vitest.d.ts",
      "dist/cli/main.js",
      "dist/fuzz/executor/run-worker.js",
      "templates/starter-scenario.yaml",
      "schema/scenario.schema.json",
      "scenarios/kip-1228.yaml",
    ])
      expect(files).toContain(needed);
    expect(files.filter((f) => /^(src|test|bench|scripts|seeds|examples|\.ci)\//.test(f))).toEqual([]);
    expect(readFileSync(join(ROOT, "LICENSE"), "utf8")).toMatch(/Apache License\s+Version 2\.0/);
    expect(pkg.license).toBe("Apache-2.0");
    // A git dependency is built when it is installed.
    expect(pkg.scripts.prepare).toBe("npm run build");
  }, 120_000);

  it("installed in a scratch project, the README's snippets type-check and run, and so does its CLI", () => {
    expect(tarball).not.toBe("");
    mkdirSync(join(project, "eos"), { recursive: true });
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }));
    const install = run(
      "npm",
      [
        "install",
        tarball,
        `typescript@${pkg.devDependencies.typescript}`,
        `vitest@${pkg.devDependencies.vitest}`,
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
      ],
      project,
    );
    expect(install.code, install.out).toBe(0);

    // The files the snippets name: a scenario of one's own and a folder of saved seeds.
    expect(run(bin("eosfuzz"), ["init", "our-mix"], join(project, "eos")).code).toBe(0);
    const seeds = run(bin("eosfuzz"), [...FAILING_SEEDS_RUN, "--save-failures", "seeds"], project);
    expect(seeds.code, seeds.out).toBe(0);

    const [readme] = tsBlocks("README.md");
    const vitestSnippet = tsBlocks("docs/architecture.md").find((b) => b.includes('from "eosfuzz/vitest"'));
    expect(readme).toContain('from "eosfuzz"');
    expect(vitestSnippet).toContain("expectScenarioAsync");
    writeFileSync(
      join(project, "readme.test.ts"),
      `${readme}\nimport { expect as check, it as test } from "vitest";\ntest("the README's library snippet", () => check(campaign.verdict.met).toBe(true));\n`,
    );
    writeFileSync(join(project, "vitest-snippet.test.ts"), vitestSnippet as string);
    // Strict, every declaration file checked, and no Node type definitions: the published types stand alone.
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: [],
        },
        files: ["readme.test.ts"],
      }),
    );
    const types = run(bin("tsc"), ["-p", "."], project);
    expect(types.code, types.out).toBe(0);
    const tests = run(bin("vitest"), ["run", "--reporter=dot"], project);
    expect(tests.code, tests.out).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: vitest's colours
    expect(tests.out.replace(/\u001b\[[0-9;]*m/g, "")).toMatch(/Tests\s+\d+ passed/);

    const version = run(bin("eosfuzz"), ["--version"], project);
    expect(version.out.trim()).toBe(pkg.version);
  }, 600_000);
});
