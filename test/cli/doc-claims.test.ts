import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeEach, afterEach, describe, expect, it, vi } from "vitest";
import { type CommandHandler, COMMANDS, helpExamples, runCli } from "../../src/cli/cli.js";
import { planRun, type RunArgs } from "../../src/cli/commands/run.js";
import { eosfuzz, readmeCommands, ROOT } from "./cli-helpers.js";

// Item 14 of "Trustworthy in CI and on long campaigns": what the README and docs/cli.md say about
// the command line, checked against the tool: every command of the README's quick start is
// accepted, the claims in its comments hold, and the examples of docs/cli.md are what it prints.

const CLI_DOC = readFileSync(join(ROOT, "docs", "cli.md"), "utf8");

const dir = mkdtempSync(join(tmpdir(), "eosfuzz-doc-claims-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stopBeforeWork: Partial<Record<(typeof COMMANDS)[number], CommandHandler>> = Object.fromEntries(
  COMMANDS.map((c) => [
    c,
    c === "run"
      ? (args: RunArgs) => {
          planRun(args);
          return 0;
        }
      : () => 0,
  ]),
);

describe("the README's quick start", () => {
  beforeEach(() => {
    vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  });
  afterEach(() => vi.restoreAllMocks());

  it("every eosfuzz command line it shows is one the tool accepts", async () => {
    const commands = readmeCommands();
    expect(commands.length).toBeGreaterThanOrEqual(8);
    for (const { argv, line } of commands) {
      // Checked up to the work itself (init and validate name a file the reader makes first).
      await expect(runCli(argv, { handlers: stopBeforeWork }), line).resolves.toBe(0);
    }
  });
});

describe("the examples of --help", () => {
  beforeEach(() => {
    vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  });
  afterEach(() => vi.restoreAllMocks());

  it("every example command line of every command is one the tool accepts", async () => {
    const myCluster = join(dir, "my-cluster.yaml");
    copyFileSync(join(ROOT, "scenarios", "kip-1228.yaml"), myCluster);
    const examples = helpExamples();
    expect(new Set(examples.map((e) => e.command)).size).toBe(COMMANDS.length);
    for (const { line } of examples) {
      expect(line, "an example starts with eosfuzz").toMatch(/^eosfuzz /);
      // The shell's part (a redirection) is not the tool's; the scenario file a reader writes first is
      // stood for by a copy of a built-in one.
      const argv = (line.split(/\s+(?:>>?|\|)\s+/)[0] as string)
        .split(/\s+/)
        .slice(1)
        .map((a) => (a === "my-cluster.yaml" ? myCluster : a));
      // Checked up to the work itself, as the README's lines are (a run is planned: its scenario loaded).
      // A resume continues the run the example before it started, which this test does not run.
      const handlers = argv.includes("--resume") ? { run: () => 0 } : stopBeforeWork;
      await expect(runCli(argv, { handlers }), line).resolves.toBe(0);
    }
  });
});

describe("docs/cli.md", () => {
  it("--bug-probability: the default the table gives is the report's, and the flag takes a list", () => {
    const row = /^\| `--bug-probability P\.\.\.` \| `([^`]+)` \|/m.exec(CLI_DOC);
    const defaults = (row?.[1] ?? "").split(" ").map(Number);
    expect(defaults.length).toBeGreaterThan(0);
    const base = ["run", "--scenario", "kip-1228-small", "--seeds", "5", "--workers", "0", "--no-shrink", "--json"];
    const probabilities = (argv: string[]) =>
      JSON.parse(eosfuzz([...base, ...argv]).stdout).statistics.clean.seedsNeeded.map(
        (x: { perSeedProbability: number }) => x.perSeedProbability,
      );
    expect(probabilities([])).toEqual(defaults);
    expect(probabilities(["--bug-probability", "0.05", "0.01"])).toEqual([0.05, 0.01]);
  });

  it("the replay --trace excerpt is what the command it names prints", () => {
    const block = /```\n\$ (eosfuzz replay [^\n]+)\n\.\.\.\n([\s\S]*?)```/.exec(CLI_DOC);
    expect(block, "docs/cli.md has a replay excerpt with its command").not.toBeNull();
    const command = block?.[1] ?? "";
    const argv = command.split(" ").slice(1);
    const r = eosfuzz(argv);
    expect(r.code, r.stderr).toBe(0);
    const shown = (block?.[2] ?? "").trimEnd().split("\n");
    const printed = r.stdout.split("\n").map((l) => l.trimEnd());
    const at = printed.indexOf(shown[0] as string);
    expect(at, `"${shown[0]}" in the output of ${command}`).toBeGreaterThan(0);
    expect(printed.slice(at, at + shown.length)).toEqual(shown);
  });
});
