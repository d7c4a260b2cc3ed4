import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type CommandHandler, COMMANDS, runCli } from "../../src/cli/cli.js";
import { planRun, type RunArgs } from "../../src/cli/commands/run.js";
import { InputError } from "../../src/common/input-error.js";
import { FUZZ_RUNS, FUZZ_SEED } from "./input-fuzz-helpers.js";

// The command line fuzzed in-process through the real yargs parser and the real argument checks.
// Commands stop once their arguments are checked: `run` goes as far as planRun (every check, the
// scenario and mutant resolved, --resume's results read) and runs nothing; regress and mutants
// stop at the parser (running them is the CLI tests' job). replay, shrink, report and merge run
// for real: every file this test names is missing, a directory, or not the kind of file expected.

const OPTIONS = [
  "--seeds",
  "--seed-start",
  "--scenario",
  "--mutant",
  "--workers",
  "--strategy",
  "--shard",
  "--time-budget",
  "--seed-timeout",
  "--pct-depth",
  "--pct-scope",
  "--depth",
  "--bug-probability",
  "--json",
  "--out",
  "--resume",
  "--continue",
  "--shrink",
  "--no-shrink",
  "--shrink-budget-ms",
  "--check-determinism",
  "--stop-on-first",
  "--progress",
  "--no-progress",
  "--save-failures",
  "--trace",
  "--from-event",
  "--to-event",
  "--html",
  "--junit",
  "--accept-changed-trace",
  "--budget-ms",
  "--check-equivalent",
  "--scenarios",
  "--set",
  "--color",
  "--no-color",
  "--help",
  "--version",
];

const VALUES = [
  "",
  " ",
  "0",
  "1",
  "-1",
  "2",
  "1.5",
  "1e309",
  "-0",
  "0x10",
  "NaN",
  "Infinity",
  "9007199254740993",
  "100000001",
  "abc",
  "true",
  "kip-1228-gap",
  "kip-1228-small",
  "no-such-scenario",
  "random",
  "pct",
  "exhaustive",
  "coverage",
  "swarm",
  "0/4",
  "4/4",
  "1/0",
  "x/y",
  "90s",
  "5m",
  "0s",
  "-5s",
  "1h30",
  "markers",
  "all",
  "nope.json",
  "missing/dir",
  ".",
  "/",
  "package.json",
  "scenarios",
  "-",
  "--",
  "\u0000",
  "\u001b[31mred",
  "é🙂",
  "x".repeat(3_000),
  "tv2-marker-legacy-rule",
  "workload.transactions=3",
  "workload.transactons=3",
  "cluster.topics[0].min.insync.replicas=2",
  "cluster.topics[9].name=x",
  "seeds=abc",
];

const token: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...OPTIONS) },
  { weight: 4, arbitrary: fc.constantFrom(...VALUES) },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.constantFrom(...OPTIONS), fc.constantFrom(...VALUES)).map(([o, v]) => `${o}=${v}`),
  },
  { weight: 1, arbitrary: fc.constantFrom(...COMMANDS, "rnu", "RUN", "help", "") },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }).map((s) => `--${s}`) },
  { weight: 1, arbitrary: fc.string({ maxLength: 3 }).map((s) => `-${s}`) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer().map(String) },
);

/** An option given twice, with values (yargs makes a list of it). */
const repeatedOption: fc.Arbitrary<string[]> = fc
  .tuple(fc.constantFrom(...OPTIONS), fc.constantFrom(...VALUES), fc.constantFrom(...VALUES))
  .map(([option, a, b]) => [option, a, option, b]);

/** A command line: usually a command first, then options and values in any order. */
const commandLine: fc.Arbitrary<string[]> = fc
  .tuple(
    fc.option(fc.constantFrom(...COMMANDS), { freq: 5, nil: null }),
    fc.array(fc.oneof({ weight: 9, arbitrary: token.map((t) => [t]) }, { weight: 1, arbitrary: repeatedOption }), {
      maxLength: 8,
    }),
  )
  .map(([command, groups]) => (command === null ? groups.flat() : [command, ...groups.flat()]));

const stopBeforeWork: Partial<Record<(typeof COMMANDS)[number], CommandHandler>> = {
  run: (args: RunArgs) => {
    planRun(args);
    return 0;
  },
  regress: () => 0,
  mutants: () => 0,
  // bugs run without ids runs the whole benchmark.
  bugs: () => 0,
  // init writes a file into the working directory; validate and completion print (their exit code
  // is checked by their own tests).
  init: () => 0,
  validate: () => 0,
  // conform and confirm start JVMs (the harness, real clusters); their own tests run them.
  conform: () => 0,
  confirm: () => 0,
};

describe(`fuzzed command lines (${FUZZ_RUNS.toLocaleString("en-US")}): accepted, or one clean line and exit 2`, () => {
  beforeEach(() => {
    // --help, --version and mutants' list print; the test reads only what is thrown.
    vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    vi.spyOn(console, "log").mockImplementation(() => {});
    vi.spyOn(console, "error").mockImplementation(() => {});
  });
  afterEach(() => vi.restoreAllMocks());

  it("never anything but an exit code or an InputError of one line naming what was expected and found", async () => {
    let rejected = 0;
    await fc.assert(
      fc.asyncProperty(commandLine, async (argv) => {
        let error: unknown = null;
        try {
          const code = await runCli(argv, { handlers: stopBeforeWork });
          expect([0, 1]).toContain(code);
        } catch (e) {
          error = e;
        }
        if (error === null) return;
        rejected++;
        if (!(error instanceof InputError))
          throw new Error(`not an InputError for ${JSON.stringify(argv)}: ${(error as Error)?.stack}`);
        const line = error.message;
        expect(line, "one line").not.toMatch(/[\n\r]/);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
        expect(line, "no control characters").not.toMatch(/[\u0000-\u001f\u007f]/);
        expect(line, "no stack frame").not.toMatch(/\bat .+:\d+:\d+\)?$/);
        expect(line.length).toBeLessThanOrEqual(600);
        expect(line, `expected ..., found ... (or an unknown option): ${line}`).toMatch(
          /expected .*found|^unknown option (--[\w.-]+|".*")( of eosfuzz \w+)?(, did you mean --[\w-]+\?)? \(see eosfuzz/,
        );
      }),
      { numRuns: FUZZ_RUNS, seed: FUZZ_SEED },
    );
    // The generator mostly makes bad command lines: the property checked rejections, not only acceptances.
    expect(rejected).toBeGreaterThan(FUZZ_RUNS / 2);
  }, 60_000);

  it("a few command lines give the line a user needs", async () => {
    const message = async (argv: string[]) => {
      try {
        await runCli(argv, { handlers: stopBeforeWork });
        return "accepted";
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(await message([])).toBe(`command line: expected a command (${COMMANDS.join(", ")}), found none`);
    expect(await message(["rnu"])).toMatch(/^rnu: expected a command .*found an unknown one \(did you mean run\?\)$/);
    expect(await message(["run", "--sedes", "3"])).toBe(
      "unknown option --sedes of eosfuzz run, did you mean --seeds? (see eosfuzz run --help)",
    );
    expect(await message(["run", "--zzzz"])).toBe(
      "unknown option --zzzz of eosfuzz run (see eosfuzz run --help for its options)",
    );
    expect(await message(["merge", "--jsn", "run.json"])).toBe(
      "unknown option --jsn of eosfuzz merge, did you mean --json? (see eosfuzz merge --help)",
    );
    expect(await message(["--verison"])).toBe("unknown option --verison, did you mean --version? (see eosfuzz --help)");
    expect(await message(["run", "--seeds"])).toBe("--seeds: expected a value after it, found none");
    expect(await message(["run", "--seeds", "abc"])).toMatch(/^--seeds: expected an integer/);
    expect(await message(["run", "--resume", "nowhere"])).toBe(
      "nowhere/results.jsonl: expected the results of a run started with --out nowhere, found no such file",
    );
    expect(await message(["run", "--resume", "d", "--seeds", "5"])).toMatch(
      /^--seeds: expected no --seeds with --resume/,
    );
    expect(await message(["run", "--scenario", "kip-1228-small", "--seeds", "5"])).toBe("accepted");
  });
});
