// A behaviour fingerprint of the model, for checking that a performance change changed nothing a
// user can observe: for every built-in scenario and every mutant, the trace hash, violations and
// stats of a range of seeds; for a few seeds, the full recorded trace (with its display-only
// annotations), the choice tape, and the replay of that tape. Prints one digest per group and an
// overall digest; `--out FILE` also writes every line, so two fingerprints can be diffed.
//
//   npm run build && npx tsc -p bench/tsconfig.json && node dist-bench/fingerprint.js [--seeds N] [--out FILE]
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { runConfigFor } from "../dist/fuzz/campaign.js";
import { EQUIVALENT_MUTANTS, MUTANTS } from "../dist/fuzz/mutants.js";
import { type RunConfig, runSeed } from "../dist/fuzz/run-seed.js";
import { builtinScenarioNames, resolveScenario } from "../dist/scenario/loader.js";

function argValue(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : fallback;
}

const seeds = Number(argValue("--seeds", "60"));
const out = argValue("--out", "");
/** Seeds whose full trace, tape and tape replay are compared too (recording is slower). */
const RECORDED_SEEDS = 3;

const lines: string[] = [];
const digests: string[] = [];

function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

function fingerprintGroup(label: string, config: RunConfig, count: number): void {
  const group: string[] = [];
  for (let seed = 0; seed < count; seed++) {
    const r = runSeed(config, { seed });
    group.push(`${label} seed ${seed} ${r.traceHash} ${JSON.stringify(r.stats)} ${JSON.stringify(r.violations)}`);
  }
  for (let seed = 0; seed < Math.min(RECORDED_SEEDS, count); seed++) {
    const recorded = runSeed(config, { seed }, { recordTape: true, recordTrace: true });
    const replayed = runSeed(config, { tape: recorded.tape ?? {} }, { recordTrace: true });
    group.push(
      `${label} recorded ${seed} ${recorded.traceHash} trace ${digest(JSON.stringify(recorded.trace))} tape ${digest(JSON.stringify(recorded.tape))}`,
    );
    group.push(
      `${label} replayed ${seed} ${replayed.traceHash} trace ${digest(JSON.stringify(replayed.trace))} ${digest(JSON.stringify(replayed.violations))}`,
    );
  }
  lines.push(...group);
  const d = digest(group.join("\n"));
  digests.push(d);
  process.stdout.write(`${label.padEnd(48)} ${d}\n`);
}

for (const name of builtinScenarioNames()) {
  const loaded = resolveScenario(name);
  fingerprintGroup(name, runConfigFor(loaded), loaded.scenario.script ? Math.min(seeds, 5) : seeds);
}
for (const m of [...MUTANTS, ...EQUIVALENT_MUTANTS]) {
  fingerprintGroup(`mutant ${m.name}`, runConfigFor(resolveScenario(m.scenario), m.overrides), Math.ceil(seeds / 3));
}
process.stdout.write(`${"overall".padEnd(48)} ${digest(digests.join("\n"))}\n`);
if (out) writeFileSync(out, `${lines.join("\n")}\n`);
