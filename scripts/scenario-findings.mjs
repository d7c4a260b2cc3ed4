#!/usr/bin/env node
// The "What each scenario finds" rows of docs/scenarios.md: for every built-in fuzzed scenario,
// over seeds 0..N-1 (default 500), how many seeds showed each violation kind, with the first
// such seed in brackets. Exact: the same on any machine. Prints one markdown row per scenario.
//
//   npm run build && node scripts/scenario-findings.mjs [SEEDS] > /tmp/rows.md
import { builtinScenarioNames, loadScenario, runCampaign } from "../dist/index.js";

const seeds = Number(process.argv[2] ?? 500);
for (const name of builtinScenarioNames()) {
  const loaded = loadScenario(name);
  if (loaded.scenario.script) continue; // scripted scenarios run one schedule, not seeds
  const r = runCampaign(loaded, { seeds, seedStart: 0 });
  const byKind = new Map();
  for (const v of r.violations) {
    const entry = byKind.get(v.kind) ?? { seeds: new Set(), first: v.seed };
    entry.seeds.add(v.seed);
    entry.first = Math.min(entry.first, v.seed);
    byKind.set(v.kind, entry);
  }
  const kinds = [...byKind.entries()]
    .sort((a, b) => b[1].seeds.size - a[1].seeds.size || a[0].localeCompare(b[0]))
    .map(([kind, e]) => `${kind} ${e.seeds.size} (${e.first})`);
  console.log(`| \`${name}\` | ${kinds.length === 0 ? "clean" : kinds.join(", ")} |`);
}
