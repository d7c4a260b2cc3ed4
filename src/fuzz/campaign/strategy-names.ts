/**
 * The names of the search strategies, apart from their registry (search/strategies.ts) so that a
 * campaign's result can name its strategy without importing the searches that produce it.
 */
export const STRATEGY_NAMES = ["random", "swarm", "pct", "coverage", "exhaustive"] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];
