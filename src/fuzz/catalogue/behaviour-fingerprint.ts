import { createHash } from "node:crypto";
import { builtinScenarioNames, resolveScenario } from "../../scenario/loader.js";
import { runConfigFor } from "../campaign/campaign.js";
import { EQUIVALENT_MUTANTS, MUTANTS } from "./mutants.js";
import { type RunConfig, runSeed } from "../run/run-seed.js";

/**
 * The behaviour fingerprint of the model: for every built-in scenario and every mutant, the trace
 * hash, violations and stats of seeds 0..seeds-1; for the first few seeds, the full recorded trace
 * (display annotations included), the choice tape, and the replay of that tape. A refactoring must
 * leave every digest as it was; a change of behaviour changes the digests of the groups it touches,
 * and test/fuzz/behaviour-fingerprint{,-b}.test.ts hold the recorded digests to account (half each).
 */
export interface FingerprintGroup {
  readonly label: string;
  readonly digest: string;
  /** One line per seed run: what the digest is over, so two fingerprints can be diffed line by line. */
  readonly lines: readonly string[];
}

export interface Fingerprint {
  readonly seeds: number;
  readonly groups: readonly FingerprintGroup[];
  readonly overall: string;
}

/** Seeds whose full trace, tape and tape replay are compared too (recording is slower). */
const RECORDED_SEEDS = 3;
/** Scripted scenarios replay one story; a few seeds cover what their faults vary. */
const SCRIPTED_SEEDS = 5;

export function digestOf(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

export function fingerprintGroup(label: string, config: RunConfig, count: number): FingerprintGroup {
  const lines: string[] = [];
  for (let seed = 0; seed < count; seed++) {
    const r = runSeed(config, { seed });
    lines.push(`${label} seed ${seed} ${r.traceHash} ${JSON.stringify(r.stats)} ${JSON.stringify(r.violations)}`);
  }
  for (let seed = 0; seed < Math.min(RECORDED_SEEDS, count); seed++) {
    const recorded = runSeed(config, { seed }, { recordTape: true, recordTrace: true });
    const replayed = runSeed(config, { tape: recorded.tape ?? {} }, { recordTrace: true });
    lines.push(
      `${label} recorded ${seed} ${recorded.traceHash} trace ${digestOf(JSON.stringify(recorded.trace))} tape ${digestOf(JSON.stringify(recorded.tape))}`,
    );
    lines.push(
      `${label} replayed ${seed} ${replayed.traceHash} trace ${digestOf(JSON.stringify(replayed.trace))} ${digestOf(JSON.stringify(replayed.violations))}`,
    );
  }
  return { label, digest: digestOf(lines.join("\n")), lines };
}

/** The groups' labels in fingerprint order: every built-in scenario, then every mutant. */
export function fingerprintLabels(): string[] {
  return [...builtinScenarioNames(), ...[...MUTANTS, ...EQUIVALENT_MUTANTS].map((m) => `mutant ${m.name}`)];
}

/**
 * The fingerprint over `seeds` seeds per scenario (a third as many per mutant). `only` restricts it
 * to the groups of those labels (the overall digest is then over those alone).
 */
export function behaviourFingerprint(options: {
  seeds: number;
  only?: ReadonlySet<string>;
  onGroup?: (group: FingerprintGroup) => void;
}): Fingerprint {
  if (!Number.isInteger(options.seeds) || options.seeds < 1)
    throw new RangeError(`fingerprint seeds must be a positive integer, got ${options.seeds}`);
  const groups: FingerprintGroup[] = [];
  const add = (label: string, make: () => FingerprintGroup): void => {
    if (options.only && !options.only.has(label)) return;
    const group = make();
    groups.push(group);
    options.onGroup?.(group);
  };
  for (const name of builtinScenarioNames()) {
    add(name, () => {
      const loaded = resolveScenario(name);
      const count = loaded.scenario.script ? Math.min(options.seeds, SCRIPTED_SEEDS) : options.seeds;
      return fingerprintGroup(name, runConfigFor(loaded), count);
    });
  }
  for (const m of [...MUTANTS, ...EQUIVALENT_MUTANTS]) {
    const label = `mutant ${m.name}`;
    add(label, () =>
      fingerprintGroup(label, runConfigFor(resolveScenario(m.scenario), m.overrides), Math.ceil(options.seeds / 3)),
    );
  }
  return { seeds: options.seeds, groups, overall: digestOf(groups.map((g) => g.digest).join("\n")) };
}
