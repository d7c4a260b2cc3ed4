import chalk from "chalk";
import type { Argv } from "yargs";
import { runCampaign } from "../../fuzz/search/run-campaign.js";
import { EQUIVALENT_MUTANTS, MUTANTS } from "../../fuzz/catalogue/mutants.js";
import { InputError } from "../../common/input-error.js";
import { resolveScenario } from "../../scenario/loader.js";
import { EXIT } from "../errors.js";

export interface MutantsArgs {
  json: boolean;
  "check-equivalent"?: number;
}

export function mutantsBuilder(y: Argv): Argv<MutantsArgs> {
  return y
    .option("json", { type: "boolean", default: false, describe: "print one JSON array on stdout and nothing else" })
    .option("check-equivalent", {
      type: "number",
      describe: "run each equivalent candidate over this many seeds of its scenario; exit 1 if one shows a violation",
    }) as unknown as Argv<MutantsArgs>;
}

/** Re-measure the equivalence claims: each candidate must stay clean where the catalog says it does. */
function checkEquivalent(seeds: number): number {
  if (!Number.isInteger(seeds) || seeds < 1 || seeds > 1_000_000)
    throw new InputError("--check-equivalent", "", `expected an integer in [1, 1000000], found ${seeds}`);
  let escaped = 0;
  for (const e of EQUIVALENT_MUTANTS) {
    const r = runCampaign(resolveScenario(e.scenario), { seeds, seedStart: 0, overrides: e.overrides });
    const kinds = [...new Set(r.violations.map((v) => v.kind))];
    if (kinds.length > 0) escaped++;
    const verdict =
      kinds.length === 0
        ? chalk.green("no violation: equivalent here")
        : chalk.red(`NOT equivalent: ${kinds.join(", ")} (first at seed ${r.violations[0]?.seed})`);
    process.stdout.write(`  ${e.name.padEnd(36)} ${e.scenario.padEnd(24)} ${r.seedsRun} seeds  ${verdict}\n`);
  }
  return escaped === 0 ? EXIT.ok : EXIT.unexpected;
}

/** The public shape of one mutant (`eosfuzz mutants --json`). */
export function mutantsJson(): {
  name: string;
  description: string;
  scenario: string;
  expectedKinds: string[];
  budget: number;
  overrides: Record<string, unknown>;
}[] {
  return MUTANTS.map((m) => ({
    name: m.name,
    description: m.description,
    scenario: m.scenario,
    expectedKinds: [...m.expectedKinds],
    budget: m.budget,
    overrides: { ...m.overrides },
  }));
}

/** `eosfuzz mutants`: the catalog of deliberately broken variants, and the equivalent ones found. */
export function mutantsCommand(args: MutantsArgs): number {
  if (args["check-equivalent"] !== undefined) return checkEquivalent(args["check-equivalent"]);
  if (args.json) {
    process.stdout.write(`${JSON.stringify(mutantsJson())}\n`);
    return EXIT.ok;
  }
  const out: string[] = [
    chalk.bold(`${MUTANTS.length} mutants`) + chalk.dim("  (run one: eosfuzz run --mutant NAME)"),
    "",
  ];
  for (const m of MUTANTS) {
    out.push(`  ${chalk.yellow(m.name)}`);
    out.push(`    ${m.description}`);
    out.push(
      chalk.dim(
        `    caught in ${m.scenario} within ${m.budget} seeds by ${m.expectedKinds.join(" | ")}; flags ${JSON.stringify(m.overrides)}`,
      ),
    );
  }
  out.push("", chalk.bold("equivalent candidates (another Kafka defence covers them; not listed above)"), "");
  for (const e of EQUIVALENT_MUTANTS) {
    out.push(`  ${e.name} ${chalk.dim(`${JSON.stringify(e.overrides)} in ${e.scenario}`)}`);
    out.push(`    ${e.why}`);
  }
  process.stdout.write(`${out.join("\n")}\n`);
  return EXIT.ok;
}
