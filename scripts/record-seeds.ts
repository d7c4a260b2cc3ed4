// Re-records seeds/ (npm run seeds): for every scenario in scenarios/ that expects a violation,
// the first failing seed within its budget that shows an expected kind, as a seed file, and the
// same failure shrunk to its minimal schedule (a tape-only seed file; fuzzed scenarios only). Run it
// after a change to the model alters trace hashes (`eosfuzz regress` then reports "trace changed");
// `npm run seeds -- NAME...` re-records the named scenarios only.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { runCampaign } from "../src/fuzz/search/run-campaign.js";
import { failingSeedFiles } from "../src/fuzz/seeds/save-failures.js";
import { shrinkFirstFailure } from "../src/fuzz/shrink/shrink-first-failure.js";
import { BUILTIN_SCENARIO_DIR, builtinScenarioNames, resolveScenario } from "../src/scenario/loader.js";
import { writeFileAtomic } from "../src/common/write-files.js";

const root = join(import.meta.dirname, "..");
process.chdir(root);
const dir = "seeds";
// `npm run seeds -- NAME...` re-records only the named scenarios.
const only = process.argv.slice(2);
for (const name of builtinScenarioNames(BUILTIN_SCENARIO_DIR)) {
  if (only.length > 0 && !only.includes(name)) continue;
  const loaded = resolveScenario(name);
  const expect = loaded.scenario.expect;
  if (expect.find.length === 0) continue;
  const result = runCampaign(loaded, { seeds: expect.within ?? loaded.scenario.seeds, seedStart: 0 });
  const seed = result.violations.find((v) => expect.find.includes(v.kind))?.seed;
  if (seed === undefined) {
    process.stderr.write(`${name}: no failing seed within its budget; left its seed files alone\n`);
    continue;
  }
  for (const old of readdirSync(dir).filter((f) => f.startsWith(`${name}.seed-`) || f.startsWith(`${name}.tape-`))) rmSync(join(dir, old));
  const single = { ...result, failingSeeds: [seed], violations: result.violations.filter((v) => v.seed === seed) };
  for (const f of failingSeedFiles(single, dir)) {
    writeFileAtomic(f.path, f.content);
    process.stdout.write(`${f.path}: ${f.kinds.join(", ")}\n`);
  }
  if (loaded.scenario.script) continue; // a script is its own minimal schedule
  const shrunk = shrinkFirstFailure(single, { budgetMs: 60_000, saveDir: dir });
  if (!shrunk?.seedFile) continue;
  writeFileAtomic(shrunk.seedFile.path, shrunk.seedFile.content);
  process.stdout.write(`${shrunk.seedFile.path}: ${shrunk.summary.kind} shrunk from ${shrunk.summary.before.events} to ${shrunk.summary.after.events} events\n`);
}
