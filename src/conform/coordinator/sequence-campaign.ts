import fc from "fast-check";
import { type FieldDifference, firstDifference } from "../compare.js";

/** Informative reply fields: the model's exception classes and messages are its own. */
const INFORMATIVE = new Set(["exception", "message", "id"]);

/** The first step of a sequence where the model and Kafka answered differently. */
export interface StepDivergence<Op> {
  step: number;
  op: Op;
  difference: FieldDifference;
}

/** A sequence run on both sides: its concrete ops and the two answers to each. */
export interface SequenceComparison<Op, R> {
  ops: Op[];
  model: R[];
  kafka: R[];
  divergence: StepDivergence<Op> | null;
}

export function firstStepDivergence<Op, R>(
  ops: readonly Op[],
  model: readonly R[],
  kafka: readonly R[],
): StepDivergence<Op> | null {
  for (let step = 0; step < ops.length; step++) {
    const difference = firstDifference(model[step], kafka[step], INFORMATIVE);
    if (difference) return { step, op: ops[step] as Op, difference };
  }
  return null;
}

/**
 * A divergence's class: the op's name and the path of the first difference without array indices
 * ("endTxn error", "prepareFenceProducerEpoch metadata.producerEpoch"), so a campaign can say how
 * many kinds of disagreement it met, not only how many sequences.
 */
export function divergenceClass<Op extends { op: string }>(d: StepDivergence<Op>): string {
  return `${d.op.op} ${d.difference.path.replace(/\[\d+\]/g, "[]") || "(reply)"}`;
}

export interface SequenceSurface<A, Op extends { op: string }, C extends SequenceComparison<Op, unknown>> {
  /** Abstract sequences of at most `maxLength` ops. */
  arbitrary(maxLength?: number): fc.Arbitrary<A>;
  /** Both sides' answers to one abstract sequence. */
  compare(abstract: A): Promise<C>;
  /** The abstract sequence's op count (the shrinker's arbitrary must hold it). */
  length(abstract: A): number;
}

export interface SequenceCampaignOptions {
  sequences: number;
  seed: number;
  /** Sequences sent before their replies are awaited (the harness answers in order). */
  inFlight?: number;
  stopOnFirst?: boolean;
  onProgress?: (done: number) => void;
}

export interface SequenceCampaignResult<C> {
  sequences: number;
  operations: number;
  divergentSequences: number;
  /** Divergent sequences by divergenceClass, in the order first met. */
  classes: Record<string, number>;
  /** The first divergent sequence, shrunk by fast-check to the fewest operations that still diverge. */
  first: C | null;
  firstAt: { seed: number; index: number } | null;
}

/** Sequences are drawn in chunks, each from its own fast-check seed, so a run of N is the first N of a longer one. */
const CHUNK = 500;

/**
 * Differential property testing of one surface: `sequences` random op sequences, each answered by the
 * model and by Kafka's classes and compared step by step; the first divergent one is shrunk.
 */
export async function runSequenceCampaign<A, Op extends { op: string }, C extends SequenceComparison<Op, unknown>>(
  surface: SequenceSurface<A, Op, C>,
  options: SequenceCampaignOptions,
): Promise<SequenceCampaignResult<C>> {
  const inFlight = options.inFlight ?? 64;
  const arbitrary = surface.arbitrary();
  let operations = 0;
  let divergentSequences = 0;
  const classes: Record<string, number> = {};
  let first: { abstract: A; at: { seed: number; index: number } } | null = null;
  let done = 0;
  for (let chunk = 0; done < options.sequences; chunk++) {
    const seed = (options.seed + chunk * 7919) | 0;
    const count = Math.min(CHUNK, options.sequences - done);
    const drawn = fc.sample(arbitrary, { seed, numRuns: count });
    for (let start = 0; start < drawn.length; start += inFlight) {
      const batch = drawn.slice(start, start + inFlight);
      const compared = await Promise.all(batch.map((abstract) => surface.compare(abstract)));
      compared.forEach((c, i) => {
        operations += c.ops.length;
        if (!c.divergence) return;
        divergentSequences++;
        const key = divergenceClass(c.divergence);
        classes[key] = (classes[key] ?? 0) + 1;
        first ??= { abstract: batch[i] as A, at: { seed, index: start + i } };
      });
      done += batch.length;
      options.onProgress?.(done);
      if (first && options.stopOnFirst) break;
    }
    if (first && options.stopOnFirst) break;
  }
  const found = first as { abstract: A; at: { seed: number; index: number } } | null;
  const shrunk = found ? await shrinkDivergence(surface, found.abstract) : null;
  return { sequences: done, operations, divergentSequences, classes, first: shrunk, firstAt: found?.at ?? null };
}

/** fast-check's shrinker on a divergent sequence: the smallest sequence it finds that still diverges. */
export async function shrinkDivergence<A, Op extends { op: string }, C extends SequenceComparison<Op, unknown>>(
  surface: SequenceSurface<A, Op, C>,
  abstract: A,
): Promise<C> {
  let smallest: C | null = null;
  const property = fc.asyncProperty(surface.arbitrary(Math.max(24, surface.length(abstract))), async (candidate) => {
    const c = await surface.compare(candidate);
    if (c.divergence && (smallest === null || c.ops.length <= smallest.ops.length)) smallest = c;
    return c.divergence === null;
  });
  await fc.check(property, { examples: [[abstract]], numRuns: 1, endOnFailure: false });
  if (smallest) return smallest;
  throw new Error("a divergent sequence did not diverge when run again (nondeterminism in the comparison)");
}
