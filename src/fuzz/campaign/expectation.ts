import type { ViolationKind } from "../../oracle/violation.js";
import type { Expectation } from "../../scenario/schema.js";
import type { SeededViolation } from "./seeded-violation.js";

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
 * unexpected. model-error, step-mismatch (a scripted step that did not have its expected outcome)
 * and model-timeout (a run that hung or took its worker down) are never allowed. With `judgeFinds`
 * false (a shard, which sees only a slice of the seeds), `find`/`findAny` are not judged: the
 * merge of the shards judges them.
 */
export function evaluateExpectation(
  expect: Expectation,
  violations: readonly SeededViolation[],
  seedStart: number,
  seedsRun: number,
  options: { judgeFinds?: boolean } = {},
): ExpectationVerdict {
  const reasons: string[] = [];
  const found: Partial<Record<ViolationKind, number | null>> = {};
  const unexpected = violations.filter((v) => isUnexpected(expect, v));
  const judgeFinds = options.judgeFinds !== false;
  for (const kind of judgeFinds ? expect.find : []) {
    const budget = expect.within ?? seedsRun;
    const first = violations.find((v) => countsAsFound(expect, kind, v));
    found[kind] = first ? first.seed : null;
    if (!first) reasons.push(`expected ${kind} within ${budget} seeds, found none in ${seedsRun} seeds`);
    else if (first.seed - seedStart >= budget)
      reasons.push(
        `expected ${kind} within ${budget} seeds, first found at seed ${first.seed} (${first.seed - seedStart + 1} seeds in)`,
      );
  }
  // findAny is optional for expectations built by hand (library users); the schema defaults it.
  if (judgeFinds && (expect.findAny ?? []).length > 0)
    reasons.push(...findAnyReasons(expect, violations, seedStart, seedsRun, found));
  // Failures of the model are reported apart: they say nothing about Kafka.
  const protocol = unexpected.filter((v) => !isModelFailure(v.kind));
  if (protocol.length > 0) {
    const kinds = [...new Set(protocol.map((v) => v.kind))];
    const where = protocol[0]?.brokerRelease
      ? ` (first at seed ${protocol[0].seed}, ${protocol[0].broker} on ${protocol[0].brokerRelease})`
      : ` (first at seed ${protocol[0]?.seed})`;
    reasons.push(
      `unexpected ${kinds.join(", ")}: ${protocol.length} violation${protocol.length > 1 ? "s" : ""}${where}`,
    );
  }
  const model = modelFailureReason(unexpected);
  if (model) reasons.push(model);
  return { met: reasons.length === 0, reasons, found, unexpected };
}

/** Kinds that are failures of eosfuzz's model (an exception, a broken invariant, a hung run), not findings about Kafka. */
export const MODEL_FAILURE_KINDS: readonly ViolationKind[] = ["model-error", "model-timeout"];

export function isModelFailure(kind: string): boolean {
  return (MODEL_FAILURE_KINDS as readonly string[]).includes(kind);
}

/** The reason line of a campaign whose model failed, or null: counts by kind and the first seed. */
export const MODEL_FAILURE_REASON_PREFIX = "model failures (bugs in eosfuzz, not in Kafka)";

function modelFailureReason(violations: readonly SeededViolation[]): string | null {
  const failures = violations.filter((v) => isModelFailure(v.kind));
  if (failures.length === 0) return null;
  const counts = MODEL_FAILURE_KINDS.map((k) => [k, failures.filter((v) => v.kind === k).length] as const).filter(
    ([, n]) => n > 0,
  );
  return `${MODEL_FAILURE_REASON_PREFIX}: ${counts.map(([k, n]) => `${k} x${n}`).join(", ")} (first at seed ${failures[0]?.seed})`;
}

/** At least one of `findAny` within the budget; records the first seed of each kind seen. */
function findAnyReasons(
  expect: Expectation,
  violations: readonly SeededViolation[],
  seedStart: number,
  seedsRun: number,
  found: Partial<Record<ViolationKind, number | null>>,
): string[] {
  const budget = expect.within ?? seedsRun;
  const matching = violations.filter((v) => expect.findAny.includes(v.kind) && inPlace(expect, v));
  for (const kind of expect.findAny)
    if (!(kind in found)) found[kind] = matching.find((v) => v.kind === kind)?.seed ?? null;
  const first = matching.reduce<SeededViolation | null>((a, v) => (a === null || v.seed < a.seed ? v : a), null);
  const any = `any of ${expect.findAny.join(", ")}`;
  if (!first) return [`expected ${any} within ${budget} seeds, found none in ${seedsRun} seeds`];
  if (first.seed - seedStart >= budget)
    return [
      `expected ${any} within ${budget} seeds, first found at seed ${first.seed} (${first.seed - seedStart + 1} seeds in)`,
    ];
  return [];
}

/** Where a violation happened, as `where` judges it. */
export interface ViolationPlace {
  kind: ViolationKind;
  brokerRelease?: string | undefined;
  coordinatorRelease?: string | undefined;
  /** What the seed drew makes this kind Kafka's known behaviour (a generic scenario's per-seed expectation). */
  expectedBy?: string | undefined;
}

/**
 * In a `where` place (or no `where`): the broker where it showed runs one of `brokerRelease`, or
 * the coordinator that sent its marker ran one of `coordinatorRelease`.
 */
export function inPlace(expect: Expectation, v: ViolationPlace): boolean {
  const where = expect.where;
  if (where === undefined) return true;
  const atBroker = (where.brokerRelease ?? []).includes((v.brokerRelease ?? "") as never);
  const byCoordinator = (where.coordinatorRelease ?? []).includes((v.coordinatorRelease ?? "") as never);
  return atBroker || byCoordinator;
}

/** The `where` clause in words, for reports. */
export function describeWhere(where: NonNullable<Expectation["where"]>): string {
  const parts: string[] = [];
  if (where.brokerRelease) parts.push(`at brokers on ${where.brokerRelease.join(" or ")}`);
  if (where.coordinatorRelease) parts.push(`sent by coordinators on ${where.coordinatorRelease.join(" or ")}`);
  return parts.join(", or ");
}

/** A violation the expectation does not allow (the run fails because of it). */
export function isUnexpected(expect: Expectation, v: ViolationPlace): boolean {
  if (v.kind === "model-error" || v.kind === "step-mismatch" || v.kind === "model-timeout") return true;
  if (v.expectedBy !== undefined) return false;
  const findAny = expect.findAny ?? [];
  const sought = expect.find.includes(v.kind) || findAny.includes(v.kind);
  if (expect.clean || !(sought || expect.allow.includes(v.kind))) return true;
  return sought && !inPlace(expect, v);
}

/** Does v satisfy the expectation's `find` (or `findAny`) of kind: the right kind, in a `where` place if given? */
export function countsAsFound(expect: Expectation, kind: ViolationKind, v: ViolationPlace): boolean {
  return v.kind === kind && inPlace(expect, v);
}
