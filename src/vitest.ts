/**
 * A small vitest helper (import from "eosfuzz/vitest"): assert a scenario's expectation, or
 * replay saved seed files, inside a team's own tests.
 *
 *   import { expectScenario, expectScenarioAsync, testSeedFiles } from "eosfuzz/vitest";
 *   it("our release mix survives the KIP-1228 race", () => expectScenario("./eos/our-mix.yaml", { seeds: 100 }));
 *   it("and over many more seeds, on workers", () =>
 *     expectScenarioAsync("./eos/our-mix.yaml", { seeds: 1_000, timeoutMs: 50_000 }), 60_000);
 *   testSeedFiles("./seeds");   // one test per saved seed file
 */
import { expect, it } from "vitest";
import type { CampaignResult } from "./fuzz/campaign/campaign.js";
import { planCampaign, runCampaignInThread } from "./fuzz/session/campaign-session.js";
import { filesIn } from "./fuzz/catalogue/regress.js";
import { scenarioArgument } from "./fuzz/search/replay-commands.js";
import { type ReplayResult, replay } from "./fuzz/seeds/replay.js";
import { type AsyncCampaignOptions, runCampaignAsync } from "./index.js";
import type { LoadedScenario } from "./scenario/loader.js";

function describeFailure(result: CampaignResult): string {
  const lines = [
    `scenario ${result.scenario.scenario.name} did not meet its expectation over seeds ${result.seedStart}..${result.seedStart + result.seedsRun - 1}:`,
  ];
  for (const reason of result.verdict.reasons) lines.push(`  ${reason}`);
  const first = result.verdict.unexpected[0];
  if (first) {
    lines.push(`first unexpected ${first.kind} (seed ${first.seed}): ${first.summary}`);
    for (const step of first.explanation) lines.push(`    ${step}`);
    lines.push(
      `replay: eosfuzz run --scenario ${scenarioArgument(result.scenario)} --seed-start ${first.seed} --seeds 1`,
    );
  }
  for (const s of result.scriptSteps ?? [])
    if (!s.ok) lines.push(`step ${s.index} ${s.action}: ${s.problems.join("; ")}`);
  return lines.join("\n");
}

/** Run a scenario (built-in name, file or loaded) over its seed budget and fail with its causal chain unless its expectation holds. */
export function expectScenario(
  scenario: LoadedScenario | string,
  options: { seeds?: number; seedStart?: number } = {},
): CampaignResult {
  const { campaign, expectationMet } = runCampaignInThread(planCampaign({ scenario, ...options }));
  expect(expectationMet, describeFailure(campaign)).toBe(true);
  return campaign;
}

/**
 * Like expectScenario, on worker threads and without blocking the test's thread: any strategy,
 * `workers` (default: the cores, at most 4), and `timeoutMs`, past which it stops starting runs and
 * fails saying how far it got (set it below the test's own timeout, which would fail with no word
 * of the campaign).
 */
export async function expectScenarioAsync(
  scenario: LoadedScenario | string,
  options: AsyncCampaignOptions = {},
): Promise<CampaignResult> {
  const { result, expectationMet, timedOut } = await runCampaignAsync(scenario, options);
  if (timedOut) {
    const planned = result.shard ? "its shard's" : `${result.plannedSeeds}`;
    expect.fail(
      `scenario ${result.scenario.scenario.name} did not finish within ${options.timeoutMs} ms: ${result.seedsRun} of ${planned} seeds run${result.violations.length > 0 ? `, ${result.violations.length} violations so far (first at seed ${result.violations[0]?.seed})` : ""}; give it more time, fewer seeds or more workers`,
    );
  }
  expect(expectationMet, describeFailure(result)).toBe(true);
  return result;
}

/** Replay one seed file and fail unless it reproduces its recorded trace hash. */
export function expectSeedReproduces(file: string, options: { acceptChangedTrace?: boolean } = {}): ReplayResult {
  const r = replay(file);
  const ok = r.status === "reproduced" || (r.status === "trace-changed" && options.acceptChangedTrace === true);
  const where = r.divergence
    ? r.divergence.eventIndex !== null
      ? ` at event #${r.divergence.eventIndex}`
      : ` between events #${r.divergence.fromEvent} and #${r.divergence.toEvent}`
    : "";
  expect(
    ok,
    `${file}: ${r.status}${where}: trace ${r.traceHash}, recorded ${r.recordedTraceHash} (eosfuzz replay ${file} --trace shows the events)`,
  ).toBe(true);
  return r;
}

/** Register one vitest test per seed file (*.json) in `dir`. */
export function testSeedFiles(dir: string, options: { acceptChangedTrace?: boolean } = {}): void {
  for (const file of filesIn(dir, [".json"])) {
    it(`eosfuzz seed ${file} reproduces`, () => {
      expectSeedReproduces(file, options);
    });
  }
}
