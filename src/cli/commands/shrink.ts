import type { Argv } from "yargs";
import {
  DEFAULT_SHRINK_BUDGET_MS,
  defaultShrunkPath,
  shrinkSeedFile,
  shrunkSeedFile,
} from "../../fuzz/shrink/shrink-seed.js";
import { readSeedFile, renderSeedFile } from "../../fuzz/seeds/seed-file.js";
import type { ReleaseFlags } from "../../kafka/release.js";
import { shellWord } from "../../fuzz/search/replay-commands.js";
import { renderShrink, shrinkFurtherCommand } from "../../report/shrink-render.js";
import { fitted } from "../../report/terminal-width.js";
import { writeFileAtomic } from "../../common/write-files.js";
import { InputError } from "../../common/input-error.js";
import { EXIT } from "../errors.js";

export interface ShrinkArgs {
  file: string;
  out?: string;
  "budget-ms": number;
  json: boolean;
}

export function shrinkBuilder(y: Argv): Argv<ShrinkArgs> {
  return y
    .positional("file", { type: "string", demandOption: true, describe: "a seed file (from run --save-failures)" })
    .option("out", { type: "string", describe: "where to write the shrunk seed file (default: next to FILE)" })
    .option("budget-ms", {
      type: "number",
      default: DEFAULT_SHRINK_BUDGET_MS,
      describe: "wall-clock budget; the best result so far is kept when it runs out",
    })
    .option("json", {
      type: "boolean",
      default: false,
      describe: "print one JSON object on stdout and nothing else",
    }) as unknown as Argv<ShrinkArgs>;
}

/** `eosfuzz shrink FILE`: shrink a saved failure to its minimal schedule and save it as a seed file. */
export function shrinkCommand(args: ShrinkArgs): number {
  const budget = args["budget-ms"];
  if (!Number.isInteger(budget) || budget < 1 || budget > 86_400_000) {
    throw new InputError(
      "--budget-ms",
      "",
      `expected an integer in [1, 86400000], found ${Number.isNaN(budget) ? "not a number" : budget}`,
    );
  }
  const loaded = readSeedFile(args.file);
  let summary: ReturnType<typeof shrinkSeedFile>;
  try {
    summary = shrinkSeedFile(loaded, budget);
  } catch (e) {
    if (!/does not show/.test((e as Error).message)) throw e;
    process.stderr.write(
      `eosfuzz: ${args.file}: the recorded failure does not reproduce (${(e as Error).message}); replay it to see where it diverges\n`,
    );
    return EXIT.unexpected;
  }
  const path = args.out ?? defaultShrunkPath(args.file, summary, loaded.seedFile.mutant);
  const seedFile = shrunkSeedFile(
    summary,
    loaded.seedFile.overrides as Partial<ReleaseFlags>,
    loaded.seedFile.mutant,
    path,
  );
  writeFileAtomic(path, renderSeedFile(seedFile), "the shrunk seed file");
  if (args.json) {
    const { scenario, ...rest } = summary;
    process.stdout.write(
      `${JSON.stringify({ ...rest, scenario: scenario.scenario.name, scenarioHash: scenario.contentHash, savedTo: path })}\n`,
    );
  } else {
    process.stdout.write(
      fitted(
        `${renderShrink(summary, { savedTo: path, shrinkFurther: shrinkFurtherCommand(path, budget) })}\n\n  replay it: eosfuzz replay ${shellWord(path)}\n`,
      ),
    );
  }
  return summary.deterministic ? EXIT.ok : EXIT.unexpected;
}
