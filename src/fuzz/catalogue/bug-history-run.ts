import type { ReleaseFlags } from "../../kafka/release.js";
import type { Violation, ViolationKind } from "../../oracle/violation.js";
import { canonicalJson, resolveScenario } from "../../scenario/loader.js";
import { type HistoricalBug, isModelled } from "./bug-history.js";
import type { CampaignResult } from "../campaign/campaign.js";
import type { SeededViolation } from "../campaign/seeded-violation.js";
import { runCampaign } from "../search/run-campaign.js";
import { isUnexpected } from "../campaign/expectation.js";
import { shrinkFirstFailure } from "../shrink/shrink-first-failure.js";

/** The default number of seeds each side of a bug gets (issue #18's budget). */
export const DEFAULT_BUG_BUDGET = 5_000;

export interface BugRunOptions {
  /** Seeds per side (bug on, bug off), from seed 0. */
  budgetSeeds: number;
  /** Wall-clock budget of the shrink of the first finding, in ms; 0 = no shrink. */
  shrinkBudgetMs: number;
  /** The caller's clock (ms), for the time to the first finding; the runner itself reads none. */
  now: () => number;
  /**
   * Run every bug on the one generic scenario (GENERIC_BUG_SCENARIO) instead of its own: a
   * violation counts only when that scenario's expectation forbids it (not what Kafka itself shows
   * under what the seed drew).
   */
  generic?: boolean;
  /**
   * Bug-off campaigns already run, by scenario, budget and overrides: on the generic scenario most
   * bugs share one baseline (no overrides), which then runs once.
   */
  baselines?: Map<string, CampaignResult>;
  /** Where the shrunk tape's seed file is to go (the caller writes it); null or absent: nowhere. */
  saveDir?: string | null;
}

/** The generic scenario of `eosfuzz bugs run --generic` (issue 31). */
export const GENERIC_BUG_SCENARIO = "everything";

/** One bug's line of the scorecard. */
export interface BugOutcome {
  id: string;
  kafka: string;
  symptom: string;
  kinds: ViolationKind[];
  scenario: string | null;
  expectFound: boolean;
  modelled: boolean;
  found: boolean;
  /** Bug on: seeds run until the first symptom (or the budget), the first symptom's seed, wall clock to it. */
  seedsOn: number;
  firstSeed: number | null;
  timeToFirstMs: number | null;
  /** Bug off: seeds run, and seeds showing one of the kinds (must be 0 to count as found). */
  seedsOff: number;
  symptomSeedsOff: number;
  /** Every kind each side showed, with the number of violations. */
  kindsOn: Record<string, number>;
  kindsOff: Record<string, number>;
  /** The first symptom, in one line (the shrunk failure's when it was shrunk). */
  explanation: string;
  /** Protocol steps of the shrunk failure's story, and its messages (null: not shrunk). */
  shrunkSteps: number | null;
  shrunkMessages: number | null;
  /** The shrunk failure's story, numbered protocol steps (null: not shrunk). */
  story: string[] | null;
  /** The shrunk tape's seed file, to write where the caller chose (null: not shrunk, or nowhere to save). */
  shrunkFile: { path: string; content: string } | null;
  /** Why the bug was not found, or is not modelled. */
  why: string | null;
}

function tally(violations: readonly SeededViolation[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of violations) out[v.kind] = (out[v.kind] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** A bug that cannot run: its line says what is missing. */
function notModelled(bug: HistoricalBug): BugOutcome {
  return {
    id: bug.id,
    kafka: bug.kafka,
    symptom: bug.symptom,
    kinds: [...bug.kinds],
    scenario: bug.scenario ?? null,
    expectFound: bug.expectFound,
    modelled: false,
    found: false,
    seedsOn: 0,
    firstSeed: null,
    timeToFirstMs: null,
    seedsOff: 0,
    symptomSeedsOff: 0,
    kindsOn: {},
    kindsOff: {},
    explanation: "",
    shrunkSteps: null,
    shrunkMessages: null,
    story: null,
    shrunkFile: null,
    why: `${bug.bug ? "flag only, no generic scenario reaches it" : "not modelled"}: ${bug.missing ?? "no flag yet"}`,
  };
}

/**
 * Run one bug: its scenario with the bug on until the first violation of its kinds or the budget,
 * then with the bug off over the same number of seeds. Found = on shows a kind, off shows none.
 */
export function runBug(bug: HistoricalBug, options: BugRunOptions): BugOutcome {
  if (!isModelled(bug)) return notModelled(bug);
  const scenario = options.generic ? GENERIC_BUG_SCENARIO : bug.scenario;
  const loaded = resolveScenario(scenario);
  const kinds = new Set<string>(bug.kinds);
  // On the generic scenario what Kafka itself shows under a seed's draw is not the bug's symptom.
  const symptom = (v: Violation) => kinds.has(v.kind) && (!options.generic || isUnexpected(loaded.scenario.expect, v));
  const shows = (violations: readonly Violation[]) => violations.some(symptom);
  const fixed: Partial<ReleaseFlags> = bug.fixed ?? {};
  const on: Partial<ReleaseFlags> = { ...fixed, ...bug.bug };
  const started = options.now();
  let timeToFirstMs: number | null = null;
  const withBug = runCampaign(loaded, {
    seeds: options.budgetSeeds,
    seedStart: 0,
    overrides: on,
    doneAfter: (r) => {
      if (!shows(r.violations)) return false;
      timeToFirstMs = Math.round(options.now() - started);
      return true;
    },
  });
  const first = withBug.violations.find(symptom) ?? null;
  const baselineKey = `${scenario} ${options.budgetSeeds} ${canonicalJson(fixed)}`;
  const withoutBug =
    options.baselines?.get(baselineKey) ??
    runCampaign(loaded, { seeds: options.budgetSeeds, seedStart: 0, overrides: fixed });
  options.baselines?.set(baselineKey, withoutBug);
  const symptomSeedsOff = new Set(withoutBug.violations.filter(symptom).map((v) => v.seed)).size;
  let explanation = first ? first.summary : "";
  let shrunkSteps: number | null = null;
  let shrunkMessages: number | null = null;
  let story: string[] | null = null;
  let shrunkFile: BugOutcome["shrunkFile"] = null;
  if (first && options.shrinkBudgetMs > 0) {
    // Shrink the first symptom itself, not whatever the same seed reported before it.
    const onlyFirst = { ...withBug, violations: [first] };
    const shrunk = shrinkFirstFailure(onlyFirst, {
      budgetMs: options.shrinkBudgetMs,
      saveDir: options.saveDir ?? null,
      overrides: on,
    });
    if (shrunk && shrunk.summary.kind === first.kind) {
      shrunkSteps = shrunk.summary.story.length;
      shrunkMessages = shrunk.summary.after.messages;
      explanation = shrunk.summary.violation.summary;
      story = shrunk.summary.story;
      shrunkFile = shrunk.seedFile;
    }
  }
  const found = first !== null && symptomSeedsOff === 0;
  let why: string | null = null;
  if (!first)
    why = `no ${bug.kinds.join(" | ")} in ${withBug.seedsRun} seeds of ${scenario}${bug.missing && !options.generic ? `: ${bug.missing}` : ""}`;
  else if (symptomSeedsOff > 0)
    why = `the bug-off run shows the symptom too (${symptomSeedsOff} of ${withoutBug.seedsRun} seeds)`;
  return {
    id: bug.id,
    kafka: bug.kafka,
    symptom: bug.symptom,
    kinds: [...bug.kinds],
    scenario,
    expectFound: bug.expectFound,
    modelled: true,
    found,
    seedsOn: withBug.seedsRun,
    firstSeed: first ? first.seed : null,
    timeToFirstMs,
    seedsOff: withoutBug.seedsRun,
    symptomSeedsOff,
    kindsOn: tally(withBug.violations),
    kindsOff: tally(withoutBug.violations),
    explanation,
    shrunkSteps,
    shrunkMessages,
    story,
    shrunkFile,
    why,
  };
}

/** The benchmark passes when every bug the catalogue expects found was found. */
export function benchmarkPassed(outcomes: readonly Pick<BugOutcome, "expectFound" | "found">[]): boolean {
  return outcomes.every((o) => !o.expectFound || o.found);
}
