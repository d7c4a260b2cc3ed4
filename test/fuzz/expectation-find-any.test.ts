import { describe, expect, it } from "vitest";
import type { SeededViolation } from "../../src/fuzz/campaign/seeded-violation.js";
import { evaluateExpectation } from "../../src/fuzz/campaign/expectation.js";
import { expectationSchema } from "../../src/scenario/schema.js";

const v = (kind: SeededViolation["kind"], seed: number, brokerRelease?: string): SeededViolation => ({
  kind,
  seed,
  traceHash: "0".repeat(16),
  summary: kind,
  explanation: [],
  atMs: 0,
  ...(brokerRelease ? { brokerRelease } : {}),
});

describe("expectation findAny", () => {
  const expectation = expectationSchema.parse({
    findAny: ["lost-write", "aborted-read"],
    within: 10,
    allow: ["torn-transaction"],
  });

  it("is met by any one of its kinds within the budget; the others may be absent", () => {
    const r = evaluateExpectation(expectation, [v("aborted-read", 3), v("torn-transaction", 3)], 0, 20);
    expect(r).toMatchObject({ met: true, reasons: [], found: { "aborted-read": 3, "lost-write": null } });
  });

  it("is not met when the first of them comes after the budget, or none comes", () => {
    expect(evaluateExpectation(expectation, [v("lost-write", 12)], 0, 20).reasons).toEqual([
      "expected any of lost-write, aborted-read within 10 seeds, first found at seed 12 (13 seeds in)",
    ]);
    expect(evaluateExpectation(expectation, [], 0, 20).reasons).toEqual([
      "expected any of lost-write, aborted-read within 10 seeds, found none in 20 seeds",
    ]);
  });

  it("still reports kinds it does not allow, and model-error always", () => {
    const r = evaluateExpectation(expectation, [v("lost-write", 1), v("duplicate", 2), v("model-error", 4)], 0, 20);
    expect(r.met).toBe(false);
    expect(r.unexpected.map((x) => x.kind)).toEqual(["duplicate", "model-error"]);
    // The model's failure is its own reason, never mixed into the protocol's.
    expect(r.reasons).toEqual([
      "unexpected duplicate: 1 violation (first at seed 2)",
      "model failures (bugs in eosfuzz, not in Kafka): model-error x1 (first at seed 4)",
    ]);
    expect(evaluateExpectation(expectation, [v("lost-write", 1), v("model-error", 4)], 0, 20).met).toBe(false);
  });

  it("honours where: a kind found only at other releases does not count", () => {
    const where = expectationSchema.parse({ findAny: ["stale-marker"], within: 5, where: { brokerRelease: ["4.1"] } });
    const r = evaluateExpectation(where, [v("stale-marker", 1, "4.2.1")], 0, 5);
    expect(r.met).toBe(false);
    expect(r.unexpected).toHaveLength(1);
  });
});
