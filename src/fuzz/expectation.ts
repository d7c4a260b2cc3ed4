import type { ViolationKind } from "../oracle/violation.js";
import type { Expectation } from "../scenario/schema.js";
import type { SeededViolation } from "./campaign.js";

export interface ExpectationVerdict {
  met: boolean;
  /** One line per reason the expectation failed (empty when met). */
  reasons: string[];
  /** First seed at which each expected kind was found (null: not found). */
  found: Partial<Record<ViolationKind, number | null>>;
  /** Violations that the expectation does not allow. */
  unexpected: SeededViolation[];
}

/**
 * Does a campaign's outcome match the scenario's declared expectation? `clean` allows nothing;
 * otherwise every `find` kind, and at least one `findAny` kind, must show up within `within` seeds
 * of the start, and anything not in `find`, `findAny` or `allow` (or found outside `where`) is
 * unexpected. model-error and step-mismatch (a scripted step that did not have its expected
 * outcome) are never allowed.
 */
export function evaluateExpectation(expect: Expectation, violations: readonly SeededViolation[], seedStart: number, seedsRun: number): ExpectationVerdict {
  const reasons: string[] = [];
  const found: Partial<Record<ViolationKind, number | null>> = {};
  const allowed = new Set<ViolationKind>([...expect.find, ...(expect.findAny ?? []), ...expect.allow]);
  const sought = new Set<ViolationKind>([...expect.find, ...(expect.findAny ?? [])]);
  const places = expect.where ? new Set<string>(expect.where.brokerRelease) : null;
  const unexpected = violations.filter((v) => {
    if (v.kind === "model-error" || v.kind === "step-mismatch") return true;
    if (expect.clean || !allowed.has(v.kind)) return true;
    return places !== null && sought.has(v.kind) && !places.has(v.brokerRelease ?? "");
  });
  for (const kind of expect.find) {
    const budget = expect.within ?? seedsRun;
    const first = violations.find((v) => v.kind === kind && (places === null || places.has(v.brokerRelease ?? "")));
    found[kind] = first ? first.seed : null;
    if (!first) reasons.push(`expected ${kind} within ${budget} seeds, found none in ${seedsRun} seeds`);
    else if (first.seed - seedStart >= budget) reasons.push(`expected ${kind} within ${budget} seeds, first found at seed ${first.seed} (${first.seed - seedStart + 1} seeds in)`);
  }
  // findAny is optional for expectations built by hand (library users); the schema defaults it.
  if ((expect.findAny ?? []).length > 0) reasons.push(...findAnyReasons(expect, violations, places, seedStart, seedsRun, found));
  if (unexpected.length > 0) {
    const kinds = [...new Set(unexpected.map((v) => v.kind))];
    const where = unexpected[0]?.brokerRelease ? ` (first at seed ${unexpected[0].seed}, ${unexpected[0].broker} on ${unexpected[0].brokerRelease})` : ` (first at seed ${unexpected[0]?.seed})`;
    reasons.push(`unexpected ${kinds.join(", ")}: ${unexpected.length} violation${unexpected.length > 1 ? "s" : ""}${where}`);
  }
  return { met: reasons.length === 0, reasons, found, unexpected };
}

/** At least one of `findAny` within the budget; records the first seed of each kind seen. */
function findAnyReasons(
  expect: Expectation,
  violations: readonly SeededViolation[],
  places: Set<string> | null,
  seedStart: number,
  seedsRun: number,
  found: Partial<Record<ViolationKind, number | null>>,
): string[] {
  const budget = expect.within ?? seedsRun;
  const matching = violations.filter((v) => expect.findAny.includes(v.kind) && (places === null || places.has(v.brokerRelease ?? "")));
  for (const kind of expect.findAny) if (!(kind in found)) found[kind] = matching.find((v) => v.kind === kind)?.seed ?? null;
  const first = matching.reduce<SeededViolation | null>((a, v) => (a === null || v.seed < a.seed ? v : a), null);
  const any = `any of ${expect.findAny.join(", ")}`;
  if (!first) return [`expected ${any} within ${budget} seeds, found none in ${seedsRun} seeds`];
  if (first.seed - seedStart >= budget) return [`expected ${any} within ${budget} seeds, first found at seed ${first.seed} (${first.seed - seedStart + 1} seeds in)`];
  return [];
}
