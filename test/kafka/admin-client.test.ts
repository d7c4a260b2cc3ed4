import { describe, expect, it } from "vitest";
import { Errors } from "../../src/kafka/common/errors.js";
import { loadScenario, runSeed } from "../../src/index.js";

type Fields = Record<string, unknown>;

/** The admin client's trace events of one seed, and its violations. */
function adminRun(scenario: string, seed: number) {
  const r = runSeed(loadScenario(scenario), { seed }, { recordTrace: true });
  const of = (kind: string) => r.trace.filter((e) => e.kind === kind).map((e) => e.fields as Fields);
  return {
    sent: of("admin.abort-transaction"),
    results: of("admin.abort-result"),
    described: of("admin.describe-producers"),
    appends: r.trace.filter((e) => e.kind === "marker.append").map((e) => ({ node: e.node, ...(e.fields as Fields) })),
    kinds: new Set(r.violations.map((v) => v.kind)),
  };
}

describe("KafkaAdminClient.abortTransaction (KIP-664, AbortTransactionHandler)", () => {
  it("AbortTransactionHandler.buildRequest: ABORT with the spec's epochs, no TransactionVersion, the version ApiVersions allows", () => {
    const run = adminRun("admin-abort-hanging", 0);
    expect(run.sent.length).toBeGreaterThan(0);
    // The 4.1 broker advertises WriteTxnMarkers v1, the 4.2.0 brokers v2 (NetworkClient discovery is on for admin clients).
    for (const s of run.sent) expect(s.v).toBe(s.broker === "broker-2" ? 1 : 2);
    // TransactionsCommand.AbortTransactionCommand: coordinatorEpoch().orElse(0), never -1.
    for (const d of run.described) expect(d.ce as number).toBeGreaterThanOrEqual(0);
  });

  it("a 4.1 leader takes the admin's ABORT by the legacy rule and the hung partition's transaction ends (UnifiedLog marker checks)", () => {
    const run = adminRun("admin-abort-hanging", 0);
    expect(run.results.some((r) => r.error === Errors.NONE)).toBe(true);
    // The coordinator (4.2.0, v2 to a v1 broker) never writes there, so the ABORT appended at broker-2 is the admin's.
    expect(run.appends.some((a) => a.node === "broker-2")).toBe(true);
    // The coordinator still hangs in PrepareX and had decided COMMIT for some: the operator's abort contradicts it.
    expect(run.kinds.has("hanging-transaction")).toBe(true);
    expect(run.kinds.has("outcome-mismatch")).toBe(true);
  });

  it("TV2: an admin abort for an epoch the producer moved past gets INVALID_PRODUCER_EPOCH and never aborts a newer transaction", () => {
    let rejected = 0;
    for (let seed = 0; seed < 10; seed++) {
      const run = adminRun("admin-abort-stale-epoch", seed);
      rejected += run.results.filter((r) => r.error === Errors.INVALID_PRODUCER_EPOCH).length;
      expect(run.kinds.has("stale-marker")).toBe(false);
    }
    expect(rejected).toBeGreaterThan(0);
  });

  it("TV1: the same admin abort passes the legacy rule (equal epoch) and aborts the next transaction (stale-marker)", () => {
    const kinds = new Set<string>();
    for (let seed = 0; seed < 5; seed++)
      for (const k of adminRun("admin-abort-stale-epoch-tv1", seed).kinds) kinds.add(k);
    expect(kinds.has("stale-marker")).toBe(true);
  });
});
