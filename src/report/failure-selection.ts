import type { ReportedViolation, RunReport } from "./run-report.js";

/** Bound on the failures a report traces again (diagrams, ShiViz logs): one per signature. */
export const MAX_REPORTED_FAILURES = 10;

/** What makes two violations "the same failure" for a report: kind, where, and whether it was expected. */
export function signatureOf(v: ReportedViolation): string {
  return `${v.kind}@${v.brokerRelease ?? "-"}${v.unexpected ? "!" : ""}`;
}

/**
 * The failures a report shows in depth: the first violation (lowest seed) of each signature,
 * unexpected ones first, then by seed. A pure function of the report, so `run --out`, `report` and
 * `merge` pick the same seeds.
 */
export function reportedFailures(report: RunReport, max = MAX_REPORTED_FAILURES): ReportedViolation[] {
  const first = new Map<string, ReportedViolation>();
  for (const v of report.violations) if (!first.has(signatureOf(v))) first.set(signatureOf(v), v);
  return [...first.values()]
    .sort((a, b) => Number(b.unexpected) - Number(a.unexpected) || a.seed - b.seed)
    .slice(0, max);
}

export function shivizFileName(seed: number): string {
  return `trace-${seed}.shiviz.log`;
}
