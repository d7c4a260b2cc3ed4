import type { StrategyInfo } from "../campaign/campaign.js";
import { type PctParams, type PctScope, pctBound } from "../run-shaping/pct.js";
import { type RunConfig, runSeed } from "../run/run-seed.js";

/** Seeds of the pilot runs that measure m (fixed: m depends on the scenario only, not on the campaign). */
const PILOT_SEEDS = [0, 1, 2];

/**
 * PCT needs m, the number of scoped messages in a run, to draw change points uniformly over the
 * run. It is measured once, in this thread, from pilot runs under PCT priorities without change
 * points (depth 1); the largest count is used, so no part of a typical run is out of reach.
 */
export function pctConfig(base: RunConfig, depth: number, scope: PctScope): RunConfig {
  let messages = 1;
  let chains = 1;
  for (const seed of PILOT_SEEDS) {
    const pilot = runSeed({ ...base, shaping: { pct: { depth: 1, scope, messagesPerRun: 1, chains: 1 } } }, { seed });
    messages = Math.max(messages, pilot.pctScope?.messages ?? 0);
    chains = Math.max(chains, pilot.pctScope?.chains ?? 0);
  }
  const pct: PctParams = { depth, scope, messagesPerRun: messages, chains };
  return { ...base, shaping: { pct } };
}

export function pctStrategyInfo(pct: PctParams, runs: number): StrategyInfo {
  const bound = pctBound(pct.depth, pct.messagesPerRun, pct.chains);
  const miss = (1 - bound) ** runs;
  return {
    name: "pct",
    summary:
      `pct: depth ${pct.depth} (${pct.depth - 1} change point${pct.depth === 2 ? "" : "s"}) over m = ${pct.messagesPerRun} scoped messages (${pct.scope}) on c = ${pct.chains} chains; ` +
      `each run hits a given depth-${pct.depth} ordering bug with probability >= 1/(c*m^${pct.depth - 1}) = ${bound.toPrecision(3)}, ` +
      `so ${runs} runs miss it with probability <= ${miss.toPrecision(3)}`,
    pct: {
      depth: pct.depth,
      scope: pct.scope,
      messagesPerRun: pct.messagesPerRun,
      chains: pct.chains,
      perRunBound: Number(bound.toPrecision(6)),
      missProbabilityBound: Number(miss.toPrecision(6)),
    },
  };
}
