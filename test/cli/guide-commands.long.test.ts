import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { STARTER_TEMPLATE, starterScenario } from "../../src/cli/commands/init.js";
import { builtinScenarioNames, loadScenarioFile, parseScenario } from "../../src/scenario/loader.js";
import { CLI, eosfuzz } from "./cli-helpers.js";

// Item 16 of "Trustworthy in CI and on long campaigns": scenarios, validate, init, shell
// completion, and exit codes, environment variables and examples in --help.

const dir = mkdtempSync(join(tmpdir(), "eosfuzz-guide-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("eosfuzz scenarios", () => {
  it("lists every built-in scenario, one line each", () => {
    const r = eosfuzz(["scenarios"]);
    expect(r.code).toBe(0);
    const names = builtinScenarioNames();
    const lines = r.stdout.trimEnd().split("\n").slice(1);
    expect(lines.map((l) => l.trim().split(/\s+/)[0])).toEqual(names);
    expect(lines.every((l) => l.length <= 140)).toBe(true);
    const json = JSON.parse(eosfuzz(["scenarios", "--json"]).stdout);
    expect(json.map((s: { name: string }) => s.name)).toEqual(names);
    expect(json[0]).toMatchObject({ seeds: expect.any(Number), expectation: expect.any(String) });
  });
});

describe("eosfuzz validate", () => {
  it("exit 0 for valid files; every problem of every invalid one, one line each, exit 2", () => {
    const good = join(dir, "good.yaml");
    writeFileSync(good, starterScenario("good", good));
    const bad = join(dir, "bad.yaml");
    writeFileSync(
      bad,
      readFileSync(good, "utf8").replace("producers: 2", "producers: 0").replace("abortRatio: 0.2", "abortRatio: 2"),
    );
    const ok = eosfuzz(["validate", good]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/good\.yaml: valid \(scenario good, 100 seeds, expect clean/);
    const both = eosfuzz(["validate", good, bad, join(dir, "missing.yaml")]);
    expect(both.code).toBe(2);
    const lines = both.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/bad\.yaml:\d+:\d+ workload\.producers: expected >= 1, found 0$/);
    expect(lines[2]).toMatch(/bad\.yaml:\d+:\d+ workload\.abortRatio: expected <= 1, found 2$/);
    expect(lines[3]).toMatch(/missing\.yaml: expected a scenario file, found no such file$/);
    const json = JSON.parse(eosfuzz(["validate", good, bad, "--json"]).stdout);
    expect(json.map((c: { valid: boolean }) => c.valid)).toEqual([true, false]);
  });
});

describe("eosfuzz init", () => {
  it("writes a commented starter scenario that the real loader accepts and that runs clean", () => {
    const r = eosfuzz(["init", "our-cluster"], { cwd: dir });
    expect(r.code).toBe(0);
    const file = join(dir, "our-cluster.yaml");
    const text = readFileSync(file, "utf8");
    const schemaLine = /^# yaml-language-server: \$schema=(\S+)$/m.exec(text.split("\n")[0] ?? "");
    expect(schemaLine).not.toBeNull();
    expect(existsSync(resolve(dirname(file), schemaLine?.[1] as string))).toBe(true);
    expect(text.split("\n").filter((l) => l.trim().startsWith("#")).length).toBeGreaterThan(10);
    // Through the loader a run uses: a change of the scenario format shows up here.
    const loaded = loadScenarioFile(file);
    expect(loaded.scenario.name).toBe("our-cluster");
    expect(eosfuzz(["validate", file]).code).toBe(0);
    const run = eosfuzz(["run", "--scenario", file, "--seeds", "20", "--workers", "0", "--no-progress"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  });

  it("does not overwrite a file without --force, and refuses a name that is no scenario name", () => {
    const again = eosfuzz(["init", "our-cluster"], { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(
      "eosfuzz: our-cluster.yaml: expected no such file (eosfuzz init does not overwrite one without --force), found one\n",
    );
    expect(eosfuzz(["init", "our-cluster", "--force"], { cwd: dir }).code).toBe(0);
    const bad = eosfuzz(["init", "Our Cluster"], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^eosfuzz: eosfuzz init NAME: expected a scenario name of lower case letters/);
  });

  it("the template is one file with its placeholders, and every built-in name would make a valid starter", () => {
    const template = readFileSync(STARTER_TEMPLATE, "utf8");
    for (const placeholder of ["{{name}}", "{{schema}}", "{{file}}"]) expect(template).toContain(placeholder);
    for (const name of ["a", "x.y-z", "my-scenario"])
      expect(parseScenario(starterScenario(name, `${name}.yaml`), `${name}.yaml`).scenario.name).toBe(name);
  });
});

describe("shell completion", () => {
  /** COMPREPLY of the bash completion script for the words typed so far (the last one being typed). */
  function complete(words: string[]): string[] {
    const bin = join(dir, "bin");
    const shim = join(bin, "eosfuzz");
    if (!existsSync(shim)) {
      spawnSync("mkdir", ["-p", bin]);
      writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
      chmodSync(shim, 0o755);
    }
    const script = eosfuzz(["completion", "bash"]).stdout;
    writeFileSync(join(dir, "completion.bash"), script);
    const quoted = ["eosfuzz", ...words].map((w) => `'${w}'`).join(" ");
    const r = spawnSync(
      "bash",
      [
        "-c",
        `source "${join(dir, "completion.bash")}"; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length}; _eosfuzz_completions; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      { encoding: "utf8", env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } },
    );
    expect(r.stderr).toBe("");
    return r.stdout.split("\n").filter((l) => l !== "");
  }

  it("completes commands, a command's options and the values of --scenario, --mutant and --strategy", () => {
    expect(complete(["re"])).toEqual(["report", "replay", "regress"]);
    expect(complete(["run", "--sc"])).toEqual(["--scenario"]);
    expect(complete(["replay", "--tr"])).toEqual(["--trace"]);
    expect(complete(["run", "--scenario", "kip-1228-gap"])).toEqual(["kip-1228-gap", "kip-1228-gap-small"]);
    expect(complete(["run", "--strategy", "c"])).toEqual(["coverage"]);
    expect(complete(["run", "--mutant", ""]).length).toBeGreaterThan(3);
    // A path is the shell's to complete (file names), as is a file argument.
    expect(complete(["run", "--scenario", "./sc"])).toEqual([]);
    expect(complete(["replay", "se"])).toEqual([]);
  });
});

describe("--help", () => {
  it("gives exit codes, environment variables and examples, for eosfuzz and for each command", () => {
    for (const argv of [["--help"], ["run", "--help"], ["regress", "--help"], ["validate", "--help"]]) {
      const r = eosfuzz(argv);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Examples:$/m);
      const flat = r.stdout.replace(/\s+/g, " ");
      expect(flat).toMatch(/Exit codes: 0 .* 1 .* 2 .* 3 .* 130 interrupted/);
      expect(flat).toMatch(/Environment: NO_COLOR, FORCE_COLOR .*CI .*EOSFUZZ_HEARTBEAT_SECONDS.*GITHUB_ACTIONS/);
    }
    for (const command of ["scenarios", "validate", "init", "completion"])
      expect(eosfuzz(["--help"]).stdout).toContain(`eosfuzz ${command}`);
  });
});
