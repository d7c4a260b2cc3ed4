import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { behaviourFingerprint, digestOf, fingerprintLabels } from "../../src/fuzz/catalogue/behaviour-fingerprint.js";

/** test/fingerprint.json: the behaviour fingerprint as last recorded (npm run fingerprint:record). */
export interface RecordedFingerprint {
  seeds: number;
  overall: string;
  groups: Record<string, string>;
}

export const recorded = JSON.parse(
  readFileSync(new URL("../fingerprint.json", import.meta.url), "utf8"),
) as RecordedFingerprint;

/**
 * The fingerprint's groups are checked in two halves, each in a test file of its own, so that the
 * suite's two workers share the longest check (every scenario and mutant over its seeds) instead of
 * one of them running it alone at the end. Half `half` takes every other label, in record order.
 */
export function checkFingerprintHalf(half: 0 | 1): void {
  const labels = fingerprintLabels().filter((_, i) => i % 2 === half);
  const fingerprint = behaviourFingerprint({ seeds: recorded.seeds, only: new Set(labels) });
  const now = Object.fromEntries(fingerprint.groups.map((g) => [g.label, g.digest]));
  const changed = labels.filter((label) => recorded.groups[label] !== now[label]);
  // The message names the groups, so a failing CI log says what moved and how to re-record.
  expect(
    changed,
    `groups changed (npm run fingerprint:record, and say why in the commit): ${changed.join(", ")}`,
  ).toEqual([]);
}

/** The record's overall digest is the one its groups make (so the two halves together check it). */
export function recordedOverall(): string {
  return digestOf(
    fingerprintLabels()
      .map((label) => recorded.groups[label])
      .join("\n"),
  );
}
