import { Rng } from "../../sim/rng.js";
import type { StrategyInfo } from "../campaign/campaign.js";
import type { StopReason } from "../campaign/campaign-tally.js";
import { decodeSwarm, encodeSwarm, lateFirstCopyMix } from "../run-shaping/swarm.js";
import { MAX_SAVED_ENTRIES, MAX_SAVED_TARGETS, type SavedCorpus } from "./corpus-file.js";
import { CoverageCorpus, type Plan } from "./coverage-corpus.js";
import { runJobsInOrder } from "./job-batches.js";
import { externalStop, type SearchContext, settledBy } from "./search-context.js";
import { shardRange } from "../campaign/shard.js";

/**
 * Most runs planned together from the same corpus state. Fixed (never derived from the worker
 * count), so a campaign is the same with 1 or N workers.
 */
const GENERATION = 8;
const BATCH = 2;

/**
 * Size of generation `g`: 1, 1, 2, 2, 4, 4, then GENERATION. Learning after every early run is what
 * lets the search leave the random strategy's path at once; later generations are full for
 * parallelism. Derived from `g` alone, never from the worker count.
 */
export function generationSize(g: number): number {
  return Math.min(GENERATION, 2 ** Math.floor(g / 2));
}

function rerollSummary(corpus: CoverageCorpus): string {
  const r = corpus.rerolled;
  return `${r.all} whole runs, ${r.clients} clients only, ${r.link} marker links only; ${corpus.aimed} aimed a late marker copy`;
}

/** The coverage-guided strategy: generations of runs planned from the corpus, learned from in order. */
export async function runCoverageStrategy(
  ctx: SearchContext,
): Promise<{ stop: StopReason | null; info: StrategyInfo }> {
  const { start, end } = shardRange(ctx.options.seedStart, ctx.options.seeds, ctx.options.shard);
  const rng = Rng.fromSeed(`${ctx.options.seedStart}:${ctx.options.shard?.index ?? 0}`, "coverage-strategy");
  const lateFirstCopy = lateFirstCopyMix(ctx.config.spec);
  const corpus = new CoverageCorpus({
    decode: (tape) => decodeSwarm(ctx.config.spec, tape),
    encode: encodeSwarm,
    lateFirstCopy: lateFirstCopy?.settings ?? null,
  });
  const store = ctx.options.corpus ?? null;
  if (store) {
    const saved = store.load();
    corpus.importEntries(saved.entries);
    corpus.importAims(saved.aims, saved.groups);
  }
  let stop: StopReason | null = null;
  let generations = 0;
  for (let index = start; index < end && stop === null; ) {
    const size = generationSize(generations);
    const plans: Plan[] = [];
    for (let i = index; i < Math.min(end, index + size); i++) plans.push(corpus.plan(rng, i));
    index += size;
    const run = await runJobsInOrder(
      ctx,
      plans.map((p) => p.job),
      BATCH,
    );
    generations++;
    for (const [i, { outcome, atMs }] of run.outcomes.entries()) {
      ctx.tally.add(outcome, atMs);
      corpus.learn(plans[i] as Plan, outcome);
      stop = settledBy(ctx, outcome);
      if (stop) break;
    }
    stop ??= run.stop ?? externalStop(ctx);
  }
  const saved: SavedCorpus = store
    ? {
        entries: corpus.exportEntries(MAX_SAVED_ENTRIES),
        aims: corpus.exportAims(MAX_SAVED_TARGETS),
        groups: corpus.exportGroups(),
      }
    : { entries: [], aims: [], groups: [] };
  if (store) store.save(saved);
  return {
    stop,
    info: {
      name: "coverage",
      summary: `coverage-guided${store ? ` (corpus ${store.file}: started from ${corpus.imported} kept tapes, left ${saved.entries.length} and ${saved.aims.reduce((n, a) => n + a.targets.length, 0)} targets not aimed at yet)` : ""}: ${corpus.fresh} fresh swarm runs${lateFirstCopy ? ` (${corpus.freshLateFirstCopy} of them with ${lateFirstCopy.summary}, where a late first copy of a marker request is likeliest)` : ""}, ${corpus.mutated} re-rolled from ${corpus.size} kept tapes and their fault mixes (from a kept state: ${rerollSummary(corpus)}; ${generations} generations, growing from 1 to ${GENERATION})`,
      coverage: {
        corpus: corpus.size,
        generations,
        freshRuns: corpus.fresh,
        mutatedRuns: corpus.mutated,
        aimedRuns: corpus.aimed,
      },
    },
  };
}
