/**
 * A small vitest helper (import from "eosfuzz/vitest"): assert a scenario's expectation, or
 * replay saved seed files, inside a team's own tests.
 *
 *   import { expectScenario, testSeedFiles } from "eosfuzz/vitest";
 *   it("our release mix survives the KIP-1228 race", () => expectScenario("./eos/our-mix.yaml", { seeds: 100 }));
 *   testSeedFiles("./seeds");   // one test per saved seed file
 */
import { expect, it } from "vitest";
import type { CampaignResult } from "./fuzz/campaign.js";
import { planCampaign, runCampaignInThread } from "./fuzz/campaign-session.js";
import { filesIn } from "./fuzz/regress.js";
import { type ReplayResult, replay } from "./fuzz/replay.js";
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
    lines.push(`replay: eosfuzz run --scenario ${result.scenario.source} --seed-start ${first.seed} --seeds 1`);
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
