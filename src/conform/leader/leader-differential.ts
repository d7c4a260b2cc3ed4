import fc from "fast-check";
import { isReleaseName, type ReleaseFlags, releaseProfile } from "../../kafka/release.js";
import type { HarnessRelease } from "../../harness/kafka-releases.js";
import type { KafkaHarness } from "../../harness/harness-process.js";
import { type FieldDifference, firstDifference } from "../compare.js";
import { type AbstractLeaderOp, concretize, leaderSequenceArbitrary } from "./leader-arbitrary.js";
import { DEFAULT_LEADER_CONFIG, type LeaderConfig, type LeaderOp, type LeaderResult } from "./leader-ops.js";
import { ModelLeader } from "./model-leader.js";

/** Informative reply fields: the model's exception classes and messages are its own. */
const INFORMATIVE = new Set(["exception", "message", "id"]);

/** The first step of a sequence where the model and Kafka answered differently. */
export interface StepDivergence {
  step: number;
  op: LeaderOp;
  difference: FieldDifference;
}

/** A sequence run on both sides: its concrete ops and the two answers to each. */
export interface LeaderComparison {
  ops: LeaderOp[];
  model: LeaderResult[];
  kafka: LeaderResult[];
  divergence: StepDivergence | null;
}

export function modelFlags(release: HarnessRelease, overrides: Partial<ReleaseFlags>): Readonly<ReleaseFlags> {
  if (!isReleaseName(release.profile))
    throw new Error(`jvm/releases.json: Kafka ${release.release}'s profile ${release.profile} is not a model release`);
  return releaseProfile(release.profile, overrides).flags;
}

/** The model's side of one sequence: concrete ops (fixed against its own log) and its answers. */
export function runModelSequence(
  flags: Readonly<ReleaseFlags>,
  abstract: readonly AbstractLeaderOp[],
  config: LeaderConfig = DEFAULT_LEADER_CONFIG,
): { ops: LeaderOp[]; results: LeaderResult[] } {
  const leader = new ModelLeader(flags, config);
  const ops: LeaderOp[] = [];
  const results: LeaderResult[] = [];
  for (const a of abstract) {
    const op = concretize(a, leader, config);
    ops.push(op);
    results.push(leader.apply(op));
  }
  return { ops, results };
}

/** The model's leader of `release` (flag `overrides` on top) answering concrete `ops` from a new log. */
export function modelAnswers(
  release: HarnessRelease,
  ops: readonly LeaderOp[],
  options: { config?: LeaderConfig; overrides?: Partial<ReleaseFlags> } = {},
): LeaderResult[] {
  const leader = new ModelLeader(modelFlags(release, options.overrides ?? {}), options.config ?? DEFAULT_LEADER_CONFIG);
  return ops.map((op) => leader.apply(op));
}

/** Kafka's side: the same concrete ops, one request. */
export async function runKafkaSequence(
  harness: KafkaHarness,
  ops: readonly LeaderOp[],
  config: LeaderConfig = DEFAULT_LEADER_CONFIG,
): Promise<LeaderResult[]> {
  const reply = await harness.request({ service: "leader", config, ops });
  const results = reply.results;
  if (!Array.isArray(results) || results.length !== ops.length)
    throw new Error(
      `the leader service answered ${Array.isArray(results) ? results.length : "no"} results for ${ops.length} ops`,
    );
  return results as LeaderResult[];
}

export function firstStepDivergence(
  ops: readonly LeaderOp[],
  model: readonly LeaderResult[],
  kafka: readonly LeaderResult[],
): StepDivergence | null {
  for (let step = 0; step < ops.length; step++) {
    const difference = firstDifference(model[step], kafka[step], INFORMATIVE);
    if (difference) return { step, op: ops[step] as LeaderOp, difference };
  }
  return null;
}

export async function compareLeaderSequence(
  harness: KafkaHarness,
  flags: Readonly<ReleaseFlags>,
  abstract: readonly AbstractLeaderOp[],
): Promise<LeaderComparison> {
  const { ops, results: model } = runModelSequence(flags, abstract);
  const kafka = await runKafkaSequence(harness, ops);
  return { ops, model, kafka, divergence: firstStepDivergence(ops, model, kafka) };
}

export interface LeaderCampaignOptions {
  harness: KafkaHarness;
  flags: Readonly<ReleaseFlags>;
  sequences: number;
  seed: number;
  /** Sequences sent before their replies are awaited (the harness answers in order). */
  inFlight?: number;
  /** Stop at the first divergent sequence (else count them all and shrink the first). */
  stopOnFirst?: boolean;
  onProgress?: (done: number) => void;
}

export interface LeaderCampaignResult {
  sequences: number;
  operations: number;
  divergentSequences: number;
  /** The first divergent sequence, shrunk by fast-check to the fewest operations that still diverge. */
  first: LeaderComparison | null;
  /** fast-check's replay of the first divergence's generation: seed and index of the chunk. */
  firstAt: { seed: number; index: number } | null;
}

/** Sequences are drawn in chunks, each from its own fast-check seed, so a run of N is the first N of a longer one. */
const CHUNK = 500;

/**
 * Differential property testing of the leader side: `sequences` random op sequences, each answered
 * by the model and by Kafka's classes, compared step by step; the first divergent sequence is
 * shrunk (fast-check's array shrinker over the abstract ops) to a minimal one.
 */
export async function runLeaderCampaign(options: LeaderCampaignOptions): Promise<LeaderCampaignResult> {
  const inFlight = options.inFlight ?? 64;
  const arbitrary = leaderSequenceArbitrary();
  let operations = 0;
  let divergentSequences = 0;
  let first: { abstract: AbstractLeaderOp[]; at: { seed: number; index: number } } | null = null;
  let done = 0;
  for (let chunk = 0; done < options.sequences; chunk++) {
    const seed = (options.seed + chunk * 7919) | 0;
    const count = Math.min(CHUNK, options.sequences - done);
    const drawn = fc.sample(arbitrary, { seed, numRuns: count });
    for (let start = 0; start < drawn.length; start += inFlight) {
      const batch = drawn.slice(start, start + inFlight);
      const compared = await Promise.all(
        batch.map((abstract) => compareLeaderSequence(options.harness, options.flags, abstract)),
      );
      compared.forEach((c, i) => {
        operations += c.ops.length;
        if (!c.divergence) return;
        divergentSequences++;
        first ??= { abstract: batch[i] as AbstractLeaderOp[], at: { seed, index: start + i } };
      });
      done += batch.length;
      options.onProgress?.(done);
      if (first && options.stopOnFirst) break;
    }
    if (first && options.stopOnFirst) break;
  }
  const found = first as { abstract: AbstractLeaderOp[]; at: { seed: number; index: number } } | null;
  const shrunk = found ? await shrinkLeaderDivergence(options.harness, options.flags, found.abstract) : null;
  return { sequences: done, operations, divergentSequences, first: shrunk, firstAt: found?.at ?? null };
}

/** fast-check's shrinker on a divergent sequence: the smallest sequence it finds that still diverges. */
export async function shrinkLeaderDivergence(
  harness: KafkaHarness,
  flags: Readonly<ReleaseFlags>,
  abstract: AbstractLeaderOp[],
): Promise<LeaderComparison> {
  let smallest: LeaderComparison | null = null;
  const property = fc.asyncProperty(leaderSequenceArbitrary(Math.max(24, abstract.length)), async (candidate) => {
    const c = await compareLeaderSequence(harness, flags, candidate);
    if (c.divergence && (smallest === null || c.ops.length <= smallest.ops.length)) smallest = c;
    return c.divergence === null;
  });
  await fc.check(property, { examples: [[abstract]], numRuns: 1, endOnFailure: false });
  if (smallest) return smallest;
  // The example no longer diverges when run again: the harness or the model is not deterministic.
  throw new Error("a divergent leader sequence did not diverge when run again (nondeterminism in the comparison)");
}
