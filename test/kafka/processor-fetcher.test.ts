import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { resolveScenario } from "../../src/scenario/loader.js";
import type { TraceEvent } from "../../src/sim/trace.js";

/**
 * The Fetch requests a processor's consumer sent while another of its Fetches was outstanding on
 * the same connection (answered, or ended by a close of either side, it is no longer outstanding).
 */
function overlappingFetches(trace: readonly TraceEvent[]): string[] {
  const outstanding = new Map<number, Set<number>>();
  const overlaps: string[] = [];
  for (const e of trace) {
    const conn = e.fields.conn as number;
    if (e.kind === "net.send" && e.fields.msg === "Fetch" && e.node.endsWith("-consumer")) {
      const open = outstanding.get(conn) ?? new Set<number>();
      if (open.size > 0) overlaps.push(`t=${e.timeMs} ${e.node} conn ${conn}: ${open.size} in flight`);
      open.add(e.fields.corr as number);
      outstanding.set(conn, open);
    } else if (e.kind === "net.response") outstanding.get(conn)?.delete(e.fields.corr as number);
    else if (e.kind === "net.close" || e.kind === "net.server-close") outstanding.delete(conn);
  }
  return overlaps;
}

// AbstractFetch.prepareFetchRequests skips a node in nodesWithPendingFetchRequests: one Fetch per
// broker in flight, covering every partition it leads. The model once sent one Fetch per partition
// and started a new loop on every rewind after an abort while the last round's fetch was still
// parked at the leader (a 500 ms long poll): everything seed 4441 piled 16 on one connection and hit
// the network's bound.
describe("a processor's consumer keeps one Fetch in flight per broker", () => {
  const cases: [string, number][] = [
    ["everything", 4441],
    ["eos-processor", 1],
    ["eos-processor", 2],
    ["kip-447-zombie", 3],
  ];
  for (const [scenario, seed] of cases)
    it(`${scenario} seed ${seed}`, () => {
      const run = runSeed(runConfigFor(resolveScenario(scenario)), { seed }, { recordTrace: true });
      expect(run.violations.filter((v) => v.kind === "model-error")).toEqual([]);
      const fetches = (run.trace ?? []).filter((e) => e.kind === "net.send" && e.fields.msg === "Fetch");
      expect(fetches.length).toBeGreaterThan(20);
      expect(overlappingFetches(run.trace ?? [])).toEqual([]);
    });
});
