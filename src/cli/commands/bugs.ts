import { performance } from "node:perf_hooks";
import chalk from "chalk";
import Table from "cli-table3";
import type { Argv } from "yargs";
import { BUG_HISTORY, findBug, type HistoricalBug, isModelled } from "../../fuzz/catalogue/bug-history.js";
import {
  type BugOutcome,
  benchmarkPassed,
  DEFAULT_BUG_BUDGET,
  GENERIC_BUG_SCENARIO,
  runBug,
} from "../../fuzz/catalogue/bug-history-run.js";
import type { CampaignResult } from "../../fuzz/campaign/campaign.js";
import { InputError } from "../../common/input-error.js";
import { writeFileAtomic } from "../../common/write-files.js";
import { shellWord } from "../../fuzz/search/replay-commands.js";
import { fitted, outputWidth } from "../../report/terminal-width.js";
import { temporaryTapeDir } from "./run.js";
import { EXIT } from "../errors.js";

export interface BugsArgs {
  words?: string[];
  json: boolean;
  "budget-seeds": number;
  "shrink-budget-ms": number;
  generic: boolean;
}

export function bugsBuilder(y: Argv): Argv<BugsArgs> {
  return y
    .positional("words", {
      type: "string",
      array: true,
      describe: "nothing (list the catalogue), or run followed by bug ids (Z14, KAFKA-19446; none = every bug)",
    })
    .option("json", { type: "boolean", default: false, describe: "print one JSON array on stdout and nothing else" })
    .option("budget-seeds", {
      type: "number",
      default: DEFAULT_BUG_BUDGET,
      describe: "seeds per bug and per side (bug on, bug off)",
    })
    .option("generic", {
      type: "boolean",
      default: false,
      describe: `run every bug on the one generic scenario (${GENERIC_BUG_SCENARIO}) instead of its own`,
    })
    .option("shrink-budget-ms", {
      type: "number",
      default: 2_000,
      describe: "wall clock to shrink each bug's first finding (0: no shrink)",
    }) as unknown as Argv<BugsArgs>;
}

/** The public shape of one catalogue entry (`eosfuzz bugs --json`). */
function bugJson(b: HistoricalBug): Record<string, unknown> {
  return {
    id: b.id,
    kafka: b.kafka,
    prs: [...b.prs],
    title: b.title,
    symptom: b.symptom,
    kinds: [...b.kinds],
    needs: [...b.needs],
    flag: b.flag,
    overrides: b.bug ? { ...b.bug } : null,
    fixedOverrides: b.fixed ? { ...b.fixed } : null,
    scenario: b.scenario ?? null,
    modelled: isModelled(b),
    expectFound: b.expectFound,
    missing: b.missing ?? null,
  };
}

/** Words people use in these flags' names, spelt out ("tcTimeoutAbortKeepsEpoch": "coordinator: timeout abort keeps epoch"). */
const FLAG_WORDS: Readonly<Record<string, string>> = {
  tc: "coordinator:",
  tlog: "transaction log",
  tv2: "TV2",
  tv1: "TV1",
  pid: "producer id",
  txn: "transaction",
  end: "end",
  psm: "producer state",
};

/** A release flag's name as words: camelCase split, abbreviations spelt out, numbers kept. */
export function readableFlag(name: string): string {
  return name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/([0-9])([A-Z])/g, "$1 $2")
    .split(" ")
    .map((word) => FLAG_WORDS[word.toLowerCase()] ?? word.toLowerCase())
    .join(" ");
}

/** A bug's flag overrides, in words: "coordinator: timeout abort keeps epoch on". */
function readableOverrides(overrides: Readonly<Record<string, unknown>>): string {
  return Object.entries(overrides)
    .map(([flag, value]) => `${readableFlag(flag)} ${value === true ? "on" : value === false ? "off" : String(value)}`)
    .join(", ");
}

function listBugs(json: boolean): number {
  if (json) {
    process.stdout.write(`${JSON.stringify(BUG_HISTORY.map(bugJson))}\n`);
    return EXIT.ok;
  }
  const modelled = BUG_HISTORY.filter(isModelled).length;
  // A table is sized when drawn: to the terminal, else to a width a log or a pager shows whole.
  const width = outputWidth() ?? 120;
  const head = ["id", "Kafka", "symptom", "the bug", "brought back by"];
  // The two text columns share what the terminal leaves (whole lines in a pipe).
  // Each Kafka ticket stays whole (what a reader searches for), one to a line; the text columns wrap.
  const kafka = Math.max(...BUG_HISTORY.flatMap((b) => b.kafka.split(" ").map((w) => w.length))) + 3;
  const fixed = 5 + kafka + 18 + 6 + 2;
  const room = Math.max(40, width - fixed);
  const table = new Table({
    head,
    style: { head: [], border: [] },
    wordWrap: true,
    colWidths: [5, kafka, 18, Math.floor(room / 2), room - Math.floor(room / 2)],
  });
  for (const b of BUG_HISTORY) {
    const how = isModelled(b)
      ? `${b.scenario} with ${readableOverrides(b.bug ?? {})}; shows as ${b.kinds.join(" or ") || "no kind"}${b.expectFound ? "" : " (not expected found)"}`
      : chalk.dim(`not modelled: ${b.missing ?? "no flag yet"}`);
    table.push([chalk.yellow(b.id), b.kafka, b.symptom, b.title, how]);
  }
  process.stdout.write(
    fitted(
      `${chalk.bold(`${BUG_HISTORY.length} historical Kafka transaction bugs, ${modelled} modelled`)}${chalk.dim("  (run them: eosfuzz bugs run [ID...])")}\n\n${table.toString()}\n`,
    ),
  );
  return EXIT.ok;
}

function checkedInteger(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new InputError(`--${name}`, "", `expected an integer in [${min}, ${max}], found ${value}`);
  return value;
}

function selectBugs(ids: readonly string[]): HistoricalBug[] {
  if (ids.length === 0) return [...BUG_HISTORY];
  return ids.map((id) => {
    const bug = findBug(id);
    if (!bug)
      throw new InputError(
        id,
        "",
        `expected a bug id (Z01..Z${BUG_HISTORY.length} or a KAFKA id), found an unknown one`,
      );
    return bug;
  });
}

/** One bug's outcome, with where its shrunk tape was saved. */
type SavedOutcome = Omit<BugOutcome, "shrunkFile"> & { savedTo: string | null };

/** One row of the human table. */
function row(o: SavedOutcome, generic: boolean): string {
  const verdict = !o.modelled
    ? chalk.dim(o.why?.startsWith("flag only") ? "no scenario" : "not modelled")
    : o.found
      ? chalk.green("found")
      : o.expectFound && !generic
        ? chalk.red("MISSED")
        : chalk.yellow("not found");
  const first =
    o.firstSeed === null
      ? "-"
      : `seed ${o.firstSeed} (${o.seedsOn} run${o.seedsOn === 1 ? "" : "s"}, ${o.timeToFirstMs} ms)`;
  const shrunk = o.shrunkSteps === null ? "" : `, shrunk to ${o.shrunkSteps} steps`;
  const head = `  ${o.id} ${o.kafka.padEnd(28)} ${o.symptom.padEnd(16)} ${verdict}`;
  const detail = o.modelled
    ? `${o.scenario}: first ${first}${shrunk}; off: ${o.seedsOff} seeds, ${o.symptomSeedsOff} with the symptom`
    : "";
  const lines = [head];
  if (detail) lines.push(chalk.dim(`      ${detail}`));
  if (o.found && o.explanation) lines.push(`      ${o.explanation}`);
  if (o.story) lines.push("      the shrunk failure:", ...o.story.map((step) => `        ${step}`));
  if (o.savedTo) lines.push(`      replay it: eosfuzz replay ${shellWord(o.savedTo)}`);
  if (o.why) lines.push(chalk.dim(`      ${o.why}`));
  return lines.join("\n");
}

function runBugs(ids: readonly string[], args: BugsArgs): number {
  const budgetSeeds = checkedInteger("budget-seeds", args["budget-seeds"], 1, 1_000_000);
  const shrinkBudgetMs = checkedInteger("shrink-budget-ms", args["shrink-budget-ms"], 0, 600_000);
  const bugs = selectBugs(ids);
  const outcomes: SavedOutcome[] = [];
  const baselines = new Map<string, CampaignResult>();
  // Each shrunk failure is saved as a tape, as a run's is, so that its replay command works.
  const saveDir = temporaryTapeDir();
  for (const bug of bugs) {
    const { shrunkFile, ...o } = runBug(bug, {
      budgetSeeds,
      shrinkBudgetMs,
      now: () => performance.now(),
      generic: args.generic,
      baselines,
      saveDir,
    });
    let savedTo: string | null = null;
    if (shrunkFile) {
      try {
        writeFileAtomic(shrunkFile.path, shrunkFile.content, "the shrunk tape");
        savedTo = shrunkFile.path;
      } catch (e) {
        process.stderr.write(`eosfuzz: the shrunk failure of ${o.id} was not saved: ${(e as Error).message}\n`);
      }
    }
    const saved = { ...o, savedTo };
    outcomes.push(saved);
    if (!args.json) process.stdout.write(`${fitted(row(saved, args.generic))}\n`);
  }
  // The catalogue's expectations are for each bug's own scenario; the generic run is a measurement.
  const passed = args.generic || benchmarkPassed(outcomes);
  if (args.json) process.stdout.write(`${JSON.stringify(outcomes)}\n`);
  else {
    const modelled = outcomes.filter((o) => o.modelled).length;
    const found = outcomes.filter((o) => o.found).length;
    const expected = outcomes.filter((o) => o.expectFound).length;
    const expectedFound = outcomes.filter((o) => o.expectFound && o.found).length;
    const where = args.generic ? ` on ${GENERIC_BUG_SCENARIO}` : "";
    const verdict = args.generic
      ? "(the catalogue expects its own scenarios)"
      : `${expectedFound} of the ${expected} expected found ${passed ? chalk.green("(pass)") : chalk.red("(FAIL)")}`;
    process.stdout.write(
      `\n${chalk.bold(`${found} of ${outcomes.length} found`)}${where} within ${budgetSeeds} seeds each (${modelled} modelled); ${verdict}\n`,
    );
  }
  return passed ? EXIT.ok : EXIT.unexpected;
}

/** `eosfuzz bugs` lists Kafka's bug history; `eosfuzz bugs run [ID...]` rediscovers it blind. */
export function bugsCommand(args: BugsArgs): number {
  const [action, ...ids] = args.words ?? [];
  if (action === undefined) return listBugs(args.json);
  if (action !== "run")
    throw new InputError(
      action,
      "",
      "expected nothing (list the bugs) or run followed by bug ids, found an unknown word",
    );
  return runBugs(ids, args);
}
