import { performance } from "node:perf_hooks";
import chalk from "chalk";
import type { Argv } from "yargs";
import { BUG_HISTORY, findBug, type HistoricalBug, isModelled } from "../../fuzz/bug-history.js";
import {
  type BugOutcome,
  benchmarkPassed,
  DEFAULT_BUG_BUDGET,
  GENERIC_BUG_SCENARIO,
  runBug,
} from "../../fuzz/bug-history-run.js";
import type { CampaignResult } from "../../fuzz/campaign.js";
import { InputError } from "../../common/input-error.js";
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

function listBugs(json: boolean): number {
  if (json) {
    process.stdout.write(`${JSON.stringify(BUG_HISTORY.map(bugJson))}\n`);
    return EXIT.ok;
  }
  const modelled = BUG_HISTORY.filter(isModelled).length;
  const out = [
    chalk.bold(`${BUG_HISTORY.length} historical Kafka transaction bugs, ${modelled} modelled`) +
      chalk.dim("  (run them: eosfuzz bugs run [ID...])"),
    "",
  ];
  for (const b of BUG_HISTORY) {
    const where = isModelled(b)
      ? `${b.scenario}, ${JSON.stringify(b.bug)}${b.expectFound ? "" : ", not expected found"}`
      : chalk.dim(`not modelled: ${b.missing ?? "no flag yet"}`);
    out.push(`  ${chalk.yellow(b.id)} ${b.kafka.padEnd(28)} ${b.symptom.padEnd(16)} ${b.title}`);
    out.push(`      ${chalk.dim(`${b.flag}; ${b.kinds.join(" | ") || "no kind"}`)}; ${where}`);
  }
  process.stdout.write(`${out.join("\n")}\n`);
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

/** One row of the human table. */
function row(o: BugOutcome, generic: boolean): string {
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
  if (o.why) lines.push(chalk.dim(`      ${o.why}`));
  return lines.join("\n");
}

function runBugs(ids: readonly string[], args: BugsArgs): number {
  const budgetSeeds = checkedInteger("budget-seeds", args["budget-seeds"], 1, 1_000_000);
  const shrinkBudgetMs = checkedInteger("shrink-budget-ms", args["shrink-budget-ms"], 0, 600_000);
  const bugs = selectBugs(ids);
  const outcomes: BugOutcome[] = [];
  const baselines = new Map<string, CampaignResult>();
  for (const bug of bugs) {
    const o = runBug(bug, {
      budgetSeeds,
      shrinkBudgetMs,
      now: () => performance.now(),
      generic: args.generic,
      baselines,
    });
    outcomes.push(o);
    if (!args.json) process.stdout.write(`${row(o, args.generic)}\n`);
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
