import { existsSync } from "node:fs";
import { type SeedTrace, serversOf, traceFailures } from "../fuzz/seeds/failure-traces.js";
import { runConfigFor } from "../fuzz/campaign/campaign.js";
import { replaySeed } from "../fuzz/seeds/replay.js";
import { readSeedFile } from "../fuzz/seeds/seed-file.js";
import type { ReleaseFlags } from "../kafka/release.js";
import { reportedFailures } from "../report/failure-selection.js";
import type { ReportContent } from "../report/report-dir.js";
import type { RunReport } from "../report/run-report.js";
import { InputError } from "../common/input-error.js";
import { type LoadedScenario, loadScenarioFile, resolveScenario } from "../scenario/loader.js";

/**
 * Trace the report's failures again (one run per distinct seed) so that the page can draw them.
 * A seed whose trace hash differs from the one the run recorded is still drawn, with a note: the
 * picture is of today's model, not of the recorded run.
 */
export function traceReport(
  report: RunReport,
  loaded: LoadedScenario | null,
  overrides: Partial<ReleaseFlags> = {},
  whyNoScenario = "",
): ReportContent {
  const failures = reportedFailures(report);
  if (failures.length === 0) return { report, traces: [], notes: [] };
  const shrunk = shrunkTrace(report);
  if (!loaded) return { report, traces: [], notes: [`No diagrams: ${whyNoScenario}`], shrunk };
  const seen = new Set<number>();
  // A run that hung or took its worker down (model-timeout) is not run again here: it could hang this process.
  const wanted = failures.filter((v) => v.kind !== "model-timeout" && !seen.has(v.seed) && seen.add(v.seed));
  const runTapes = new Map(report.violations.filter((v) => v.tape !== undefined).map((v) => [v.seed, v.tape]));
  const traces = traceFailures(
    loaded,
    wanted.map((v) => ({ seed: v.seed, traceHash: v.traceHash, tape: runTapes.get(v.seed) })),
    overrides,
    report.strategy?.runShaping ?? null,
  );
  const notes = traces
    .filter((t) => t.recordedTraceHash !== null && t.recordedTraceHash !== t.traceHash)
    .map(
      (t) =>
        `Seed ${t.seed} ran with trace hash ${t.traceHash}, not ${t.recordedTraceHash} as recorded: the model changed since the run, so its diagram shows the run as eosfuzz runs it today.`,
    );
  return { report, traces, notes, shrunk };
}

/**
 * The shrunk first failure, from the tape the run saved (it holds the reduced scenario the shrink
 * may have made): replayed for the page's first diagram. Null when there is none or it is unreadable.
 */
function shrunkTrace(report: RunReport): SeedTrace | null {
  const file = report.shrunk?.savedTo;
  if (!file || !existsSync(file)) return null;
  try {
    const loaded = readSeedFile(file);
    const r = replaySeed(loaded);
    const config = runConfigFor(loaded.scenario, loaded.seedFile.overrides as Partial<ReleaseFlags>);
    return {
      scenario: r.scenario,
      seed: null,
      traceHash: r.traceHash,
      recordedTraceHash: r.recordedTraceHash,
      events: r.trace,
      eventCount: r.events,
      violations: r.violations,
      servers: serversOf(config),
    };
  } catch (e) {
    if (e instanceof InputError) return null;
    throw e;
  }
}

/**
 * The scenario a saved report ran: its source file if it still has the same content hash, else the
 * built-in scenario of the same name with that hash (a report made on another machine), else none.
 */
export function scenarioOfReport(report: RunReport): { loaded: LoadedScenario | null; why: string } {
  const candidates: (() => LoadedScenario)[] = [];
  if (existsSync(report.scenarioSource)) candidates.push(() => loadScenarioFile(report.scenarioSource));
  candidates.push(() => resolveScenario(report.scenario));
  for (const load of candidates) {
    try {
      const loaded = load();
      if (loaded.contentHash === report.scenarioHash) return { loaded, why: "" };
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
    }
  }
  return {
    loaded: null,
    why: `scenario ${report.scenario} with content hash ${report.scenarioHash} was not found (neither ${report.scenarioSource} nor a built-in scenario has that content), so the failing seeds cannot be run again.`,
  };
}
