import type { Argv } from "yargs";
import { outputWidth } from "../report/terminal-width.js";
import { editDistance } from "../scenario/did-you-mean.js";
import { InputError } from "../common/input-error.js";
import { TOOL_VERSION } from "../version.js";
import { EXIT } from "./errors.js";
import { stopAtOnce } from "./interrupt.js";

export const COMMANDS = [
  "run",
  "merge",
  "replay",
  "shrink",
  "regress",
  "report",
  "mutants",
  "bugs",
  "conform",
  "confirm",
  "scenarios",
  "validate",
  "init",
  "completion",
] as const;
export type CommandName = (typeof COMMANDS)[number];

/** What a command does with its parsed arguments: its exit code. */
export type CommandHandler = (args: never) => number | Promise<number>;

/** What a command's module provides: the options it declares and what it does with them. */
interface CommandModule {
  builder: (y: Argv) => Argv<unknown>;
  handler: CommandHandler;
}

interface CommandEntry {
  name: CommandName;
  usage: string;
  describe: string;
  /**
   * The command's module, imported only when the command line names the command: a run does not
   * compile the modules of report, merge or regress (a cold start is mostly module loading).
   */
  load: () => Promise<CommandModule>;
  /** Command lines shown under --help, with what each does. */
  examples: [string, string][];
}

const COMMAND_TABLE: readonly CommandEntry[] = [
  {
    name: "run",
    usage: "run",
    describe: "fuzz a scenario over many seeds and check its expectation",
    load: async () => {
      const m = await import("./commands/run.js");
      return { builder: m.runBuilder, handler: m.runCommand };
    },
    examples: [
      ["eosfuzz run --scenario kip-1228 --seeds 1000", "a built-in scenario over 1,000 seeds"],
      [
        "eosfuzz run --scenario my-cluster.yaml --out --save-failures",
        "a scenario of one's own, with a report directory and seed files",
      ],
      [
        "eosfuzz run --scenario kip-1228 --seeds 1000000 --shard 0/8 --out out/shard-0 --continue",
        "one shard of eight; run again after a crash, it resumes",
      ],
      ["eosfuzz run --resume out/shard-0", "continue an interrupted run"],
    ],
  },
  {
    name: "merge",
    usage: "merge <reports..>",
    describe: "merge the run.json of every shard of a campaign (run --shard I/N) into one report",
    load: async () => {
      const m = await import("./commands/merge.js");
      return { builder: m.mergeBuilder, handler: m.mergeCommand };
    },
    examples: [["eosfuzz merge out/shard-*/run.json --out merged", "the report of the whole campaign"]],
  },
  {
    name: "report",
    usage: "report <file>",
    describe: "render a saved run report (run.json, e.g. merged from shards) as HTML, JUnit and ShiViz logs",
    load: async () => {
      const m = await import("./commands/report.js");
      return { builder: m.reportBuilder, handler: m.reportCommand };
    },
    examples: [["eosfuzz report merged/run.json --html report.html", "the HTML page of a saved run"]],
  },
  {
    name: "replay",
    usage: "replay <file>",
    describe: "re-run a saved seed file, check its trace hash and explain it",
    load: async () => {
      const m = await import("./commands/replay.js");
      return { builder: m.replayBuilder, handler: m.replayCommand };
    },
    examples: [
      ["eosfuzz replay seeds/kip-1228-gap.seed-6.json --trace", "re-run a saved failure and print its events"],
    ],
  },
  {
    name: "shrink",
    usage: "shrink <file>",
    describe: "shrink a saved failure to its minimal schedule and save it as a seed file",
    load: async () => {
      const m = await import("./commands/shrink.js");
      return { builder: m.shrinkBuilder, handler: m.shrinkCommand };
    },
    examples: [["eosfuzz shrink seeds/kip-1228-gap.seed-6.json", "its minimal schedule, saved next to it"]],
  },
  {
    name: "regress",
    usage: "regress",
    describe: "check every scenario against its expectation and replay every saved seed (for CI)",
    load: async () => {
      const m = await import("./commands/regress.js");
      return { builder: m.regressBuilder, handler: m.regressCommand };
    },
    examples: [["eosfuzz regress --junit regress.xml", "every built-in scenario and saved seed, for CI"]],
  },
  {
    name: "mutants",
    usage: "mutants",
    describe: "list the deliberately broken variants of the model the oracle must catch",
    load: async () => {
      const m = await import("./commands/mutants.js");
      return { builder: m.mutantsBuilder, handler: m.mutantsCommand };
    },
    examples: [["eosfuzz mutants --check-equivalent 1000", "re-measure the equivalent candidates"]],
  },
  {
    name: "bugs",
    usage: "bugs [words..]",
    describe: "Kafka's bug history (36 transaction bugs): list them, or run each blind with its bug on and off",
    load: async () => {
      const m = await import("./commands/bugs.js");
      return { builder: m.bugsBuilder, handler: m.bugsCommand };
    },
    examples: [
      ["eosfuzz bugs run --budget-seeds 500", "the scorecard: every modelled bug, 500 seeds each side"],
      ["eosfuzz bugs run Z14 KAFKA-19999 --json", "two bugs, as JSON"],
    ],
  },
  {
    name: "conform",
    usage: "conform",
    describe: "judge the model by Kafka's own classes of each release (needs Java 17+; npm run harness:setup)",
    load: async () => {
      const m = await import("./commands/conform.js");
      return { builder: m.conformBuilder, handler: m.conformCommand };
    },
    examples: [
      ["eosfuzz conform --release 4.2.1 --sequences 10000", "10,000 generated sequences at Kafka 4.2.1's UnifiedLog"],
      ["eosfuzz conform --mutant tv2-marker-legacy-rule --release 4.2.1", "a broken model must diverge (exit 1)"],
      [
        "eosfuzz conform --surface client --release 4.2.1 --table",
        "how Kafka 4.2.1's producer classifies each error of each transactional request, beside the model's",
      ],
    ],
  },
  {
    name: "confirm",
    usage: "confirm [file]",
    describe:
      "play a counterexample on a real mixed-release Kafka cluster with the same faults and judge it with the same oracle (needs Java 17+; npm run harness:setup)",
    load: async () => {
      const m = await import("./commands/confirm.js");
      return { builder: m.confirmBuilder, handler: m.confirmCommand };
    },
    examples: [
      [
        "eosfuzz confirm seeds/kip-1228-gap.tape-608bd50dfa1025d1.json",
        "the shrunk KIP-1228 gap on Kafka 4.1.2 and 4.2.1 brokers",
      ],
      [
        "eosfuzz confirm seeds/kip-1228-gap.tape-608bd50dfa1025d1.json --all-brokers 4.2.1",
        "the same plan with every broker on 4.2.1: the late copy is rejected",
      ],
      ["eosfuzz confirm --scenario tv1-legacy --seed 7 --json", "a scenario's seed, shrunk first; one JSON object"],
      [
        "eosfuzz confirm --scenario leader-failover --random --runs 3",
        "three schedules drawn at random (not deterministic), leadership moves and restarts played; Jepsen histories",
      ],
    ],
  },
  {
    name: "scenarios",
    usage: "scenarios",
    describe: "list the built-in scenarios, one line each",
    load: async () => {
      const m = await import("./commands/scenarios.js");
      return { builder: m.scenariosBuilder, handler: m.scenariosCommand };
    },
    examples: [["eosfuzz scenarios", "their names and what each is about"]],
  },
  {
    name: "validate",
    usage: "validate <files..>",
    describe: "check scenario files without running them: every problem, one line each",
    load: async () => {
      const m = await import("./commands/validate.js");
      return { builder: m.validateBuilder, handler: m.validateCommand };
    },
    examples: [["eosfuzz validate eos/*.yaml", "exit 0 when all are valid, 2 when one is not"]],
  },
  {
    name: "init",
    usage: "init [name]",
    describe: "write a commented starter scenario: NAME.yaml (default my-scenario.yaml), or the file a path names",
    load: async () => {
      const m = await import("./commands/init.js");
      return { builder: m.initBuilder, handler: m.initCommand };
    },
    examples: [
      ["eosfuzz init our-cluster", "writes our-cluster.yaml to edit"],
      ["eosfuzz init eos/our-cluster.yaml", "writes eos/our-cluster.yaml, a scenario named our-cluster"],
    ],
  },
  {
    name: "completion",
    usage: "completion [shell]",
    describe: "print the shell completion script for commands, options and scenario names (bash, zsh)",
    load: async () => {
      const m = await import("./commands/completion.js");
      return { builder: m.completionBuilder, handler: m.completionCommand };
    },
    examples: [["eosfuzz completion bash >> ~/.bashrc", "complete eosfuzz in new shells"]],
  },
];

/** Exit codes and environment, at the end of every --help (docs/cli.md has the details). */
const EPILOG = `Exit codes: 0 the results match the scenario's expectation; 1 they do not; 2 bad usage, bad input, or an output that cannot be written (one line each on stderr); 3 an internal error of eosfuzz; 130 interrupted (SIGINT, SIGTERM).

Environment: NO_COLOR, FORCE_COLOR (colour); CI (no progress bar); EOSFUZZ_HEARTBEAT_SECONDS (the heartbeat line's interval); GITHUB_ACTIONS, GITHUB_STEP_SUMMARY, GITHUB_WORKSPACE (annotations and a step summary under GitHub Actions).

Documentation: docs/cli.md of the eosfuzz package.`;

export interface CliOptions {
  /** Replace what a command does once its arguments parsed (the argument-fuzzing test stops before real work). */
  handlers?: Partial<Record<CommandName, CommandHandler>>;
}

/**
 * The eosfuzz command line, without the process around it: parses `argv`, runs the command and
 * returns its exit code. Bad usage throws InputError (one line, exit 2); the process's own concerns
 * (exit code, colour, broken pipes) stay in main.ts. Tests call this in-process.
 */
export async function runCli(given: readonly string[], options: CliOptions = {}): Promise<number> {
  const argv = withShortFlags(given);
  let code: number = EXIT.ok;
  const exitWith = (c: number) => {
    code = c;
  };
  // The version alone needs no parser (yargs prints it the same way, after loading 40 modules).
  if (argv.length === 1 && argv[0] === "--version") {
    process.stdout.write(`${TOOL_VERSION}\n`);
    return EXIT.ok;
  }
  const modules = await loadNamedCommands(argv);
  const builderOf = (name: CommandName) => modules.get(name)?.builder ?? ((y: Argv) => y);
  // The shell completion script asks for what may follow the words typed so far.
  if (argv[0] === "__complete") {
    const { completions } = await import("./commands/completion.js");
    const commands = COMMAND_TABLE.map((c) => ({ name: c.name, builder: builderOf(c.name) }));
    process.stdout.write(
      completions(argv.slice(1), commands)
        .map((c) => `${c}\n`)
        .join(""),
    );
    return EXIT.ok;
  }
  const reserved = argv.find(namesParserKey);
  if (reserved !== undefined)
    throw new InputError(reserved, "", "expected an option of eosfuzz (see eosfuzz --help), found an unknown option");
  const { default: yargs } = await import("yargs");
  const parser = yargs([...argv]);
  parser
    .scriptName("eosfuzz")
    .version(TOOL_VERSION)
    .strict()
    .exitProcess(false)
    .option("color", { type: "boolean", describe: "force colour on or off (--no-color)" });
  skipHelpCache(parser);
  for (const c of COMMAND_TABLE) {
    const handler = options.handlers?.[c.name] ?? modules.get(c.name)?.handler ?? notLoaded(c.name);
    const builder = (y: Argv) => {
      const built = builderOf(c.name)(y);
      for (const [command, description] of c.examples) built.example(command, description);
      return built.epilog(EPILOG);
    };
    parser.command(c.usage, c.describe, builder, async (args) => {
      // run stops gracefully on a signal (it writes its partial report); confirm exits 130 through the
      // exit hook that kills its Kafka JVMs; the others stop at once, 130.
      if (c.name !== "run" && c.name !== "confirm") stopAtOnce();
      exitWith(await handler(args as never));
    });
  }
  for (const c of COMMAND_TABLE.slice(0, 4)) parser.example(c.examples[0]?.[0] ?? "", c.examples[0]?.[1] ?? "");
  parser.epilog(EPILOG);
  await parser
    .middleware((args) => {
      const known = (parser as unknown as { getOptions(): { boolean: string[]; array: string[] } }).getOptions();
      // An option no command has: said first, with the closest one (yargs would complain about a
      // missing file or value first, or take the option for a value).
      const names = optionNames(parser);
      const unknown = unknownOption(argv, new Set(names));
      if (unknown !== null) throw usageError(`Unknown argument: ${unknown}`, argv, names);
      // yargs quietly falls back to a default when a flag is given without its value (`--seeds`).
      const missing = flagWithoutValue(argv, new Set(known.boolean));
      if (missing) throw new InputError(`--${missing}`, "", "expected a value after it, found none");
      // yargs makes a list of an option given twice; only list options (--bug-probability) take one.
      const repeated = Object.entries(args).find(
        ([key, value]) => Array.isArray(value) && key !== "_" && !known.array.includes(key) && !/[A-Z]/.test(key),
      );
      if (repeated)
        throw new InputError(
          `--${repeated[0]}`,
          "",
          `expected it once, found it ${(repeated[1] as unknown[]).length} times`,
        );
    }, true)
    .demandCommand(1, "")
    .recommendCommands()
    .fail((message, error) => {
      // yargs' own complaints (YError, e.g. a requiresArg option without its value) are usage errors too.
      if (error && error.name !== "YError") throw error;
      // An unknown option is said before what it caused (a missing file taken as its value).
      const names = optionNames(parser);
      const unknown = unknownOption(argv, new Set(names));
      throw usageError(
        unknown !== null ? `Unknown argument: ${unknown}` : (message ?? error?.message ?? ""),
        argv,
        names,
      );
    })
    .help()
    .wrap(Math.min(110, outputWidth() ?? 110))
    .parseAsync();
  return code;
}

/** The short flags every command takes, as their long names: -h is --help, -V --version (before `--`). */
const SHORT_FLAGS: Readonly<Record<string, string>> = { "-h": "--help", "-V": "--version" };

/** Every example command line --help shows, by command (so a test can run each through the parser). */
export function helpExamples(): { command: string; line: string }[] {
  return COMMAND_TABLE.flatMap((c) => c.examples.map(([line]) => ({ command: c.name, line })));
}

function withShortFlags(argv: readonly string[]): string[] {
  const end = argv.indexOf("--");
  // Own keys only: "toString" is an argument, not Object.prototype's method.
  return argv.map((token, i) =>
    (end >= 0 && i > end) || !Object.hasOwn(SHORT_FLAGS, token) ? token : (SHORT_FLAGS[token] as string),
  );
}

/**
 * yargs lays out the whole help text of a command before running it (`cacheHelpMessage`), to show
 * it should the command fail later; laying it out (string widths, wrapping) costs 60-100 ms of CPU.
 * eosfuzz never shows help on a failure (its `fail` throws one InputError line), so the text is
 * laid out only when --help asks for it.
 */
function skipHelpCache(parser: Argv): void {
  // yargs' internals (18.x): a yargs without them keeps its cache, and eosfuzz works as before.
  const internal = parser as unknown as {
    getInternalMethods?(): { getUsageInstance?(): { cacheHelpMessage?(): void } };
  };
  const usage = internal.getInternalMethods?.().getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === "function") usage.cacheHelpMessage = () => {};
}

/**
 * The modules of the commands the command line names. A word that names a command anywhere (even
 * as an option's value) loads it: loading one too many costs a little time, one too few would
 * leave yargs a command without options.
 */
async function loadNamedCommands(argv: readonly string[]): Promise<Map<CommandName, CommandModule>> {
  const named = COMMAND_TABLE.filter((c) => argv.includes(c.name));
  const modules = await Promise.all(named.map((c) => c.load()));
  return new Map(named.map((c, i) => [c.name, modules[i] as CommandModule]));
}

/** The handler of a command whose module was not loaded: yargs runs only a command named in argv. */
function notLoaded(name: CommandName): CommandHandler {
  return () => {
    throw new Error(`eosfuzz ${name} ran without its module loaded`);
  };
}

/**
 * `-_`, `--_` and `--$0` would overwrite the parser's own keys (the positional list, the program
 * name) before strict mode could refuse them: refused up front. Stops at `--` like the parser.
 */
function namesParserKey(token: string, i: number, argv: readonly string[]): boolean {
  if (argv.slice(0, i).includes("--")) return false;
  const name = token.split("=")[0] ?? "";
  if (/^--(no-)?(_|\$0)$/.test(name)) return true;
  const negativeNumber = /^-\d+(\.\d+)?([eE][+-]?\d+)?$/.test(name);
  return /^-[^-]/.test(name) && !negativeNumber && /[_$]/.test(name);
}

/** The first `--name` on the command line that names no option known here (before `--`). */
export function unknownOption(argv: readonly string[], known: ReadonlySet<string>): string | null {
  for (const token of argv) {
    if (token === "--") break;
    const match = /^--([^=]+)/.exec(token);
    if (!match) continue;
    const name = match[1] as string;
    if (known.has(name) || (name.startsWith("no-") && known.has(name.slice(3)))) continue;
    return name;
  }
  return null;
}

/** Options that mean something given bare (`--out`: the default report directory). */
const BARE_OPTIONS = new Set(["out", "save-failures"]);

/** The first non-boolean option written without a value (`--seeds` last, or followed by another option). */
export function flagWithoutValue(argv: readonly string[], booleans: ReadonlySet<string>): string | null {
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (token === "--") break;
    const match = /^--([^=]+)(=?)(.*)$/.exec(token);
    if (!match) continue;
    const name = match[1] as string;
    if (booleans.has(name) || name.startsWith("no-") || BARE_OPTIONS.has(name)) continue;
    const next = argv[i + 1];
    const bare =
      match[2] === "=" ? match[3] === "" : next === undefined || (next.startsWith("-") && !/^-\d/.test(next));
    if (bare) return name;
  }
  return null;
}

/** The long options the parser knows at this point (the command's own, once a command is chosen). */
function optionNames(parser: Argv): string[] {
  const options = (parser as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions();
  return Object.keys(options.key).filter((k) => k.length > 1 && !/[A-Z_$]/.test(k));
}

/** The known option closest to an unknown one, if it is close enough to be a typo (or a prefix of it). */
export function closestOption(unknown: string, known: readonly string[]): string | null {
  let best: { name: string; distance: number } | null = null;
  for (const name of known) {
    const distance = name.startsWith(unknown) && unknown.length >= 3 ? 0.5 : editDistance(unknown, name);
    if (!best || distance < best.distance) best = { name, distance };
  }
  if (!best) return null;
  return best.distance <= Math.max(1, Math.floor(unknown.length / 3)) ? best.name : null;
}

/** yargs' complaint about the command line as one InputError line: what is wrong, what was expected. */
export function usageError(message: string, argv: readonly string[], known: readonly string[] = []): InputError {
  const command = COMMANDS.find((c) => c === argv[0]);
  const help = command ? `eosfuzz ${command} --help` : "eosfuzz --help";
  const first = message.split("\n")[0] ?? "";
  const unknown = /^Unknown arguments?: (.+)$/.exec(first);
  if (unknown) {
    const name = (unknown[1] as string).split(", ")[0] as string;
    const asOption = argv.some(
      (a) => a === `--${name}` || a === `-${name}` || a.startsWith(`--${name}=`) || a === `--no-${name}`,
    );
    if (asOption || !command) {
      if (!asOption)
        return new InputError(name, "", `expected a command (${COMMANDS.join(", ")}), found an unknown one`);
      const suggestion = closestOption(name, known);
      const of = command ? ` of eosfuzz ${command}` : "";
      const shown = /^[\w.-]+$/.test(name) ? `--${name}` : JSON.stringify(`--${name}`);
      return new InputError(
        "",
        "",
        suggestion
          ? `unknown option ${shown}${of}, did you mean --${suggestion}? (see ${help})`
          : `unknown option ${shown}${of} (see ${help} for its options)`,
      );
    }
    return new InputError(
      name,
      "",
      `expected no further argument to eosfuzz ${command} (see ${help}), found an extra one`,
    );
  }
  if (first === "")
    return new InputError("command line", "", `expected a command (${COMMANDS.join(", ")}), found none`);
  const typo = /^Did you mean (.+)\?$/.exec(first);
  const word = argv.find((a) => !a.startsWith("-")) ?? argv[0] ?? "command line";
  if (typo)
    return new InputError(
      word,
      "",
      `expected a command (${COMMANDS.join(", ")}), found an unknown one (did you mean ${typo[1]}?)`,
    );
  const missing = /^Not enough non-option arguments: got (\d+), need at least (\d+)$/.exec(first);
  if (missing)
    return new InputError(
      `eosfuzz ${command ?? ""}`.trim(),
      "",
      `expected ${missing[2]} file argument${missing[2] === "1" ? "" : "s"} (see ${help}), found ${missing[1]}`,
    );
  const noValue = /^(?:Not enough arguments following|Missing required argument): (.+)$/.exec(first);
  if (noValue) return new InputError(`--${noValue[1]}`, "", "expected a value after it, found none");
  return new InputError(
    command ? `eosfuzz ${command}` : "eosfuzz",
    "",
    `expected valid arguments (see ${help}), found a problem: ${first}`,
  );
}
