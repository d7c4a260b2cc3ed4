import chalk from "chalk";
import type { Argv } from "yargs";
import { EQUIVALENT_MUTANTS, MUTANTS } from "../../fuzz/mutants.js";
import { EXIT } from "../errors.js";

export interface MutantsArgs {
  json: boolean;
}

export function mutantsBuilder(y: Argv): Argv<MutantsArgs> {
  return y.option("json", { type: "boolean", default: false, describe: "print one JSON array on stdout and nothing else" }) as unknown as Argv<MutantsArgs>;
}

/** The public shape of one mutant (`eosfuzz mutants --json`). */
export function mutantsJson(): { name: string; description: string; scenario: string; expectedKinds: string[]; budget: number; overrides: Record<string, unknown> }[] {
  return MUTANTS.map((m) => ({ name: m.name, description: m.description, scenario: m.scenario, expectedKinds: [...m.expectedKinds], budget: m.budget, overrides: { ...m.overrides } }));
}

/** `eosfuzz mutants`: the catalog of deliberately broken variants, and the equivalent ones found. */
export function mutantsCommand(args: MutantsArgs): number {
  if (args.json) {
    process.stdout.write(`${JSON.stringify(mutantsJson())}\n`);
    return EXIT.ok;
  }
  const out: string[] = [chalk.bold(`${MUTANTS.length} mutants`) + chalk.dim("  (run one: eosfuzz run --mutant NAME)"), ""];
  for (const m of MUTANTS) {
    out.push(`  ${chalk.yellow(m.name)}`);
    out.push(`    ${m.description}`);
    out.push(chalk.dim(`    caught in ${m.scenario} within ${m.budget} seeds by ${m.expectedKinds.join(" | ")}; flags ${JSON.stringify(m.overrides)}`));
  }
  out.push("", chalk.bold("equivalent candidates (another Kafka defence covers them; not listed above)"), "");
  for (const e of EQUIVALENT_MUTANTS) {
    out.push(`  ${e.name} ${chalk.dim(`${JSON.stringify(e.overrides)} in ${e.scenario}`)}`);
    out.push(`    ${e.why}`);
  }
  process.stdout.write(`${out.join("\n")}\n`);
  return EXIT.ok;
}
